"""LocalStack as the app uses it: the deployed archive bucket, state machine and Lambda runtime.

Everything runs against the real LocalStack started by ``local/stack up`` and the stack that
``deploy`` created from template.yaml; nothing is mocked.
"""

from __future__ import annotations

import io
import json
import os
import time
import uuid
import zipfile
from datetime import UTC, datetime, timedelta

import pytest
from botocore.exceptions import ClientError

from tests.integration.stepfunctions import aws, run_execution

pytestmark = pytest.mark.stack

STORES = {"redis", "postgres", "neo4j", "opensearch", "s3"}


# -- S3 Object Lock ------------------------------------------------------------------------------

def test_archive_bucket_has_object_lock_with_default_retention(stack_state):
    config = aws("s3").get_object_lock_configuration(Bucket=stack_state["archive_bucket"])
    lock = config["ObjectLockConfiguration"]
    assert lock["ObjectLockEnabled"] == "Enabled"
    assert lock["Rule"]["DefaultRetention"]["Mode"] == "GOVERNANCE"


def test_object_lock_refuses_deleting_a_locked_version(stack_state):
    s3, bucket = aws("s3"), stack_state["archive_bucket"]
    key = f"tests/object-lock/{uuid.uuid4().hex}"
    until = datetime.now(UTC) + timedelta(hours=1)
    version = s3.put_object(Bucket=bucket, Key=key, Body=b"archived", ObjectLockMode="GOVERNANCE",
                            ObjectLockRetainUntilDate=until)["VersionId"]
    try:
        with pytest.raises(ClientError) as refused:
            s3.delete_object(Bucket=bucket, Key=key, VersionId=version)
        assert refused.value.response["Error"]["Code"] == "AccessDenied"
        head = s3.head_object(Bucket=bucket, Key=key, VersionId=version)
        assert head["ObjectLockMode"] == "GOVERNANCE"
        assert head["ObjectLockRetainUntilDate"] > datetime.now(UTC)
    finally:
        # GOVERNANCE (unlike COMPLIANCE) lets a privileged caller clean up.
        s3.delete_object(Bucket=bucket, Key=key, VersionId=version, BypassGovernanceRetention=True)


def test_default_retention_locks_objects_put_without_one(stack_state):
    s3, bucket = aws("s3"), stack_state["archive_bucket"]
    key = f"tests/default-retention/{uuid.uuid4().hex}"
    version = s3.put_object(Bucket=bucket, Key=key, Body=b"archived")["VersionId"]
    try:
        assert s3.head_object(Bucket=bucket, Key=key, VersionId=version)["ObjectLockMode"] == "GOVERNANCE"
        with pytest.raises(ClientError) as refused:
            s3.delete_object(Bucket=bucket, Key=key, VersionId=version)
        assert refused.value.response["Error"]["Code"] == "AccessDenied"
    finally:
        s3.delete_object(Bucket=bucket, Key=key, VersionId=version, BypassGovernanceRetention=True)


# -- Step Functions -> the deployed HealthFunction ----------------------------------------------

def test_stack_probe_state_machine_returns_the_health_function_report(stack_state):
    sfn = aws("stepfunctions")
    execution = run_execution(stack_state["state_machines"]["StackProbeStateMachine"], {}, timeout=90)
    assert execution["status"] == "SUCCEEDED", execution.get("cause")
    report = json.loads(execution["output"])
    assert set(report["stores"]) == STORES
    assert report["stores"] == dict.fromkeys(STORES, "ok"), report
    assert report["status"] == "ok"
    assert report["version"]
    # The Task invoked the deployed function, not something else that happened to answer.
    history = sfn.get_execution_history(executionArn=execution["executionArn"])["events"]
    scheduled = [json.loads(e["taskScheduledEventDetails"]["parameters"]) for e in history
                 if e["type"] == "TaskScheduled"]
    assert scheduled and scheduled[0]["FunctionName"].endswith(stack_state["functions"]["HealthFunction"])


# -- the local Lambda executor's error contract --------------------------------------------------

HANDLER = '''
import json, os, time

class QuotaExceeded(Exception):
    pass

def handler(event, context):
    print("event:", json.dumps(event))
    if event.get("raise"):
        raise QuotaExceeded("over quota")
    if event.get("sleep"):
        time.sleep(event["sleep"])
    return {"pid": os.getpid(), "endpoint": os.environ.get("AWS_ENDPOINT_URL"), "foo": os.environ["FOO"]}
'''


