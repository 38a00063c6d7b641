"""Ingest and recall through API Gateway on LocalStack, and recall as the Express state machine
of per-step Lambdas."""

from __future__ import annotations

import json
import uuid

import boto3
import httpx
import pytest
from botocore.config import Config

pytestmark = pytest.mark.stack


@pytest.fixture(scope="module")
def user():
    return f"e2e-{uuid.uuid4().hex[:8]}"


def test_ingest_then_recall_through_the_gateway(api_url, api_key, user, refresh_episodes):
    headers = {"Authorization": f"Bearer {api_key}"}
    ingest = httpx.post(f"{api_url}/v1/users/{user}/messages", headers=headers, timeout=120, json={
        "session_id": "s1", "device_id": "phone",
        "messages": [{"role": "user", "content": "I adopted a grey cat called Pixel.",
                      "client_ts": "2026-05-01T10:00:00Z", "message_id": "p1"}]})
    assert ingest.status_code == 200, ingest.text
    refresh_episodes()  # no session given: the episode itself must be searchable (docs/ingestion.md: searchable)
    answer = httpx.post(f"{api_url}/v1/users/{user}/recall", headers=headers, timeout=60,
                        json={"query": "Do you remember the name of my cat?"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["no_record"] is False, (body["degraded_reasons"], body["timings_ms"])
    # Every store is reached through the gateway: no step failed or was cut off by its breaker. A
    # step may still be late on this loaded 2-core machine (the profile's 150 ms deadline, stretched
    # to twice its mean, was passed in CI while the ingest Lambda worked): that is degrade-don't-fail
    # as designed, and a deadline is measured by benchmarks, never asserted by a test.
    assert set(body["degraded_reasons"]) == set(body["degraded"]), body
    assert set(body["degraded_reasons"].values()) <= {"deadline"}, (body["degraded_reasons"], body["timings_ms"])
    assert body["items"][0]["provenance"]["message_ids"] == ["p1"]
    assert httpx.post(f"{api_url}/v1/users/{user}/recall", timeout=60, json={"query": "x"}).status_code == 401


def test_recall_state_machine_runs_the_step_functions(stack_state, user):
    sfn = boto3.client("stepfunctions", endpoint_url="http://127.0.0.1:4566", region_name="us-east-1",
                       aws_access_key_id="test", aws_secret_access_key="test",
                       config=Config(inject_host_prefix=False))  # "sync-127.0.0.1" does not resolve
    arn = stack_state["state_machines"]["RecallStateMachine"]
    request = json.dumps({"tenant": "local", "user_id": user, "query": "What is my cat called?",
                          "now": "2026-05-02T10:00:00Z", "k": 5})
    # The first execution after a deploy starts five Lambda environments at once on this 2-core
    # machine; it may answer late (cold start is issue 11's). The claim here is the warm one: every
    # step Lambda reaches its store (a step may still be late under load; see the test above).
    cold = sfn.start_sync_execution(stateMachineArn=arn, input=request)
    assert cold["status"] == "SUCCEEDED", cold
    execution = sfn.start_sync_execution(stateMachineArn=arn, input=request)
    assert execution["status"] == "SUCCEEDED", execution
    output = json.loads(execution["output"])
    assert set(output["degraded_reasons"].values()) <= {"deadline"}, (output["degraded_reasons"], output["timings_ms"])
    assert output["items"] and output["items"][0]["provenance"]["message_ids"] == ["p1"]
