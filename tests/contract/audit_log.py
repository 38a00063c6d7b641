"""AuditLog: an append-only record of writes to long-term memory."""

from __future__ import annotations

import pytest

from engram.domain.records import AuditEntry

from ._base import Contract

COLUMNS = {"at", "actor", "action", "store", "item_id", "source", "confidence", "before", "after"}


class AuditLogContract(Contract):
    def test_entries_come_back_in_append_order_with_json_sides(self, store, alice):
        store.append(alice, [AuditEntry("ingest", "create", "graph", "e-1", "rule", 0.7, None,
                                        {"object": "tea", "tags": ("a", "b")}),
                             AuditEntry("api", "update", "graph", "e-1", "human", 0.9, {"confidence": 0.7},
                                        {"confidence": 0.9})])
        store.append(alice, [AuditEntry("system", "downweight", "episodes")])
        rows = store.entries(alice)
        assert [r["action"] for r in rows] == ["create", "update", "downweight"]
        assert set(rows[0]) == COLUMNS and rows[0]["at"] is not None
        assert rows[0]["after"] == {"object": "tea", "tags": ["a", "b"]} and rows[0]["before"] is None
        assert (rows[1]["before"], rows[1]["confidence"], rows[1]["source"]) == ({"confidence": 0.7}, 0.9, "human")
        assert (rows[2]["item_id"], rows[2]["source"], rows[2]["confidence"], rows[2]["after"]) == (
            None, None, None, None)

    def test_appending_nothing_writes_nothing(self, store, alice):
        store.append(alice, [])
        assert store.entries(alice) == []

    def test_entries_accumulate_and_are_never_replaced(self, store, alice):
        entry = AuditEntry("api", "delete", "graph", "e-9")
        store.append(alice, [entry])
        store.append(alice, [entry])
        assert len(store.entries(alice)) == 2

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_entries_are_per_owner(self, store, alice, request, who):
        store.append(alice, [AuditEntry("api", "create", "graph")])
        assert store.entries(request.getfixturevalue(who)) == []

    def test_redact_takes_the_keys_out_of_one_stores_entries_and_says_so(self, store, alice, bob):
        created = AuditEntry("ingest", "create", "graph", "e-1", "rule", 0.7, None,
                             {"predicate": "has_preference", "object": "tea", "message_ids": ["m1"]})
        corrected = AuditEntry("human", "correct", "graph", "e-1", "human", 1.0, {"object": "tea", "confidence": 0.7},
                               {"object": "green tea", "confidence": 1.0})
        feedback = AuditEntry("user", "feedback", "graph", "e-1", "user", None, {"weight": 1.0}, {"weight": 0.8})
        elsewhere = AuditEntry("ingest", "create", "episodes", "ev-1", "rule", 0.5, None, {"object": "other"})
        store.append(alice, [created, corrected, feedback, elsewhere])
        store.append(bob, [created])
        before = store.entries(alice)
        assert store.redact(alice, "graph", ("object",)) == 2
        rows = store.entries(alice)
        assert (rows[0]["before"], rows[0]["after"]) == (
            None, {"predicate": "has_preference", "message_ids": ["m1"], "redacted": True})
        assert (rows[1]["before"], rows[1]["after"]) == ({"confidence": 0.7, "redacted": True},
                                                         {"confidence": 1.0, "redacted": True})
        assert rows[2:] == before[2:]  # nothing to take, or another store's
        assert [{k: v for k, v in r.items() if k not in ("before", "after")} for r in rows] == [
            {k: v for k, v in r.items() if k not in ("before", "after")} for r in before]
        assert store.redact(alice, "graph", ("object",)) == 0
        assert store.entries(alice) == rows
        assert store.entries(bob)[0]["after"]["object"] == "tea"
