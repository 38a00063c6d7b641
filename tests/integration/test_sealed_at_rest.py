"""Sensitive fields at rest: sealed in Neo4j, the turn log and OpenSearch, revealed for the user,
redacted after crypto-shredding (reads never crash on a destroyed key)."""

import hashlib
import json

import pytest

from engram.domain.keys import episode_routing, user_node_key
from engram.domain.model import Scope
from engram.service.privacy import REDACTED

pytestmark = pytest.mark.stack


@pytest.fixture
def alice(app_client, tenant_key):
    tenant, headers = tenant_key
    assert app_client.put("/v1/users/alice/consent", headers=headers, json={"long_term": True}).status_code == 200
    r = app_client.post("/v1/users/alice/messages", headers=headers, json={
        "session_id": "s1", "device_id": "phone", "messages": [
            {"role": "user", "content": "I'm allergic to peanuts. Tom is my son.", "client_ts": "2026-05-14T09:00:00Z",
             "message_id": "m1"},
            {"role": "user", "content": "I love green tea", "client_ts": "2026-05-14T09:01:00Z", "message_id": "m2"}]})
    assert r.status_code == 200, r.text
    # The next batch's first turn follows the sealed one: its context must not carry it in clear.
    r = app_client.post("/v1/users/alice/messages", headers=headers, json={
        "session_id": "s1", "device_id": "phone", "messages": [
            {"role": "user", "content": "I was diagnosed with asthma last spring.", "client_ts": "2026-05-14T09:02:00Z",
             "message_id": "m3"},
            {"role": "user", "content": "Yes, and I also enjoy hiking on weekends", "client_ts": "2026-05-14T09:03:00Z",
             "message_id": "m4"}]})
    assert r.status_code == 200, r.text
    return Scope(tenant, "alice"), headers


def test_neo4j_and_turn_log_hold_ciphertext_only(deps, alice):
    scope, _ = alice
    records, _, _ = deps.clients.neo4j.execute_query(
        "MATCH (:User {uid: $uid})-[r]->(o) RETURN type(r) AS rel, o.name AS name, o.key AS key, r.sealed AS sealed",
        uid=user_node_key(scope))
    by_rel = {r["rel"]: r for r in records}
    for rel in ("ALLERGIC_TO", "HAS_CHILD"):
        edge = by_rel[rel]
        assert edge["name"].startswith("sealed:") and edge["sealed"].startswith("eg1:")
        assert "peanut" not in edge["key"] and "tom" not in edge["key"].lower()
    assert by_rel["HAS_PREFERENCE"]["name"] == "green tea" and by_rel["HAS_PREFERENCE"]["sealed"] is None
    with deps.clients.pg() as conn:
        rows = dict(conn.execute("SELECT message_id, content FROM turn_log WHERE tenant = %s AND user_id = %s",
                                 (scope.tenant, scope.user_id)).fetchall())
    assert rows["m1"].startswith("eg1:") and "peanut" not in rows["m1"]
    assert rows["m2"] == "I love green tea"


def test_reads_reveal_for_the_user(app_client, alice):
    scope, headers = alice
    items = app_client.get("/v1/users/alice/profile", headers=headers).json()["items"]
    objects = {i["type"]: i["object"] for i in items}
    assert objects["allergic_to"] == "peanuts" and objects["has_child"] == "Tom"
    recall = app_client.post("/v1/users/alice/recall", headers=headers,
                             json={"query": "what am I allergic to? exactly what did I say"}).json()
    texts = " ".join(i["text"] for i in recall["items"])
    assert "peanuts" in texts and "eg1:" not in texts
    # A correction of a sealed item stays sealed and reads back in clear.
    item = next(i for i in app_client.get("/v1/users/alice/profile", headers=headers).json()["items"]
                if i["type"] == "has_child")
    fixed = app_client.patch(f"/v1/users/alice/profile/items/{item['memory_id']}", headers=headers,
                             json={"object": "Tommy"})
    assert fixed.status_code == 200 and fixed.json()["object"] == "Tommy"


def test_after_shred_reads_redact_instead_of_failing(deps, app_client, alice):
    scope, headers = alice
    deps.keys.shred(scope)  # the process's one key cache forgets the key at once
    items = app_client.get("/v1/users/alice/profile", headers=headers).json()["items"]
    objects = {i["type"]: i["object"] for i in items}
    assert objects["allergic_to"] == REDACTED and objects["has_preference"] == "green tea"
    recall = app_client.post("/v1/users/alice/recall", headers=headers, json={"query": "what am I allergic to?"})
    assert recall.status_code == 200, recall.text
    # Episodes are searchable text (deleted by erasure, not sealed); the graph's copy is gone.
    profile = [i["text"] for i in recall.json()["items"] if i["layer"] == "profile"]
    assert profile and all("peanuts" not in t for t in profile) and any(REDACTED in t for t in profile)


