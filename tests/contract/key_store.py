"""KeyStore: per-user envelope encryption and crypto-shredding. The implementation is always
``EnvelopeKeyStore``; what differs is what it stands on (``make_wrapped``, ``make_kms``), so this
contract holds the real pair and the fake pair to the same behaviour."""

from __future__ import annotations

import time

import pytest

from engram.adapters.postgres.key_store import EnvelopeKeyStore
from engram.domain.privacy import crypto
from engram.errors import Conflict, DecryptionFailed, KeyDestroyed

from ._base import Contract


class KeyStoreContract(Contract):
    def make_wrapped(self, deps):
        raise NotImplementedError

    def make_kms(self, deps):
        raise NotImplementedError

    @pytest.fixture
    def parts(self, deps):
        return self.make_wrapped(deps), self.make_kms(deps)

    @pytest.fixture
    def store(self, parts):
        return EnvelopeKeyStore(*parts, ttl_s=300, max_cached=16)

    def another_process(self, parts) -> EnvelopeKeyStore:
        return EnvelopeKeyStore(*parts, ttl_s=300, max_cached=16)

    def test_text_round_trips_and_is_not_readable_sealed(self, store, alice):
        token = store.seal(alice, "allergic to peanuts 花生", "turn")
        assert crypto.is_sealed(token) and "peanuts" not in token
        assert store.open(alice, token, "turn") == "allergic to peanuts 花生"

    def test_bytes_round_trip(self, store, alice):
        assert store.open_bytes(alice, store.seal_bytes(alice, b"\x00raw\xff", "x"), "x") == b"\x00raw\xff"

    def test_a_value_opens_only_for_its_purpose(self, store, alice):
        token = store.seal(alice, "secret", "archive:event.text")
        with pytest.raises(DecryptionFailed):
            store.open(alice, token, "turn")

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_another_owner_cannot_open_it(self, store, alice, request, who):
        other = request.getfixturevalue(who)
        token = store.seal(alice, "secret")
        store.seal(other, "their own")
        with pytest.raises((KeyDestroyed, DecryptionFailed)):
            store.open(other, token)

    def test_a_key_is_made_on_first_use_and_then_kept(self, store, alice):
        assert not store.has_key(alice)
        key = store.data_key(alice)
        assert store.has_key(alice) and store.data_key(alice) == key and len(key.key) == 32

    def test_another_process_opens_what_this_one_sealed(self, store, parts, alice):
        token = store.seal(alice, "hello")
        other = self.another_process(parts)
        assert other.open(alice, token) == "hello" and other.data_key(alice) == store.data_key(alice)

    def test_shredding_makes_every_sealed_value_unreadable_for_good(self, store, parts, alice):
        token = store.seal(alice, "my diagnosis")
        assert store.shred(alice) is True and not store.has_key(alice)
        with pytest.raises(KeyDestroyed):
            store.open(alice, token)
        fresh = store.seal(alice, "a new start")
        with pytest.raises(KeyDestroyed):
            self.another_process(parts).open(alice, token)
        assert store.open(alice, fresh) == "a new start"

    def test_shred_is_idempotent_and_per_user(self, store, alice, bob):
        token = store.seal(bob, "bob's")
        store.seal(alice, "alice's")
        assert store.shred(alice) is True and store.shred(alice) is False
        assert store.open(bob, token) == "bob's"

    def test_a_blind_name_is_stable_per_user_and_differs_between_users(self, store, alice, bob):
        one = store.blind(alice, "person", "Tom")
        assert store.blind(alice, "person", "Tom") == one
        assert store.blind(bob, "person", "Tom") != one and "Tom" not in one

    def test_owners_whose_ids_join_alike_have_their_own_keys(self, store, lookalikes):
        tokens = [store.seal(o, f"owner {i}", "turn") for i, o in enumerate(lookalikes)]
        assert len({store.data_key(o).key for o in lookalikes}) == len(lookalikes)
        for i, owner in enumerate(lookalikes):
            assert store.open(owner, tokens[i], "turn") == f"owner {i}"
            for j, token in enumerate(tokens):
                if j != i:
                    with pytest.raises((KeyDestroyed, DecryptionFailed)):
                        store.open(owner, token, "turn")
        assert store.shred(lookalikes[0]) and all(store.has_key(o) for o in lookalikes[1:])

    def test_a_shred_in_another_process_is_seen_here_within_the_recheck_time(self, parts, alice):
        here = EnvelopeKeyStore(*parts, ttl_s=300, max_cached=16, recheck_s=0.2)
        elsewhere = EnvelopeKeyStore(*parts, ttl_s=300, max_cached=16, recheck_s=0.2)
        token = here.seal(alice, "I am allergic to penicillin")
        assert elsewhere.open(alice, token) == "I am allergic to penicillin"  # now cached there too
        here.shred(alice)
        time.sleep(0.3)
        with pytest.raises(KeyDestroyed):
            elsewhere.open(alice, token)
        fresh = elsewhere.seal(alice, "new")  # sealed under a new key, never the destroyed one
        assert crypto.key_id_of(crypto.from_text(fresh)) != crypto.key_id_of(crypto.from_text(token))
        assert here.open(alice, fresh) == "new"

    def test_no_data_key_is_made_for_a_user_marked_for_erasure(self, store, deps, alice, bob):
        deps.erasure_jobs.mark_erasing(alice)
        with pytest.raises(Conflict):
            store.seal(alice, "late")
        assert not store.has_key(alice)
        assert store.open(bob, store.seal(bob, "fine")) == "fine"

    def test_a_read_never_makes_a_key(self, store, alice):
        assert store.existing_key(alice) is None
        assert store.blind_terms(alice, ["peanut"], create=False) == []
        assert not store.has_key(alice)
        made = store.blind_terms(alice, ["peanut"])
        assert store.existing_key(alice) is not None and store.blind_terms(alice, ["peanut"], create=False) == made

    def test_digests_and_blind_terms_are_per_user(self, store, alice, stranger):
        assert store.digest(alice, "I have diabetes") == store.digest(alice, "I have diabetes")
        assert store.digest(alice, "I have diabetes") != store.digest(stranger, "I have diabetes")
        assert store.blind_terms(alice, ["asthma"]) != store.blind_terms(stranger, ["asthma"])
