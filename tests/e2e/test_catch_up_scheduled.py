"""The deployed path end to end: with OpenSearch stopped, an ingest through API Gateway is accepted
with the episodes pending; once OpenSearch is back, the scheduled CatchUpFunction (EventBridge,
every minute, on LocalStack) writes them, and a recall through the gateway finds the event."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime

import httpx
import pytest

from local.stackctl.services.opensearch import OpenSearch

pytestmark = pytest.mark.stack


def test_the_scheduled_catch_up_writes_what_a_stopped_store_missed(api_url, api_key, refresh_episodes):
    headers = {"Authorization": f"Bearer {api_key}"}
    user = f"e2e-catch-{uuid.uuid4().hex[:8]}"
    _until_healthy(api_url)
    opensearch = OpenSearch()
    opensearch.stop()
    try:
        ingest = httpx.post(f"{api_url}/v1/users/{user}/messages", headers=headers, timeout=120, json={
            "session_id": "s1", "device_id": "phone",
            "messages": [{"role": "user", "content": "My sister Noor is getting married in Marrakesh in June.",
                          "client_ts": datetime.now(UTC).isoformat(), "message_id": "n1"}]})
        assert ingest.status_code == 200 and ingest.json()["pending"] == ["episodes"], ingest.text
    finally:
        opensearch.start()
    back = time.monotonic()
    while True:
        refresh_episodes()
        answer = httpx.post(f"{api_url}/v1/users/{user}/recall", headers=headers, timeout=60,
                            json={"query": "Where is my sister's wedding?"}).json()
        if not answer.get("memory_pending") and any("Marrakesh" in i["text"] for i in answer.get("items", [])):
            break
        assert answer.get("no_record") is False, answer  # never "no record" while it is pending
        # The schedule fires every minute; a run then applies what waits within seconds.
        assert time.monotonic() - back < 150, answer
        time.sleep(3)


def _until_healthy(api_url: str, seconds: float = 60) -> None:
    """Every store answers the deployed API first: a PostgreSQL restarted by an earlier test leaves
    the warm functions a pooled connection that fails once (a 503) before the pool drops it."""
    started = time.monotonic()
    while httpx.get(f"{api_url}/v1/health", timeout=30).json().get("status") != "ok":
        assert time.monotonic() - started < seconds, "the deployed API did not become healthy"
        time.sleep(1)