def _raw_documents(deps, scope: Scope) -> list[dict]:
    """The user's OpenSearch documents exactly as stored (vectors left out)."""
    body = {"size": 100, "query": {"bool": {"filter": [{"term": {"tenant": scope.tenant}},
                                                       {"term": {"user_id": scope.user_id}}]}},
            "_source": {"excludes": ["vector"]}}
    return [h["_source"] for h in deps.clients.opensearch.search(
        index=deps.settings.episode_index, body=body, routing=episode_routing(scope))["hits"]["hits"]]


def test_opensearch_holds_no_plaintext_of_a_sensitive_event(deps, alice):
    scope, _ = alice
    docs = _raw_documents(deps, scope)
    stored = json.dumps(docs).lower()
    for word in ("peanut", "asthma", "diagnosed", "tom is my son"):
        assert word not in stored, word
    sealed = [d for d in docs if d["sensitive"]]
    assert len(sealed) == 2
    for doc in sealed:
        assert doc["text"].startswith("eg1:") and doc["blind_terms"]
        assert all(k.startswith("eg1:") for k in doc["keywords"])
    # A plain full-text search for the word finds nothing of the user's.
    hits = deps.clients.opensearch.search(index=deps.settings.episode_index, routing=episode_routing(scope), body={
        "query": {"bool": {"filter": [{"term": {"tenant": scope.tenant}}],
                           "must": [{"multi_match": {"query": "peanuts asthma", "fields": ["text", "summary",
                                                                                          "context"]}}]}}})
    assert hits["hits"]["total"]["value"] == 0


def test_no_neighbour_carries_a_sealed_turn_and_no_hash_is_unkeyed(deps, alice):
    scope, _ = alice
    by_message = {d["message_ids"][0]: d for d in _raw_documents(deps, scope)}
    assert by_message["m2"]["context"] == ""      # after m1 (sealed), same batch
    assert by_message["m4"]["context"] == ""      # after m3 (sealed), same batch
    plain = {hashlib.sha256(t.encode()).hexdigest() for t in ("I love green tea",
                                                                "Yes, and I also enjoy hiking on weekends")}
    assert not plain & {d["raw_sha256"] for d in by_message.values()}
    with deps.clients.pg() as conn:
        hashes = {r[0] for r in conn.execute("SELECT content_sha256 FROM turn_log WHERE tenant = %s AND user_id = %s",
                                             (scope.tenant, scope.user_id))}
    assert hashes and not plain & hashes


def test_a_sealed_event_is_found_by_its_words_and_read_in_clear(app_client, alice):
    _, headers = alice
    for query, word in (("asthma", "asthma"), ("peanuts", "peanuts")):
        recall = app_client.post("/v1/users/alice/recall", headers=headers, json={"query": query}).json()
        episodes = [i["text"] for i in recall["items"] if i["layer"] == "episode"]
        assert any(word in t for t in episodes) and not any("eg1:" in t for t in episodes), (query, episodes)
    export = app_client.get("/v1/users/alice/export", headers=headers).json()
    texts = " ".join(e["text"] for e in export["episodes"])
    assert "asthma" in texts and "peanuts" in texts and "eg1:" not in texts


def test_a_previous_batchs_sealed_turn_is_not_a_neighbours_context(deps, app_client, alice):
    scope, headers = alice
    r = app_client.post("/v1/users/alice/messages", headers=headers, json={
        "session_id": "s1", "device_id": "phone", "messages": [
            {"role": "user", "content": "I was diagnosed with diabetes in March", "client_ts": "2026-05-14T09:04:00Z",
             "message_id": "m5"}]})
    assert r.status_code == 200
    r = app_client.post("/v1/users/alice/messages", headers=headers, json={
        "session_id": "s1", "device_id": "phone", "messages": [
            {"role": "user", "content": "Anyway the weather is lovely today", "client_ts": "2026-05-14T09:05:00Z",
             "message_id": "m6"}]})
    assert r.status_code == 200
    by_message = {d["message_ids"][0]: d for d in _raw_documents(deps, scope)}
    assert by_message["m5"]["sensitive"] and by_message["m6"]["context"] == ""
    assert by_message["m4"]["context"] == "" and not by_message["m6"]["sensitive"]
