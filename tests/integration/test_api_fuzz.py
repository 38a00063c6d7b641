"""Property-based run over the app's own OpenAPI schema: no input may produce a 5xx."""

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from engram.api.app import create_app
from engram.bootstrap import bootstrap

pytestmark = pytest.mark.stack

FUZZ_KEY = "fuzz-key-engram-tests"
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app())


@pytest.fixture(scope="module", autouse=True)
def fuzz_tenant():
    bootstrap().tenants.register("fuzz-tenant", FUZZ_KEY)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_produces_a_server_error(case):
    response = case.call(headers={"Authorization": f"Bearer {FUZZ_KEY}"})
    assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.status_code} {response.text}"
