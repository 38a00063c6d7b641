"""The hostile-input corpus (tests/hostile.py) through the API over the fakes: no 5xx, a 4xx
naming the field where the client is at fault, and the user's earlier and later requests work."""

from __future__ import annotations

import json

import pytest

from engram.domain.model import Scope
from engram.domain.records import SessionRef
from engram.service.ingest import INGEST_CHAIN
from engram.service.ingest import run_step as run_ingest_step
from tests.hostile import SESSION, assert_answered, assert_user_still_works, corpus, ingest, msg, seed, send
from tests.unit.support import client_for

USER = "alice"


@pytest.fixture
def api(deps):
    return client_for(deps)


@pytest.mark.parametrize("case", corpus())
def test_hostile_input_is_answered_and_the_user_keeps_working(api, case):
    seed(api, USER)
    assert_answered(case, send(api, case, USER))
    assert_user_still_works(api, USER)


def test_a_refused_request_writes_nothing(api, deps):
    seed(api, USER)
    scope = Scope("t1", USER)
    before = (len(deps.turns.turns(scope)), deps.tasks.history(scope), deps.audit.entries(scope))
    for case in corpus():
        case = case.values[0]
        if case.status >= 400 and case.method != "GET":
            send(api, case, USER)
    assert (len(deps.turns.turns(scope)), deps.tasks.history(scope), deps.audit.entries(scope)) == before


def test_nan_stored_before_the_edge_refused_it_reads_as_null(api, deps):
    """A session written with NaN (by an older version, or straight into the store) stays readable."""
    seed(api, USER)
    deps.sessions.set_fields(SessionRef(Scope("t1", USER), "phone", "s1"), {"score": float("nan")})
    context = api.get(f"/v1/users/{USER}/{SESSION}")
    assert context.status_code == 200 and context.json()["fields"]["score"] is None
    assert api.get(f"/v1/users/{USER}/export").status_code == 200
    assert_user_still_works(api, USER)


def test_a_session_cannot_grow_past_its_bounds_one_small_request_at_a_time(api):
    path = f"/v1/users/{USER}/{SESSION}"
    seed(api, USER)
    for i in range(63):
        assert api.put(path, json={"fields": {f"f{i}": i}}).status_code == 200
    r = api.put(path, json={"fields": {"one_too_many": 1}})
    assert r.status_code == 413 and r.json()["error"]["field"] == "fields"
    assert api.put(path, json={"fields": {"f0": None, "one_too_many": 1}}).status_code == 200  # replaces one
    big = {f"f{i}": "x" * 300 for i in range(1, 63)}
    r = api.put(path, json={"fields": big})
    assert r.status_code == 413 and r.json()["error"]["field"] == "fields"
    assert_user_still_works(api, USER)


def test_a_body_too_big_is_refused_while_it_is_read_when_it_has_no_length(api):
    chunks = iter([b'{"query": "', b"x" * (7 * 1024 * 1024), b'"}'])
    r = api.post(f"/v1/users/{USER}/recall", content=chunks, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["field"] == "body"


def test_one_bad_time_never_fails_its_batch_one_lambda_per_step(deps):
    """The IngestStateMachine's path: each step a JSON round trip, the route step writing."""
    event = {"tenant": "t1", "user_id": USER, "body": ingest(msg("I met her 800000 days ago", message_id="bad"),
                                                             msg("I love jazz", message_id="fine"))}
    value: object = event
    for step in INGEST_CHAIN:
        value = json.loads(json.dumps(run_ingest_step(deps, step.name, json.loads(json.dumps(value)))))
    assert value["accepted"] == 2
    docs = {d["message_ids"][0]: d for d in deps.episodes.all_for_user(Scope("t1", USER))}
    assert "time_unresolved" in docs["bad"]["tags"] and docs["bad"]["text"] == "I met her 800000 days ago"
    assert "time_unresolved" not in docs["fine"]["tags"]
