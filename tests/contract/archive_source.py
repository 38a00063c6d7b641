"""ArchiveSource: a day's turns and task changes by shard, the day's counts and chunks, and the
ledger of verified days. Days are far in the past and unique per test: the hypertables and the
ledger are shared by every tenant, so only what this test wrote for its own day is asserted."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engram.domain.archive import shard_of
from engram.domain.tasks import TaskStatus

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
