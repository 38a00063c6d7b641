"""``Engram`` (sync) and ``AsyncEngram``: the API's methods are written once, in ``_Api``, as
``core.Call``s; each client only says how a call's requests are sent (httpx.Client or
httpx.AsyncClient) and how it waits between retries. ``AsyncEngram``'s methods are the same
methods, returning awaitables."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import datetime, timezone
from typing import Any

import httpx

from . import core
from . import models as m
from .core import Call, HttpRequest, HttpResponse, RetryPolicy, Sleep

DEFAULT_RETRY = RetryPolicy()

MessageLike = str | dict[str, Any] | m.MessageIn


def _messages(messages: MessageLike | Sequence[MessageLike]) -> list[m.MessageIn]:
    """A string is one user turn said now; a dict is a message. A message without ``client_ts``
    gets now, one millisecond apart in the given order (the session orders turns by time)."""
    items = [messages] if isinstance(messages, str | dict | m.MessageIn) else list(messages)
    now, out = int(datetime.now(timezone.utc).timestamp() * 1000), []
    for i, item in enumerate(items):
        if isinstance(item, str):
            item = {"role": "user", "content": item}
        if isinstance(item, dict):
            item = m.MessageIn.model_validate({"client_ts": now - len(items) + 1 + i, **item})
        out.append(item)
    return out


class _Api:
    """Every endpoint, once. ``_call`` is the transport's: it returns the result (``Engram``) or
    an awaitable of it (``AsyncEngram``)."""

    def __init__(self, base_url: str | None, api_key: str | None, timeout: float, retry: RetryPolicy) -> None:
        base_url = base_url or os.environ.get("ENGRAM_API_URL")
        api_key = api_key or os.environ.get("ENGRAM_API_KEY")
        if not base_url or not api_key:
            raise ValueError("give base_url and api_key, or set ENGRAM_API_URL and ENGRAM_API_KEY")
        self.base_url, self.retry = base_url.rstrip("/"), retry
        self._http_options = {"base_url": self.base_url, "timeout": timeout,
                              "headers": {"Authorization": f"Bearer {api_key}"}}

    def _call(self, call: Call) -> Any:
        raise NotImplementedError

    def health(self) -> m.HealthResponse:
        return self._call(Call("health"))

    def ingest(self, user_id: str, messages: MessageLike | Sequence[MessageLike], *, session_id: str = "default",
               device_id: str = "default", idempotency_key: str | None = None) -> m.IngestResponse:
        """Store turns (a string is one user turn said now). Safe to retry: one Idempotency-Key per call."""
        body = m.IngestBody(session_id=session_id, device_id=device_id, messages=_messages(messages))
        return self._call(Call("ingest", {"user_id": user_id}, body=body, idempotency_key=idempotency_key))

    def recall(self, user_id: str, query: str, *, k: int = 10, session_id: str | None = None,
               device_id: str | None = None, now: m.Timestamp | None = None) -> m.RecallResponse:
        body = m.RecallBody(query=query, k=k, session_id=session_id, device_id=device_id, now=now)
        return self._call(Call("recall", {"user_id": user_id}, body=body))

    def session_context(self, user_id: str, session_id: str, *, device_id: str) -> m.SessionContext:
        return self._call(Call("session_context", {"user_id": user_id, "session_id": session_id},
                               {"device_id": device_id}))

    def set_session_fields(self, user_id: str, session_id: str, fields: dict[str, Any], *, device_id: str,
                           idempotency_key: str | None = None) -> m.VersionResponse:
        """Merge fields into the session; a ``None`` value removes one."""
        return self._call(Call("set_session_fields", {"user_id": user_id, "session_id": session_id},
                               {"device_id": device_id}, m.FieldsBody(fields=fields), idempotency_key))

    def clear_session(self, user_id: str, session_id: str, *, device_id: str | None = None) -> m.SessionCleared:
        """Forget the session's working memory (turns, fields, versions) on ``device_id``, or on
        every device when none is given. Long-term memory made from its turns stays."""
        return self._call(Call("clear_session", {"user_id": user_id, "session_id": session_id},
                               {"device_id": device_id}))

    def rollback_session(self, user_id: str, session_id: str, *, device_id: str, version: int | None = None,
                         steps: int | None = None, idempotency_key: str | None = None) -> m.VersionResponse:
        return self._call(Call("rollback_session", {"user_id": user_id, "session_id": session_id},
                               {"device_id": device_id}, m.RollbackBody(version=version, steps=steps),
                               idempotency_key))

    def record_task_event(self, user_id: str, task_id: str, status: str, *, metadata: dict[str, Any] | None = None,
                          ts: m.Timestamp | None = None, idempotency_key: str | None = None) -> m.Task:
        body = m.TaskEventBody(status=status, metadata=metadata, ts=ts)
        return self._call(Call("record_task_event", {"user_id": user_id, "task_id": task_id}, body=body,
                               idempotency_key=idempotency_key))

    def list_tasks(self, user_id: str, *, status: str = "open", limit: int = 10) -> m.TasksResponse:
        return self._call(Call("list_tasks", {"user_id": user_id}, {"status": status, "limit": limit}))

    def profile(self, user_id: str, *, history: bool = False) -> m.ProfileResponse:
        return self._call(Call("profile", {"user_id": user_id}, {"history": "true" if history else None}))

    def correct_profile_item(self, user_id: str, item_id: str, *, object: str | None = None,  # noqa: A002
                             confidence: float | None = None, idempotency_key: str | None = None) -> m.ProfileItem:
        body = m.ProfilePatchBody(object=object, confidence=confidence)
        return self._call(Call("correct_profile_item", {"user_id": user_id, "item_id": item_id}, body=body,
                               idempotency_key=idempotency_key))

    def delete_profile_item(self, user_id: str, item_id: str) -> m.DeletedItem:
        return self._call(Call("delete_profile_item", {"user_id": user_id, "item_id": item_id}))

    def feedback(self, user_id: str, memory_id: str, *, useful: bool) -> m.FeedbackResponse:
        return self._call(Call("feedback", {"user_id": user_id, "memory_id": memory_id},
                               body=m.FeedbackBody(useful=useful)))

    def forget(self, user_id: str, *, type: str | None = None,  # noqa: A002 - the API's name
               before: m.Timestamp | None = None) -> m.ForgetResponse:
        return self._call(Call("forget", {"user_id": user_id}, {"type": type, "before": before}))

    def forget_memory(self, user_id: str, memory_id: str) -> m.MemoryForgotten:
        """Forget one memory by the id recall, ingest or the profile gave (an episode, a profile
        item or a task); an id the user has no memory of (one already forgotten too) is a 404."""
        return self._call(Call("forget_memory", {"user_id": user_id, "memory_id": memory_id}))

    def set_consent(self, user_id: str, *, long_term: bool, age: int | None = None,
                    idempotency_key: str | None = None) -> m.ConsentResponse:
        return self._call(Call("set_consent", {"user_id": user_id}, body=m.ConsentBody(long_term=long_term, age=age),
                               idempotency_key=idempotency_key))

    def link_device(self, user_id: str, device_id: str, kind: str, *,
                    idempotency_key: str | None = None) -> m.DeviceResponse:
        return self._call(Call("link_device", {"user_id": user_id}, body=m.DeviceBody(device_id=device_id, kind=kind),
                               idempotency_key=idempotency_key))

    def request_erasure(self, user_id: str) -> m.ErasureAccepted:
        return self._call(Call("request_erasure", {"user_id": user_id}))

    def erasure_job(self, job_id: str) -> m.ErasureJob:
        return self._call(Call("erasure_job", {"job_id": job_id}))

    def _export_request(self, user_id: str, delivery: str) -> HttpRequest:
        return Call("export", {"user_id": user_id}, {"delivery": delivery}).request()


def _response(r: httpx.Response) -> HttpResponse:
    return HttpResponse(r.status_code, r.headers, r.content)


class Engram(_Api):
    """Synchronous client. ``Engram()`` reads ENGRAM_API_URL and ENGRAM_API_KEY."""

    def __init__(self, base_url: str | None = None, *, api_key: str | None = None, timeout: float = 60.0,
                 retry: RetryPolicy = DEFAULT_RETRY, transport: httpx.BaseTransport | None = None) -> None:
        super().__init__(base_url, api_key, timeout, retry)
        self._http = httpx.Client(transport=transport, **self._http_options)

    def _perform(self, effect: HttpRequest | Sleep) -> HttpResponse | Exception | None:
        if isinstance(effect, Sleep):
            return time.sleep(effect.seconds)
        try:
            return _response(self._http.request(effect.method, effect.path, params=effect.params, json=effect.json,
                                                headers=effect.headers))
        except httpx.TransportError as exc:
            return exc

    def _call(self, call: Call) -> Any:
        return core.run_sync(core.plan(call, self.retry), self._perform)

    def export_stream(self, user_id: str, *, delivery: str = "auto") -> Iterator[bytes]:
        """The export document as it arrives, following the link when the API answers with one."""
        request, sniffer = self._export_request(user_id, delivery), core.ExportSniffer()
        with self._http.stream(request.method, request.path, params=request.params) as response:
            if response.status_code >= 400:
                response.read()
                raise core.error_of(_response(response))
            for chunk in response.iter_bytes():
                if out := sniffer.feed(chunk):
                    yield out
        if (url := sniffer.link()) is None:
            yield sniffer.rest()
            return
        with httpx.stream("GET", url, timeout=self._http.timeout) as linked:  # a pre-signed URL: no API key
            linked.raise_for_status()
            yield from linked.iter_bytes()

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Engram:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEngram(_Api):
    """Asynchronous client: the same methods as ``Engram``, each returning an awaitable."""

    def __init__(self, base_url: str | None = None, *, api_key: str | None = None, timeout: float = 60.0,
                 retry: RetryPolicy = DEFAULT_RETRY, transport: httpx.AsyncBaseTransport | None = None) -> None:
        super().__init__(base_url, api_key, timeout, retry)
        self._http = httpx.AsyncClient(transport=transport, **self._http_options)

    async def _perform(self, effect: HttpRequest | Sleep) -> HttpResponse | Exception | None:
        if isinstance(effect, Sleep):
            return await asyncio.sleep(effect.seconds)
        try:
            return _response(await self._http.request(effect.method, effect.path, params=effect.params,
                                                      json=effect.json, headers=effect.headers))
        except httpx.TransportError as exc:
            return exc

    def _call(self, call: Call) -> Any:
        return core.run_async(core.plan(call, self.retry), self._perform)

    async def export_stream(self, user_id: str, *, delivery: str = "auto") -> AsyncIterator[bytes]:
        request, sniffer = self._export_request(user_id, delivery), core.ExportSniffer()
        async with self._http.stream(request.method, request.path, params=request.params) as response:
            if response.status_code >= 400:
                await response.aread()
                raise core.error_of(_response(response))
            async for chunk in response.aiter_bytes():
                if out := sniffer.feed(chunk):
                    yield out
        if (url := sniffer.link()) is None:
            yield sniffer.rest()
            return
        async with httpx.AsyncClient(timeout=self._http.timeout) as plain, plain.stream("GET", url) as linked:
            linked.raise_for_status()
            async for chunk in linked.aiter_bytes():
                yield chunk

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncEngram:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
