"""Fixtures of the service-layer unit tests: every store is an in-memory fake (tests/fakes), so
nothing here needs a server, and each test starts from empty stores and a fresh runtime (its own
closed breaker, no measured latencies): ``fake_deps`` builds one per call."""

from __future__ import annotations

import pytest

from engram.config import Settings
from engram.domain.model import Scope
from engram.service.users import set_consent
from tests.fakes import fake_deps


@pytest.fixture
def settings() -> Settings:
    """Defaults, not the local stack's: tests/conftest.py exports the deployed erasure saga's ARN."""
    return Settings(erasure_state_machine_arn=None, recall_runner="inprocess", ingest_runner="inprocess")


@pytest.fixture
def deps(settings):
    return fake_deps(settings)


@pytest.fixture
def alice() -> Scope:
    return Scope("t1", "alice")


@pytest.fixture
def bob() -> Scope:
    return Scope("t1", "bob")


@pytest.fixture
def consenting(deps, alice):
    """Alice, who allowed long-term memory (the profile graph)."""
    set_consent(deps, alice, True, None)
    return alice
