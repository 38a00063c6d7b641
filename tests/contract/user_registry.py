"""UserRegistry: consent versions, child mode, devices, and the erasures in progress that the
background jobs must leave alone."""

from __future__ import annotations

import threading
import time

import pytest

from engram.domain.lifecycle.archive import shard_of
from engram.domain.model import Scope
from engram.domain.records import UserState

from ._base import Contract


class UserRegistryContract(Contract):
    def test_an_unknown_user_has_the_default_state(self, store, alice):
        assert store.state(alice) == UserState()

    def test_ensure_makes_the_user_known_once(self, store, alice):
        store.ensure(alice)
        store.ensure(alice)
        assert store.state(alice) == UserState(known=True)

    def test_consent_starts_at_version_one(self, store, alice):
        state = store.set_consent(alice, True, 30)
        assert (state.long_term_consent, state.consent_version, state.age, state.child_mode, state.known) == (
            True, 1, 30, False, True)
        assert state.consent_at is not None and store.state(alice) == state

    def test_each_decision_is_a_new_version_and_no_age_keeps_the_age(self, store, alice):
        store.ensure(alice)
        store.set_consent(alice, True, 40)
        state = store.set_consent(alice, False, None)
        assert (state.long_term_consent, state.consent_version, state.age) == (False, 2, 40)

    def test_a_child_never_gets_long_term_memory(self, store, alice):
        child = store.set_consent(alice, True, 9)
        assert (child.long_term_consent, child.child_mode, child.age) == (False, True, 9)
        still = store.set_consent(alice, True, None)
        assert (still.long_term_consent, still.child_mode) == (True, True)
        grown = store.set_consent(alice, True, 14)
        assert (grown.long_term_consent, grown.child_mode, grown.consent_version) == (True, False, 3)

    def test_consent_history_lists_every_decision_in_order(self, store, alice):
        store.set_consent(alice, True, 30)
        store.set_consent(alice, True, 8)
        store.set_consent(alice, False, None)
        history = store.consent_history(alice)
        assert [(h["long_term"], h["age"], h["version"]) for h in history] == [
            (True, 30, 1), (False, 8, 2), (False, 8, 3)]
        assert all(set(h) == {"long_term", "age", "version", "at"} for h in history)

    def test_linking_a_device_makes_the_user_known(self, store, alice):
        link = store.link_device(alice, "phone-1", "phone")
        assert (link.device_id, link.kind) == ("phone-1", "phone") and link.linked_at is not None
        assert store.state(alice).known

    def test_relinking_a_device_changes_its_kind_not_its_link_time(self, store, alice):
        first = store.link_device(alice, "d1", "phone")
        again = store.link_device(alice, "d1", "tablet")
        assert (again.kind, again.linked_at) == ("tablet", first.linked_at)
        assert store.devices(alice) == [again]

    def test_devices_are_listed_in_link_order(self, store, alice):
        for device in ("zeta", "alpha", "mid"):
            store.link_device(alice, device, "speaker")
        assert [d.device_id for d in store.devices(alice)] == ["zeta", "alpha", "mid"]

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_state_consent_and_devices_are_per_owner(self, store, alice, request, who):
        other = request.getfixturevalue(who)
        store.set_consent(alice, True, 30)
        store.link_device(alice, "d1", "phone")
        assert store.state(other) == UserState()
        assert store.devices(other) == [] and store.consent_history(other) == []


class ErasingUsersContract(Contract):
    """``deps.erasure_jobs.mark_erasing`` is what marks a user; the registry says who is marked and
    fences jobs against a mark."""

    def test_erasing_users_are_the_marked_ones_per_tenant(self, deps, store, alice, bob, stranger):
        store.ensure(bob)
        deps.erasure_jobs.mark_erasing(alice)
        deps.erasure_jobs.mark_erasing(stranger)
        assert store.erasing_users(alice.tenant) == {alice}
        assert {alice, stranger} <= store.erasing_users() and bob not in store.erasing_users()
        assert store.is_erasing(alice) and not store.is_erasing(bob)

    def test_the_fence_names_the_erasing_among_its_users(self, deps, store, alice, bob, stranger):
        deps.erasure_jobs.mark_erasing(alice)
        with store.erasure_fence([alice, bob]) as erasing:
            assert erasing == {alice}
        with store.erasure_fence([]) as erasing:
            assert erasing == set()
        assert not store.is_erasing(stranger)

    def test_a_mark_waits_for_the_fence_of_that_user(self, deps, store, alice, bob):
        marked = threading.Event()
        mark = threading.Thread(target=lambda: (deps.erasure_jobs.mark_erasing(alice), marked.set()), daemon=True)
        with store.erasure_fence([alice, bob]) as erasing:
            assert erasing == set()
            mark.start()
            assert not marked.wait(0.5), "a job's writes under the fence come before the mark"
            assert not store.is_erasing(alice)
        mark.join(10)
        assert marked.is_set() and store.is_erasing(alice)

    def test_a_mark_of_someone_else_does_not_wait(self, deps, store, alice, bob):
        with store.erasure_fence([alice]):
            started = time.monotonic()
            deps.erasure_jobs.mark_erasing(bob)
            assert time.monotonic() - started < 2 and store.is_erasing(bob)

    @pytest.mark.parametrize("shards", [1, 3])
    def test_a_fan_out_meets_every_user_once_and_none_being_erased(self, deps, store, owners, shards):
        ids = ["alice", "a:b", "a", "名字", "b'); DROP TABLE users;--", "z" * 200, "A", "ä", "x|y", "0"]
        users = [owners(u) for u in ids]
        tenant = users[0].tenant
        for scope in users:
            store.ensure(scope)
        deps.erasure_jobs.mark_erasing(users[1])
        expected = sorted((s.tenant, s.user_id) for s in users[2:] + users[:1])

        def fan_out(**only) -> list[tuple[str, str]]:
            met = []
            for shard in range(shards):
                after: Scope | None = None if only else Scope(tenant, "")  # all tenants: from just before it
                while True:
                    users, after = store.users_in_shard(shard, shards, after, 3, **only)
                    assert len(users) <= 3 and all(shard_of(s.tenant, s.user_id, shards) == shard for s in users)
                    met += [(s.tenant, s.user_id) for s in users if s.tenant == tenant]
                    if after is None or after.tenant != tenant:
                        break  # no user left, or past this test's tenant: other tests' users
            return met

        for met in (fan_out(tenant=tenant), fan_out()):
            assert sorted(met) == expected and len(met) == len(set(met))
