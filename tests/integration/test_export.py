"""Export (GDPR art. 20) of a user seeded through the API: every item the API accepted, decrypted,
with ISO timestamps, and nothing of anybody else."""

import pytest

from tests.integration.test_erasure_saga import seed

pytestmark = pytest.mark.stack


def test_export_holds_every_accepted_item_and_nothing_of_others(app_client, tenant_key):
    _, headers = tenant_key
    seed(app_client, headers, "alice", "alice-tag")
    seed(app_client, headers, "bob", "bob-tag")
    r = app_client.post("/v1/users/alice/messages", headers=headers, json={
        "session_id": "s3", "device_id": "laptop", "messages": [
            {"role": "user", "content": "Remind me to book a flight to Paris", "client_ts": "2026-05-15T09:00:00Z",
             "message_id": "alice-3"},
            {"role": "assistant", "content": "Sure.", "client_ts": "2026-05-15T09:00:05Z", "message_id": "alice-4"}]})
    assert r.status_code == 200
    accepted = {"alice-1", "alice-2", "alice-3", "alice-4"}
    response = app_client.get("/v1/users/alice/export", headers=headers)
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    doc, text = response.json(), response.text
    assert doc["user_id"] == "alice" and doc["user"]["long_term_consent"] is True
    assert {t["message_id"] for t in doc["turns"]} == accepted
    assert any("peanuts" in t["content"] for t in doc["turns"])  # sealed at rest, clear in the export
    assert {(s["device_id"], s["session_id"]) for s in doc["sessions"]} >= {("phone", "s1"), ("laptop", "s2"),
                                                                          ("laptop", "s3")}
    assert {m for s in doc["sessions"] for t in s["turns"] for m in [t["message_id"]]} == accepted
    assert any(s["fields"].get("current_item") == "alice-tag" for s in doc["sessions"])
    assert {m for e in doc["episodes"] for m in e["message_ids"]} == accepted  # the assistant's "Sure." too
    assert {t["task_id"] for t in doc["tasks"]} >= {"t1"} and len(doc["tasks"]) >= 2
    objects = {(i["type"], i["object"]) for i in doc["profile"]}
    assert {("allergic_to", "peanuts"), ("has_child", "Tom")} <= objects
    assert all({"confidence", "trust_source", "valid_from", "valid_to", "provenance"} <= set(i) for i in doc["profile"])
    assert [d["device_id"] for d in doc["devices"]] == ["phone"] and len(doc["consent_history"]) == 1
    assert doc["audit"] and all(a["at"].endswith("Z") for a in doc["audit"])
    assert doc["exported_at"].endswith("Z")
    assert "bob" not in text and "eg1:" not in text and "sealed:" not in text.replace('"sealed": true', "")
