"""The deployed API end to end: HTTP -> API Gateway (REST) on LocalStack -> ApiFunction -> stores."""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.stack

STORES = {"redis", "postgres", "neo4j", "opensearch", "s3"}


def test_health_through_api_gateway_reports_every_store_ok(api_url):
    # The first call may be a cold start of the function's worker process.
    answer = httpx.get(f"{api_url}/v1/health", timeout=60)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["stores"] == dict.fromkeys(STORES, "ok"), body
    assert body["status"] == "ok"


def test_unknown_route_is_answered_by_the_app_not_the_gateway(api_url):
    answer = httpx.get(f"{api_url}/v1/no-such-route", timeout=60)
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("application/json")
