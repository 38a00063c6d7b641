"""Both runners of each chain give the same answer over the real stores, run in this process.

``tests/e2e/test_runner_equivalence.py`` compares the deployed runners (the API Lambda's in-process
chain against the Express state machines' Lambdas); this compares the code under test as it is:
the in-process runner against its steps run one at a time, each payload through JSON and chained
as the state machine chains them (``run_step``), on the same statements and questions.
"""

from __future__ import annotations

import uuid

import pytest

from engram.domain.model import Scope
from engram.domain.records import SessionRef
from engram.service.ingest import IngestCommand
from engram.service.ingest import run_in_process as ingest_in_process
from engram.service.profile import profile
from engram.service.recall import RecallRequest
from engram.service.recall import run_in_process as recall_in_process
from engram.service.users import set_consent
from engram.service.working_memory import set_session_fields
from tests.e2e.test_runner_equivalence import (
    DEVICE,
    NOW,
    QUERIES,
    SESSION,
    STATEMENTS,
    _ids,
    _messages,
    _unscored,
    _without_ids,
)
from tests.unit.support import recall_through_lambdas, through_lambdas

pytestmark = pytest.mark.stack


def _consenting(deps, prefix: str) -> Scope:
    scope = Scope(f"equiv-{uuid.uuid4().hex[:10]}", f"{prefix}-{uuid.uuid4().hex[:10]}")
    set_consent(deps, scope, True, None)
    return scope


def _profile_pairs(deps, scope: Scope) -> list[tuple[str, str]]:
    return sorted((item["type"], item["object"]) for item in profile(deps, scope)["items"])


def test_ingest_step_by_step_writes_as_the_in_process_chain(deps):
    in_process, stepped = _consenting(deps, "ingest-in-process"), _consenting(deps, "ingest-stepped")
    body = _messages(STATEMENTS)
    expected = ingest_in_process(deps, IngestCommand.from_body(in_process, body))
    answer = through_lambdas(deps, {"tenant": stepped.tenant, "user_id": stepped.user_id, "body": body})
    assert _without_ids(answer) == _without_ids(expected)
    assert expected["accepted"] == len(STATEMENTS)
    assert {e["kind"] for e in expected["extracted"]} >= {"episode", "profile", "task"}, expected
    assert _profile_pairs(deps, in_process) and _profile_pairs(deps, stepped) == _profile_pairs(deps, in_process)


def test_recall_step_by_step_answers_as_the_in_process_runner(deps):
    scope = _consenting(deps, "recall")
    ingest_in_process(deps, IngestCommand.from_body(scope, _messages(STATEMENTS)))
    set_session_fields(deps, SessionRef(scope, DEVICE, SESSION), {"current_item": "the Kyoto trip in October"})
    answered = 0
    for query, extra in QUERIES:
        request = RecallRequest.parse(scope, query, extra.get("k", 10), NOW, extra.get("session_id"),
                                      extra.get("device_id"))
        expected, answer = recall_in_process(deps, request), recall_through_lambdas(deps, request)
        what = f"{query!r} {extra}"
        assert expected["degraded"] == answer["degraded"] == [], (what, expected["timings_ms"], answer["timings_ms"])
        assert _ids(answer) == _ids(expected), what
        assert _unscored(answer) == _unscored(expected), what
        assert (answer["no_record"], answer["memory_dependent"], answer["context_block"]) == (
            expected["no_record"], expected["memory_dependent"], expected["context_block"]), what
        answered += bool(expected["items"])
    assert answered >= len(QUERIES) // 2, answered
