"""template.yaml's alarms, dashboard and tracing watch what the code does.

Every alarm and every dashboard metric is one the functions emit (``engram.domain.recall.metrics``: the
same names, the namespace and ``service`` dimension Powertools gets from Globals), every metric
the seeds ask to watch has its alarm, every alarm notifies the alert topic on ALARM and on OK, and
X-Ray is on from API Gateway through every function and state machine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engram.domain.recall import metrics as m
from local.stackctl.deploy import load_template
from local.stackctl.monitoring import without_cloudwatch

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"
TOPIC = [{"Ref": "AlertTopic"}]


@pytest.fixture(scope="module")
def template() -> dict:
    return load_template(TEMPLATE)


def _of_type(template: dict, kind: str) -> dict[str, dict]:
    return {name: r.get("Properties", {}) for name, r in template["Resources"].items() if r["Type"] == kind}


def _alarms(template: dict) -> dict[str, dict]:
    return _of_type(template, "AWS::CloudWatch::Alarm")


def _watched(alarm: dict) -> list[dict]:
    """The metrics an alarm reads: its own, or each MetricStat of its metric math."""
    if "MetricName" in alarm:
        return [{k: alarm.get(k) for k in ("Namespace", "MetricName", "Dimensions")}]
    return [q["MetricStat"]["Metric"] for q in alarm["Metrics"] if "MetricStat" in q]


def _default(template: dict, value) -> float:
    """A threshold: a number, or a parameter's default."""
    if isinstance(value, dict):
        return float(template["Parameters"][value["Ref"]]["Default"])
    return float(value)


def test_the_code_emits_in_the_namespace_and_service_of_globals(template):
    env = template["Globals"]["Function"]["Environment"]["Variables"]
    assert (env["POWERTOOLS_METRICS_NAMESPACE"], env["POWERTOOLS_SERVICE_NAME"]) == (m.NAMESPACE, m.SERVICE)
    for name, props in _of_type(template, "AWS::Serverless::Function").items():
        own = props.get("Environment", {}).get("Variables", {})
        assert not {"POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_SERVICE_NAME"} & set(own), name


def test_every_alarm_watches_a_metric_the_code_emits(template):
    alarms = _alarms(template)
    assert alarms
    for name, alarm in alarms.items():
        for metric in _watched(alarm):
            assert metric["Namespace"] == m.NAMESPACE, name
            assert metric["MetricName"] in m.ALL, (name, metric["MetricName"])
            assert metric["Dimensions"] == [{"Name": "service", "Value": m.SERVICE}], name


def test_every_alarm_alerts_the_topic_and_no_traffic_is_no_breach(template):
    assert template["Resources"]["AlertTopic"]["Type"] == "AWS::SNS::Topic"
    for name, alarm in _alarms(template).items():
        assert alarm["AlarmActions"] == TOPIC and alarm["OKActions"] == TOPIC, name
        assert alarm["TreatMissingData"] == "notBreaching", name
        assert alarm["AlarmName"] == {"Fn::Sub": alarm["AlarmName"]["Fn::Sub"]}  # per stage
        assert alarm["AlarmName"]["Fn::Sub"].startswith("engram-${Stage}-"), name


