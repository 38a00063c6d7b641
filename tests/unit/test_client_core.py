"""engrammem's request/response core on httpx.MockTransport (the transport is mocked, not the
API): retries with backoff on 429/503, one Idempotency-Key per call across its retries, errors
carrying the API's code and field, streamed exports. Each behaviour on both clients."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from engrammem import AsyncEngram, Engram, EngramAPIError, EngramTransportError, RetryPolicy
from engrammem.core import ExportSniffer

NO_WAIT = RetryPolicy(retries=3, base_s=0.0, cap_s=0.0)
INGESTED = {"accepted": 1, "message_ids": ["m1"], "extracted": []}


def _error(status: int, code: str, field: str | None = None) -> httpx.Response:
    detail = {"code": code, "message": "no", **({"field": field} if field else {})}
    return httpx.Response(status, json={"error": detail})


class Script:
    """Answers requests in order with the given responses (or raises the given exceptions)."""

    def __init__(self, *answers):
        self.answers, self.requests = list(answers), []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def run(kind: str, script: Script, method: str, *args, **kwargs):
    """Call ``method`` on a sync or an async client over ``script``."""
    if kind == "sync":
        return getattr(Engram("http://engram.test", api_key="k", retry=NO_WAIT,
                              transport=httpx.MockTransport(script)), method)(*args, **kwargs)
    client = AsyncEngram("http://engram.test", api_key="k", retry=NO_WAIT, transport=httpx.MockTransport(script))
    return asyncio.run(getattr(client, method)(*args, **kwargs))


both = pytest.mark.parametrize("kind", ["sync", "async"])


@both
def test_a_write_is_retried_on_503_and_429_with_one_idempotency_key(kind):
    script = Script(_error(503, "store_unavailable"), _error(429, "rate_limited"), httpx.Response(200, json=INGESTED))
    result = run(kind, script, "ingest", "u1", "I like tea", session_id="s", device_id="d")
    assert result.message_ids == ["m1"]
    keys = [r.headers.get("Idempotency-Key") for r in script.requests]
    assert len(keys) == 3 and keys[0] and len(set(keys)) == 1
    body = json.loads(script.requests[0].content)
    assert body["messages"][0]["role"] == "user" and body["messages"][0]["client_ts"]
    assert script.requests[0].headers["Authorization"] == "Bearer k"


@both
def test_each_call_gets_its_own_key_and_a_given_key_is_used(kind):
    script = Script(*(httpx.Response(200, json=INGESTED) for _ in range(3)))
    run(kind, script, "ingest", "u1", "a")
    run(kind, script, "ingest", "u1", "a")
    run(kind, script, "ingest", "u1", "a", idempotency_key="mine-1")
    keys = [r.headers["Idempotency-Key"] for r in script.requests]
    assert keys[0] != keys[1] and keys[2] == "mine-1"


@both
def test_errors_carry_the_api_code_and_field(kind):
    script = Script(_error(400, "invalid_request", "query"))
    with pytest.raises(EngramAPIError) as caught:
        run(kind, script, "recall", "u1", "")
    assert (caught.value.status, caught.value.code, caught.value.field) == (400, "invalid_request", "query")
    assert len(script.requests) == 1  # a 400 is not retried


@both
def test_retries_stop_after_the_policy_and_raise_the_last_error(kind):
    script = Script(*(_error(429, "rate_limited") for _ in range(4)))
    with pytest.raises(EngramAPIError) as caught:
        run(kind, script, "recall", "u1", "q")
    assert caught.value.code == "rate_limited" and len(script.requests) == 4


@both
def test_a_non_idempotent_write_is_not_retried_on_503_but_is_on_429(kind):
    script = Script(_error(503, "store_unavailable"))
    with pytest.raises(EngramAPIError):
        run(kind, script, "feedback", "u1", "ev-1", useful=True)
    assert len(script.requests) == 1
    script = Script(_error(429, "rate_limited"), httpx.Response(200, json={"memory_id": "ev-1", "weight": 1.1}))
    assert run(kind, script, "feedback", "u1", "ev-1", useful=True).weight == 1.1


@both
def test_lost_connections_are_retried_then_reported(kind):
    script = Script(httpx.ConnectError("refused"), httpx.Response(200, json=INGESTED))
    assert run(kind, script, "ingest", "u1", "x").accepted == 1
    script = Script(*(httpx.ConnectError("refused") for _ in range(4)))
    with pytest.raises(EngramTransportError):
        run(kind, script, "profile", "u1")
    assert len(script.requests) == 4


def test_backoff_grows_and_honours_retry_after():
    policy = RetryPolicy(base_s=0.5, cap_s=4.0)
    assert all(0 <= policy.delay(0) <= 0.5 for _ in range(50))
    assert all(0 <= policy.delay(5) <= 4.0 for _ in range(50))
    assert max(policy.delay(3) for _ in range(200)) > 0.5  # the window grows with the attempt
    assert policy.delay(0, "2") == 2.0 and policy.delay(0, "60") == 4.0


def test_retry_after_is_waited_for():
    import time

    script = Script(httpx.Response(429, headers={"Retry-After": "1"}, json={"error": {"code": "r", "message": ""}}),
                    httpx.Response(200, json={"memory_id": "ev-1", "weight": 1.0}))
    client = Engram("http://engram.test", api_key="k", transport=httpx.MockTransport(script))
    started = time.monotonic()
    client.feedback("u1", "ev-1", useful=True)
    assert time.monotonic() - started >= 0.9


def test_export_sniffer_passes_a_large_document_and_finds_a_link():
    sniffer = ExportSniffer(limit=10)
    assert sniffer.feed(b'{"format": ') == b'{"format": '  # past the limit: flows through
    assert sniffer.feed(b"1}") == b"1}" and sniffer.link() is None
    sniffer = ExportSniffer()
    assert sniffer.feed(b'{"export_url": "http://s3/x", "expires_at": "", "bytes": 9}') == b""
    assert sniffer.link() == "http://s3/x"
    sniffer = ExportSniffer()
    sniffer.feed(b'{"format": 1}')
    assert sniffer.link() is None and sniffer.rest() == b'{"format": 1}'


@both
def test_export_streams_the_document_or_follows_its_link(kind, monkeypatch):
    document = {"format": 1, "user_id": "u1", "turns": ["x" * 200_000]}
    linked = Script(httpx.Response(200, json=document))
    real_client, real_async = httpx.Client, httpx.AsyncClient
    monkeypatch.setattr(httpx, "stream", lambda method, url, **kw: real_client(
        transport=httpx.MockTransport(linked)).stream(method, url))
    monkeypatch.setattr(httpx, "AsyncClient", lambda **kw: real_async(
        transport=kw.pop("transport", None) or httpx.MockTransport(linked), **kw))
    for first in (httpx.Response(200, json=document),
                  httpx.Response(200, json={"export_url": "http://s3.test/e", "expires_at": "t", "bytes": 1})):
        script = Script(first)
        if kind == "sync":
            chunks = list(Engram("http://engram.test", api_key="k", transport=httpx.MockTransport(script))
                          .export_stream("u1"))
        else:
            async def collect(script=script):
                client = AsyncEngram("http://engram.test", api_key="k", transport=httpx.MockTransport(script))
                return [c async for c in client.export_stream("u1")]
            chunks = asyncio.run(collect())
        assert json.loads(b"".join(chunks)) == document
    assert len(linked.requests) == 1 and "Authorization" not in linked.requests[0].headers
