"""TurnLog: every accepted turn, once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.model import Role

from ._base import Contract, turn

T0 = datetime(2026, 5, 2, 7, 30, tzinfo=UTC)
COLUMNS = {"session_id", "device_id", "message_id", "role", "content", "truncated", "client_ts", "received_at"}


class TurnLogContract(Contract):
    def test_append_returns_the_new_ids_and_a_retry_writes_nothing(self, store, alice):
        batch = [turn("m1", T0, "hi"), turn("m2", T0 + timedelta(seconds=1), "there", Role.ASSISTANT)]
        assert store.append(alice, "s1", "phone", batch) == {"m1", "m2"}
        assert store.append(alice, "s1", "phone", batch) == set()
        assert len(store.turns(alice)) == 2
        assert store.append(alice, "s1", "phone", []) == set()

    def test_turns_come_back_in_client_time_order_with_their_columns(self, store, alice):
        store.append(alice, "s1", "phone", [turn("b", T0 + timedelta(minutes=1), "second"), turn("a", T0, "first"),
                                            turn("c", T0 + timedelta(minutes=1), "tie")])
        rows = store.turns(alice)
        assert [r["message_id"] for r in rows] == ["a", "b", "c"]
        assert set(rows[0]) == COLUMNS
        assert {k: rows[0][k] for k in ("session_id", "device_id", "role", "content", "truncated", "client_ts")} == {
            "session_id": "s1", "device_id": "phone", "role": "user", "content": "first", "truncated": False,
            "client_ts": T0}
        assert rows[0]["received_at"] is not None

    def test_the_same_message_at_another_time_is_another_row(self, store, alice):
        store.append(alice, "s1", "phone", [turn("m1", T0)])
        assert store.append(alice, "s1", "phone", [turn("m1", T0 + timedelta(hours=1))]) == {"m1"}
        assert len(store.turns(alice, ["m1"])) == 2

    def test_without_content_only_the_turn_is_kept(self, store, alice):
        store.append(alice, "s1", "tablet", [turn("m1", T0, "I am nine")], keep_content=False)
        [row] = store.turns(alice)
        assert row["content"] is None and row["message_id"] == "m1"

    def test_turns_can_be_read_by_message_id(self, store, alice):
        store.append(alice, "s1", "phone", [turn(f"m{i}", T0 + timedelta(seconds=i)) for i in range(4)])
        assert [r["message_id"] for r in store.turns(alice, ["m3", "m1", "nope"])] == ["m1", "m3"]
        assert store.turns(alice, []) == []

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_turns_are_per_owner(self, store, alice, request, who):
        other = request.getfixturevalue(who)
        store.append(alice, "s1", "phone", [turn("m1", T0)])
        assert store.turns(other) == [] and store.turns(other, ["m1"]) == []
        assert store.append(other, "s1", "phone", [turn("m1", T0)]) == {"m1"}

    def test_delete_user_deletes_that_users_turns(self, store, alice, bob):
        store.append(alice, "s1", "phone", [turn("m1", T0), turn("m2", T0 + timedelta(seconds=1))])
        store.append(bob, "s1", "phone", [turn("m1", T0)])
        assert store.delete_user(alice) == 2
        assert store.turns(alice) == [] and len(store.turns(bob)) == 1

    def test_redact_content_drops_every_turns_content_and_keeps_the_rows(self, store, alice, bob):
        store.append(alice, "s1", "phone", [turn("m1", T0, "I am nine"),
                                            turn("m2", T0 + timedelta(seconds=1), "eg1:opaque", Role.ASSISTANT)])
        store.append(alice, "s2", "tablet", [turn("m3", T0 + timedelta(days=3), "gone too")])
        store.append(bob, "s1", "phone", [turn("m1", T0, "mine")])
        before = store.turns(alice)
        assert store.redact_content(alice) == 3
        after = store.turns(alice)
        assert [r["content"] for r in after] == [None, None, None]
        assert [{k: v for k, v in r.items() if k != "content"} for r in after] == [
            {k: v for k, v in r.items() if k != "content"} for r in before]
        assert store.redact_content(alice) == 0
        assert [r["content"] for r in store.turns(bob)] == ["mine"]
