"""IdempotencyStore: the first result of a write, replayed for every retry with its key."""

from __future__ import annotations

import uuid

import pytest

from engram.domain.model import Scope
from engram.errors import Conflict, Unprocessable

from ._base import Contract, new_tenant


class IdempotencyContract(Contract):
    def age_claim(self, store, scope: Scope, key: str, seconds: float) -> None:
        """Make the claim of ``key`` ``seconds`` older (its owner died that long ago)."""
        raise NotImplementedError

    @pytest.fixture
    def scope(self):
        return Scope(new_tenant(), "u1")

    @pytest.fixture
    def key(self):
        return f"idem-{uuid.uuid4().hex}"

    def test_the_first_claim_owns_the_key(self, store, scope, key):
        assert store.claim(scope, key, "sha-a") is None

    def test_a_claim_in_progress_is_a_conflict(self, store, scope, key):
        store.claim(scope, key, "sha-a")
        with pytest.raises(Conflict) as busy:
            store.claim(scope, key, "sha-a")
        assert busy.value.field == "Idempotency-Key" and busy.value.status == 409

    def test_another_request_under_the_same_key_is_unprocessable(self, store, scope, key):
        store.claim(scope, key, "sha-a")
        with pytest.raises(Unprocessable) as reused:
            store.claim(scope, key, "sha-b")
        assert reused.value.field == "Idempotency-Key"
        store.complete(scope, key, 201, {"ok": True})
        with pytest.raises(Unprocessable):
            store.claim(scope, key, "sha-b")

    def test_a_completed_key_replays_its_first_result(self, store, scope, key):
        store.claim(scope, key, "sha-a")
        store.complete(scope, key, 202, {"accepted": 3, "ids": ["m1", "m2"], "nested": {"x": None}})
        for _ in range(2):
            assert store.claim(scope, key, "sha-a") == (202, {"accepted": 3, "ids": ["m1", "m2"],
                                                               "nested": {"x": None}})

    def test_release_gives_the_key_back_but_not_once_completed(self, store, scope, key):
        store.claim(scope, key, "sha-a")
        store.release(scope, key)
        assert store.claim(scope, key, "sha-b") is None
        store.complete(scope, key, 200, {"n": 1})
        store.release(scope, key)
        assert store.claim(scope, key, "sha-b") == (200, {"n": 1})

    def test_keys_are_per_tenant_and_user(self, store, scope, key):
        store.claim(scope, key, "sha-a")
        store.complete(scope, key, 200, {"mine": True})
        assert store.claim(Scope(new_tenant(), scope.user_id), key, "sha-other") is None
        assert store.claim(Scope(scope.tenant, "someone-else"), key, "sha-other") is None
        assert store.claim(scope, key, "sha-a") == (200, {"mine": True})

    def test_a_stale_claim_is_taken_over_by_the_same_request(self, store, scope, key):
        store.claim(scope, key, "sha-a")
        self.age_claim(store, scope, key, 6 * 60)
        assert store.claim(scope, key, "sha-a") is None
        with pytest.raises(Conflict):  # the takeover is a fresh claim
            store.claim(scope, key, "sha-a")

    def test_a_stale_claim_is_not_taken_over_by_another_request(self, store, scope, key):
        store.claim(scope, key, "sha-a")
        self.age_claim(store, scope, key, 6 * 60)
        with pytest.raises(Unprocessable):
            store.claim(scope, key, "sha-b")

    def test_a_recent_claim_is_not_stale(self, store, scope, key):
        store.claim(scope, key, "sha-a")
        self.age_claim(store, scope, key, 4 * 60)
        with pytest.raises(Conflict):
            store.claim(scope, key, "sha-a")

    def test_a_record_expires_after_a_day_and_the_key_starts_afresh(self, store, scope, key):
        store.claim(scope, key, "sha-a")
        store.complete(scope, key, 201, {"v": 1})
        self.age_claim(store, scope, key, 25 * 3600)
        assert store.claim(scope, key, "sha-b") is None  # expired: even another request may use it
        with pytest.raises(Conflict):
            store.claim(scope, key, "sha-b")

    def test_a_stale_completed_key_still_replays(self, store, scope, key):
        store.claim(scope, key, "sha-a")
        store.complete(scope, key, 201, {"v": 1})
        self.age_claim(store, scope, key, 3600)
        assert store.claim(scope, key, "sha-a") == (201, {"v": 1})
