"""WrappedKeys: one wrapped data key per user, never replaced, deletable."""

from __future__ import annotations

import os

import pytest

from engram.errors import Conflict

from ._base import Contract


class WrappedKeysContract(Contract):
    def test_a_user_without_a_key_loads_nothing(self, store, alice):
        assert store.load(alice) is None and store.delete(alice) is False

    def test_the_first_key_is_kept_and_a_second_refused(self, store, alice):
        kid, wrapped = os.urandom(8), os.urandom(64)
        assert store.insert(alice, kid, wrapped, "alias/k") is True
        assert store.insert(alice, os.urandom(8), os.urandom(64), "alias/k") is False
        assert store.load(alice) == (kid, wrapped)

    def test_delete_removes_the_key(self, store, alice):
        store.insert(alice, os.urandom(8), os.urandom(64), "alias/k")
        assert store.delete(alice) is True and store.load(alice) is None
        assert store.insert(alice, b"k" * 8, b"w", "alias/k") is True

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_keys_are_per_owner(self, store, alice, request, who):
        other = request.getfixturevalue(who)
        store.insert(alice, os.urandom(8), os.urandom(64), "alias/k")
        assert store.load(other) is None and store.delete(other) is False and store.load(alice) is not None

    def test_no_key_is_stored_for_a_user_marked_for_erasure(self, store, deps, alice, bob):
        deps.erasure_jobs.mark_erasing(alice)
        with pytest.raises(Conflict) as refused:
            store.insert(alice, os.urandom(8), os.urandom(64), "alias/k")
        assert refused.value.field == "user_id" and store.load(alice) is None
        assert store.insert(bob, os.urandom(8), os.urandom(64), "alias/k") is True
