"""The ingestion steps survive a JSON round trip between Lambdas."""

import json
from types import SimpleNamespace

from engram.service.ingestion import run_ingest_step

NO_LLM = SimpleNamespace(llm=None)  # the first three steps touch no store


def step(name: str, event: dict) -> dict:
    return json.loads(json.dumps(run_ingest_step(NO_LLM, name, json.loads(json.dumps(event)))))


def test_clean_extract_cleanse_chain_through_json():
    event = {"tenant": "t1", "user_id": "u1", "body": {
        "session_id": "s1", "device_id": "d1",
        "messages": [{"role": "user", "content": "Maybe I'm allergic to cats. I went out yesterday.",
                      "client_ts": "2026-05-14T09:00:00Z", "message_id": "m1"}]}}
    out = step("cleanse", step("extract", step("clean", event)))
    [item] = out["items"]
    assert item["turn"]["message_id"] == "m1"
    assert item["facts"][0]["predicate"] == "allergic_to" and "tentative" in item["facts"][0]["tags"]
    assert item["event"]["occurred_at"].startswith("2026-05-13")
