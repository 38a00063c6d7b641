"""LocalStack's AWS side for the tests of scheduled state machines: a client, an execution run to
its end, and the target a schedule rule starts."""

from __future__ import annotations

import json
import time

import boto3

from local.stackctl.common import HOST, PORTS


def aws(service: str):
    return boto3.client(service, endpoint_url=f"http://{HOST}:{PORTS['localstack']}", region_name="us-east-1",
                        aws_access_key_id="test", aws_secret_access_key="test")


def run_execution(arn: str, payload: dict, timeout: float = 180) -> dict:
    sfn = aws("stepfunctions")
    execution_arn = sfn.start_execution(stateMachineArn=arn, input=json.dumps(payload))["executionArn"]
    deadline = time.monotonic() + timeout
    while (execution := sfn.describe_execution(executionArn=execution_arn))["status"] == "RUNNING":
        assert time.monotonic() < deadline, f"{execution_arn} still running after {timeout} s"
        time.sleep(0.5)
    return execution


def scheduled_target(arn: str, schedule: str) -> dict:
    """The target of a rule on ``schedule`` that starts ``arn``, which must carry a role (a rule
    starting Step Functions needs one)."""
    events = aws("events")
    rules = [r for r in events.list_rules()["Rules"] if r.get("ScheduleExpression") == schedule]
    targets = [t for r in rules for t in events.list_targets_by_rule(Rule=r["Name"])["Targets"]]
    target = next((t for t in targets if t["Arn"] == arn), None)
    assert target is not None, f"no rule on {schedule} starts {arn}"
    assert target.get("RoleArn"), "a rule starting Step Functions needs a role"
    return target
