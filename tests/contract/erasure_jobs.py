"""ErasureJobs: the saga's job records, and the user's relational rows (what the postgres step
deletes and the verify step counts)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from engram.domain.keys import encode_parts, erasure_user_ref
from engram.domain.lifecycle.archive import Held
from engram.domain.model import Scope
from engram.domain.records import AuditEntry
from engram.domain.working.tasks import TaskStatus
from engram.errors import Conflict, NotFound

from ._base import Contract, at, new_tenant, turn

JOB_COLUMNS = {"job_id", "tenant", "user_ref", "status", "steps", "residue", "error", "execution_arn", "runs",
               "created_at", "updated_at", "finished_at"}
TABLES = ("task_events", "turn_log", "audit_log", "consent_events", "devices", "behaviour_patterns",
          "idempotency_records", "write_leases", "archive_rows", "pending_writes")


def seed(deps, scope, n: int = 1) -> None:
    """``n`` rows of the user in each of their tables, and a data key."""
    when = at(date(2026, 5, 1))
    deps.turns.append(scope, "s1", "phone", [turn(f"m{i}", when + timedelta(seconds=i)) for i in range(n)])
    for i in range(n):
        deps.tasks.record(scope, f"t{i}", TaskStatus.CREATED, {}, when)
        deps.users.set_consent(scope, True, 30)
        deps.users.link_device(scope, f"d{i}", "phone")
    deps.audit.append(scope, [AuditEntry("ingest", "create", "graph", f"e{i}") for i in range(n)])
    deps.patterns.replace(scope, {("plan", i, 9): 1 for i in range(n)})
    for i in range(n):
        deps.idempotency.claim(scope, f"k{i}", "sha")
        deps.idempotency.complete(scope, f"k{i}", 200, {"sealed": "eg1:..."})
        deps.fence.begin(scope, 60)  # a writer that died holding its lease
    deps.archive_source.record_held(when.date(), "turns", [
        Held(scope.tenant, scope.user_id, encode_parts(scope.tenant, scope.user_id, f"m{i}"),
             "archive/turns/part-0.parquet", "0" * 64) for i in range(n)])
    for i in range(n):
        deps.pending.add(scope, "contract-test", f"b{i}", [f"m{i}"], when, b"sealed")  # no catch-up applies it
    deps.keys.seal(scope, "sealed")


class ErasureJobsContract(Contract):
    def test_open_job_starts_one_running_job_per_user(self, store, alice):
        job, new = store.open_job(alice)
        assert new and set(job) == JOB_COLUMNS
        assert (job["tenant"], job["status"], job["steps"], job["residue"], job["error"], job["runs"]) == (
            alice.tenant, "RUNNING", {}, {}, None, 1)
        again, new_again = store.open_job(alice)
        assert not new_again and again["job_id"] == job["job_id"]

    def test_a_job_names_nobody(self, store, alice):
        job, _ = store.open_job(alice)
        assert job["user_ref"] == erasure_user_ref(alice)
        assert "alice" not in str({k: v for k, v in job.items() if k != "tenant"})

    def test_owners_whose_ids_join_alike_have_their_own_jobs(self, store, lookalikes):
        jobs = [store.open_job(s)[0] for s in lookalikes]
        assert len({j["job_id"] for j in jobs}) == len({j["user_ref"] for j in jobs}) == len(lookalikes)

    def test_jobs_of_different_users_are_different(self, store, alice, bob, stranger):
        ids = {store.open_job(s)[0]["job_id"] for s in (alice, bob, stranger)}
        assert len(ids) == 3

    def test_a_job_is_found_only_in_its_tenant(self, store, alice, stranger):
        job, _ = store.open_job(alice)
        assert store.job(alice.tenant, job["job_id"])["job_id"] == job["job_id"]
        for tenant, job_id in ((stranger.tenant, job["job_id"]), (alice.tenant, "er-unknown")):
            with pytest.raises(NotFound) as missing:
                store.job(tenant, job_id)
            assert missing.value.field == "job_id"

    def test_steps_merge_and_a_rerun_overwrites_only_its_step(self, store, alice):
        job_id = store.open_job(alice)[0]["job_id"]
        store.set_execution(job_id, "arn:aws:states:us-east-1:000000000000:execution:m:x")
        store.set_step(job_id, "redis", {"status": "FAILED", "error": "StoreUnavailable"})
        store.set_step(job_id, "neo4j", {"status": "SUCCEEDED", "deleted": 3})
        store.set_step(job_id, "redis", {"status": "SUCCEEDED", "deleted": 5})
        job = store.job(alice.tenant, job_id)
        assert job["steps"] == {"redis": {"status": "SUCCEEDED", "deleted": 5},
                                "neo4j": {"status": "SUCCEEDED", "deleted": 3}}
        assert job["execution_arn"].endswith(":x") and job["updated_at"] >= job["created_at"]

    def test_finish_ends_the_job_and_a_new_request_opens_another(self, store, alice):
        job_id = store.open_job(alice)[0]["job_id"]
        store.finish(job_id, "SUCCEEDED", residue={"redis": 0})
        done = store.job(alice.tenant, job_id)
        assert (done["status"], done["residue"], done["error"]) == ("SUCCEEDED", {"redis": 0}, None)
        assert done["finished_at"] is not None
        nxt, new = store.open_job(alice)
        assert new and nxt["job_id"] != job_id

    def test_finish_without_residue_keeps_the_residue_and_records_the_error(self, store, alice):
        job_id = store.open_job(alice)[0]["job_id"]
        store.finish(job_id, "FAILED", residue={"neo4j": 2})
        store.finish(job_id, "FAILED", error={"step": "neo4j", "cause": "down"})
        job = store.job(alice.tenant, job_id)
        assert (job["residue"], job["error"]) == ({"neo4j": 2}, {"step": "neo4j", "cause": "down"})

    def test_mark_erasing_refuses_writes_and_says_whether_the_user_was_known(self, deps, store, alice, bob):
        deps.users.ensure(alice)
        assert store.mark_erasing(alice) is True and store.mark_erasing(bob) is False
        assert deps.users.state(alice).erasing and deps.users.state(bob).erasing
        assert deps.users.state(bob).known  # the marker row
        assert store.mark_erasing(bob) is True

    def test_drop_user_removes_the_last_trace(self, deps, store, alice):
        store.mark_erasing(alice)
        store.drop_user(alice)
        assert not deps.users.state(alice).known

    def test_delete_rows_deletes_every_table_of_that_user_only(self, deps, store, alice, bob):
        seed(deps, alice, 2)
        seed(deps, bob, 1)
        assert store.count_rows(alice) == {**dict.fromkeys(TABLES, 2), "user_keys": 1}
        bob_before = store.count_rows(bob)
        store.mark_erasing(alice)
        assert store.delete_rows(alice) == dict.fromkeys(TABLES, 2)
        assert store.count_rows(alice) == {**dict.fromkeys(TABLES, 0), "user_keys": 1}  # shredding is apart
        assert store.count_rows(bob) == bob_before == {**dict.fromkeys(TABLES, 1), "user_keys": 1}
        assert deps.turns.turns(alice) == [] and deps.audit.entries(alice) == []
        assert deps.users.state(alice).known  # the users row stays until the saga's last step
        assert store.delete_rows(alice) == dict.fromkeys(TABLES, 0)

    def test_delete_rows_refuses_a_user_not_being_erased_and_deletes_nothing(self, deps, store, alice):
        # The audit trail is append-only: only an erasure in progress (the mark) may take it.
        seed(deps, alice, 1)
        before = store.count_rows(alice)
        with pytest.raises(Conflict):
            store.delete_rows(alice)
        assert store.count_rows(alice) == before and len(deps.audit.entries(alice)) == 1

    def test_count_rows_of_an_unknown_user_is_all_zero(self, store):
        assert store.count_rows(Scope(new_tenant(), "nobody")) == {**dict.fromkeys(TABLES, 0), "user_keys": 0}
