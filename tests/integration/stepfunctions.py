"""LocalStack's AWS side for the tests of state machines: a client, an execution run to its end,
the failures it met, the target a schedule rule starts; and waiting for a restarted server."""

from __future__ import annotations

import json
import time

import boto3

from local.stackctl.common import HOST, PORTS


def aws(service: str):
    return boto3.client(service, endpoint_url=f"http://{HOST}:{PORTS['localstack']}", region_name="us-east-1",
                        aws_access_key_id="test", aws_secret_access_key="test")


def run_execution(arn: str, payload: dict, timeout: float = 180) -> dict:
    execution_arn = aws("stepfunctions").start_execution(stateMachineArn=arn, input=json.dumps(payload))["executionArn"]
    return finished(execution_arn, timeout)


def finished(execution_arn: str, timeout: float = 180) -> dict:
    """The execution once it is no longer RUNNING (the test fails after ``timeout`` seconds)."""
    sfn = aws("stepfunctions")
    deadline = time.monotonic() + timeout
    while (execution := sfn.describe_execution(executionArn=execution_arn))["status"] == "RUNNING":
        assert time.monotonic() < deadline, f"{execution_arn} still running after {timeout} s"
        time.sleep(0.5)
    return execution


def failures(execution_arn: str, error: str) -> int:
    """How many tasks of the execution failed with ``error`` (a Python exception's class name: the
    Retry/Catch contract), whether the state calls the function's ARN or ``lambda:invoke``."""
    events = aws("stepfunctions").get_execution_history(executionArn=execution_arn, maxResults=1000)["events"]
    details = {"LambdaFunctionFailed": "lambdaFunctionFailedEventDetails", "TaskFailed": "taskFailedEventDetails"}
    return sum(1 for e in events if e["type"] in details and e[details[e["type"]]].get("error") == error)


def wait_until_answering(deps, store: str, timeout: float = 60) -> None:
    """Until ``store``'s probe answers: a test may have just restarted its server."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            deps.probes[store]()
            return
        except Exception:  # noqa: BLE001 - any failure means not ready yet
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


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
