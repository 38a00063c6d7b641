"""The erasure saga deployed from template.yaml, run by Step Functions on LocalStack invoking our
real handlers against the real stores."""

import io
import uuid
from datetime import UTC, datetime, timedelta

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engram.adapters.postgres.key_store import EnvelopeKeyStore, KmsKeyWrapper, PgWrappedKeys
from engram.domain.keys import erasure_audit_subject
from engram.domain.lifecycle.archive import shard_of
from engram.domain.model import Scope
from engram.errors import KeyDestroyed
from engram.service.erasure import residue
from tests.integration.saga import wait

pytestmark = pytest.mark.stack
ZERO = {"redis": 0, "opensearch": 0, "postgres": 0, "neo4j": 0, "archive": 0}


@pytest.fixture(scope="module", autouse=True)
def saga_configured(stack_state, deps):
    """The in-process API starts the deployed saga (tests/conftest.py configures it)."""
    arn = stack_state["state_machines"].get("ErasureStateMachine")
    if not arn:
        pytest.fail("ErasureStateMachine not deployed: run `local/stack deploy`")
    assert deps.settings.erasure_state_machine_arn == arn
    assert deps.settings.archive_bucket == stack_state["archive_bucket"]


def seed(client, headers, user, tag):
    assert client.put(f"/v1/users/{user}/consent", headers=headers, json={"long_term": True}).status_code == 200
    assert client.post(f"/v1/users/{user}/devices", headers=headers,
                       json={"device_id": "phone", "kind": "mobile"}).status_code == 201
    r = client.post(f"/v1/users/{user}/messages", headers=headers, json={
        "session_id": "s1", "device_id": "phone", "messages": [
            {"role": "user", "content": f"I'm allergic to peanuts. Tom is my son. {tag}",
             "client_ts": "2026-05-14T09:00:00Z", "message_id": f"{user}-1"},
            {"role": "user", "content": f"I love green tea {tag}", "client_ts": "2026-05-14T09:01:00Z",
             "message_id": f"{user}-2"}]})
    assert r.status_code == 200, r.text
    assert client.put(f"/v1/users/{user}/sessions/s2/context?device_id=laptop", headers=headers,
                      json={"fields": {"current_item": tag}}).status_code == 200
    assert client.post(f"/v1/users/{user}/tasks/t1/events", headers=headers,
                       json={"status": "CREATED"}).status_code == 201


def archived_object(deps, scope: Scope) -> str:
    """What the nightly archive leaves for a user: a Parquet object in their shard, under Object
    Lock, whose text column is sealed with their key (a far-past day keeps clear of real runs)."""
    token = deps.keys.seal(scope, "I'm allergic to peanuts", "archive")
    table = pa.table({"tenant": [scope.tenant], "user_id": [scope.user_id], "content": [token]})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    key = (f"archive/turns/year=2001/month=01/day=01/shard={shard_of(scope.tenant, scope.user_id, 4)}/"
           f"part-{uuid.uuid4().hex[:8]}.parquet")
    deps.clients.aws("s3").put_object(Bucket=deps.settings.archive_bucket, Key=key, Body=buf.getvalue(),
                                ObjectLockMode="GOVERNANCE",
                                ObjectLockRetainUntilDate=datetime.now(UTC) + timedelta(days=1))
    return key


def test_saga_erases_every_store_and_leaves_others_untouched(deps, app_client, tenant_key):
    tenant, headers = tenant_key
    alice, bob = Scope(tenant, "alice"), Scope(tenant, "bob")
    seed(app_client, headers, "alice", "alice-tag")
    seed(app_client, headers, "bob", "bob-tag")
    key = archived_object(deps, alice)
    stores = deps
    before_bob = residue(bob, stores)
    assert all(before_bob[s] > 0 for s in ("redis", "opensearch", "postgres", "neo4j", "archive"))
    assert all(v > 0 for v in residue(alice, stores).values())

    first = app_client.post("/v1/users/alice/erasure", headers=headers)
    assert first.status_code == 202
    job_id = first.json()["job_id"]
    # Idempotent while running, and the user's writes are refused from the start.
    assert app_client.post("/v1/users/alice/erasure", headers=headers).json()["job_id"] == job_id
    refused = app_client.post("/v1/users/alice/messages", headers=headers, json={
        "session_id": "s1", "device_id": "phone",
        "messages": [{"role": "user", "content": "hi", "client_ts": "2026-05-14T10:00:00Z"}]})
    assert refused.status_code == 409
    assert app_client.put("/v1/users/alice/consent", headers=headers, json={"long_term": True}).status_code == 409
    assert app_client.post("/v1/users/alice/tasks/t2/events", headers=headers,
                           json={"status": "CREATED"}).status_code == 409

    job = wait(app_client, headers, job_id)
    assert job["status"] == "SUCCEEDED", job
    assert job["residue"] == ZERO
    assert {s: job["steps"][s] for s in ZERO} == dict.fromkeys(ZERO, "SUCCEEDED")
    assert residue(alice, stores) == ZERO
    assert residue(bob, stores) == before_bob
    # The WORM copy is still there, and nobody can read it any more.
    s3 = deps.clients.aws("s3")
    data = s3.get_object(Bucket=deps.settings.archive_bucket, Key=key)["Body"].read()
    assert key in job["details"]["archive"]["retained_unreadable"]
    # Read as a process that comes along afterwards would (this one cached the key when it sealed).
    reader = EnvelopeKeyStore(PgWrappedKeys(deps.clients), KmsKeyWrapper(deps.clients), ttl_s=0, max_cached=1)
    with pytest.raises(KeyDestroyed):
        reader.open(alice, pq.read_table(io.BytesIO(data)).column("content")[0].as_py(), "archive")
    # Bob is whole: his profile still reads in clear.
    objects = {i["object"] for i in app_client.get("/v1/users/bob/profile", headers=headers).json()["items"]}
    assert {"peanuts", "Tom"} <= objects
    # The erasure itself left a pseudonymous trail; the user's own audit trail is gone.
    trail = stores.audit.entries(Scope(tenant, erasure_audit_subject(job_id)))
    assert {e["action"] for e in trail} >= {"erasure_validate", "erasure_mark", "erasure_delete_neo4j",
                                            "erasure_verify", "erasure_record"}
    assert stores.audit.entries(alice) == []
    # A user may come back afterwards; a repeated erasure completes cleanly.
    again = app_client.post("/v1/users/alice/erasure", headers=headers).json()["job_id"]
    assert again != job_id and wait(app_client, headers, again)["status"] == "SUCCEEDED"


def test_unknown_user_is_a_clean_no_op_job(deps, app_client, tenant_key):
    tenant, headers = tenant_key
    job_id = app_client.post("/v1/users/ghost/erasure", headers=headers).json()["job_id"]
    job = wait(app_client, headers, job_id)
    assert job["status"] == "SUCCEEDED" and job["residue"] == ZERO
    assert job["details"]["validate"]["known"] is False
    assert not deps.users.state(Scope(tenant, "ghost")).known  # no marker left behind


def test_jobs_are_scoped_to_the_tenant(app_client, make_tenant):
    _, headers = make_tenant()
    _, other = make_tenant()
    job_id = app_client.post("/v1/users/carol/erasure", headers=headers).json()["job_id"]
    assert app_client.get(f"/v1/erasure-jobs/{job_id}", headers=other).status_code == 404
    wait(app_client, headers, job_id)
