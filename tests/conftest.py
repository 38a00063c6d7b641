"""Shared fixtures: where the local stack's servers and deployed API are.

Integration and e2e tests talk to real servers started by ``local/stack up``; they read the
endpoints that ``up``/``deploy`` recorded in the run directory instead of guessing.
"""

from __future__ import annotations

import json
import os

import pytest

from local.stackctl.common import RUN_DIR

# Behaviour, not speed, is under test here: on a loaded 2-core CI machine the production
# deadlines (50-300 ms) would turn slow answers into degraded ones at random. Deadlines are
# exercised on purpose in test_recall_degradation.py; speed is measured by the benchmarks.
# In-process code reaches AWS services (KMS, S3, Step Functions) on the local LocalStack.
for _name, _value in (("AWS_ENDPOINT_URL", "http://127.0.0.1:4566"), ("AWS_ACCESS_KEY_ID", "test"),
                      ("AWS_SECRET_ACCESS_KEY", "test")):
    os.environ.setdefault(_name, _value)
# The in-process API starts the erasure saga deployed on LocalStack (local/stack deploy records it).
try:
    _machines = json.loads((RUN_DIR / "stack.json").read_text()).get("state_machines", {})
    if _machines.get("ErasureStateMachine"):
        os.environ.setdefault("ENGRAM_ERASURE_STATE_MACHINE_ARN", _machines["ErasureStateMachine"])
except (OSError, ValueError):
    pass
os.environ.setdefault("ENGRAM_RECALL_DEADLINES_MS", json.dumps(
    {"session": 2000, "tasks": 3000, "profile": 3000, "episodes": 5000, "archive": 5000}))


@pytest.fixture(scope="session")
def stack_state() -> dict:
    path = RUN_DIR / "stack.json"
    if not path.exists():
        pytest.fail(f"{path} missing: start the stack with `local/stack up` first")
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def api_url(stack_state) -> str:
    return stack_state["api"]["url"].rstrip("/")


@pytest.fixture(scope="session")
def api_key(stack_state) -> str:
    return stack_state["api"]["key"]


@pytest.fixture(scope="session")
def app_client():
    """The API in-process over the real stores (the deployed path is covered by tests/e2e)."""
    from fastapi.testclient import TestClient

    from engram.api.app import create_app

    return TestClient(create_app())


@pytest.fixture
def make_tenant():
    """Fresh tenants with their API keys: tenants keep tests apart."""
    import uuid

    from engram.service.tenants import ensure_tenant_key

    def make() -> tuple[str, dict]:
        tenant, key = f"tenant-{uuid.uuid4().hex[:10]}", f"key-{uuid.uuid4().hex}"
        ensure_tenant_key(tenant, key)
        return tenant, {"Authorization": f"Bearer {key}"}

    return make


@pytest.fixture
def tenant_key(make_tenant):
    return make_tenant()
