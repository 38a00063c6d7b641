"""SessionStore: one device session's turns and versioned fields."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.records import SessionRef
from engram.errors import NotFound, ValidationFailed

from ._base import Contract, turn

T0 = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)


def turns(*indexes: int):
    return [turn(f"m{i}", T0 + timedelta(minutes=i), f"turn {i}") for i in indexes]


class SessionStoreContract(Contract):
    @pytest.fixture
    def ref(self, alice):
        return SessionRef(alice, "phone", "s1")

    def test_fresh_events_come_back_by_id_for_their_owner_until_they_expire(self, store, alice, bob):
        store.note_fresh(alice, [("ev-1", [0.5, -0.25]), ("ev-2", None)])
        store.note_fresh(alice, [("ev-1", [0.5, -0.25]), ("ev-3", [1.0, 0.0])])  # a retried write
        assert store.fresh(alice) == [("ev-1", [0.5, -0.25]), ("ev-2", None), ("ev-3", [1.0, 0.0])]
        assert store.fresh(bob) == [] and store.count_user(alice) == 1
        store.note_fresh(bob, [])
        assert store.count_user(bob) == 0
        assert store.delete_user(alice) == 1 and store.fresh(alice) == [] and store.count_user(alice) == 0

    def test_an_unknown_session_is_empty(self, store, ref):
        ctx = store.get(ref)
        assert (ctx.turns, ctx.fields, ctx.version, ctx.ttl_s) == ([], {}, 0, 0)

    def test_turns_come_back_in_client_time_order_as_json(self, store, ref):
        store.append_turns(ref, turns(3, 1, 2))
        ctx = store.get(ref)
        assert [t["message_id"] for t in ctx.turns] == ["m1", "m2", "m3"]
        assert ctx.turns[0] == {"message_id": "m1", "role": "user", "content": "turn 1",
                                "client_ts": "2026-05-01T10:01:00Z"}
        assert ctx.version == 0 and 0 < ctx.ttl_s <= store.ttl

    def test_a_repeated_message_id_overwrites_itself(self, store, ref):
        store.append_turns(ref, turns(1, 2))
        store.append_turns(ref, [turn("m1", T0 + timedelta(minutes=5), "edited")])
        ctx = store.get(ref)
        assert [(t["message_id"], t["content"]) for t in ctx.turns] == [("m2", "turn 2"), ("m1", "edited")]

    def test_only_the_newest_turns_by_client_time_are_kept(self, store, ref):
        n = store.max_turns
        store.append_turns(ref, turns(*range(n + 5, 0, -1)))  # sent newest first
        kept = [t["message_id"] for t in store.get(ref).turns]
        assert kept == [f"m{i}" for i in range(6, n + 6)]

    def test_appending_nothing_creates_nothing(self, store, ref, alice):
        store.append_turns(ref, [])
        assert store.sessions_of(alice) == [] and store.count_user(alice) == 0

    def test_fields_merge_and_none_removes_one(self, store, ref):
        assert store.set_fields(ref, {"topic": "travel", "city": "Kyoto"}) == 1
        assert store.set_fields(ref, {"city": None, "budget": {"eur": 900, "tags": ["cheap", "东京"]}}) == 2
        ctx = store.get(ref)
        assert ctx.fields == {"topic": "travel", "budget": {"eur": 900, "tags": ["cheap", "东京"]}}
        assert ctx.version == 2

    def test_fields_keep_the_turns(self, store, ref):
        store.append_turns(ref, turns(1))
        store.set_fields(ref, {"a": 1})
        assert [t["message_id"] for t in store.get(ref).turns] == ["m1"]

    def test_rollback_to_a_version_restores_it_as_a_new_version(self, store, ref):
        store.set_fields(ref, {"a": 1})
        store.set_fields(ref, {"a": 2, "b": 3})
        assert store.rollback(ref, version=1) == 3
        ctx = store.get(ref)
        assert ctx.fields == {"a": 1} and ctx.version == 3

    def test_rollback_by_steps_counts_back_from_the_newest(self, store, ref):
        for value in ("x", "y", "z"):
            store.set_fields(ref, {"v": value})
        assert store.rollback(ref, steps=2) == 4
        assert store.get(ref).fields == {"v": "x"}

    @pytest.mark.parametrize("steps", [0, 2, -1])
    def test_steps_out_of_range_are_invalid(self, store, ref, steps):
        store.set_fields(ref, {"a": 1})
        store.set_fields(ref, {"a": 2})
        with pytest.raises(ValidationFailed) as failed:
            store.rollback(ref, steps=steps)
        assert failed.value.field == "steps"

    def test_an_unknown_version_is_not_found(self, store, ref):
        store.set_fields(ref, {"a": 1})
        with pytest.raises(NotFound) as failed:
            store.rollback(ref, version=7)
        assert failed.value.field == "version"

    def test_rollback_without_versions_is_not_found(self, store, ref):
        store.append_turns(ref, turns(1))
        with pytest.raises(NotFound) as failed:
            store.rollback(ref, steps=1)
        assert failed.value.field == "version"

    def test_only_the_newest_versions_are_kept(self, store, ref):
        kept = store.versions_kept
        for i in range(kept + 2):
            store.set_fields(ref, {"i": i})
        with pytest.raises(NotFound):
            store.rollback(ref, version=2)
        assert store.rollback(ref, version=3) == kept + 3
        assert store.get(ref).fields == {"i": 2}

    def test_sessions_of_lists_each_device_session_of_the_user_only(self, store, alice, bob):
        store.append_turns(SessionRef(alice, "phone", "s2"), turns(1))
        store.set_fields(SessionRef(alice, "car", "s1"), {"a": 1})
        store.append_turns(SessionRef(bob, "tv", "s9"), turns(1))
        found = {(r.device_id, r.session_id) for r in store.sessions_of(alice)}
        assert found == {("phone", "s2"), ("car", "s1")}
        assert all(r.scope == alice for r in store.sessions_of(alice))

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_another_owner_of_the_same_ids_sees_nothing(self, store, ref, request, who):
        other = SessionRef(request.getfixturevalue(who), ref.device_id, ref.session_id)
        store.append_turns(ref, turns(1))
        store.set_fields(ref, {"secret": "x"})
        ctx = store.get(other)
        assert (ctx.turns, ctx.fields, ctx.version) == ([], {}, 0)
        assert store.sessions_of(other.scope) == [] and store.count_user(other.scope) == 0

    def test_delete_user_removes_every_key_of_the_user_and_says_how_many(self, store, alice, bob):
        full, bare = SessionRef(alice, "phone", "s1"), SessionRef(alice, "car", "s2")
        store.append_turns(full, turns(1, 2))
        store.set_fields(full, {"a": 1})          # fields, turns, turn bodies, versions
        store.append_turns(bare, turns(3))         # fields, turns, turn bodies
        store.append_turns(SessionRef(bob, "phone", "s1"), turns(1))
        bob_before = store.count_user(bob)
        assert store.count_user(alice) == 4 + 3 + 1  # and the user's session index
        assert store.delete_user(alice) == 8
        assert store.count_user(alice) == 0 and store.sessions_of(alice) == []
        assert store.get(full).turns == [] and store.count_user(bob) == bob_before == 4

    def test_delete_of_an_unknown_user_deletes_nothing(self, store, alice):
        assert store.delete_user(alice) == 0

    def test_delete_session_removes_that_device_session_only(self, store, ref, alice, bob):
        other_device, other_session = SessionRef(alice, "car", ref.session_id), SessionRef(alice, ref.device_id, "s2")
        for r in (ref, other_device, other_session, SessionRef(bob, ref.device_id, ref.session_id)):
            store.append_turns(r, turns(1, 2))
            store.set_fields(r, {"topic": "travel"})
        bob_before = store.count_user(bob)
        assert store.delete_session(ref) == 4  # fields, turns, turn bodies, versions
        ctx = store.get(ref)
        assert (ctx.turns, ctx.fields, ctx.version) == ([], {}, 0)
        assert {(r.device_id, r.session_id) for r in store.sessions_of(alice)} == {("car", "s1"), ("phone", "s2")}
        assert store.count_user(alice) == 4 + 4 + 1
        assert store.get(other_device).fields == {"topic": "travel"} and store.count_user(bob) == bob_before

    def test_delete_session_again_or_unknown_deletes_nothing(self, store, ref, alice):
        store.append_turns(ref, turns(1))
        assert store.delete_session(ref) == 3
        assert store.delete_session(ref) == 0 and store.count_user(alice) == 0
        store.append_turns(ref, turns(2))  # a cleared session starts again from nothing
        assert [t["message_id"] for t in store.get(ref).turns] == ["m2"] and store.get(ref).version == 0

    def test_owners_whose_ids_join_alike_share_no_session(self, store, owners, lookalikes):
        # (T, "x:y") on device "d" and (T:x, "y") on device "d" once shared one Redis key; so did
        # user "u" on device "a:b" and user "u:a" on device "b" (the first pair below).
        tenant = lookalikes[0].tenant
        pairs = [SessionRef(owners("u", tenant_id=tenant), "a:b", "s"),
                 SessionRef(owners("u:a", tenant_id=tenant), "b", "s")]
        refs = pairs + [SessionRef(o, "d", "s:1") for o in lookalikes]
        for i, ref in enumerate(refs):
            store.append_turns(ref, [turn(f"m{i}", T0, f"turn of {i}")])
            store.set_fields(ref, {"owner": i})
        for i, ref in enumerate(refs):
            ctx = store.get(ref)
            assert [t["content"] for t in ctx.turns] == [f"turn of {i}"] and ctx.fields == {"owner": i}
            assert store.sessions_of(ref.scope) == [ref] and store.count_user(ref.scope) == 4 + 1
        assert store.delete_user(refs[0].scope) == 5 and store.delete_user(refs[2].scope) == 5
        assert [store.count_user(r.scope) for r in refs] == [0, 5, 0, 5, 5, 5]
        assert store.get(refs[1]).fields == {"owner": 1} and store.get(refs[3]).fields == {"owner": 3}

    def test_redact_turns_empties_every_sessions_turns_and_keeps_the_rest(self, store, ref, alice, bob):
        laptop, theirs = SessionRef(alice, "laptop", "s2"), SessionRef(bob, "phone", "s1")
        store.append_turns(ref, turns(1, 2))
        store.set_fields(ref, {"topic": "dinosaurs"})
        store.append_turns(laptop, turns(3))
        store.append_turns(theirs, turns(1))
        ttl = store.get(ref).ttl_s
        assert store.redact_turns(alice) == 3
        ctx = store.get(ref)
        assert ctx.turns == [{"message_id": f"m{i}", "role": "user", "content": "",
                              "client_ts": f"2026-05-01T10:0{i}:00Z"} for i in (1, 2)]
        assert (ctx.fields, ctx.version) == ({"topic": "dinosaurs"}, 1) and 0 < ctx.ttl_s <= ttl
        assert [t["content"] for t in store.get(laptop).turns] == [""]
        assert store.redact_turns(alice) == 0
        assert [t["content"] for t in store.get(theirs).turns] == ["turn 1"]

    def test_redact_turns_of_a_user_without_sessions_changes_nothing(self, store, alice):
        assert store.redact_turns(alice) == 0 and store.count_user(alice) == 0
