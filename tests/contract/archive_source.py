"""ArchiveSource: a day's turns and task changes by shard, the day's counts and chunks, and the
ledger of verified days. Days are far in the past and unique per test: the hypertables and the
ledger are shared by every tenant, so only what this test wrote for its own day is asserted."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engram.domain.lifecycle.archive import Held, shard_of, task_row_key, turn_row_key
from engram.domain.working.tasks import TaskStatus

from ._base import Contract, at, far_day, turn

SHARDS = 4
TURN_COLUMNS = {"tenant", "user_id", "session_id", "device_id", "message_id", "role", "content", "content_sha256",
                "truncated", "client_ts", "received_at"}
TASK_COLUMNS = {"tenant", "user_id", "task_id", "status", "metadata", "duration_ms", "ts", "recorded_at"}


class ArchiveSourceContract(Contract):
    @pytest.fixture
    def day(self, store):
        day = far_day()
        yield day
        store.unmark(day)
        store.drop_day(day)

    def write(self, deps, scope, day, n: int = 2) -> None:
        deps.turns.append(scope, "s1", "phone", [turn(f"m{i}", at(day, 10, i)) for i in range(n)])
        deps.tasks.record(scope, "t1", TaskStatus.CREATED, {"title": "x"}, at(day, 9))
        deps.tasks.record(scope, "t1", TaskStatus.IN_PROGRESS, {}, at(day, 11))

    def test_turns_of_a_day_are_read_by_the_users_shard(self, deps, store, day, alice, bob):
        self.write(deps, alice, day)
        self.write(deps, bob, day, 1)
        deps.turns.append(alice, "s1", "phone", [turn("next-day", at(day + timedelta(days=1), 0))])
        for scope, n in ((alice, 2), (bob, 1)):
            shard = shard_of(scope.tenant, scope.user_id, SHARDS)
            rows = [r for r in store.turns(day, shard, SHARDS) if (r["tenant"], r["user_id"]) == (
                scope.tenant, scope.user_id)]
            assert [r["message_id"] for r in rows] == [f"m{i}" for i in range(n)]
            assert set(rows[0]) == TURN_COLUMNS and rows[0]["client_ts"] == at(day, 10)
            others = [r for s in range(SHARDS) if s != shard for r in store.turns(day, s, SHARDS)]
            assert not [r for r in others if (r["tenant"], r["user_id"]) == (scope.tenant, scope.user_id)]
        store.drop_day(day + timedelta(days=1))

    def test_rows_come_ordered_by_owner_then_time(self, deps, store, day, owners):
        users = [owners(f"u{i}") for i in range(6)]
        for scope in reversed(users):
            deps.turns.append(scope, "s1", "phone", [turn("b", at(day, 12)), turn("a", at(day, 12)),
                                                     turn("c", at(day, 8))])
        rows = [r for s in range(SHARDS) for r in store.turns(day, s, SHARDS) if r["tenant"] == users[0].tenant]
        for s in range(SHARDS):
            part = [(r["user_id"], r["client_ts"], r["message_id"]) for r in store.turns(day, s, SHARDS)
                    if r["tenant"] == users[0].tenant]
            assert part == sorted(part)
        assert len(rows) == 18

    def test_task_changes_of_a_day_are_read_by_the_users_shard(self, deps, store, day, alice):
        self.write(deps, alice, day)
        shard = shard_of(alice.tenant, alice.user_id, SHARDS)
        rows = [r for r in store.task_changes(day, shard, SHARDS) if r["tenant"] == alice.tenant]
        assert [(r["task_id"], r["status"], r["duration_ms"]) for r in rows] == [
            ("t1", "CREATED", None), ("t1", "IN_PROGRESS", 2 * 3600 * 1000)]
        assert set(rows[0]) == TASK_COLUMNS and rows[0]["metadata"] == {"title": "x"}
        assert rows[0]["ts"] == at(day, 9) and rows[0]["recorded_at"] is not None

    def test_day_counts_count_the_rows_of_the_day(self, deps, store, day, alice, bob):
        before = store.day_counts(day)
        self.write(deps, alice, day, 3)
        self.write(deps, bob, day, 1)
        after = store.day_counts(day)
        assert (after["turns"] - before["turns"], after["tasks"] - before["tasks"]) == (4, 4)

    def test_days_with_data_are_the_days_before_the_given_one(self, deps, store, day, alice):
        self.write(deps, alice, day, 1)
        assert day in store.days_with_data(day + timedelta(days=1))
        assert day not in store.days_with_data(day)
        listed = store.days_with_data(day + timedelta(days=1))
        assert listed == sorted(listed)

    def test_drop_day_drops_the_days_chunks_and_only_them(self, deps, store, day, alice):
        self.write(deps, alice, day, 2)
        deps.turns.append(alice, "s1", "phone", [turn("kept", at(day + timedelta(days=1), 1))])
        assert store.drop_day(day) == {"turn_log": 1, "task_events": 1}
        assert store.day_counts(day) == {"turns": 0, "tasks": 0}
        assert day not in store.days_with_data(day + timedelta(days=1))
        assert [t["message_id"] for t in deps.turns.turns(alice)] == ["kept"]
        assert store.drop_day(day) == {"turn_log": 0, "task_events": 0}
        store.drop_day(day + timedelta(days=1))

    def test_the_ledger_records_verified_days(self, store, day):
        assert store.verified(day) is None and store.verified_days([day]) == set()
        store.mark_verified(day, f"archive/manifests/manifest-{day}.json", "a" * 64, 3, {"turns": 5, "tasks": 0})
        got = store.verified(day)
        assert {k: got[k] for k in ("day", "manifest_key", "manifest_sha256", "objects", "rows")} == {
            "day": day, "manifest_key": f"archive/manifests/manifest-{day}.json", "manifest_sha256": "a" * 64,
            "objects": 3, "rows": {"turns": 5, "tasks": 0}}
        assert got["verified_at"] is not None
        assert store.verified_days([day, day + timedelta(days=1)]) == {day}

    def test_marking_again_overwrites_and_unmark_forgets(self, store, day):
        store.mark_verified(day, "k1", "a" * 64, 1, {"turns": 1})
        store.mark_verified(day, "k2", "b" * 64, 2, {"turns": 2})
        assert (store.verified(day)["manifest_key"], store.verified(day)["rows"]) == ("k2", {"turns": 2})
        store.unmark(day)
        assert store.verified(day) is None and store.verified_days([day]) == set()
        store.unmark(day)

    # -- retention by identity -----------------------------------------------------------------

    def every_row(self, store, day) -> dict[str, list[dict]]:
        """All of the day's rows (this test's, and any other's that chose the same day)."""
        return {"turns": [r for s in range(SHARDS) for r in store.turns(day, s, SHARDS)],
                "tasks": [r for s in range(SHARDS) for r in store.task_changes(day, s, SHARDS)]}

    def hold(self, store, day, rows: dict[str, list[dict]], obj=("archive/turns/part-0.parquet", "a" * 64)) -> None:
        for kind, key_of in (("turns", turn_row_key), ("tasks", task_row_key)):
            store.record_held(day, kind, [Held(r["tenant"], r["user_id"], key_of(r), *obj) for r in rows[kind]])

    def test_held_row_keys_are_those_of_the_object_versions_asked_for(self, store, day, alice):
        one, other = ("archive/turns/part-0.parquet", "a" * 64), ("archive/turns/part-1.parquet", "b" * 64)
        assert store.record_held(day, "turns", [Held(alice.tenant, alice.user_id, "k1", *one),
                                                Held(alice.tenant, alice.user_id, "k2", *other)]) == 2
        assert store.record_held(day, "turns", [Held(alice.tenant, alice.user_id, "k1", *one)]) == 0
        assert store.held_row_keys(day, "turns", [one]) == {"k1"}
        assert store.held_row_keys(day, "turns", [one, other]) == {"k1", "k2"}
        # Another version of the same key (a new write on top of a locked one) holds nothing.
        assert store.held_row_keys(day, "turns", [(one[0], "c" * 64)]) == set()
        assert store.held_row_keys(day, "tasks", [one]) == set()
        assert store.held_row_keys(day + timedelta(days=1), "turns", [one]) == set()
        assert store.record_held(day, "turns", []) == 0

    def test_a_day_whose_rows_are_all_held_is_dropped_and_its_records_forgotten(self, deps, store, day, alice):
        self.write(deps, alice, day)
        obj = ("archive/turns/part-0.parquet", "a" * 64)
        self.hold(store, day, self.every_row(store, day), obj)
        out = store.drop_day_if_held(day, [obj])
        assert out == {"dropped": {"turn_log": 1, "task_events": 1}, "unheld": []}
        assert deps.turns.turns(alice) == [] and day not in store.days_with_data(day + timedelta(days=1))
        assert store.held_row_keys(day, "turns", [obj]) == set() == store.held_row_keys(day, "tasks", [obj])

    def test_a_row_no_object_holds_keeps_the_day_whole(self, deps, store, day, alice, bob):
        self.write(deps, alice, day)
        obj = ("archive/turns/part-0.parquet", "a" * 64)
        self.hold(store, day, self.every_row(store, day), obj)
        deps.turns.append(bob, "s1", "phone", [turn("late", at(day, 23))])
        out = store.drop_day_if_held(day, [obj])
        assert out["dropped"] == {}
        assert [(r.kind, r.tenant, r.user_id, r.row_key) for r in out["unheld"]] == [
            ("turns", bob.tenant, bob.user_id, turn_row_key({"tenant": bob.tenant, "user_id": bob.user_id,
                                                              "message_id": "late", "client_ts": at(day, 23)}))]
        assert len(deps.turns.turns(alice)) == 2 and len(deps.turns.turns(bob)) == 1
        # Held by an object that is not in the verified manifest counts for nothing either.
        assert store.drop_day_if_held(day, [("archive/turns/part-9.parquet", "a" * 64)])["dropped"] == {}
        assert len(deps.turns.turns(alice)) == 2
