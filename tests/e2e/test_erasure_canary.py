"""The canary erasure: a unique token in every field a user can write, their day archived, then
an erasure while four clients keep writing for them. Afterwards a raw scan of every store finds the
token nowhere in plaintext, and replaying their first request runs as a new one.

A second canary leaves writes pending in every derived layer when the erasure comes.

The API runs in-process over the real stores; the saga is the deployed ErasureStateMachine (its
Lambdas run the deployed layer: `local/stack deploy` first, as `local/stack test` does).
"""

from __future__ import annotations

import random
import threading
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from engram.api.app import create_app
from engram.domain.lifecycle.archive import manifest_key, partition_dir
from engram.domain.model import Scope
from engram.service.archival import archive_day
from engram.service.ingest.catch_up import catch_up
from tests import raw_scan
from tests.integration.saga import wait
from tests.unit.support import failing, slow

pytestmark = pytest.mark.stack

KINDS = ("turns", "events", "tasks")
PENDING_LAYERS = ("working_memory", "episodes", "profile")


def _day() -> date:
    """A day of the 1970s-90s no other run archives (the scan reads every object of it)."""
    return date(1971, 1, 1) + timedelta(days=random.SystemRandom().randrange(365 * 25))


def _at(day: date, minute: int) -> str:
    return (datetime(day.year, day.month, day.day, 9, tzinfo=UTC) + timedelta(minutes=minute)).isoformat()


@pytest.fixture
def canary(app_client, tenant_key):
    tenant, headers = tenant_key
    token, day, user = f"zq{uuid.uuid4().hex[:12]}", _day(), f"canary-{uuid.uuid4().hex[:8]}"
    base = f"/v1/users/{user}"

    def call(method: str, path: str, **kwargs):
        response = app_client.request(method, base + path, headers={**headers, **kwargs.pop("headers", {})},
                                      **kwargs)
        assert response.status_code < 500, (path, response.text)
        return response

    assert call("PUT", "/consent", json={"long_term": True}).status_code == 200
    first = {"session_id": "s1", "device_id": "phone", "messages": [
        {"role": "user", "content": f"My name is {token.capitalize()}.", "client_ts": _at(day, 0), "message_id": "m1"},
        {"role": "user", "content": f"I was diagnosed with {token} syndrome and I am allergic to {token}.",
         "client_ts": _at(day, 1), "message_id": "m2"},
        {"role": "user", "content": f"I love {token} music and hiking.", "client_ts": _at(day, 2),
         "message_id": "m3"},
        {"role": "user", "content": f"Remind me to call {token} tomorrow", "client_ts": _at(day, 3),
         "message_id": "m4"}]}
    ingested = call("POST", "/messages", json=first, headers={"Idempotency-Key": "first"})
    assert ingested.status_code == 200 and token in ingested.text
    assert call("PUT", "/sessions/s1/context", params={"device_id": "phone"},
                json={"fields": {"current_item": token, "aliases": {token: f"{token} alias"}}}).status_code == 200
    assert call("POST", "/tasks/t-1/events", json={"status": "CREATED", "metadata": {"note": token},
                                                   "ts": _at(day, 4)}).status_code == 201
    assert call("POST", "/devices", json={"device_id": "tablet", "kind": f"{token}-tablet"}).status_code == 201
    items = call("GET", "/profile").json()["items"]
    name = next(i for i in items if i["type"] == "has_name")
    assert call("PATCH", f"/profile/items/{name['memory_id']}", json={"object": f"{token}-fixed"}).status_code == 200
    return {"token": token, "day": day, "user": user, "scope": Scope(tenant, user), "call": call, "first": first,
            "client": app_client, "headers": headers}


def _writer(canary: dict, client, n: int, outcomes: list, stop: threading.Event) -> None:
    """Keep writing until the fence refuses: every kind of write, each carrying the token. ``stop``
    (the job has ended) only bounds a run in which the fence failed to refuse."""
    token, day = canary["token"], canary["day"]
    base = f"/v1/users/{canary['user']}"

    def call(method: str, path: str, **kwargs):
        response = client.request(method, base + path, headers=canary["headers"], **kwargs)
        assert response.status_code < 500, (path, response.text)
        return response

    for i in range(10_000):
        if stop.is_set():
            return
        minute = 10 + n * 1000 + i
        kind = i % 3
        if kind == 0:
            sensitive = i % 2 == 0
            content = f"I take {token} pills for my diabetes" if sensitive else f"{token} is my favourite film"
            r = call("POST", "/messages", json={"session_id": f"w{n}", "device_id": "phone", "messages": [
                {"role": "user", "content": content, "client_ts": _at(day, minute), "message_id": f"w{n}-{i}"}]})
        elif kind == 1:
            r = call("PUT", f"/sessions/w{n}/context", params={"device_id": "phone"},
                     json={"fields": {f"f{i}": token}})
        else:
            r = call("POST", f"/tasks/w{n}-{i}/events", json={"status": "CREATED", "metadata": {"note": token}})
        outcomes.append(r.status_code)
        if r.status_code == 409:
            return


