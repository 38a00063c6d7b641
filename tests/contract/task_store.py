"""TaskStore: task status changes under the lifecycle's transition table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.working.tasks import TaskStatus as S
from engram.errors import Conflict

from ._base import Contract

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def later(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


class TaskStoreContract(Contract):
    def test_a_new_task_is_created_without_a_duration(self, store, alice):
        made = store.record(alice, "t1", S.CREATED, {"title": "Book flights", "n": [1, 2]}, T0)
        assert (made.task_id, made.status, made.metadata, made.ts, made.duration_ms) == (
            "t1", "CREATED", {"title": "Book flights", "n": [1, 2]}, T0, None)

    def test_each_change_measures_the_time_since_the_previous_one(self, store, alice):
        store.record(alice, "t1", S.CREATED, {}, T0)
        assert store.record(alice, "t1", S.IN_PROGRESS, {}, later(1.5)).duration_ms == 1500
        assert store.record(alice, "t1", S.COMPLETED, {}, later(61.5)).duration_ms == 60000

    def test_a_change_dated_before_the_last_one_lasts_zero(self, store, alice):
        store.record(alice, "t1", S.CREATED, {}, T0)
        assert store.record(alice, "t1", S.CANCELLED, {}, later(-30)).duration_ms == 0

    @pytest.mark.parametrize("first", [S.IN_PROGRESS, S.COMPLETED, S.PAUSED])
    def test_a_task_must_start_created(self, store, alice, first):
        with pytest.raises(Conflict) as refused:
            store.record(alice, "t1", first, {}, T0)
        assert refused.value.field == "status" and refused.value.status == 409
        assert store.history(alice) == []

    @pytest.mark.parametrize("terminal", [S.COMPLETED, S.FAILED, S.CANCELLED])
    def test_a_finished_task_accepts_no_change(self, store, alice, terminal):
        store.record(alice, "t1", S.CREATED, {}, T0)
        store.record(alice, "t1", S.IN_PROGRESS, {}, later(1))
        store.record(alice, "t1", terminal, {}, later(2))
        with pytest.raises(Conflict):
            store.record(alice, "t1", S.IN_PROGRESS, {}, later(3))
        assert len(store.history(alice)) == 3

    def test_the_lifecycle_is_read_from_the_latest_change_by_time(self, store, alice):
        store.record(alice, "t1", S.CREATED, {}, T0)
        store.record(alice, "t1", S.IN_PROGRESS, {}, later(10))
        store.record(alice, "t1", S.PAUSED, {}, later(20))
        with pytest.raises(Conflict):
            store.record(alice, "t1", S.COMPLETED, {}, later(30))  # PAUSED -> COMPLETED is not allowed
        assert store.record(alice, "t1", S.IN_PROGRESS, {}, later(30)).status == "IN_PROGRESS"

    def test_latest_gives_each_tasks_newest_state_newest_first(self, store, alice):
        store.record(alice, "a", S.CREATED, {}, later(0))
        store.record(alice, "b", S.CREATED, {}, later(1))
        store.record(alice, "a", S.IN_PROGRESS, {"step": 2}, later(2))
        store.record(alice, "c", S.CREATED, {}, later(3))
        latest = store.latest(alice)
        assert [(r.task_id, r.status) for r in latest] == [("c", "CREATED"), ("a", "IN_PROGRESS"), ("b", "CREATED")]
        assert latest[1].metadata == {"step": 2} and latest[1].duration_ms == 2000
        assert [r.task_id for r in store.latest(alice, limit=2)] == ["c", "a"]

    def test_open_only_leaves_out_finished_tasks(self, store, alice):
        store.record(alice, "done", S.CREATED, {}, later(0))
        store.record(alice, "done", S.CANCELLED, {}, later(5))
        store.record(alice, "open", S.CREATED, {}, later(1))
        assert [r.task_id for r in store.latest(alice, open_only=True)] == ["open"]
        assert [r.task_id for r in store.latest(alice)] == ["done", "open"]

    def test_history_is_every_change_in_time_order(self, store, alice):
        store.record(alice, "a", S.CREATED, {}, later(5))
        store.record(alice, "b", S.CREATED, {}, later(1))
        store.record(alice, "a", S.ASSIGNED, {}, later(9))
        assert [(r.task_id, r.status) for r in store.history(alice)] == [
            ("b", "CREATED"), ("a", "CREATED"), ("a", "ASSIGNED")]

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_tasks_are_per_owner(self, store, alice, request, who):
        other = request.getfixturevalue(who)
        store.record(alice, "t1", S.CREATED, {}, T0)
        store.record(alice, "t1", S.IN_PROGRESS, {}, later(1))
        assert store.latest(other) == [] and store.history(other) == []
        assert store.record(other, "t1", S.CREATED, {}, later(2)).duration_ms is None

    def test_delete_user_deletes_that_users_changes(self, store, alice, bob):
        store.record(alice, "a", S.CREATED, {}, later(0))
        store.record(alice, "a", S.IN_PROGRESS, {}, later(1))
        store.record(bob, "a", S.CREATED, {}, later(0))
        assert store.delete_user(alice) == 2
        assert store.history(alice) == [] and len(store.history(bob)) == 1
        assert store.record(alice, "a", S.CREATED, {}, later(2)).status == "CREATED"

    def test_delete_task_deletes_every_change_of_that_task_only(self, store, alice, bob):
        store.record(alice, "a", S.CREATED, {}, later(0))
        store.record(alice, "a", S.IN_PROGRESS, {}, later(1))
        store.record(alice, "b", S.CREATED, {}, later(2))
        store.record(bob, "a", S.CREATED, {}, later(0))
        assert store.delete_task(alice, "a") == 2
        assert [t.task_id for t in store.history(alice)] == ["b"] and len(store.history(bob)) == 1
        assert store.delete_task(alice, "a") == 0 and store.delete_task(alice, "unknown") == 0
        assert store.record(alice, "a", S.CREATED, {}, later(3)).duration_ms is None  # starts again

    def test_owners_whose_ids_join_alike_have_their_own_tasks(self, store, lookalikes):
        for owner in lookalikes:
            store.record(owner, "t:1", S.CREATED, {}, later(0))
        store.record(lookalikes[0], "t:1", S.IN_PROGRESS, {}, later(1))
        assert [len(store.history(o)) for o in lookalikes] == [2, 1, 1, 1]
        assert [store.latest(o)[0].status for o in lookalikes] == ["IN_PROGRESS", "CREATED", "CREATED", "CREATED"]

    def test_redact_metadata_keeps_only_the_named_keys(self, store, alice, bob):
        store.record(alice, "t1", S.CREATED, {"title": "Feed the cat", "message_ids": ["m1"], "notes": {"x": 1}}, T0)
        store.record(alice, "t1", S.IN_PROGRESS, {"progress": "half way"}, later(1))
        store.record(alice, "t2", S.CREATED, {}, later(2))
        store.record(bob, "t1", S.CREATED, {"title": "Bob's own"}, T0)
        assert store.redact_metadata(alice, ("message_ids",), ("title",)) == 2
        assert [(t.task_id, t.status, t.metadata, t.ts) for t in store.history(alice)] == [
            ("t1", "CREATED", {"title": "", "message_ids": ["m1"]}, T0), ("t1", "IN_PROGRESS", {}, later(1)),
            ("t2", "CREATED", {}, later(2))]
        assert store.redact_metadata(alice, ("message_ids",), ("title",)) == 0
        assert store.record(alice, "t1", S.COMPLETED, {}, later(3)).duration_ms == 2000  # the lifecycle goes on
        assert [t.metadata for t in store.history(bob)] == [{"title": "Bob's own"}]