@pytest.fixture(scope="module")
def scratch_function():
    """A throwaway function, so that failure modes can be provoked without touching the app."""
    lam, name = aws("lambda"), f"test-executor-{uuid.uuid4().hex[:8]}"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("fn.py", HANDLER)
    arn = lam.create_function(FunctionName=name, Runtime="python3.12", Handler="fn.handler", Timeout=2,
                              Role="arn:aws:iam::000000000000:role/test", Code={"ZipFile": buf.getvalue()},
                              Environment={"Variables": {"FOO": "bar"}})["FunctionArn"]
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    yield arn
    lam.delete_function(FunctionName=name)


def invoke(arn: str, payload: dict) -> tuple[str | None, dict]:
    answer = aws("lambda").invoke(FunctionName=arn, Payload=json.dumps(payload))
    return answer.get("FunctionError"), json.loads(answer["Payload"].read())


def test_handler_gets_its_environment_and_stays_warm(scratch_function):
    error, first = invoke(scratch_function, {})
    assert error is None
    assert first["foo"] == "bar"
    assert first["endpoint"].startswith("http://127.0.0.1:")
    assert invoke(scratch_function, {})[1]["pid"] == first["pid"]  # same worker process: warm


def test_error_type_is_the_python_exception_class_for_step_functions_catch(scratch_function):
    error, body = invoke(scratch_function, {"raise": True})
    assert error == "Unhandled"
    assert body["errorType"] == "QuotaExceeded"
    assert body["errorMessage"] == "over quota"

    sfn = aws("stepfunctions")
    definition = {"StartAt": "Call", "States": {
        "Call": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                 "Parameters": {"FunctionName": scratch_function, "Payload": {"raise": True}},
                 "Catch": [{"ErrorEquals": ["QuotaExceeded"], "ResultPath": "$.error", "Next": "Caught"}],
                 "End": True},
        "Caught": {"Type": "Pass", "End": True}}}
    machine = sfn.create_state_machine(name=f"test-catch-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition),
                                       roleArn="arn:aws:iam::000000000000:role/test")["stateMachineArn"]
    try:
        execution = run_execution(machine, {}, timeout=90)
        assert execution["status"] == "SUCCEEDED", execution.get("cause")
        assert json.loads(execution["output"])["error"]["Error"] == "QuotaExceeded"
    finally:
        sfn.delete_state_machine(stateMachineArn=machine)


def test_timed_out_handler_is_killed_and_replaced(scratch_function):
    before = invoke(scratch_function, {})[1]["pid"]
    error, body = invoke(scratch_function, {"sleep": 30})
    assert error == "Unhandled"
    assert body["errorType"] == "Sandbox.Timedout"
    assert "Task timed out after 2.00 seconds" in body["errorMessage"]
    with pytest.raises(ProcessLookupError):
        os.kill(before, 0)  # the busy worker is gone, not left sleeping
    after = invoke(scratch_function, {})[1]["pid"]
    assert after != before


def test_eventbridge_schedule_rule_fires_the_function(scratch_function):
    # Rules with a ScheduleExpression fire on LocalStack community (EventBridge *Scheduler*
    # schedules do not: that service is API-only there). rate(1 minute) is the shortest rate.
    events, logs, tick = aws("events"), aws("logs"), uuid.uuid4().hex
    rule = f"test-tick-{tick[:8]}"
    rule_arn = events.put_rule(Name=rule, ScheduleExpression="rate(1 minute)")["RuleArn"]
    aws("lambda").add_permission(FunctionName=scratch_function, StatementId=rule, Action="lambda:InvokeFunction",
                                 Principal="events.amazonaws.com", SourceArn=rule_arn)
    events.put_targets(Rule=rule, Targets=[{"Id": "scratch", "Arn": scratch_function,
                                            "Input": json.dumps({"tick": tick})}])
    group = f"/aws/lambda/{scratch_function.split(':')[-1]}"
    try:
        deadline, seen = time.monotonic() + 150, False
        while not seen and time.monotonic() < deadline:
            time.sleep(3)
            try:
                seen = any(tick in e["message"] for e in logs.filter_log_events(logGroupName=group)["events"])
            except ClientError:  # the log group appears with the first invocation
                pass
        assert seen, f"the schedule did not invoke the function within 150 s (no {tick} in {group})"
    finally:
        events.remove_targets(Rule=rule, Ids=["scratch"])
        events.delete_rule(Name=rule)
