"""Bad input: a clear 4xx naming the field, and nothing written."""

import pytest

from engram.domain.model import Scope

pytestmark = pytest.mark.stack
OK = {"role": "user", "content": "I love tea", "client_ts": "2026-05-14T09:00:00Z", "message_id": "m1"}


def body(**override):
    return {"session_id": "s1", "device_id": "d1", "messages": [OK], **override}


@pytest.mark.parametrize(("payload", "status", "field"), [
    ({"device_id": "d1", "messages": [OK]}, 400, "session_id"),
    (body(messages=[]), 400, "messages"),
    (body(messages=[{**OK, "content": "x" * 9000}]), 413, "messages[0].content"),
    (body(messages=[{**OK, "role": "system"}]), 400, "messages[0].role"),
    (body(session_id="bad id with spaces"), 400, "session_id"),
    (body(messages=[{**OK, "client_ts": "last tuesday"}]), 400, "messages[0].client_ts"),
    (body(messages=[{**OK, "client_ts": "2026-05-14T09:00:00"}]), 400, "messages[0].client_ts"),
    (body(messages=[OK, {**OK, "content": "different"}]), 422, "messages[1].message_id"),
    (body(messages=[{k: v for k, v in OK.items() if k != "content"}]), 400, "messages[0].content"),
])
def test_bad_ingest_rejected_with_field_and_nothing_written(deps, app_client, tenant_key, payload, status, field):
    tenant, headers = tenant_key
    response = app_client.post("/v1/users/u1/messages", headers=headers, json=payload)
    assert response.status_code == status, response.text
    assert response.json()["error"]["field"] == field
    assert deps.turns.turns(Scope(tenant, "u1")) == []


def test_bad_user_id_and_malformed_json(app_client, tenant_key):
    _, headers = tenant_key
    r = app_client.post("/v1/users/bad%20user/messages", headers=headers, json=body())
    assert r.status_code == 400 and r.json()["error"]["field"] == "user_id"
    r = app_client.post("/v1/users/u1/messages", headers={**headers, "Content-Type": "application/json"},
                        content=b"{not json")
    assert r.status_code == 400


def test_invalid_task_transition_is_409_and_not_recorded(app_client, tenant_key):
    _, headers = tenant_key
    url = "/v1/users/u1/tasks/trip/events"
    assert app_client.post(url, headers=headers, json={"status": "CREATED"}).status_code == 201
    r = app_client.post(url, headers=headers, json={"status": "COMPLETED"})
    assert r.status_code == 409 and r.json()["error"]["field"] == "status"
    assert app_client.post(url, headers=headers, json={"status": "DONE"}).status_code == 400
    tasks = app_client.get("/v1/users/u1/tasks?status=all", headers=headers).json()["tasks"]
    assert [t["status"] for t in tasks] == ["CREATED"]


def test_replayed_idempotency_key_returns_first_result_and_writes_nothing(deps, app_client, tenant_key):
    tenant, headers = tenant_key
    keyed = {**headers, "Idempotency-Key": "req-1"}
    first = app_client.post("/v1/users/u1/messages", headers=keyed, json=body())
    again = app_client.post("/v1/users/u1/messages", headers=keyed, json=body())
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json() and again.headers.get("Idempotent-Replayed") == "true"
    assert len(deps.turns.turns(Scope(tenant, "u1"))) == 1
    assert len(deps.episodes.all_for_user(Scope(tenant, "u1"))) == 1
    other = app_client.post("/v1/users/u1/messages", headers=keyed,
                            json=body(messages=[{**OK, "message_id": "m2"}]))
    assert other.status_code == 422 and other.json()["error"]["field"] == "Idempotency-Key"
