"""Task state: status changes checked against the lifecycle, latest state per task."""

from __future__ import annotations

from datetime import UTC, datetime

from ..dependencies import Dependencies
from ..domain.ingest.sanitise import format_timestamp as _iso
from ..domain.ingest.sanitise import parse_timestamp, validate_id
from ..domain.limits import MAX_TASKS_LISTED
from ..domain.model import Scope
from ..domain.privacy.consent import child_task_metadata
from ..domain.records import AuditEntry, TaskRecord
from ..domain.working.tasks import TaskStatus
from ..errors import ValidationFailed
from .users import fenced


@fenced
def record_task_event(deps: Dependencies, scope: Scope, task_id: str, status: str, metadata: dict | None,
                      ts: str | int | None) -> dict:
    validate_id(task_id, "task_id")
    try:
        new_status = TaskStatus(status)
    except ValueError:
        raise ValidationFailed(f"status must be one of {', '.join(s.value for s in TaskStatus)}",
                               field="status") from None
    when = parse_timestamp(ts, "ts") if ts is not None else datetime.now(UTC)
    metadata = metadata or {}
    if deps.users.state(scope).child_mode:  # as a child's tasks from ingestion: status and times, no content
        metadata = child_task_metadata(metadata)
    row = deps.tasks.record(scope, task_id, new_status, metadata, when)
    deps.audit.append(scope, [AuditEntry("api", "task_event", "tasks", task_id, "user", None, None,
                                         {"status": new_status.value})])
    return task_view(row)


def task_view(row: TaskRecord) -> dict:
    return {**row.as_dict(), "ts": _iso(row.ts)}


def list_tasks(deps: Dependencies, scope: Scope, status: str, limit: int) -> dict:
    if status not in ("open", "all"):
        raise ValidationFailed("status must be 'open' or 'all'", field="status")
    if not 1 <= limit <= MAX_TASKS_LISTED:
        raise ValidationFailed(f"limit must be between 1 and {MAX_TASKS_LISTED}", field="limit")
    rows = deps.tasks.latest(scope, open_only=status == "open", limit=limit)
    return {"tasks": [task_view(r) for r in rows]}
