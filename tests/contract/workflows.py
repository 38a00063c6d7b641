"""WorkflowGateway (Step Functions): start a saga, run an express chain and wait for it.

``machines`` (a subclass fixture) gives state machine ARNs: ``standard`` (runs for a while),
``echo`` (express, returns its input), ``fail`` (express, fails with an error nobody names) and
``conflict`` (express, fails as a step raising ``Conflict`` does)."""

from __future__ import annotations

import uuid

import pytest

from engram.errors import Conflict, StoreUnavailable

from ._base import Contract


class WorkflowGatewayContract(Contract):
    @pytest.fixture
    def machines(self, deps):
        raise NotImplementedError

    def test_start_returns_the_executions_arn(self, store, machines):
        name = f"job-{uuid.uuid4().hex[:12]}"
        arn = store.start(machines["standard"], name, {"job_id": name})
        assert arn.startswith("arn:") and arn.endswith(f":{name}") and ":execution:" in arn

    def test_starting_a_running_name_again_with_the_same_input_is_the_same_execution(self, store, machines):
        name = f"job-{uuid.uuid4().hex[:12]}"
        assert store.start(machines["standard"], name, {"a": 1}) == store.start(machines["standard"], name, {"a": 1})

    def test_a_name_is_not_reused_for_another_input(self, store, machines):
        name = f"job-{uuid.uuid4().hex[:12]}"
        store.start(machines["standard"], name, {"a": 1})
        with pytest.raises(StoreUnavailable):
            store.start(machines["standard"], name, {"a": 2})

    def test_run_sync_returns_the_output(self, store, machines):
        assert store.run_sync(machines["echo"], {"query": "mango", "n": [1, 2]}) == {"query": "mango", "n": [1, 2]}

    def test_a_failed_run_is_store_unavailable(self, store, machines):
        with pytest.raises(StoreUnavailable):
            store.run_sync(machines["fail"], {"x": 1})

    def test_a_run_failed_by_a_named_error_raises_that_error(self, store, machines):
        with pytest.raises(Conflict) as refused:
            store.run_sync(machines["conflict"], {"x": 1})
        assert refused.value.status == 409 and "being erased" in refused.value.message
