"""IdempotencyStore: the first result of a write, replayed for every retry with its key."""

from __future__ import annotations

import uuid

import pytest

from engram.errors import Conflict, Unprocessable

from ._base import Contract, new_tenant


class IdempotencyContract(Contract):
    def age_claim(self, store, tenant: str, key: str, seconds: float) -> None:
        """Make the claim of ``key`` ``seconds`` older (its owner died that long ago)."""
        raise NotImplementedError

    @pytest.fixture
    def tenant(self):
        return new_tenant()

    @pytest.fixture
    def key(self):
        return f"idem-{uuid.uuid4().hex}"

    def test_the_first_claim_owns_the_key(self, store, tenant, key):
        assert store.claim(tenant, key, "sha-a") is None

    def test_a_claim_in_progress_is_a_conflict(self, store, tenant, key):
        store.claim(tenant, key, "sha-a")
        with pytest.raises(Conflict) as busy:
            store.claim(tenant, key, "sha-a")
        assert busy.value.field == "Idempotency-Key" and busy.value.status == 409

    def test_another_request_under_the_same_key_is_unprocessable(self, store, tenant, key):
        store.claim(tenant, key, "sha-a")
        with pytest.raises(Unprocessable) as reused:
            store.claim(tenant, key, "sha-b")
        assert reused.value.field == "Idempotency-Key"
        store.complete(tenant, key, 201, {"ok": True})
        with pytest.raises(Unprocessable):
            store.claim(tenant, key, "sha-b")

    def test_a_completed_key_replays_its_first_result(self, store, tenant, key):
        store.claim(tenant, key, "sha-a")
        store.complete(tenant, key, 202, {"accepted": 3, "ids": ["m1", "m2"], "nested": {"x": None}})
        for _ in range(2):
            assert store.claim(tenant, key, "sha-a") == (202, {"accepted": 3, "ids": ["m1", "m2"],
                                                               "nested": {"x": None}})

    def test_release_gives_the_key_back_but_not_once_completed(self, store, tenant, key):
        store.claim(tenant, key, "sha-a")
        store.release(tenant, key)
        assert store.claim(tenant, key, "sha-b") is None
        store.complete(tenant, key, 200, {"n": 1})
        store.release(tenant, key)
        assert store.claim(tenant, key, "sha-b") == (200, {"n": 1})

    def test_keys_are_per_tenant(self, store, tenant, key):
        store.claim(tenant, key, "sha-a")
        store.complete(tenant, key, 200, {"mine": True})
        assert store.claim(new_tenant(), key, "sha-other") is None

    def test_a_stale_claim_is_taken_over_by_the_same_request(self, store, tenant, key):
        store.claim(tenant, key, "sha-a")
        self.age_claim(store, tenant, key, 6 * 60)
        assert store.claim(tenant, key, "sha-a") is None
        with pytest.raises(Conflict):  # the takeover is a fresh claim
            store.claim(tenant, key, "sha-a")

    def test_a_stale_claim_is_not_taken_over_by_another_request(self, store, tenant, key):
        store.claim(tenant, key, "sha-a")
        self.age_claim(store, tenant, key, 6 * 60)
        with pytest.raises(Unprocessable):
            store.claim(tenant, key, "sha-b")

    def test_a_recent_claim_is_not_stale(self, store, tenant, key):
        store.claim(tenant, key, "sha-a")
        self.age_claim(store, tenant, key, 4 * 60)
        with pytest.raises(Conflict):
            store.claim(tenant, key, "sha-a")

    def test_a_stale_completed_key_still_replays(self, store, tenant, key):
        store.claim(tenant, key, "sha-a")
        store.complete(tenant, key, 201, {"v": 1})
        self.age_claim(store, tenant, key, 3600)
        assert store.claim(tenant, key, "sha-a") == (201, {"v": 1})
