"""Ingestion through the HTTP API into the five stores, against the real servers."""

import pytest

from engram.domain.keys import episode_doc_id, episode_routing
from engram.domain.model import Scope
from engram.domain.records import SessionRef
from engram.service.privacy import reveal_items

pytestmark = pytest.mark.stack

DAY1 = "2026-05-14T09:00:00+08:00"
DAY2 = "2026-05-15T20:00:00+08:00"


def say(client, headers, user, session, device, *turns, key=None):
    messages = [{"role": role, "content": text, "client_ts": ts, "message_id": mid} for mid, role, text, ts in turns]
    extra = {"Idempotency-Key": key} if key else {}
    return client.post(f"/v1/users/{user}/messages", headers={**headers, **extra},
                       json={"session_id": session, "device_id": device, "messages": messages})


@pytest.fixture
def alice(app_client, tenant_key):
    tenant, headers = tenant_key
    assert app_client.put("/v1/users/alice/consent", headers=headers, json={"long_term": True}).status_code == 200
    r1 = say(app_client, headers, "alice", "s1", "phone",
             ("a1", "user", "Hi! My name is Alice Chen.", DAY1),
             ("a2", "user", "I'm allergic to peanuts. Tom is my son.", "2026-05-14T09:01:00+08:00"),
             ("a3", "assistant", "Noted! " + "x" * 600, "2026-05-14T09:01:30+08:00"),
             ("a4", "user", "我喜欢喝绿茶。I love coffee.", "2026-05-14T09:02:00+08:00"))
    r2 = say(app_client, headers, "alice", "s2", "laptop",
             ("b1", "user", "Maybe I like jazz", DAY2),
             ("b2", "user", "I went to the dentist yesterday", "2026-05-15T20:01:00+08:00"),
             ("b3", "user", "Please remind me to book a flight to Paris", "2026-05-15T20:02:00+08:00"),
             ("b4", "user", "I don't like coffee.", "2026-05-15T20:03:00+08:00"))
    assert r1.status_code == 200, r1.text
    assert r2.status_code == 200, r2.text
    return Scope(tenant, "alice"), headers, r1.json(), r2.json()


def test_two_sessions_two_devices_reach_every_store(deps, app_client, alice):
    scope, headers, first, second = alice
    assert first["accepted"] == 4 and first["message_ids"] == ["a1", "a2", "a3", "a4"]
    # Session context: per device, with TTL, assistant reply capped with a marker.
    phone = deps.sessions.get(SessionRef(scope, "phone", "s1"))
    assert [t["message_id"] for t in phone.turns] == ["a1", "a2", "a3", "a4"]
    assert "full text in history" in phone.turns[2]["content"] and 0 < phone.ttl_s <= 86400
    assert deps.sessions.get(SessionRef(scope, "phone", "s2")).turns == []
    ctx = app_client.get("/v1/users/alice/sessions/s2/context?device_id=laptop", headers=headers).json()
    assert [t["message_id"] for t in ctx["turns"]] == ["b1", "b2", "b3", "b4"]
    # Episodes: one per user turn, with vectors and their source message ids.
    events = deps.episodes.all_for_user(scope)
    # Every turn is an event, the assistant's (a3) of its own kind.
    assert sorted(m for e in events for m in e["message_ids"]) == ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"]
    raw = deps.episodes.client.get(index=deps.episodes.index, id=episode_doc_id(scope, events[0]["event_id"]),
                                   routing=episode_routing(scope))
    assert len(raw["_source"]["vector"]) == 384
    # Tasks: the request became an open task.
    [task] = deps.tasks.latest(scope, open_only=True)
    assert task.status == "CREATED" and task.metadata["message_ids"] == ["b3"]
    # Graph: edges with confidence, source and valid times, shared by both devices.
    # Sensitive objects (health, relations) are sealed in Neo4j; revealed with the user's key.
    items = {(i["predicate"], i["object"]): i for i in reveal_items(deps.keys, scope, deps.graph.items(scope))}
    assert {("has_name", "Alice Chen"), ("allergic_to", "peanuts"), ("has_child", "Tom"),
            ("has_preference", "绿茶"), ("dislikes", "coffee")} <= set(items)
    edge = items[("allergic_to", "peanuts")]
    assert edge["source"] == "rule" and edge["confidence"] == pytest.approx(0.7)
    assert edge["valid_from"] is not None and edge["valid_to"] is None and edge["message_ids"] == ["a2"]
    # Audit: every long-term write recorded with actor, source and confidence.
    audit = deps.audit.entries(scope)
    graph_writes = [a for a in audit if a["store"] == "graph"]
    assert len(graph_writes) >= 5 and all(a["actor"] and a["source"] for a in graph_writes)


