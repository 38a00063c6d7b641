"""PendingWrites: the writes a derived store missed, in order per user and layer, each once.

``due``, ``dead_letters`` and ``stats`` read every user's rows: these tests look only at their
own tenant's (a real database holds other runs' rows), and at ``stats`` only for what their own
rows must make true whatever else is there."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ._base import Contract

T0 = datetime(2026, 5, 2, 7, 30, tzinfo=UTC)
FAR = datetime(2100, 1, 1, tzinfo=UTC)
# Layers of the tests' own: the local stack's catch-up (which applies the real ones) leaves them be.
A, B = "contract-a", "contract-b"
LAYERS = (A, B)


def mine(rows: list[dict], *scopes) -> list[dict]:
    owners = {(s.tenant, s.user_id) for s in scopes}
    return [r for r in rows if (r["tenant"], r["user_id"]) in owners]


class PendingWritesContract(Contract):
    part = "pending"

    def test_a_batch_is_recorded_once_per_layer(self, store, alice):
        assert store.add(alice, A, "b1", ["m1", "m2"], T0, b"\x00payload")
        assert not store.add(alice, A, "b1", ["m1", "m2"], T0, b"other")
        assert store.add(alice, B, "b1", ["m1", "m2"], T0, b"\x00payload")
        assert store.layers(alice) == {A, B}
        assert mine(store.due(FAR, 10_000, ("episodes",)), alice) == []  # only the layers asked for
        [row] = [r for r in mine(store.due(FAR, 10_000, LAYERS), alice) if r["layer"] == A]
        assert row["payload"] == b"\x00payload" and row["message_ids"] == ["m1", "m2"]
        assert row["said_at"] == T0 and row["attempts"] == 0 and row["batch_key"] == "b1"

    def test_only_the_oldest_write_of_a_user_and_layer_is_due(self, store, alice, bob):
        for key in ("b1", "b2", "b3"):
            store.add(alice, A, key, [key], T0, b"x")
        store.add(bob, A, "b1", ["b1"], T0, b"x")
        heads = mine(store.due(FAR, 10_000, LAYERS), alice, bob)
        assert sorted((r["user_id"], r["batch_key"]) for r in heads) == [("alice", "b1"), ("bob", "b1")]
        first = next(r for r in heads if r["user_id"] == "alice")
        store.done(first["seq"])
        assert [r["batch_key"] for r in mine(store.due(FAR, 10_000, LAYERS), alice)] == ["b2"]

    def test_a_postponed_write_is_not_due_until_its_time_and_holds_back_the_next(self, store, alice):
        store.add(alice, B, "b1", ["m1"], T0, b"x")
        store.add(alice, B, "b2", ["m2"], T0, b"x")
        [head] = mine(store.due(FAR, 10_000, LAYERS), alice)
        later = datetime.now(UTC) + timedelta(hours=1)
        store.postpone(head["seq"], later, "boom", attempted=True, dead=False)
        assert mine(store.due(datetime.now(UTC), 10_000, LAYERS), alice) == []  # b2 waits behind b1
        [again] = mine(store.due(later + timedelta(seconds=1), 10_000, LAYERS), alice)
        assert again["seq"] == head["seq"] and again["attempts"] == 1
        store.postpone(head["seq"], later, None, attempted=False, dead=False)
        assert mine(store.due(FAR, 10_000, LAYERS), alice)[0]["attempts"] == 1  # a store away costs no attempt

    def test_a_claimed_write_is_held_until_done_or_postponed(self, store, alice):
        store.add(alice, A, "b1", ["m1"], T0, b"x")
        [head] = mine(store.due(FAR, 10_000, LAYERS), alice)
        assert store.claim(head["seq"], 60) and not store.claim(head["seq"], 60)
        store.postpone(head["seq"], T0, None, attempted=False, dead=False)
        assert store.claim(head["seq"], 60)  # let go by the postponement
        store.done(head["seq"])
        assert not store.claim(head["seq"], 60) and store.layers(alice) == set()

    def test_a_dead_letter_steps_aside_and_can_be_replayed(self, store, alice):
        store.add(alice, A, "b1", ["m1"], T0, b"x")
        store.add(alice, A, "b2", ["m2"], T0, b"x")
        [head] = mine(store.due(FAR, 10_000, LAYERS), alice)
        store.postpone(head["seq"], FAR, "ValueError: bad", attempted=True, dead=True)
        assert [r["batch_key"] for r in mine(store.due(FAR, 10_000, LAYERS), alice)] == ["b2"]
        [dead] = mine(store.dead_letters(10_000), alice)
        assert dead["seq"] == head["seq"] and dead["last_error"] == "ValueError: bad" and "payload" not in dead
        assert store.layers(alice) == {A}
        assert store.replay([dead["seq"]]) == 1 and store.replay([dead["seq"]]) == 0
        assert mine(store.dead_letters(10_000), alice) == []
        [back] = [r for r in mine(store.due(FAR, 10_000, LAYERS), alice) if r["seq"] == dead["seq"]]
        assert back["attempts"] == 0

    def test_stats_count_what_waits_per_layer(self, store, alice):
        store.add(alice, A, "b1", ["m1"], T0, b"x")
        stats = store.stats()
        assert stats[A]["pending"] >= 1 and stats[A]["oldest_s"] >= 0

    def test_the_oldest_turn_still_pending_is_known(self, store, alice):
        long_ago = datetime(1901, 3, 4, 5, 6, tzinfo=UTC)  # older than anything another run leaves
        store.add(alice, A, "b1", ["m1"], long_ago, b"x")
        [head] = mine(store.due(FAR, 10_000, LAYERS), alice)
        store.postpone(head["seq"], FAR, "x", attempted=True, dead=True)
        assert store.oldest_said_at() == long_ago  # a dead letter holds its day too

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_writes_are_per_owner(self, store, alice, request, who):
        other = request.getfixturevalue(who)
        store.add(alice, A, "b1", ["m1"], T0, b"x")
        assert store.layers(other) == set()
        assert store.add(other, A, "b1", ["m1"], T0, b"x")

    def test_lookalike_owners_do_not_share_writes(self, store, lookalikes):
        store.add(lookalikes[0], A, "b1", ["m1"], T0, b"x")
        assert [store.layers(s) for s in lookalikes] == [{A}, set(), set(), set()]
