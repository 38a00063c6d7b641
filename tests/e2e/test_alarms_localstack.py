"""The deployed alarms on LocalStack: each alarm of template.yaml is there as written (metric,
statistic, threshold, period and evaluation, actions to the alert topic), and LocalStack's own
evaluation turns metric data past a threshold into ALARM and a message on the topic.

What LocalStack (community, 2026.3) evaluates: only alarms on one metric with a plain
``Statistic`` - here the degraded-answer rate and the session-context hit rate. It keeps but
never evaluates percentile alarms (``ExtendedStatistic: p95``: every per-layer latency alarm) and
metric-math alarms (the recall success rate): its log says "Given alarm configuration not yet
supported, alarm state will not be evaluated", and it computes no percentile at all (GetMetricData
with Stat "p95" fails). For those this test checks the deployed definition and that the metric
data reaches CloudWatch; it sets one such alarm's state by hand only to see its action reach the
topic, never as proof of an evaluation. LocalStack also skips ``AWS::CloudWatch::Dashboard`` (no
resource provider); tests/unit/test_alarm_metrics.py checks its body.

A LocalStack started before cloudwatch was in its SERVICES has none of this (deploy leaves the
alarms out, stackctl/monitoring.py): the tests skip there and say how to restart it.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.recall import metrics as m
from local.stackctl.deploy import STACK_NAME, STORE_DEFAULTS, client, load_template
from local.stackctl.monitoring import serves_cloudwatch
from local.stackctl.services.localstack import LocalStack

pytestmark = pytest.mark.stack

SERVICE = [{"Name": "service", "Value": m.SERVICE}]
# LocalStack evaluates an alarm every EvaluationPeriods x Period seconds (60 for the degraded rate),
# starting when it is created: one evaluation after the data, plus a margin for a busy machine.
EVALUATION_WAIT_S = 150
# Each evaluation reads EvaluationPeriods + 2 periods back: a breach an earlier run put there keeps
# the 1-minute alarm in ALARM for 3 minutes, plus up to one evaluation.
AGE_OUT_WAIT_S = 300


@pytest.fixture(scope="module")
def cloudwatch():
    if not serves_cloudwatch(LocalStack().health()):
        pytest.skip("this LocalStack was started before cloudwatch was in its SERVICES, so deploy left the "
                    "alarms out: `local/stack down && local/stack up` starts it with them")
    return client("cloudwatch")


@pytest.fixture(scope="module")
def template() -> dict:
    return load_template()


@pytest.fixture(scope="module")
def deployed(cloudwatch) -> dict[str, dict]:
    """The stack's alarms by logical id, as CloudWatch describes them."""
    cfn = client("cloudformation")
    names = {}
    for page in cfn.get_paginator("list_stack_resources").paginate(StackName=STACK_NAME):
        names |= {r["LogicalResourceId"]: r["PhysicalResourceId"] for r in page["StackResourceSummaries"]
                  if r["ResourceType"] == "AWS::CloudWatch::Alarm"}
    assert names, f"{STACK_NAME} has no alarms although LocalStack serves cloudwatch: `local/stack deploy`"
    alarms = cloudwatch.describe_alarms(AlarmNames=list(names.values()))["MetricAlarms"]
    by_name = {a["AlarmName"]: a for a in alarms}
    return {logical: by_name[name] for logical, name in names.items() if name in by_name}


@pytest.fixture(scope="module")
def topic_arn() -> str:
    outputs = client("cloudformation").describe_stacks(StackName=STACK_NAME)["Stacks"][0]["Outputs"]
    return next(o["OutputValue"] for o in outputs if o["OutputKey"] == "AlertTopicArn")