def test_tentative_statement_tagged_and_relative_time_resolved(deps, alice):
    scope, _, _, second = alice
    jazz = next(x for x in second["extracted"] if x["kind"] == "profile" and "jazz" in x["summary"])
    assert "tentative" in jazz["tags"] and jazz["confidence"] <= 0.2
    events = {e["message_ids"][0]: e for e in deps.episodes.all_for_user(scope)}
    assert events["b1"]["weight"] == pytest.approx(0.2) and "tentative" in events["b1"]["tags"]
    assert events["b2"]["occurred_at"].startswith("2026-05-14")  # 'yesterday' from 15 May, +08:00


def test_contradiction_closes_the_old_edge(deps, alice):
    scope = alice[0]
    history = deps.graph.items(scope, include_history=True)
    [liked] = [i for i in history if i["predicate"] == "has_preference" and i["object"] == "coffee"]
    assert liked["valid_to"] is not None
    assert ("has_preference", "coffee") not in {(i["predicate"], i["object"]) for i in deps.graph.items(scope)}


def test_profile_endpoint_shows_beliefs_with_provenance(app_client, alice):
    _, headers, _, _ = alice
    items = app_client.get("/v1/users/alice/profile", headers=headers).json()["items"]
    peanuts = next(i for i in items if i["type"] == "allergic_to")
    assert peanuts["provenance"]["message_ids"] == ["a2"] and peanuts["trust_source"] == "rule"
    assert peanuts["decayed_confidence"] <= peanuts["confidence"]


def test_no_graph_write_without_consent(deps, app_client, tenant_key):
    tenant, headers = tenant_key
    assert say(app_client, headers, "bob", "s", "d", ("m1", "user", "I'm allergic to cats.", DAY1)).status_code == 200
    assert deps.graph.items(Scope(tenant, "bob")) == []
    assert len(deps.episodes.all_for_user(Scope(tenant, "bob"))) == 1


def test_revoking_consent_removes_graph_data(deps, app_client, alice):
    scope, headers, _, _ = alice
    assert app_client.put("/v1/users/alice/consent", headers=headers, json={"long_term": False}).status_code == 200
    assert deps.graph.items(scope, include_history=True) == []


def test_child_mode_stores_event_types_only(deps, app_client, tenant_key):
    tenant, headers = tenant_key
    consent = app_client.put("/v1/users/kid/consent", headers=headers, json={"long_term": True, "age": 9}).json()
    assert consent["child_mode"] is True and consent["long_term"] is False
    say(app_client, headers, "kid", "s", "d", ("k1", "user", "My name is Lily and I love dinosaurs", DAY1))
    scope = Scope(tenant, "kid")
    [event] = deps.episodes.all_for_user(scope)
    assert event["type"] == "profile" and event["summary"] == "" and event["text"] == "" and event["keywords"] == []
    assert deps.graph.items(scope) == []
    assert [t["content"] for t in deps.turns.turns(scope)] == [None]


def test_one_tenants_key_cannot_read_another_tenants_user(app_client, alice, make_tenant):
    _, other_headers = make_tenant()
    assert app_client.get("/v1/users/alice/profile", headers=other_headers).json()["items"] == []
    ctx = app_client.get("/v1/users/alice/sessions/s1/context?device_id=phone", headers=other_headers).json()
    assert ctx["turns"] == []
    assert app_client.get("/v1/users/alice/profile", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert app_client.get("/v1/users/alice/profile").status_code == 401
