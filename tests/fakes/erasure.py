"""InMemoryErasureJobs: the erasure saga's job records and the user's relational rows, over the
other fakes' data (what ``adapters.postgres.erasure_store`` does over PostgreSQL)."""

from __future__ import annotations

import uuid

from engram.adapters.postgres.erasure_store import KEY_TABLE, USER_TABLES
from engram.domain.keys import erasure_user_ref
from engram.domain.model import Scope
from engram.errors import Conflict, NotFound

from ._common import as_json, clone, utcnow


class InMemoryErasureJobs:
    def __init__(self, *, turns, tasks, audit, users, patterns, idempotency, fence, pending, archive_rows,
                 wrapped_keys) -> None:
        self.jobs: dict[str, dict] = {}
        self._users = users
        # Every holder of the user's rows, in USER_TABLES' order of their tables.
        self._holders = (tasks, turns, audit, users, patterns, idempotency, fence, archive_rows, pending)
        self._wrapped_keys = wrapped_keys

    # -- jobs -------------------------------------------------------------------------------

    def open_job(self, scope: Scope) -> tuple[dict, bool]:
        ref = erasure_user_ref(scope)
        running = next((j for j in self.jobs.values()
                        if j["tenant"] == scope.tenant and j["user_ref"] == ref and j["status"] == "RUNNING"), None)
        if running is not None:
            return clone(running), False
        now = utcnow()
        job = {"job_id": f"er-{uuid.uuid4().hex}", "tenant": scope.tenant, "user_ref": ref, "status": "RUNNING",
               "steps": {}, "residue": {}, "error": None, "execution_arn": None, "runs": 1, "created_at": now,
               "updated_at": now, "finished_at": None}
        self.jobs[job["job_id"]] = job
        return clone(job), True

    def job(self, tenant: str, job_id: str) -> dict:
        job = self.jobs.get(job_id)
        if job is None or job["tenant"] != tenant:
            raise NotFound(f"erasure job {job_id} not found", field="job_id")
        return clone(job)

    def _update(self, job_id: str, **changes) -> None:
        if (job := self.jobs.get(job_id)) is not None:
            job.update(changes, updated_at=utcnow())

    def set_execution(self, job_id: str, execution_arn: str) -> None:
        self._update(job_id, execution_arn=execution_arn)

    def set_step(self, job_id: str, step: str, detail: dict) -> None:
        if (job := self.jobs.get(job_id)) is not None:
            self._update(job_id, steps={**job["steps"], step: as_json(detail)})

    def finish(self, job_id: str, status: str, residue: dict | None = None, error: dict | None = None) -> None:
        if status not in ("RUNNING", "SUCCEEDED", "FAILED"):
            raise ValueError(f"erasure_jobs status check refused {status!r}")
        if (job := self.jobs.get(job_id)) is not None:
            self._update(job_id, status=status, residue=as_json(residue) if residue is not None else job["residue"],
                         error=as_json(error) if error is not None else None, finished_at=utcnow())

    # -- the user's rows --------------------------------------------------------------------

    def mark_erasing(self, scope: Scope) -> bool:
        return self._users.mark_erasing(scope)

    def delete_rows(self, scope: Scope) -> dict[str, int]:
        # schema.sql's engram_erase_user_audit erases the audit rows of a user being erased only,
        # and the whole transaction goes with it.
        if not self._users.state(scope).erasing:
            raise Conflict("the user is not being erased; their rows stay", field="user_id")
        deleted: dict[str, int] = {}
        for holder in self._holders:
            deleted.update(holder.erase_user_rows(scope))
        return {table: deleted[table] for table in USER_TABLES}

    def count_rows(self, scope: Scope) -> dict[str, int]:
        counts: dict[str, int] = {}
        for holder in (*self._holders, self._wrapped_keys):
            counts.update(holder.user_rows(scope))
        return {table: counts[table] for table in (*USER_TABLES, KEY_TABLE)}

    def drop_user(self, scope: Scope) -> None:
        self._users.drop(scope)
