"""Writes that survive a store outage, on the real local stack (issue 25): one derived store
stopped for real, turns that carry a fact, a belief change and an event are accepted and name the
pending layer; recall meanwhile never says "no record" for them; once the store is back the
catch-up applies them in order within 60 s, nothing twice. PostgreSQL (the turn log, the commit
point) stopped refuses the write, and the retried request is accepted once. The catch-up runs
in-process here, started while the store is down, as the scheduled function's run would be."""

from __future__ import annotations

import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.model import Scope
from engram.service.ingest.catch_up import catch_up
from local.stackctl.services.neo4j import Neo4j
from local.stackctl.services.opensearch import OpenSearch
from local.stackctl.services.postgres import Postgres
from local.stackctl.services.redis import Redis
from tests.integration.outage import stopped

pytestmark = pytest.mark.stack

# Said minutes ago: working memory keeps a session's turns for a day, and a turn older than that
# is dropped by the catch-up, not replayed.
_NOW = datetime.now(UTC).replace(microsecond=0)


def _at(minutes_ago: int) -> str:
    return (_NOW - timedelta(minutes=minutes_ago)).isoformat()


FIRST = [
    {"role": "user", "content": "I live in Paris with my partner.", "client_ts": _at(10), "message_id": "m1"},
    {"role": "user", "content": "Remind me to renew my passport on Friday.", "client_ts": _at(9), "message_id": "m2"}]
LATER = [{"role": "user", "content": "We moved to Lyon last month.", "client_ts": _at(5), "message_id": "m3"}]


def _user(app_client, headers) -> str:
    user = f"out-{uuid.uuid4().hex[:10]}"
    assert app_client.put(f"/v1/users/{user}/consent", headers=headers, json={"long_term": True}).status_code == 200
    return user


def _post(app_client, headers, user, messages, key=None):
    sent = {**headers, **({"Idempotency-Key": key} if key else {})}
    return app_client.post(f"/v1/users/{user}/messages", headers=sent,
                           json={"session_id": "s1", "device_id": "phone", "messages": messages})


def _lives_in(app_client, headers, user) -> list[tuple[str, bool]]:
    items = app_client.get(f"/v1/users/{user}/profile?history=true", headers=headers).json()["items"]
    return sorted((i["text"].removeprefix("lives in: "), i["valid_to"] is None) for i in items
                  if i["type"] == "lives_in")


def _recall(app_client, headers, user, query):
    r = app_client.post(f"/v1/users/{user}/recall", headers=headers,
                        json={"query": query, "session_id": "s1", "device_id": "phone"})
    assert r.status_code == 200, r.text
    return r.json()


def _until(check, seconds: float) -> float:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < seconds, "not caught up in time"
        time.sleep(0.5)
    return time.monotonic() - started


@pytest.mark.parametrize(("service", "layer"), [(Redis, "working_memory"), (Neo4j, "profile"),
                                                (OpenSearch, "episodes")])
def test_a_derived_store_down_accepts_the_writes_and_they_catch_up_in_order(deps, app_client, tenant_key,
                                                                            service, layer):
    tenant, headers = tenant_key
    user = _user(app_client, headers)
    scope = Scope(tenant, user)
    runner = None
    with stopped(deps, service()):
        first, later = _post(app_client, headers, user, FIRST), _post(app_client, headers, user, LATER)
        assert first.status_code == later.status_code == 200, (first.text, later.text)
        assert layer in first.json()["pending"] and layer in later.json()["pending"]
        for query in ("where do I live?", "what did I ask you to remind me about?"):
            answer = _recall(app_client, headers, user, query)
            assert answer["no_record"] is False and layer in answer["memory_pending"], answer
        # A scheduled run under way: it finds the store away, spends no attempt, sleeps, tries again.
        outcomes: dict = {}
        runner = threading.Thread(target=lambda: outcomes.update(catch_up(deps, budget_s=90)), daemon=True)
        runner.start()
        time.sleep(3)
        heads = deps.pending.due(datetime.now(UTC) + timedelta(days=1), 1000, (layer,))
        [row] = [r for r in heads if r["tenant"] == tenant]
        assert row["attempts"] == 0 and row["message_ids"] == ["m1", "m2"]
    took = _until(lambda: deps.pending.layers(scope) == set(), 60)
    runner.join(timeout=60)
    assert _lives_in(app_client, headers, user) == [("Lyon", True), ("Paris", False)], took
    answer = _recall(app_client, headers, user, "what did I ask you to remind me about?")
    assert answer["memory_pending"] == [] and "passport" in answer["context_block"]
    events = [d for d in deps.episodes.all_for_user(scope) if not d.get("evicted")]
    # each once (``outcomes``: this process's catch-up; the local stack's scheduled one may apply some)
    assert sorted(m for d in events for m in d["message_ids"]) == ["m1", "m2", "m3"], (outcomes, events)
    context = app_client.get(f"/v1/users/{user}/sessions/s1/context?device_id=phone", headers=headers).json()
    assert [t["message_id"] for t in context["turns"]] == ["m1", "m2", "m3"]


def test_the_turn_log_down_refuses_and_the_retry_with_the_same_key_is_accepted_once(deps, app_client, tenant_key):
    tenant, headers = tenant_key
    user = _user(app_client, headers)
    with stopped(deps, Postgres()):
        refused = _post(app_client, headers, user, FIRST, key="k-outage")
        assert refused.status_code == 503 and refused.json()["error"]["code"] == "store_unavailable"
    accepted = _until_accepted(lambda: _post(app_client, headers, user, FIRST, key="k-outage"))
    assert accepted.json()["pending"] == [] and "Idempotent-Replayed" not in accepted.headers
    again = _post(app_client, headers, user, FIRST, key="k-outage")
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert [t["message_id"] for t in deps.turns.turns(Scope(tenant, user))] == ["m1", "m2"]


def _until_accepted(send, seconds: float = 30):
    started = time.monotonic()
    while True:  # the pool reconnects to the restarted server on its first checks
        response = send()
        if response.status_code != 503 or time.monotonic() - started > seconds:
            assert response.status_code == 200, response.text
            return response
        time.sleep(0.5)
