"""PatternStore: behaviour habits as aggregate counts."""

from __future__ import annotations

import pytest

from ._base import Contract


class PatternStoreContract(Contract):
    def test_replace_stores_the_counts_most_frequent_first(self, store, alice):
        assert store.replace(alice, {("plan", 0, 9): 2, ("emotion", 4, 22): 5, ("fact", 0, 9): 2}) == 3
        assert store.patterns(alice) == [{"type": "emotion", "weekday": 4, "hour": 22, "count": 5},
                                         {"type": "fact", "weekday": 0, "hour": 9, "count": 2},
                                         {"type": "plan", "weekday": 0, "hour": 9, "count": 2}]

    def test_ties_are_ordered_by_weekday_then_hour(self, store, alice):
        store.replace(alice, {("plan", 3, 7): 1, ("plan", 1, 20): 1, ("plan", 1, 8): 1})
        assert [(p["weekday"], p["hour"]) for p in store.patterns(alice)] == [(1, 8), (1, 20), (3, 7)]

    def test_replace_replaces_everything(self, store, alice):
        store.replace(alice, {("plan", 0, 9): 2, ("fact", 1, 9): 1})
        store.replace(alice, {("task", 2, 10): 7})
        assert store.patterns(alice) == [{"type": "task", "weekday": 2, "hour": 10, "count": 7}]
        assert store.replace(alice, {}) == 0 and store.patterns(alice) == []

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_patterns_are_per_owner(self, store, alice, request, who):
        other = request.getfixturevalue(who)
        store.replace(alice, {("plan", 0, 9): 2})
        store.replace(other, {("fact", 1, 1): 1})
        assert [p["type"] for p in store.patterns(alice)] == ["plan"]
        assert [p["type"] for p in store.patterns(other)] == ["fact"]

    def test_delete_user_deletes_that_users_rows(self, store, alice, bob):
        store.replace(alice, {("plan", 0, 9): 2, ("fact", 1, 9): 1})
        store.replace(bob, {("plan", 0, 9): 2})
        assert store.delete_user(alice) == 2
        assert store.patterns(alice) == [] and len(store.patterns(bob)) == 1
