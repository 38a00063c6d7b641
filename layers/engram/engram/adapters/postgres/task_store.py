"""TaskStore: task status changes in the ``task_events`` hypertable."""

from __future__ import annotations

from datetime import datetime

from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from ...domain.keys import task_lock_key
from ...domain.model import Scope
from ...domain.records import TaskRecord
from ...domain.working.tasks import OPEN, TaskStatus, check_transition
from ..clients import Clients

_LATEST = """
    SELECT * FROM (
        SELECT DISTINCT ON (task_id) task_id, status, metadata, ts, duration_ms
        FROM task_events WHERE tenant = %(tenant)s AND user_id = %(user)s
        ORDER BY task_id, ts DESC
    ) latest WHERE status = ANY(%(statuses)s) ORDER BY ts DESC LIMIT %(limit)s
"""


# The metadata of a task change with only the given keys, those in %(blank)s emptied
# (``domain.privacy.consent.redacted_metadata`` is the same rule in Python).
_REDACTED_METADATA = """
    (SELECT COALESCE(jsonb_object_agg(key, CASE WHEN key = ANY(%(blank)s) THEN to_jsonb(''::text) ELSE value END),
                     '{}'::jsonb)
     FROM jsonb_each(metadata) WHERE key = ANY(%(keep)s) OR key = ANY(%(blank)s))
"""


def _row(row: dict) -> TaskRecord:
    return TaskRecord(row["task_id"], row["status"], row["metadata"], row["ts"], row["duration_ms"])


class TaskStore:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def record(self, scope: Scope, task_id: str, status: TaskStatus, metadata: dict, ts: datetime) -> TaskRecord:
        """Append a status change if the lifecycle allows it; 409 otherwise.

        A transaction-scoped advisory lock per task serialises concurrent changes of one task,
        so two devices cannot both move it out of the same state.
        """
        with self._clients.pg() as conn, conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (task_lock_key(scope, task_id),))
            cur.execute("SELECT status, ts FROM task_events WHERE tenant = %s AND user_id = %s AND task_id = %s "
                        "ORDER BY ts DESC LIMIT 1", (scope.tenant, scope.user_id, task_id))
            last = cur.fetchone()
            current = TaskStatus(last["status"]) if last else None
            check_transition(current, status)
            duration_ms = max(0, int((ts - last["ts"]).total_seconds() * 1000)) if last else None
            cur.execute(
                "INSERT INTO task_events (tenant, user_id, task_id, status, metadata, duration_ms, ts) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING task_id, status, metadata, ts, duration_ms",
                (scope.tenant, scope.user_id, task_id, status.value, Jsonb(metadata), duration_ms, ts),
            )
            return _row(cur.fetchone())

    def latest(self, scope: Scope, *, open_only: bool = False, limit: int = 10) -> list[TaskRecord]:
        statuses = [s.value for s in OPEN] if open_only else [s.value for s in TaskStatus]
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute(_LATEST, {"tenant": scope.tenant, "user": scope.user_id, "statuses": statuses,
                                "limit": limit})
            return [_row(r) for r in cur.fetchall()]

    def history(self, scope: Scope) -> list[TaskRecord]:
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT task_id, status, metadata, ts, duration_ms FROM task_events "
                        "WHERE tenant = %s AND user_id = %s ORDER BY ts", (scope.tenant, scope.user_id))
            return [_row(r) for r in cur.fetchall()]

    def delete_task(self, scope: Scope, task_id: str) -> int:
        # The task's own lock: a change recorded meanwhile lands before the delete or after it,
        # never half-way (a change after it starts the task again, from CREATED).
        with self._clients.pg() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (task_lock_key(scope, task_id),))
            return conn.execute("DELETE FROM task_events WHERE tenant = %s AND user_id = %s AND task_id = %s",
                                (scope.tenant, scope.user_id, task_id)).rowcount

    def delete_user(self, scope: Scope) -> int:
        with self._clients.pg() as conn:
            return conn.execute("DELETE FROM task_events WHERE tenant = %s AND user_id = %s",
                                (scope.tenant, scope.user_id)).rowcount

    def redact_metadata(self, scope: Scope, keep: tuple[str, ...], blank: tuple[str, ...]) -> int:
        # A row already redacted is not rewritten, so a retry reports what it changed: nothing.
        with self._clients.pg() as conn:
            return conn.execute(
                sql.SQL("UPDATE task_events SET metadata = {redacted} WHERE tenant = %(t)s AND user_id = %(u)s "
                        "AND metadata IS DISTINCT FROM {redacted}").format(redacted=sql.SQL(_REDACTED_METADATA)),
                {"t": scope.tenant, "u": scope.user_id, "keep": list(keep), "blank": list(blank)}).rowcount
