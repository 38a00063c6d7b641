"""Shared fixtures: where the local stack's servers and deployed API are.

Integration and e2e tests talk to real servers started by ``local/stack up``; they read the
endpoints that ``up``/``deploy`` recorded in the run directory instead of guessing.
"""

from __future__ import annotations

import json

import pytest

from local.stackctl.common import RUN_DIR


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
