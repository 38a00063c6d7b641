"""InMemoryTaskStore: task status changes as ``adapters.postgres.task_store`` keeps them (``task_events``)."""

from __future__ import annotations

from datetime import datetime

from engram.domain.model import Scope
from engram.domain.privacy.consent import redacted_metadata
from engram.domain.records import TaskRecord
from engram.domain.working.tasks import OPEN, TaskStatus, check_transition

from ._common import UserRows, as_json, clone, serialized, utcnow


def _record(row: dict) -> TaskRecord:
    return TaskRecord(row["task_id"], row["status"], clone(row["metadata"]), row["ts"], row["duration_ms"])


@serialized
class InMemoryTaskStore(UserRows):
    table = "task_events"
    time_column = "ts"

    def record(self, scope: Scope, task_id: str, status: TaskStatus, metadata: dict, ts: datetime) -> TaskRecord:
        mine = [r for r in self._of(scope) if r["task_id"] == task_id]
        last = max(mine, key=lambda r: r["ts"], default=None)
        current = TaskStatus(last["status"]) if last else None
        check_transition(current, status)
        duration_ms = max(0, int((ts - last["ts"]).total_seconds() * 1000)) if last else None
        row = self._insert({"tenant": scope.tenant, "user_id": scope.user_id, "task_id": task_id,
                            "status": TaskStatus(status).value, "metadata": as_json(metadata),
                            "duration_ms": duration_ms, "ts": ts, "recorded_at": utcnow()})
        return _record(row)

    def latest(self, scope: Scope, *, open_only: bool = False, limit: int = 10) -> list[TaskRecord]:
        statuses = {s.value for s in (OPEN if open_only else TaskStatus)}
        newest: dict[str, dict] = {}
        for row in self._of(scope):
            if row["task_id"] not in newest or row["ts"] > newest[row["task_id"]]["ts"]:
                newest[row["task_id"]] = row
        rows = sorted((r for r in newest.values() if r["status"] in statuses), key=lambda r: r["ts"], reverse=True)
        return [_record(r) for r in rows[:limit]]

    def history(self, scope: Scope) -> list[TaskRecord]:
        return [_record(r) for r in sorted(self._of(scope), key=lambda r: r["ts"])]

    def delete_task(self, scope: Scope, task_id: str) -> int:
        before = len(self.rows)
        self.rows = [r for r in self.rows if not (r["tenant"] == scope.tenant and r["user_id"] == scope.user_id
                                                  and r["task_id"] == task_id)]
        return before - len(self.rows)

    def redact_metadata(self, scope: Scope, keep: tuple[str, ...], blank: tuple[str, ...]) -> int:
        changed = 0
        for row in self._of(scope):
            redacted = redacted_metadata(row["metadata"], keep, blank)
            if redacted != row["metadata"]:
                row["metadata"], changed = redacted, changed + 1
        return changed
