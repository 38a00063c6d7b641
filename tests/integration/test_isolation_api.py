"""Isolation under look-alike ids through the API, on the real stores (Redis, PostgreSQL, Neo4j,
OpenSearch, KMS; the erasure saga as deployed on LocalStack): the properties of
tests/unit/test_isolation.py with fewer examples. Each example registers fresh tenants whose ids
share a unique prefix, so the pairs keep their look-alike joins and no example sees another's data.

'|' is refused at the edge (``validate_id``), which the last test shows; the pairs here are drawn
from the ids the API accepts."""

from __future__ import annotations

import json
import uuid
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, assume, given, settings

from engram.domain.model import Scope
from engram.domain.records import SessionRef
from engram.service.erasure import residue
from tests.integration.saga import wait
from tests.unit.lookalikes import ID_ALPHABET, distinct_pairs

pytestmark = pytest.mark.stack
SLOW = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much]
READS = settings(max_examples=20, deadline=None, database=None, suppress_health_check=SLOW)
ERASURES = settings(max_examples=5, deadline=None, database=None, suppress_health_check=SLOW)
NOW = "2026-05-14T10:00:00Z"
WORDS = ({"music": "jazz", "allergen": "peanuts", "errand": "dentist"},
         {"music": "salsa", "allergen": "shrimp", "errand": "plumber"})


def _path(value: str) -> str:
    return quote(value, safe="")


def in_fresh_tenants(deps, pair: tuple[SessionRef, SessionRef]) -> tuple[list[SessionRef], list[dict]]:
    """The pair under tenants renamed with one unique prefix (joins stay alike), and API keys."""
    prefix = f"iso-{uuid.uuid4().hex[:8]}-"
    refs, headers, keys = [], [], {}
    for ref in pair:
        tenant = prefix + ref.scope.tenant
        if tenant not in keys:
            keys[tenant] = f"key-{uuid.uuid4().hex}"
            deps.tenants.register(tenant, keys[tenant])
        refs.append(SessionRef(Scope(tenant, ref.scope.user_id), ref.device_id, ref.session_id))
        headers.append({"Authorization": f"Bearer {keys[tenant]}"})
    return refs, headers


def usable(pair) -> bool:
    # A path segment of dots only is a relative reference: a client resolves it before sending.
    return all(set(r.scope.user_id) - {"."} and set(r.session_id) - {"."} for r in pair)


def seed(client, headers: dict, ref: SessionRef, words: dict) -> None:
    user, music = _path(ref.scope.user_id), words["music"]
    assert client.put(f"/v1/users/{user}/consent", headers=headers, json={"long_term": True}).status_code == 200
    said = [f"I love {music} music.", f"I'm allergic to {words['allergen']}.", "Tom is my son.",
            f"Remind me to call the {words['errand']}"]
    r = client.post(f"/v1/users/{user}/messages", headers=headers, json={
        "session_id": ref.session_id, "device_id": ref.device_id,
        "messages": [{"role": "user", "content": text, "client_ts": f"2026-05-14T09:0{i}:00Z",
                      "message_id": f"{music}-{i}"} for i, text in enumerate(said)]})
    assert r.status_code == 200, r.text
    r = client.put(f"/v1/users/{user}/sessions/{_path(ref.session_id)}/context", headers=headers,
                   params={"device_id": ref.device_id}, json={"fields": {"owner": music}})
    assert r.status_code == 200, r.text
    assert client.post(f"/v1/users/{user}/tasks/{music}:task/events", headers=headers,
                       json={"status": "CREATED", "metadata": {"title": words["errand"]}}).status_code == 201


def views(client, headers: dict, ref: SessionRef) -> dict[str, str]:
    """The identity's session context, a recall from that session, its profile and its export,
    as JSON text, without what changes with the clock."""
    user = _path(ref.scope.user_id)
    context = client.get(f"/v1/users/{user}/sessions/{_path(ref.session_id)}/context", headers=headers,
                         params={"device_id": ref.device_id})
    recall = client.post(f"/v1/users/{user}/recall", headers=headers, json={
        "query": "What music do I love, what am I allergic to, what must I do?", "k": 20, "now": NOW,
        "session_id": ref.session_id, "device_id": ref.device_id})
    items = client.get(f"/v1/users/{user}/profile", headers=headers)
    export = client.get(f"/v1/users/{user}/export", headers=headers)
    for response in (context, recall, items, export):
        assert response.status_code == 200, response.text
    assert recall.json()["degraded"] == []
    exported = export.json()
    exported.pop("exported_at")
    for entry in exported["profile"]:
        entry.pop("decayed_confidence")
    for session in exported["sessions"]:
        session.pop("ttl_s")
    return {"session": json.dumps(context.json(), sort_keys=True),
            "recall": json.dumps(sorted((i["memory_id"], i["text"]) for i in recall.json()["items"])),
            "profile": json.dumps(sorted((i["memory_id"], i["text"]) for i in items.json()["items"])),
            "export": json.dumps(exported, sort_keys=True)}


def leaks(seen: dict[str, str], words: dict) -> list[str]:
    return [f"{name}: {word}" for name, text in seen.items() for word in words.values() if word in text]


def seeded(app_client, deps, pair):
    refs, headers = in_fresh_tenants(deps, pair)
    for ref, header, words in zip(refs, headers, WORDS, strict=True):
        seed(app_client, header, ref, words)
    seen = [views(app_client, header, ref) for ref, header in zip(refs, headers, strict=True)]
    same_user = refs[0].scope == refs[1].scope
    for ref, mine, own, theirs in zip(refs, seen, WORDS, reversed(WORDS), strict=True):
        assert own["music"] in mine["session"] and own["allergen"] in mine["profile"]
        assert leaks({"session": mine["session"]} if same_user else mine, theirs) == [], ref
    return refs, headers, seen, same_user


@READS
@given(distinct_pairs(scope_alphabet=ID_ALPHABET))
def test_no_read_of_one_identity_reaches_another(app_client, deps, pair):
    assume(usable(pair))
    seeded(app_client, deps, pair)


@ERASURES
@given(distinct_pairs(scope_alphabet=ID_ALPHABET))
def test_erasing_one_identity_leaves_another_whole(app_client, deps, pair):
    assume(usable(pair) and pair[0].scope != pair[1].scope)
    (one, two), headers, seen, _ = seeded(app_client, deps, pair)
    before = residue(one.scope, deps)
    started = app_client.post(f"/v1/users/{_path(two.scope.user_id)}/erasure", headers=headers[1])
    assert started.status_code == 202, started.text
    job = wait(app_client, headers[1], started.json()["job_id"])
    assert job["status"] == "SUCCEEDED" and not any(job["residue"].values()), job
    assert not any(residue(two.scope, deps).values())
    assert residue(one.scope, deps) == before
    assert views(app_client, headers[0], one) == seen[0]


def test_ids_with_a_bar_are_refused_at_the_edge(app_client, tenant_key):
    _, headers = tenant_key
    refused = [app_client.put(f"/v1/users/{_path('a|b')}/consent", headers=headers, json={"long_term": True}),
               app_client.get("/v1/users/alice/sessions/s1/context", headers=headers, params={"device_id": "x|y"})]
    assert [r.status_code for r in refused] == [400, 400], [r.text for r in refused]