def _safely(target, errors: list):
    def run(*args) -> None:
        try:
            target(*args)
        except Exception as exc:  # noqa: BLE001 - reported by the test, not lost with the thread
            errors.append(repr(exc)[:500])
    return run


def test_nothing_of_an_erased_user_is_readable_anywhere(deps, canary):
    token, call = canary["token"], canary["call"]
    archived = archive_day(deps, canary["day"])
    assert archived["verified"] and archived["rows_written"] > 0

    # The writers' events take 6 s to index: a write that began before the mark lands well after
    # the saga could have deleted the user's events, unless the saga waits for it.
    slow_episodes = deps.with_(episodes=slow(deps.episodes, "put", 6.0))
    writer_client = TestClient(create_app(slow_episodes))
    outcomes: list[int] = []
    errors: list[str] = []
    stop = threading.Event()
    writers = [threading.Thread(target=_safely(_writer, errors), args=(canary, writer_client, n, outcomes, stop))
               for n in range(4)]
    for writer in writers:
        writer.start()
    while len(outcomes) < 8:  # the writers are under way before the erasure is asked for
        threading.Event().wait(0.05)
    threading.Event().wait(0.5)  # and some of them are inside a slow write
    job = call("POST", "/erasure").json()
    done = wait(canary["client"], canary["headers"], job["job_id"])
    stop.set()
    for writer in writers:
        writer.join(timeout=60)
    # Every writer was refused while the user was marked: none wrote on after the job ended.
    assert not errors and outcomes.count(409) == 4 and set(outcomes) <= {200, 201, 409}, (errors, outcomes)
    assert done["status"] == "SUCCEEDED" and not any(done["residue"].values()), done

    s3 = deps.clients.aws("s3")
    # Every shard's partitions of the day (the day is the test's own) and its manifest.
    prefixes = [partition_dir(kind, canary["day"], 0).rsplit("/", 1)[0] + "/" for kind in KINDS]
    prefixes.append(manifest_key(canary["day"]))
    found = {
        "redis": raw_scan.redis_hits(deps.clients.redis, token),
        "postgres": _postgres(deps, token),
        "opensearch": raw_scan.opensearch_hits(deps.clients.opensearch, token),
        "neo4j": raw_scan.neo4j_hits(deps.clients.neo4j, token),
        "archive": raw_scan.s3_hits(s3, deps.settings.archive_bucket, token, prefixes),
        "exports": raw_scan.s3_hits(s3, deps.settings.export_bucket, token, ["exports/"]),
    }
    assert not any(found.values()), found

    replay = call("POST", "/messages", json=canary["first"], headers={"Idempotency-Key": "first"})
    assert replay.status_code == 200 and "Idempotent-Replayed" not in replay.headers


def _postgres(deps, token: str) -> dict:
    with deps.clients.pg() as conn:
        return raw_scan.postgres_hits(conn, token)


def test_pending_writes_in_every_derived_layer_are_erased_and_never_written_later(deps, canary):
    """Redis, Neo4j and OpenSearch each missed a write of the user (their fakes' failures over the
    real stores), held by a catch-up run in flight when the erasure comes: the saga deletes the
    pending writes with the user's turns, and no catch-up writes anything for the user after it."""
    token, scope = canary["token"], canary["scope"]
    away = deps.with_(sessions=failing(deps.sessions, "append_turns"), graph=failing(deps.graph, "upsert_fact"),
                      episodes=failing(deps.episodes, "put"))
    client = TestClient(create_app(away))
    r = client.post(f"/v1/users/{canary['user']}/messages", headers=canary["headers"], json={
        "session_id": "s9", "device_id": "phone", "messages": [
            {"role": "user", "content": f"I moved to {token.capitalize()}ville and I take {token} pills for my asthma.",
             "client_ts": datetime.now(UTC).isoformat(), "message_id": "p1"}]})
    assert r.status_code == 200 and r.json()["pending"] == ["episodes", "profile", "working_memory"], r.text
    heads = [h for h in deps.pending.due(datetime.now(UTC) + timedelta(days=1), 1000, PENDING_LAYERS)
             if (h["tenant"], h["user_id"]) == (scope.tenant, scope.user_id)]
    assert len(heads) == 3 and all(deps.pending.claim(h["seq"], 600) for h in heads)  # a run in flight
    done = wait(canary["client"], canary["headers"], canary["call"]("POST", "/erasure").json()["job_id"])
    assert done["status"] == "SUCCEEDED" and not any(done["residue"].values()), done
    assert deps.pending.layers(scope) == set()
    catch_up(deps, budget_s=2)
    found = {
        "redis": raw_scan.redis_hits(deps.clients.redis, token),
        "postgres": _postgres(deps, token),
        "opensearch": raw_scan.opensearch_hits(deps.clients.opensearch, token),
        "neo4j": raw_scan.neo4j_hits(deps.clients.neo4j, token),
    }
    assert not any(found.values()), found