def _by_metric(template: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for alarm in _alarms(template).values():
        for metric in _watched(alarm):
            out.setdefault(metric["MetricName"], []).append(alarm)
    return out


def test_the_metrics_the_seeds_name_each_have_their_alarm(template):
    by_metric = _by_metric(template)
    # recall success rate: metric math over answered and failed, below 99.9 % for 5 minutes
    [success] = by_metric[m.ANSWERED]
    assert by_metric[m.FAILED] == [success]
    [rate] = [q for q in success["Metrics"] if q.get("ReturnData")]
    assert set(re.findall(r"[a-z]+(?=\s*[,)])", rate["Expression"])) == {"answered", "failed"}
    assert (success["ComparisonOperator"], _default(template, success["Threshold"])) == ("LessThanThreshold", 99.9)
    # session-context hit rate: healthy at 60 % or more
    [hit] = by_metric[m.SESSION_HIT]
    assert (hit["Statistic"], hit["ComparisonOperator"], _default(template, hit["Threshold"])) == (
        "Average", "LessThanThreshold", 0.6)
    # degraded answers
    [degraded] = by_metric[m.DEGRADED]
    assert (degraded["Statistic"], degraded["ComparisonOperator"]) == ("Average", "GreaterThanThreshold")
    # per-layer p95: every step; tasks warns above 300 ms for a minute, alarms above 500 ms for 5
    for step in m.LATENCY_STEPS:
        assert all(a["ExtendedStatistic"] == "p95" and a["Period"] == 60 for a in by_metric[m.latency(step)]), step
    tasks = sorted((_default(template, a["Threshold"]), a["EvaluationPeriods"], a.get("DatapointsToAlarm", 1))
                   for a in by_metric[m.latency("tasks")])
    assert tasks == [(300.0, 1, 1), (500.0, 5, 5)]
    deadlines = {"session": 50.0, "profile": 150.0, "episodes": 300.0, "archive": 3000.0}  # config's deadlines
    for step, ms in deadlines.items():
        [alarm] = by_metric[m.latency(step)]
        assert (_default(template, alarm["Threshold"]), alarm["EvaluationPeriods"]) == (ms, 5), step


def _dashboard(template: dict) -> dict:
    [board] = _of_type(template, "AWS::CloudWatch::Dashboard").values()
    body = board["DashboardBody"]["Fn::Sub"]
    names = set(re.findall(r"\$\{([^}]+)\}", body))
    refs = {n for n in names if not n.startswith("AWS::")}
    for ref in refs:
        assert ref in template["Parameters"] or ref.removesuffix(".Arn") in template["Resources"], ref
    return json.loads(re.sub(r"\$\{[^}]+\}", "1", body))


def test_the_dashboard_shows_the_emitted_metrics_and_every_alarm(template):
    widgets = _dashboard(template)["widgets"]
    shown = set()
    for widget in widgets:
        for row in widget["properties"].get("metrics", []):
            if isinstance(row[0], str):
                namespace, name, dim, value = row[:4]
                assert (namespace, dim, value) == (m.NAMESPACE, "service", m.SERVICE) and name in m.ALL, row
                shown.add(name)
    assert {m.ANSWERED, m.FAILED, m.SESSION_HIT, m.DEGRADED, *map(m.latency, m.LATENCY_STEPS)} <= shown
    [status] = [w for w in widgets if w["type"] == "alarm"]
    body = template["Resources"]["RecallDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    assert {f"${{{name}.Arn}}" for name in _alarms(template)} <= set(re.findall(r"\$\{[A-Za-z]+\.Arn\}", body))
    assert len(status["properties"]["alarms"]) == len(_alarms(template))


def test_xray_traces_from_api_gateway_through_every_function_and_state_machine(template):
    assert template["Resources"]["EngramApi"]["Properties"]["TracingEnabled"] is True
    assert template["Globals"]["Function"]["Tracing"] == "Active"
    for name, props in _of_type(template, "AWS::Serverless::Function").items():
        assert props.get("Tracing", "Active") == "Active", name
    machines = _of_type(template, "AWS::Serverless::StateMachine")
    assert machines and all(props["Tracing"] == {"Enabled": True} for props in machines.values())


def test_a_localstack_without_cloudwatch_gets_the_rest_of_the_stack(template):
    kept, dropped = without_cloudwatch(template)
    assert set(dropped) == {*_alarms(template), "RecallDashboard"}
    assert set(template["Resources"]) - set(kept["Resources"]) == set(dropped)
    rest = json.dumps(kept)
    assert not any(f'"{name}"' in rest or f"{{{name}." in rest for name in dropped)  # nothing refers to them
