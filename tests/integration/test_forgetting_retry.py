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
from tests.integration.stepfunctions import aws, failures, finished, wait_until_answering
from tests.integration.test_forgetting import ingest

pytestmark = pytest.mark.stack


@pytest.fixture
def postgres(deps):
    server = Postgres()
    yield server
    if not server.health().get("healthy"):
        server.start()
    wait_until_answering(deps, "postgres")  # the pools reconnect before the next test


def test_postgres_down_then_back_the_walk_retries_and_the_run_completes(deps, stack_state, app_client, tenant_key,
                                                                       postgres):
    tenant, headers = tenant_key
    now = datetime.now(UTC).replace(microsecond=0)
    hello, moved = ingest(app_client, headers, "fay", [("Hello there, good morning!", now - timedelta(days=40)),
                                                         ("I moved to Lisbon for a new job.", now - timedelta(days=2))])
    postgres.stop()
    try:
        arn = aws("stepfunctions").start_execution(stateMachineArn=stack_state["state_machines"]["ForgetStateMachine"],
                                  input=json.dumps({"tenant": tenant, "now": now.isoformat()}))["executionArn"]
        deadline = time.monotonic() + 60
        # A Task on lambda:invoke reports TaskFailed with the exception's class name as its error.
        while failures(arn, "StoreUnavailable") == 0 and time.monotonic() < deadline:
            time.sleep(0.3)
        assert failures(arn, "StoreUnavailable") >= 1, "the walk never met the stopped server"
    finally:
        postgres.start()
    execution = finished(arn)
    assert execution["status"] == "SUCCEEDED", execution.get("cause")
    shards = json.loads(execution["output"])["shards"]
    assert sum(s["totals"]["users"] for s in shards) == 1 and all(s["done"] for s in shards)
    events = {e["message_ids"][0]: e for e in deps.episodes.all_for_user(Scope(tenant, "fay"))}
    assert events[hello]["archived"] is True and not events[moved].get("archived")
