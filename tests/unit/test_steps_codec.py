"""The ingestion steps survive a JSON round trip between Lambdas."""

import json

from engram.domain.model import Scope
from engram.service.ingest import IngestCommand
from engram.service.ingest import run_step as run_ingest_step
from tests.fakes import fake_deps


def step(deps, name: str, event: dict) -> dict:
    return json.loads(json.dumps(run_ingest_step(deps, name, json.loads(json.dumps(event)))))


def request(user_id: str, content: str) -> dict:
    return {"tenant": "t1", "user_id": user_id, "body": {
        "session_id": "s1", "device_id": "d1",
        "messages": [{"role": "user", "content": content, "client_ts": "2026-05-14T09:00:00Z", "message_id": "m1"}]}}


def test_clean_extract_cleanse_chain_through_json():
    deps = fake_deps()  # the first three steps write nothing (extract reads the user's consent)
    deps.users.set_consent(Scope("t1", "u1"), True, 30)
    out = step(deps, "cleanse", step(deps, "extract", step(deps, "clean", request(
        "u1", "Maybe I'm allergic to cats. I went out yesterday."))))
    [item] = out["items"]
    assert item["turn"]["message_id"] == "m1"
    assert item["facts"][0]["predicate"] == "allergic_to" and "tentative" in item["facts"][0]["tags"]
    assert item["event"]["occurred_at"].startswith("2026-05-13")
    assert out["permissions"] == {"long_term": True, "child_mode": False, "version": 1}


def test_a_childs_words_do_not_leave_the_cleanse_step():
    deps = fake_deps()
    deps.users.set_consent(Scope("t1", "kid"), True, 9)
    out = step(deps, "cleanse", step(deps, "extract", step(deps, "clean", request(
        "kid", "My name is Lily and I went to the zoo yesterday."))))
    [item] = out["items"]
    assert out["permissions"] == {"long_term": False, "child_mode": True, "version": 1}
    assert (item["turn"]["content"], item["event"]["summary"], item["event"]["keywords"], item["facts"]) == (
        "", "", [], [])
    # Typed and timed before the words were dropped: that much a child's event keeps.
    assert item["event"]["type"] == "profile" and item["event"]["occurred_at"].startswith("2026-05-13")
    assert "Lily" not in json.dumps(out) and "zoo" not in json.dumps(out)


def test_an_ingest_command_is_the_same_command_after_its_json_form():
    """What the API hands the state machine (``IngestCommand.to_json``) is read back by the first
    step as the very command the in-process chain would have run: epoch milliseconds, offsets,
    unnormalised content and missing ids included."""
    command = IngestCommand.from_body(Scope("t1", "u1"), {"session_id": "s1", "device_id": "d1", "messages": [
        {"role": "user", "content": "  I love   jazz  ", "client_ts": 1778750000123},
        {"role": "assistant", "content": "Noted.", "client_ts": "2026-05-14T11:00:00.5+02:00", "message_id": "m2"}]})
    assert IngestCommand.from_json(json.loads(json.dumps(command.to_json()))) == command
