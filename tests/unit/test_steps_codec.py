"""The ingestion steps survive a JSON round trip between Lambdas."""

import json

from engram.service.steps import clean_step, cleanse_step, extract_step


def test_clean_extract_cleanse_chain_through_json():
    event = {"tenant": "t1", "user_id": "u1", "body": {
        "session_id": "s1", "device_id": "d1",
        "messages": [{"role": "user", "content": "Maybe I'm allergic to cats. I went out yesterday.",
                      "client_ts": "2026-05-14T09:00:00Z", "message_id": "m1"}]}}
    out = json.loads(json.dumps(cleanse_step(json.loads(json.dumps(extract_step(json.loads(json.dumps(
        clean_step(event)))))))))
    [item] = out["items"]
    assert item["turn"]["message_id"] == "m1"
    assert item["facts"][0]["predicate"] == "allergic_to" and "tentative" in item["facts"][0]["tags"]
    assert item["event"]["occurred_at"].startswith("2026-05-13")
