"""PostgreSQL side of the erasure saga: the job records, and the user's relational rows.

The user's rows are deleted in one transaction. ``audit_log`` is append-only for the runtime's
role (no DELETE privilege): its rows go through ``engram_erase_user_audit``, a SECURITY DEFINER
function of the schema owner that erases only a user marked ``erasing`` (schema.sql). The ``users``
row stays (with ``erasing = true``) until the saga's last step, because it is what refuses writes
meanwhile.
"""

from __future__ import annotations

import uuid

from psycopg import errors, sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from ...domain.keys import erasure_user_ref
from ...domain.model import Scope
from ...errors import Conflict, NotFound
from ..clients import Clients

# Every table holding rows of one user, keyed (tenant, user_id). Tables another feature adds
# later belong here too; ones not created yet are skipped (see _existing).
USER_TABLES = ("task_events", "turn_log", "audit_log", "consent_events", "devices", "behaviour_patterns",
               "idempotency_records", "write_leases", "archive_rows", "pending_writes")
KEY_TABLE = "user_keys"


def _existing(conn, tables: tuple[str, ...]) -> list[str]:
    rows = conn.execute("SELECT t FROM unnest(%s::text[]) AS t WHERE to_regclass(t) IS NOT NULL",
                        (list(tables),)).fetchall()
    return [r[0] for r in rows]


class ErasureStore:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    # -- jobs -------------------------------------------------------------------------------

    def open_job(self, scope: Scope) -> tuple[dict, bool]:
        """The user's running job, or a new one; True when it is new."""
        ref = erasure_user_ref(scope)
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("INSERT INTO erasure_jobs (job_id, tenant, user_ref, status) VALUES (%s, %s, %s, 'RUNNING') "
                        "ON CONFLICT (tenant, user_ref) WHERE status = 'RUNNING' DO NOTHING RETURNING *",
                        (f"er-{uuid.uuid4().hex}", scope.tenant, ref))
            created = cur.fetchone()
            if created:
                return created, True
            cur.execute("SELECT * FROM erasure_jobs WHERE tenant = %s AND user_ref = %s AND status = 'RUNNING'",
                        (scope.tenant, ref))
            row = cur.fetchone()
        return (row, False) if row else self.open_job(scope)  # finished in between: open anew

    def job(self, tenant: str, job_id: str) -> dict:
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT * FROM erasure_jobs WHERE tenant = %s AND job_id = %s", (tenant, job_id))
            row = cur.fetchone()
        if row is None:
            raise NotFound(f"erasure job {job_id} not found", field="job_id")
        return row

    def set_execution(self, job_id: str, execution_arn: str) -> None:
        with self._clients.pg() as conn:
            conn.execute("UPDATE erasure_jobs SET execution_arn = %s, updated_at = now() WHERE job_id = %s",
                         (execution_arn, job_id))

    def set_step(self, job_id: str, step: str, detail: dict) -> None:
        """Record one step's outcome; a re-run overwrites that step only (jsonb merge)."""
        with self._clients.pg() as conn:
            conn.execute("UPDATE erasure_jobs SET steps = steps || %s, updated_at = now() WHERE job_id = %s",
                         (Jsonb({step: detail}), job_id))

    def finish(self, job_id: str, status: str, residue: dict | None = None, error: dict | None = None) -> None:
        with self._clients.pg() as conn:
            conn.execute("UPDATE erasure_jobs SET status = %s, residue = COALESCE(%s, residue), error = %s, "
                         "updated_at = now(), finished_at = now() WHERE job_id = %s",
                         (status, Jsonb(residue) if residue is not None else None,
                          Jsonb(error) if error is not None else None, job_id))

    # -- the user's rows ----------------------------------------------------------------------

    def mark_erasing(self, scope: Scope) -> bool:
        """Refuse the user's writes from now on; True if the user was known. An unknown user gets
        a marker row too, so a write racing the erasure cannot create them meanwhile."""
        with self._clients.pg() as conn:
            known = conn.execute("UPDATE users SET erasing = true WHERE tenant = %s AND user_id = %s",
                                 (scope.tenant, scope.user_id)).rowcount > 0
            if not known:
                conn.execute("INSERT INTO users (tenant, user_id, erasing) VALUES (%s, %s, true) "
                             "ON CONFLICT (tenant, user_id) DO UPDATE SET erasing = true",
                             (scope.tenant, scope.user_id))
        return known

    def delete_rows(self, scope: Scope) -> dict[str, int]:
        """Every row of the user (not ``users``, not ``user_keys``); Conflict, and nothing deleted,
        unless the user is marked as being erased."""
        with self._clients.pg() as conn:
            # Caught in here: pg() would take the refusal (SQLSTATE class 55) for an outage.
            try:
                with conn.transaction():
                    deleted = {}
                    for table in _existing(conn, USER_TABLES):
                        if table == "audit_log":
                            deleted[table] = conn.execute("SELECT engram_erase_user_audit(%s, %s)",
                                                          (scope.tenant, scope.user_id)).fetchone()[0]
                            continue
                        deleted[table] = conn.execute(
                            sql.SQL("DELETE FROM {} WHERE tenant = %s AND user_id = %s").format(sql.Identifier(table)),
                            (scope.tenant, scope.user_id)).rowcount
                    return deleted
            except errors.ObjectNotInPrerequisiteState as exc:
                raise Conflict("the user is not being erased; their rows stay", field="user_id") from exc

    def count_rows(self, scope: Scope) -> dict[str, int]:
        with self._clients.pg() as conn:
            return {table: conn.execute(
                sql.SQL("SELECT count(*) FROM {} WHERE tenant = %s AND user_id = %s").format(sql.Identifier(table)),
                (scope.tenant, scope.user_id)).fetchone()[0] for table in _existing(conn, USER_TABLES + (KEY_TABLE,))}

    def drop_user(self, scope: Scope) -> None:
        """The last trace: the users row that refused writes during the erasure."""
        with self._clients.pg() as conn:
            conn.execute("DELETE FROM users WHERE tenant = %s AND user_id = %s", (scope.tenant, scope.user_id))
