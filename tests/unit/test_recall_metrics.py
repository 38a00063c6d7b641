"""What a recall reports to monitoring (engram.domain.recall.metrics), on the fakes: the datapoints of a
healthy and of a degraded answer, of a failed recall and of a refused one, through both runners;
and the EMF document the Lambda sink turns them into (namespace, service dimension, units) - the
metrics the alarms in template.yaml watch."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from aws_lambda_powertools import Metrics

from engram.adapters.aws.emf_metrics import DiscardedMetrics, EmfMetrics, metrics_sink
from engram.domain.recall import metrics as m
from engram.domain.records import SessionRef
from engram.errors import StoreUnavailable, ValidationFailed
from engram.service.recall import RecallRequest, recall, run_step
from tests.fakes import RecordingMetrics
from tests.unit.support import failing, say

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


@pytest.fixture
def memory(deps, consenting):
    say(deps, consenting, "I'm allergic to peanuts.", "I love jazz music.", "Remind me to call the dentist")
    deps.sessions.set_fields(SessionRef(consenting, "phone", "s1"), {"current_item": "jazz music"})
    return consenting


# A hit is a session field that speaks to the question (it answers at once, from working memory).
HIT = "What is the current item, and am I allergic to anything?"


def _request(scope, query=HIT, *, session=True) -> RecallRequest:
    return RecallRequest.parse(scope, query, 10, NOW.isoformat(), "s1" if session else None,
                               "phone" if session else None)


def _recorded(deps, request) -> dict[str, list[float]]:
    sink = RecordingMetrics()
    recall(deps.with_(metrics=sink), request)
    return sink.values()


def test_a_healthy_answer_reports_answered_no_degradation_a_session_hit_and_each_steps_time(deps, memory):
    values = _recorded(deps, _request(memory))
    assert values[m.ANSWERED] == [1] and values[m.DEGRADED] == [0] and values[m.NO_RECORD] == [0]
    assert values[m.SESSION_HIT] == [1]
    assert m.FAILED not in values
    # the steps that ran, once each; the originals step did not (nothing verbatim was asked)
    assert {name for name in values if name.startswith("RecallLatency_")} == {
        m.latency(s) for s in ("session", "tasks", "profile", "episodes")} | {m.TOTAL_LATENCY}
    assert all(len(v) == 1 and v[0] >= 0 for name, v in values.items() if name.startswith("RecallLatency_"))
    assert set(values) <= m.ALL


def test_a_degraded_answer_reports_degraded_and_the_late_steps_deadline(deps, memory):
    down = deps.with_(tasks=failing(deps.tasks, "latest"))
    values = _recorded(down, _request(memory))
    assert values[m.ANSWERED] == [1] and values[m.DEGRADED] == [1]
    assert m.FAILED not in values
    assert values[m.latency("tasks")] == [pytest.approx(0, abs=50)]  # failed fast: its own time, not a hang


def test_a_recall_naming_no_session_reports_no_session_datapoint(deps, memory):
    values = _recorded(deps, _request(memory, session=False))
    assert m.SESSION_HIT not in values and m.latency("session") not in values  # neither a miss nor 0 ms
    assert values[m.ANSWERED] == [1]


def test_a_session_whose_context_does_not_speak_to_the_question_is_a_miss(deps, memory):
    assert _recorded(deps, _request(memory, "What am I allergic to?"))[m.SESSION_HIT] == [0]
    empty = RecallRequest.parse(memory, HIT, 10, NOW.isoformat(), "empty", "laptop")
    assert _recorded(deps, empty)[m.SESSION_HIT] == [0]


def test_a_failed_recall_counts_as_failed_and_a_refused_one_is_not_counted(settings, memory):
    from tests.fakes import fake_deps

    sink = RecordingMetrics()
    deps = fake_deps(settings.model_copy(update={"recall_runner": "stepfunctions",
                                                 "recall_state_machine_arn": "arn:aws:states:r:1:stateMachine:r"}),
                     metrics=sink)
    deps.workflows.fail_with = StoreUnavailable("step functions: down")
    with pytest.raises(StoreUnavailable):
        recall(deps, _request(memory))
    assert sink.values() == {m.FAILED: [1]}
    deps.workflows.fail_with = ValidationFailed("the caller's fault", field="query")
    with pytest.raises(ValidationFailed):
        recall(deps, _request(memory))
    assert sink.values() == {m.FAILED: [1]}  # a 4xx is the caller's, not a failed recall


def test_the_per_lambda_runner_counts_the_answer_once_at_fusion(deps, memory):
    sink = RecordingMetrics()
    counted = deps.with_(metrics=sink)
    payload = _request(memory).to_json()
    session = run_step(counted, "session", payload)
    layers = [run_step(counted, name, {"request": payload, "session": session}) for name in ("tasks", "profile",
                                                                                             "episodes")]
    assert sink.recorded == []  # a step alone answers nothing
    run_step(counted, "fuse", {"request": payload, "session": session, "layers": layers})
    values = sink.values()
    assert values[m.ANSWERED] == [1] and values[m.DEGRADED] == [0] and values[m.SESSION_HIT] == [1]


def test_the_lambda_sink_writes_emf_in_the_namespace_and_service_the_alarms_watch(monkeypatch):
    powertools = Metrics(namespace=m.NAMESPACE, service=m.SERVICE)
    powertools.clear_metrics()
    try:
        degraded = m.answered({"session": 3.0, "tasks": 620.0}, True, False, False, 700.0)
        EmfMetrics(powertools).record(degraded)
        emf = powertools.serialize_metric_set()
    finally:
        powertools.clear_metrics()
    [directive] = emf["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == "Engram" and directive["Dimensions"] == [["service"]]
    assert emf["service"] == "engram"
    units = {d["Name"]: d["Unit"] for d in directive["Metrics"]}
    assert units == {m.ANSWERED: "Count", m.DEGRADED: "Count", m.NO_RECORD: "Count", m.SESSION_HIT: "Count",
                     m.TOTAL_LATENCY: "Milliseconds", m.latency("session"): "Milliseconds",
                     m.latency("tasks"): "Milliseconds"}
    assert (emf[m.DEGRADED], emf[m.SESSION_HIT], emf[m.latency("tasks")]) == ([1.0], [0.0], [620.0])
    json.dumps(emf)  # one EMF line


def test_outside_a_lambda_the_sink_discards(monkeypatch):
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    assert isinstance(metrics_sink(), DiscardedMetrics)
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "engram-local-ApiFunction")
    assert isinstance(metrics_sink(), EmfMetrics)
