"""Shared fixtures: where the local stack's servers and deployed API are.

Integration and e2e tests talk to real servers started by ``local/stack up``; they read the
endpoints that ``up``/``deploy`` recorded in the run directory instead of guessing.
"""

from __future__ import annotations

import json
import os

import pytest

from local.stackctl.common import RUN_DIR, use_deployed_stack

# Behaviour, not speed, is under test here: on a loaded 2-core CI machine the production
# deadlines (50-300 ms) would turn slow answers into degraded ones at random. Deadlines are
# exercised on purpose in test_recall_degradation.py; speed is measured by the benchmarks.
# In-process code reaches AWS services (KMS, S3, Step Functions) on the local LocalStack, the
# saga and buckets that deploy recorded.
use_deployed_stack()
# Tests read what they have just written: episodes searchable at once (the deployed functions
# leave them to the index's next refresh and read them by id meanwhile: ENGRAM_EPISODE_REFRESH=false,
# tests/integration/test_fresh_episodes.py).
os.environ.setdefault("ENGRAM_EPISODE_REFRESH", "true")
os.environ.setdefault("ENGRAM_RECALL_DEADLINES_MS", json.dumps(
    {"session": 2000, "tasks": 3000, "profile": 3000, "episodes": 5000, "archive": 5000}))


@pytest.fixture(scope="session")
def refresh_episodes():
    """Make every episode written so far searchable: for e2e tests that recall right after an
    ingest through the deployed functions, whose writes are searchable within the refresh interval."""
    import httpx

    from engram.config import Settings

    settings = Settings()

    def refresh() -> None:
        httpx.post(f"{settings.opensearch_url}/{settings.episode_index}/_refresh", timeout=30).raise_for_status()

    return refresh


@pytest.fixture(scope="session")
def stack_state() -> dict:
    path = RUN_DIR / "stack.json"
    if not path.exists():
        pytest.fail(f"{path} missing: start the stack with `local/stack up` first")
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def api_url(stack_state) -> str:
    """The deployed API, or the URL a client is configured with (ENGRAM_API_URL): local/check-stable-url
    runs the MCP round trip on the URL from before a restart."""
    return (os.environ.get("ENGRAM_API_URL") or stack_state["api"]["url"]).rstrip("/")


@pytest.fixture(scope="session")
def api_key(stack_state) -> str:
    return stack_state["api"]["key"]


@pytest.fixture(scope="session")
def deps():
    """The process's composition root over the real stores of the local stack."""
    from engram.bootstrap import bootstrap

    return bootstrap()


@pytest.fixture(scope="session")
def app_client(deps):
    """The API in-process over the real stores (the deployed path is covered by tests/e2e)."""
    from fastapi.testclient import TestClient

    from engram.api.app import create_app

    return TestClient(create_app(deps))


@pytest.fixture
def make_tenant(deps):
    """Fresh tenants with their API keys: tenants keep tests apart."""
    import uuid

    def make() -> tuple[str, dict]:
        tenant, key = f"tenant-{uuid.uuid4().hex[:10]}", f"key-{uuid.uuid4().hex}"
        deps.tenants.register(tenant, key)
        return tenant, {"Authorization": f"Bearer {key}"}

    return make


@pytest.fixture
def tenant_key(make_tenant):
    return make_tenant()
