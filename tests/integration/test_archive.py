"""Nightly archival on LocalStack and the real stores: the schedule, Parquet under the right
partitions with a manifest, read-back equal to what was ingested, idempotent re-runs, loud
verification failures, and retention that drops only verified days.

Each test archives days of its own (random days years back, or 100+ days back for retention),
so tests do not see each other's rows in a day's archive.
"""

from __future__ import annotations

import json
import random
import uuid
from datetime import UTC, date, datetime, timedelta
from functools import partial
from types import SimpleNamespace

import pytest

from engram.domain.lifecycle.archive import manifest_key, partition_dir, shard_of
from engram.domain.model import Scope
from tests.integration.stepfunctions import aws, run_execution, scheduled_target

pytestmark = pytest.mark.stack


@pytest.fixture(scope="module")
def archive(deps):
    """The archive service in-process over the process's dependencies (the deployed bucket)."""
    from engram.service import archival

    return SimpleNamespace(**{name: partial(getattr(archival, name), deps)
                              for name in ("archive_day", "archived_turns", "verify", "archive_shard")},
                           store=deps.archive, source=deps.archive_source)


def unique_day(lo: date = date(2019, 1, 1), span: int = 1500) -> date:
    return lo + timedelta(days=random.SystemRandom().randrange(span))


def ingest(client, headers, user: str, day: date, texts: list[str], session: str = "s1") -> list[str]:
    start = datetime(day.year, day.month, day.day, 9, tzinfo=UTC)
    messages = [{"role": "user", "content": text, "message_id": f"{user}-{i}",
                 "client_ts": (start + timedelta(minutes=7 * i)).isoformat()} for i, text in enumerate(texts)]
    r = client.post(f"/v1/users/{user}/messages", headers=headers,
                    json={"session_id": session, "device_id": "phone", "messages": messages})
    assert r.status_code == 200, r.text
    return [m["message_id"] for m in messages]


def versions(bucket: str, prefix: str) -> list[tuple[str, str]]:
    out = aws("s3").list_object_versions(Bucket=bucket, Prefix=prefix)
    return sorted((v["Key"], v["VersionId"]) for v in out.get("Versions", []))


# -- schedule ---------------------------------------------------------------------------------

def test_nightly_rule_starts_the_archive_state_machine(stack_state):
    arn = stack_state["state_machines"]["ArchiveStateMachine"]
    target = scheduled_target(arn, "cron(0 2 * * ? *)")
    # What the rule does at 02:00: start the machine with its input; Plan picks yesterday.
    execution = run_execution(arn, json.loads(target["Input"]))
    assert execution["status"] == "SUCCEEDED", execution.get("cause")
    output = json.loads(execution["output"])
    started = execution["startDate"].astimezone(UTC).date()
    assert output["day"] == (started - timedelta(days=1)).isoformat()
    assert output["verify"]["verified"] is True


# -- archive, read back, idempotency ------------------------------------------------------------

