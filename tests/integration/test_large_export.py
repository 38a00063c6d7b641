"""Large exports on the real stores, through the in-process app with the default settings: a user
whose export is over Lambda's 6 MB response limit gets a pre-signed URL instead of the document;
the URL, fetched without credentials, gives the whole document (theirs only), stored under the
KMS key; the erasure saga deletes it and counts it.

The export bucket is the configured one (tests/integration/conftest.py makes sure it exists). The
bulk of the user's history goes straight into the turn log (one transaction), the rest through the
API, so the test stays well under a minute.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from engram.domain.keys import export_prefix
from engram.domain.model import Scope
from engram.service import erasure
from tests.contract._base import turn, wipe
from tests.integration.saga import wait
from tests.integration.test_erasure_saga import seed
from tests.unit.support import run_saga

pytestmark = pytest.mark.stack

LAMBDA_LIMIT = 6 * 1024 * 1024
BULK, CONTENT = 900, 7800  # ~7 MB of turns: past the limit with room to spare


def bulk_history(deps, scope: Scope) -> set[str]:
    """``BULK`` long turns of the user's in the turn log; their message ids."""
    start = datetime(2026, 4, 1, tzinfo=UTC)
    words = "the trail climbed past the hut and along the ridge before the weather turned ".split()
    turns = []
    for i in range(BULK):
        text = f"bulk-{i}: " + " ".join(words[(i + n) % len(words)] for n in range(CONTENT // 5))
        turns.append(turn(f"bulk-{i}", start + timedelta(seconds=i), text[:CONTENT]))
    assert deps.turns.append(scope, "trip", "laptop", turns) == {t.message_id for t in turns}
    return {t.message_id for t in turns}


@pytest.fixture
def heavy_user(deps, app_client, tenant_key):
    """Alice, seeded through the API and then with ~7 MB of history; Bob, her neighbour."""
    tenant, headers = tenant_key
    alice, bob = Scope(tenant, "alice"), Scope(tenant, "bob")
    seed(app_client, headers, "alice", "alice-tag")
    seed(app_client, headers, "bob", "bob-tag")
    bulk = bulk_history(deps, alice)
    yield alice, bob, headers, bulk | {"alice-1", "alice-2"}
    for scope in (alice, bob):  # ~7 MB in a shared database: not left behind
        wipe(deps, scope)


def test_an_export_over_the_lambda_limit_is_a_link_to_the_whole_document(deps, app_client, heavy_user):
    alice, _, headers, accepted = heavy_user
    started = time.monotonic()
    response = app_client.get("/v1/users/alice/export", headers=headers)
    assert response.status_code == 200, response.text
    assert len(response.content) < 4096 and response.headers["cache-control"] == "no-store"
    link = response.json()
    assert set(link) == {"export_url", "expires_at", "bytes"} and link["bytes"] > LAMBDA_LIMIT

    url = urlsplit(link["export_url"])
    query = parse_qs(url.query)
    assert query["X-Amz-Algorithm"] == ["AWS4-HMAC-SHA256"]
    assert query["X-Amz-Expires"] == [str(deps.settings.export_url_ttl_s)] == ["900"]
    assert "alice" not in url.path and alice.tenant not in url.path

    download = httpx.get(link["export_url"], timeout=60)  # no Authorization: the URL is the grant
    assert download.status_code == 200 and len(download.content) == link["bytes"]
    text = download.text
    document = json.loads(text)
    assert document["user_id"] == "alice" and document["user"]["long_term_consent"] is True
    assert {t["message_id"] for t in document["turns"]} == accepted
    assert {len(t["content"]) for t in document["turns"] if t["message_id"].startswith("bulk-")} == {CONTENT}
    assert any("peanuts" in t["content"] for t in document["turns"])  # sealed at rest, clear here
    assert {("allergic_to", "peanuts"), ("has_child", "Tom")} <= {(i["type"], i["object"]) for i in document["profile"]}
    assert "bob" not in text and "eg1:" not in text
    assert time.monotonic() - started < 60

    # At rest: under the user's digest prefix, SSE-KMS, and no upload left half-way.
    s3, bucket = deps.exports.s3, deps.settings.export_bucket
    [key] = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix=export_prefix(alice))["Contents"]]
    head = s3.head_object(Bucket=bucket, Key=key)
    assert head["ServerSideEncryption"] == "aws:kms" and head["ContentLength"] == link["bytes"]
    assert head["ContentType"] == "application/json"
    pending = s3.list_multipart_uploads(Bucket=bucket, Prefix=export_prefix(alice)).get("Uploads", [])
    assert pending == []


def test_a_small_export_is_still_answered_inline(app_client, heavy_user):
    _, _, headers, _ = heavy_user
    response = app_client.get("/v1/users/bob/export", headers=headers)
    assert response.status_code == 200 and response.json()["user_id"] == "bob"
    assert "export_url" not in response.json()


def test_a_failed_upload_leaves_no_parts_behind(deps, tenant_key):
    alice = Scope(tenant_key[0], "alice")

    def failing():
        yield b"x" * (deps.exports.part_bytes + 1)  # one part sent, an upload under way
        raise RuntimeError("the document could not be produced")

    with pytest.raises(RuntimeError):
        deps.exports.put(alice, failing())
    s3, bucket = deps.exports.s3, deps.settings.export_bucket
    assert s3.list_multipart_uploads(Bucket=bucket, Prefix=export_prefix(alice)).get("Uploads", []) == []
    assert deps.exports.count_user(alice) == 0


def test_the_erasure_steps_delete_the_stored_export_and_count_it(deps, app_client, heavy_user):
    alice, bob, headers, _ = heavy_user
    for user in ("alice", "bob"):
        assert "export_url" in app_client.get(f"/v1/users/{user}/export?delivery=url", headers=headers).json()
    assert erasure.residue(alice, deps)["archive"] == 2  # her data key, her export
    job, _ = deps.erasure_jobs.open_job(alice)
    event = {"job_id": job["job_id"], "tenant": alice.tenant, "user_id": alice.user_id}
    verified = run_saga(deps, event)
    assert verified["ok"] and not any(verified["residue"].values()), verified
    assert deps.erasure_jobs.job(alice.tenant, job["job_id"])["steps"]["archive"]["exports_deleted"] == 1
    assert deps.exports.count_user(alice) == 0 and deps.exports.count_user(bob) == 1


@pytest.fixture
def deployed_exports(stack_state) -> str:
    if not stack_state.get("export_bucket"):
        pytest.skip("the deployed stack predates ExportBucket: `local/stack deploy` applies template.yaml")
    return stack_state["export_bucket"]


def test_the_deployed_saga_deletes_stored_exports(deployed_exports, deps, app_client, heavy_user):
    alice, _, headers, _ = heavy_user
    assert deps.settings.export_bucket == deployed_exports
    assert "export_url" in app_client.get("/v1/users/alice/export", headers=headers).json()
    job = wait(app_client, headers, app_client.post("/v1/users/alice/erasure", headers=headers).json()["job_id"])
    assert job["status"] == "SUCCEEDED" and job["residue"]["archive"] == 0, job
    assert job["details"]["archive"]["exports_deleted"] == 1 and deps.exports.count_user(alice) == 0
