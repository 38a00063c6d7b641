"""Sensitive fields at rest: sealed in Neo4j and the turn log, revealed for the user, redacted
after crypto-shredding (reads never crash on a destroyed key)."""

import pytest

from engram.domain.keys import user_node_key
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