def test_day_archived_to_partitions_with_manifest_and_read_back_verbatim(deps, stack_state, archive, app_client,
                                                                         tenant_key):
    tenant, headers = tenant_key
    day = unique_day()
    said = {
        "ann": ["I love green tea, especially after a long day.", "Tom is my son, he plays chess.",
                "Hello! Good morning."],
        "bob": ["I'm planning a trip to Lisbon next month.", "I don't like cilantro at all."],
    }
    ids = {user: ingest(app_client, headers, user, day, texts) for user, texts in said.items()}
    r = app_client.post("/v1/users/ann/tasks/trip-1/events", headers=headers,
                        json={"status": "CREATED", "metadata": {"title": "book flights"},
                              "ts": datetime(day.year, day.month, day.day, 12, tzinfo=UTC).isoformat()})
    assert r.status_code in (200, 201), r.text

    arn, bucket = stack_state["state_machines"]["ArchiveStateMachine"], stack_state["archive_bucket"]
    execution = run_execution(arn, {"day": day.isoformat()})
    assert execution["status"] == "SUCCEEDED", execution.get("cause")

    s3 = aws("s3")
    manifest = json.loads(s3.get_object(Bucket=bucket, Key=manifest_key(day))["Body"].read())
    assert "manifest" in manifest_key(day) and day.isoformat() in manifest_key(day)
    assert manifest["day"] == day.isoformat()
    assert manifest["rows"] == {"turns": 5, "events": 5, "tasks": 1}
    for entry in manifest["objects"]:
        assert set(entry) >= {"key", "sha256", "rows"}
        assert entry["key"].startswith(partition_dir(entry["kind"], day, entry["shard"]) + "/part-")
        head = s3.head_object(Bucket=bucket, Key=entry["key"])
        assert head["Metadata"]["sha256"] == entry["sha256"]
        assert head["ObjectLockMode"] == "GOVERNANCE"
    shards = {entry["shard"] for entry in manifest["objects"] if entry["kind"] == "turns"}
    settings_shards = manifest["shards"]
    assert shards == {shard_of(tenant, u, settings_shards) for u in said}

    # Read back (only the day's partitions and the user's shard): equal to what was ingested.
    for user, texts in said.items():
        scope = Scope(tenant, user)
        turns = archive.archived_turns(scope, days=[day])
        assert [t["message_id"] for t in turns] == ids[user]
        assert [t["content"] for t in turns] == texts
        assert {t["session_id"] for t in turns} == {"s1"} and all(t["role"] == "user" for t in turns)
        # The day is years old and verified: the state machine's retention step dropped its chunk.
        assert deps.turns.turns(scope) == []
    events = archive.store.read("events", [day], where={"tenant": [tenant]})
    assert sorted(m for ms in events.column("message_ids").to_pylist() for m in ms) == sorted(
        m for ms in ids.values() for m in ms)
    # Sensitive columns are sealed with the user's data key, not stored in the clear.
    raw = archive.store.read("turns", [day], columns=["content", "sealed"], where={"tenant": [tenant]})
    assert all(c.startswith("eg1:") for c in raw.column("content").to_pylist())

    # A second run for the same day: same manifest, no new object versions, nothing duplicated.
    before = versions(bucket, f"archive/turns/year={day.year:04d}") + versions(bucket, manifest_key(day))
    again = run_execution(arn, {"day": day.isoformat()})
    assert again["status"] == "SUCCEEDED", again.get("cause")
    assert json.loads(again["output"])["manifest"]["written"] is False
    assert versions(bucket, f"archive/turns/year={day.year:04d}") + versions(bucket, manifest_key(day)) == before
    assert json.loads(s3.get_object(Bucket=bucket, Key=manifest_key(day))["Body"].read()) == manifest


def test_corrupted_object_makes_verify_fail_loudly(stack_state, archive, app_client, tenant_key):
    _, headers = tenant_key
    day = unique_day()
    ingest(app_client, headers, "cora", day, ["I love mango.", "My sister Anna lives in Kyoto."])
    result = archive.archive_day(day)
    assert result["verified"] and archive.source.verified(day)

    bucket = stack_state["archive_bucket"]
    manifest = json.loads(aws("s3").get_object(Bucket=bucket, Key=manifest_key(day))["Body"].read())
    victim = next(o["key"] for o in manifest["objects"] if o["kind"] == "turns")
    # Object Lock keeps the original version; a new version on top is what readers would get.
    aws("s3").put_object(Bucket=bucket, Key=victim, Body=b"PAR1 not really parquet PAR1")

    execution = run_execution(stack_state["state_machines"]["ArchiveStateMachine"], {"day": day.isoformat()})
    assert execution["status"] == "FAILED"
    assert execution.get("error") == "ArchiveVerificationFailed"
    history = aws("stepfunctions").get_execution_history(executionArn=execution["executionArn"])["events"]
    assert any(victim in json.dumps(e, default=str) for e in history), "the failure names the bad object"
    assert archive.source.verified(day) is None, "a failed day is no basis for retention"
    with pytest.raises(Exception) as failed:
        archive.verify(day)
    assert type(failed.value).__name__ == "ArchiveVerificationFailed"