@pytest.fixture
def alerts(topic_arn):
    """A fresh SQS queue subscribed to the alert topic; yields a reader of the alarm messages on it."""
    sqs, sns = client("sqs"), client("sns")
    url = sqs.create_queue(QueueName=f"alerts-{uuid.uuid4().hex[:12]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    subscription = sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=arn)["SubscriptionArn"]

    def wait_for(alarm_name: str, state: str, timeout_s: float = 30) -> dict:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for message in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get(
                    "Messages", []):
                alarm = json.loads(json.loads(message["Body"])["Message"])
                if alarm["AlarmName"] == alarm_name and alarm["NewStateValue"] == state:
                    return alarm
        raise AssertionError(f"no {state} message for {alarm_name} on the alert topic within {timeout_s:.0f} s")

    yield wait_for
    sns.unsubscribe(SubscriptionArn=subscription)
    sqs.delete_queue(QueueUrl=url)


def _parameter(template: dict, value) -> float:
    """A threshold as deployed: deploy passes no threshold parameter, so each has its default."""
    if isinstance(value, dict):
        assert value["Ref"] not in STORE_DEFAULTS
        return float(template["Parameters"][value["Ref"]]["Default"])
    return float(value)


def _state(cloudwatch, name: str) -> str:
    return cloudwatch.describe_alarms(AlarmNames=[name])["MetricAlarms"][0]["StateValue"]


def _wait_state(cloudwatch, name: str, wanted, timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    while (state := _state(cloudwatch, name)) not in wanted and time.monotonic() < deadline:
        time.sleep(2)
    return state


def test_every_alarm_of_the_template_is_deployed_as_written(template, deployed, topic_arn):
    written = {name: r["Properties"] for name, r in template["Resources"].items()
               if r["Type"] == "AWS::CloudWatch::Alarm"}
    assert set(deployed) == set(written)
    for name, props in written.items():
        alarm = deployed[name]
        assert alarm["AlarmActions"] == [topic_arn] and alarm["OKActions"] == [topic_arn], name
        assert alarm["Threshold"] == _parameter(template, props["Threshold"]), name
        for key in ("ComparisonOperator", "EvaluationPeriods", "TreatMissingData"):
            assert alarm[key] == props[key], (name, key)
        assert alarm.get("DatapointsToAlarm", alarm["EvaluationPeriods"]) == props.get(
            "DatapointsToAlarm", props["EvaluationPeriods"]), name
        if "MetricName" in props:
            assert (alarm["Namespace"], alarm["MetricName"], alarm["Dimensions"], alarm["Period"]) == (
                m.NAMESPACE, props["MetricName"], SERVICE, props["Period"]), name
            assert alarm.get("Statistic") == props.get("Statistic"), name
            assert alarm.get("ExtendedStatistic") == props.get("ExtendedStatistic"), name
        else:  # metric math: the same queries, ids and expression
            queries = {q["Id"]: q for q in alarm["Metrics"]}
            for query in props["Metrics"]:
                got = queries[query["Id"]]
                if "Expression" in query:
                    assert got["Expression"] == query["Expression"] and got["ReturnData"] is True, name
                else:
                    stat = got["MetricStat"]
                    assert (stat["Metric"]["MetricName"], stat["Metric"]["Dimensions"], stat["Stat"], stat["Period"]) \
                        == (query["MetricStat"]["Metric"]["MetricName"], SERVICE, query["MetricStat"]["Stat"],
                            query["MetricStat"]["Period"]), name


@pytest.mark.timeout(AGE_OUT_WAIT_S + EVALUATION_WAIT_S + 60)
def test_localstack_evaluates_the_degraded_answer_alarm_into_alarm_and_alerts_the_topic(cloudwatch, deployed, alerts):
    name = deployed["DegradedAnswerRateAlarm"]["AlarmName"]
    # Only after a run minutes ago: its breach ages out first, so that the ALARM seen below is a
    # transition this test's data caused (and the message on the topic is this one's).
    assert _wait_state(cloudwatch, name, ("OK", "INSUFFICIENT_DATA"), AGE_OUT_WAIT_S) != "ALARM"
    # Every answer of a minute degraded (1000 datapoints of 1): an Average of 1, past 0.05,
    # whatever else reaches the metric meanwhile.
    cloudwatch.put_metric_data(Namespace=m.NAMESPACE, MetricData=[{
        "MetricName": m.DEGRADED, "Dimensions": SERVICE, "Timestamp": datetime.now(UTC), "Unit": "Count",
        "Values": [1.0], "Counts": [1000.0]}])
    assert _wait_state(cloudwatch, name, ("ALARM",), EVALUATION_WAIT_S) == "ALARM"
    message = alerts(name, "ALARM")
    assert message["Trigger"]["MetricName"] == m.DEGRADED and message["NewStateReason"]


def test_percentile_and_metric_math_alarms_are_kept_but_not_evaluated_here(cloudwatch, deployed, alerts):
    tasks = deployed["TasksLatencyAlarm"]
    assert (tasks["ExtendedStatistic"], tasks["Threshold"], tasks["Period"], tasks["EvaluationPeriods"]) == (
        "p95", 500.0, 60, 5)
    assert "Statistic" not in tasks  # what LocalStack's scheduler needs to evaluate an alarm
    assert "MetricName" not in deployed["RecallSuccessRateAlarm"]
    # The data the tasks alarms read reaches CloudWatch. LocalStack computes no percentile
    # (GetMetricData with Stat "p95" fails there), so what is checked is the minute's datapoints.
    start = datetime.now(UTC)
    cloudwatch.put_metric_data(Namespace=m.NAMESPACE, MetricData=[{
        "MetricName": m.latency("tasks"), "Dimensions": SERVICE, "Timestamp": start, "Unit": "Milliseconds",
        "Values": [40.0, 700.0], "Counts": [10.0, 990.0]}])

    def query(stat: str) -> dict:
        metric = {"Namespace": m.NAMESPACE, "MetricName": m.latency("tasks"), "Dimensions": SERVICE}
        return {"Id": stat.lower(), "MetricStat": {"Metric": metric, "Period": 60, "Stat": stat}}

    results = cloudwatch.get_metric_data(MetricDataQueries=[query("Maximum"), query("SampleCount")],
                                         StartTime=start - timedelta(minutes=1), EndTime=start + timedelta(minutes=1))
    values = {r["Id"]: r["Values"] for r in results["MetricDataResults"]}
    assert max(values["maximum"]) >= 700 and max(values["samplecount"]) >= 1000
    # Not evaluation: the alarm's action, by hand, reaches the topic (and its state is put back).
    name = tasks["AlarmName"]
    cloudwatch.set_alarm_state(AlarmName=name, StateValue="ALARM", StateReason="test: action check only")
    try:
        assert alerts(name, "ALARM")["NewStateReason"] == "test: action check only"
    finally:
        cloudwatch.set_alarm_state(AlarmName=name, StateValue="INSUFFICIENT_DATA", StateReason="test: put back")
