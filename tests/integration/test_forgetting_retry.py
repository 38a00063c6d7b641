"""Nightly forgetting with PostgreSQL stopped for real: a shard's walk fails on the users table,
the state machine retries it (the ``StoreUnavailable`` Retry of ``statemachines/forget.asl.json``,
long enough to ride out a failover), and once the server is back the run completes and forgets
the user."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.model import Scope
from local.stackctl.services.postgres import Postgres
from tests.integration.stepfunctions import aws
from tests.integration.test_forgetting import ingest

pytestmark = pytest.mark.stack


def store_failures(execution_arn: str) -> int:
    events = aws("stepfunctions").get_execution_history(executionArn=execution_arn, maxResults=1000)["events"]
    # A Task on lambda:invoke reports TaskFailed with the exception's class name as its error.
    return sum(1 for e in events if e["type"] == "TaskFailed"
               and e["taskFailedEventDetails"].get("error") == "StoreUnavailable")


@pytest.fixture
def postgres(deps):
    server = Postgres()
    yield server
    if not server.health().get("healthy"):
        server.start()
    deadline = time.monotonic() + 60
    while True:  # the pools reconnect before the next test
        try:
            deps.probes["postgres"]()
            return
        except Exception:  # noqa: BLE001 - any failure means not ready yet
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_postgres_down_then_back_the_walk_retries_and_the_run_completes(deps, stack_state, app_client, tenant_key,
                                                                       postgres):
    tenant, headers = tenant_key
    now = datetime.now(UTC).replace(microsecond=0)
    hello, moved = ingest(app_client, headers, "fay", [("Hello there, good morning!", now - timedelta(days=40)),
                                                         ("I moved to Lisbon for a new job.", now - timedelta(days=2))])
    sfn = aws("stepfunctions")
    postgres.stop()
    try:
        arn = sfn.start_execution(stateMachineArn=stack_state["state_machines"]["ForgetStateMachine"],
                                  input=json.dumps({"tenant": tenant, "now": now.isoformat()}))["executionArn"]
        deadline = time.monotonic() + 60
        while store_failures(arn) == 0 and time.monotonic() < deadline:
            time.sleep(0.3)
        assert store_failures(arn) >= 1, "the walk never met the stopped server"
    finally:
        postgres.start()
    deadline = time.monotonic() + 180
    while (execution := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.monotonic() < deadline, "the run did not finish"
        time.sleep(0.5)
    assert execution["status"] == "SUCCEEDED", execution.get("cause")
    shards = json.loads(execution["output"])["shards"]
    assert sum(s["totals"]["users"] for s in shards) == 1 and all(s["done"] for s in shards)
    events = {e["message_ids"][0]: e for e in deps.episodes.all_for_user(Scope(tenant, "fay"))}
    assert events[hello]["archived"] is True and not events[moved].get("archived")