# -- retention ----------------------------------------------------------------------------------

def _turn_rows(deps, tenant: str, user: str, day: date, n: int) -> None:

    start = datetime(day.year, day.month, day.day, 10, tzinfo=UTC)
    with deps.clients.pg() as conn, conn.cursor() as cur:
        for i in range(n):
            cur.execute("INSERT INTO turn_log (tenant, user_id, session_id, device_id, message_id, role, content, "
                        "content_sha256, client_ts) VALUES (%s, %s, 's', 'd', %s, 'user', %s, 'x', %s)",
                        (tenant, user, f"m{i}", f"turn {i} of {day}", start + timedelta(minutes=i)))


def _count(deps, day: date) -> int:

    with deps.clients.pg() as conn:
        return conn.execute("SELECT count(*) FROM turn_log WHERE client_ts >= %s AND client_ts < %s",
                            (day, day + timedelta(days=1))).fetchone()[0]


def _evicted_doc(scope: Scope, day: date, suffix: str) -> dict:
    ts = datetime(day.year, day.month, day.day, 11, tzinfo=UTC).isoformat().replace("+00:00", "Z")
    return {"event_id": f"ev-ret-{uuid.uuid4().hex[:12]}-{suffix}", "type": "fact", "summary": "s", "text": "t",
            "context": "", "keywords": [], "raw_sha256": "x", "message_ids": ["m0"], "session_id": "s",
            "device_id": "d", "ts": ts, "occurred_at": ts, "confidence": 0.8, "trust_source": "rule", "weight": 1.0,
            "tags": [], "sensitive": False, "evicted": True, "archived": False, "merged_count": 1, "updated_at": ts}


def test_retention_drops_only_verified_days(deps, archive):
    from engram.service.retention import apply_retention

    # Two days past the 90-day hot window, each alone in its chunk: only one gets archived. A
    # chunk is dropped whole, so both days must hold no other run's rows: pick until they are empty.
    today = datetime.now(UTC).date()
    for _ in range(50):
        archived_day = unique_day(today - timedelta(days=3000), 2500)
        other_day = archived_day - timedelta(days=1)
        if _count(deps, archived_day) == 0 and _count(deps, other_day) == 0:
            break
    scope = Scope(f"tenant-ret-{uuid.uuid4().hex[:8]}", "rita")
    _turn_rows(deps, scope.tenant, scope.user_id, archived_day, 3)
    _turn_rows(deps, scope.tenant, scope.user_id, other_day, 2)
    episodes = deps.episodes
    kept_doc, dropped_doc = _evicted_doc(scope, other_day, "kept"), _evicted_doc(scope, archived_day, "gone")
    episodes.put(scope, [kept_doc, dropped_doc])
    assert _count(deps, archived_day) == 3 and _count(deps, other_day) == 2

    archive.archive_day(archived_day)
    report = apply_retention(deps)

    assert archived_day.isoformat() in report["chunks"]["dropped"]
    assert _count(deps, archived_day) == 0, "the verified day's chunk is gone"
    assert _count(deps, other_day) == 2, "an unarchived day is never dropped"
    assert episodes.get(scope, dropped_doc["event_id"]) is None, "evicted and archived: deleted"
    assert episodes.get(scope, kept_doc["event_id"]) is not None, "evicted but not archived: kept"
    # What retention dropped is still readable from the archive.
    assert [t["content"] for t in archive.archived_turns(scope, days=[archived_day])] == [
        f"turn {i} of {archived_day}" for i in range(3)]


def test_sql_shard_expression_matches_python(deps):

    users = [("t-a", f"user-{i}") for i in range(50)] + [("tenant-x", "名字")]
    with deps.clients.pg() as conn:
        for tenant, user in users:
            got = conn.execute("SELECT (('x' || substr(md5(%s || ':' || %s), 1, 8))::bit(32)::bigint %% 4)",
                               (tenant, user)).fetchone()[0]
            assert got == shard_of(tenant, user, 4)
