"""The erasure saga with Neo4j stopped for real: the Task retries with backoff and completes when
Neo4j is back; past the retry budget the job reports FAILED naming the step, and a re-run completes."""

import time

import pytest

from engram.domain.keys import erasure_audit_subject
from engram.domain.model import Scope
from engram.service.erasure import residue
from local.stackctl.services.neo4j import Neo4j
from tests.integration.stepfunctions import failures, wait_until_answering
from tests.integration.test_erasure_saga import ZERO, saga_configured, seed, wait  # noqa: F401

pytestmark = pytest.mark.stack


@pytest.fixture
def neo4j(deps):
    server = Neo4j()
    wait_until_answering(deps, "neo4j")  # a previous test may have just restarted it
    yield server
    if not server.health().get("healthy"):
        server.start()


def execution_of(deps, job_id: str) -> str:
    with deps.clients.pg() as conn:
        return conn.execute("SELECT execution_arn FROM erasure_jobs WHERE job_id = %s", (job_id,)).fetchone()[0]


def test_neo4j_down_then_back_the_task_retries_and_completes(deps, app_client, tenant_key, neo4j):
    tenant, headers = tenant_key
    seed(app_client, headers, "dora", "dora-tag")
    neo4j.stop()
    job_id = app_client.post("/v1/users/dora/erasure", headers=headers).json()["job_id"]
    deadline = time.monotonic() + 30
    while failures(execution_of(deps, job_id), "StoreUnavailable") == 0 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert failures(execution_of(deps, job_id), "StoreUnavailable") >= 1  # it really met the stopped server
    neo4j.start()
    job = wait(app_client, headers, job_id)
    assert job["status"] == "SUCCEEDED", job
    assert job["steps"]["neo4j"] == "SUCCEEDED" and job["residue"] == ZERO
    assert residue(Scope(tenant, "dora"), deps) == ZERO


def test_past_the_retry_budget_the_job_fails_naming_the_step_and_a_rerun_completes(deps, app_client, tenant_key, neo4j):
    tenant, headers = tenant_key
    seed(app_client, headers, "eve", "eve-tag")
    neo4j.stop()
    job_id = app_client.post("/v1/users/eve/erasure", headers=headers).json()["job_id"]
    job = wait(app_client, headers, job_id, timeout=120)
    neo4j.start()
    assert job["status"] == "FAILED", job
    assert job["steps"]["neo4j"] == "FAILED" and job["error"]["failed"] == ["neo4j"]
    # What the other branches did is kept; only the graph is left.
    assert {s: job["steps"][s] for s in ("redis", "opensearch", "postgres", "archive")} == dict.fromkeys(
        ("redis", "opensearch", "postgres", "archive"), "SUCCEEDED")
    # Verify could not count the graph while Neo4j was down; the deleted stores are empty.
    assert residue(Scope(tenant, "eve"), deps)["postgres"] == 0
    trail = deps.audit.entries(Scope(tenant, erasure_audit_subject(job_id)))
    assert any(e["action"] == "erasure_failed_neo4j" for e in trail)
    # Writes stay refused until an erasure completes; the re-run does.
    assert app_client.put("/v1/users/eve/consent", headers=headers, json={"long_term": True}).status_code == 409
    rerun = app_client.post("/v1/users/eve/erasure", headers=headers).json()["job_id"]
    assert rerun != job_id
    done = wait(app_client, headers, rerun)
    assert done["status"] == "SUCCEEDED" and done["residue"] == ZERO
