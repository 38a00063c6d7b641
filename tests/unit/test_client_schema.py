"""The engrammem client agrees with the app's OpenAPI schema (built in-process, no server)."""

from __future__ import annotations

from engram.api.app import create_app
from tests.client_contract import drift
from tests.fakes import fake_deps


def test_client_operations_and_models_match_the_openapi_schema():
    assert drift(create_app(fake_deps()).openapi()) == []


def test_drift_is_detected():
    schema = create_app(fake_deps()).openapi()
    schema["components"]["schemas"]["RecallBody"]["properties"]["extra"] = {"type": "string"}
    schema["components"]["schemas"]["RecallBody"].setdefault("required", []).append("extra")
    del schema["paths"]["/v1/health"]
    problems = drift(schema)
    assert any(p.startswith("recall: request fields") for p in problems)
    assert any(p.startswith("recall: required") for p in problems)
    assert any(p.startswith("health:") for p in problems)
