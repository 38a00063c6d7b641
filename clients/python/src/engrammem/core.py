"""The sans-IO core: one table of operations, how a call becomes an HTTP request, how a response
becomes a model or an ``EngramAPIError``, and when to retry. It performs no I/O: a call is a
generator that yields ``HttpRequest`` (answered with an ``HttpResponse`` or the transport's
exception) and ``Sleep`` (answered with nothing), and returns the parsed result. ``client.py``
drives it with httpx, synchronously or asynchronously; the LangGraph store drives its own plans
the same way (``run_sync`` / ``run_async``).
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar
from urllib.parse import quote

from pydantic import BaseModel

from . import models as m
from .errors import EngramAPIError, EngramTransportError

T = TypeVar("T")


@dataclass(frozen=True)
class Operation:
    """One endpoint. ``idempotency_key``: the API accepts ``Idempotency-Key`` here, so the client
    sends one (the same on every retry) and a retried write is never applied twice."""

    method: str
    path: str
    body: type[m.Request] | None = None
    response: type[m.Response] | None = None
    idempotency_key: bool = False

    @property
    def safe_to_retry(self) -> bool:
        """A retry after a response that may follow a partial write (503, a lost connection) is
        only safe where repeating the request cannot apply it twice."""
        return self.method in ("GET", "PUT", "DELETE") or self.idempotency_key


OPERATIONS: dict[str, Operation] = {
    "health": Operation("GET", "/v1/health", None, m.HealthResponse),
    "ingest": Operation("POST", "/v1/users/{user_id}/messages", m.IngestBody, m.IngestResponse, True),
    "recall": Operation("POST", "/v1/users/{user_id}/recall", m.RecallBody, m.RecallResponse),
    "session_context": Operation("GET", "/v1/users/{user_id}/sessions/{session_id}/context", None, m.SessionContext),
    "set_session_fields": Operation("PUT", "/v1/users/{user_id}/sessions/{session_id}/context", m.FieldsBody,
                                    m.VersionResponse, True),
    "clear_session": Operation("DELETE", "/v1/users/{user_id}/sessions/{session_id}", None, m.SessionCleared),
    "rollback_session": Operation("POST", "/v1/users/{user_id}/sessions/{session_id}/rollback", m.RollbackBody,
                                  m.VersionResponse, True),
    "record_task_event": Operation("POST", "/v1/users/{user_id}/tasks/{task_id}/events", m.TaskEventBody, m.Task,
                                   True),
    "list_tasks": Operation("GET", "/v1/users/{user_id}/tasks", None, m.TasksResponse),
    "profile": Operation("GET", "/v1/users/{user_id}/profile", None, m.ProfileResponse),
    "correct_profile_item": Operation("PATCH", "/v1/users/{user_id}/profile/items/{item_id}", m.ProfilePatchBody,
                                      m.ProfileItem, True),
    "delete_profile_item": Operation("DELETE", "/v1/users/{user_id}/profile/items/{item_id}", None, m.DeletedItem),
    "feedback": Operation("POST", "/v1/users/{user_id}/memories/{memory_id}/feedback", m.FeedbackBody,
                          m.FeedbackResponse),
    "forget": Operation("DELETE", "/v1/users/{user_id}/memories", None, m.ForgetResponse),
    "forget_memory": Operation("DELETE", "/v1/users/{user_id}/memories/{memory_id}", None, m.MemoryForgotten),
    "set_consent": Operation("PUT", "/v1/users/{user_id}/consent", m.ConsentBody, m.ConsentResponse, True),
    "link_device": Operation("POST", "/v1/users/{user_id}/devices", m.DeviceBody, m.DeviceResponse, True),
    "request_erasure": Operation("POST", "/v1/users/{user_id}/erasure", None, m.ErasureAccepted),
    "erasure_job": Operation("GET", "/v1/erasure-jobs/{job_id}", None, m.ErasureJob),
    "export": Operation("GET", "/v1/users/{user_id}/export"),  # streamed, see ExportSniffer
}


@dataclass(frozen=True)
class HttpRequest:
    method: str
    path: str
    params: dict[str, Any] = field(default_factory=dict)
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: Mapping[str, str]
    content: bytes


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter on 429 and 503 (and lost connections), honouring
    ``Retry-After``; ``retries`` more attempts at most."""

    retries: int = 4
    base_s: float = 0.25
    cap_s: float = 8.0

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        wanted = _retry_after_s(retry_after)
        if wanted is not None:
            return min(wanted, self.cap_s)
        return random.uniform(0, min(self.cap_s, self.base_s * 2 ** attempt))


def _retry_after_s(value: str | None) -> float | None:
    if not value:
        return None
    if value.strip().isdigit():
        return float(value)
    try:
        return max(0.0, (parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds())
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class Call:
    """One API call as the caller asked for it, before it is an HTTP request."""

    name: str
    path_params: dict[str, str] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    body: BaseModel | None = None
    idempotency_key: str | None = None

    @property
    def operation(self) -> Operation:
        return OPERATIONS[self.name]

    def request(self) -> HttpRequest:
        op = self.operation
        path = op.path.format(**{k: quote(v, safe="") for k, v in self.path_params.items()})
        headers = {}
        if op.idempotency_key:
            headers["Idempotency-Key"] = self.idempotency_key or uuid.uuid4().hex
        body = None if self.body is None else self.body.model_dump(mode="json", exclude_none=True)
        params = {k: v for k, v in self.params.items() if v is not None}
        return HttpRequest(op.method, path, params, body, headers)


def error_of(response: HttpResponse) -> EngramAPIError:
    try:
        detail = m.ErrorResponse.model_validate_json(response.content).error
        return EngramAPIError(response.status, detail.code, detail.message, detail.field)
    except ValueError:
        text = response.content[:200].decode("utf-8", "replace")
        return EngramAPIError(response.status, "http_error", text or f"HTTP {response.status}")


def parse(op: Operation, response: HttpResponse) -> Any:
    if response.status >= 400:
        raise error_of(response)
    if op.response is None:
        return json.loads(response.content)
    return op.response.model_validate_json(response.content)


def should_retry(op: Operation, outcome: HttpResponse | Exception) -> bool:
    if isinstance(outcome, Exception):
        return op.safe_to_retry
    # A 429 is refused before anything is done; a 503 may follow a partial write.
    return outcome.status == 429 or (outcome.status == 503 and op.safe_to_retry)


Plan = Generator[HttpRequest | Sleep, HttpResponse | Exception | None, T]


def exchange(request: HttpRequest, op: Operation, policy: RetryPolicy) -> Plan[HttpResponse]:
    """Send ``request`` (the same one, idempotency key included, on every attempt) until it is
    answered with something not worth retrying or the retries are spent."""
    for attempt in range(policy.retries + 1):
        outcome = yield request
        last = attempt == policy.retries
        if not should_retry(op, outcome) or last:
            if isinstance(outcome, Exception):
                raise EngramTransportError(f"{request.method} {request.path}: {outcome}") from outcome
            return outcome
        retry_after = None if isinstance(outcome, Exception) else outcome.headers.get("retry-after")
        yield Sleep(policy.delay(attempt, retry_after))
    raise AssertionError("unreachable")


def plan(call: Call, policy: RetryPolicy) -> Plan[Any]:
    response = yield from exchange(call.request(), call.operation, policy)
    return parse(call.operation, response)


class ExportSniffer:
    """Tells an export document from an export link while streaming, without holding a large
    document: a link is a small object with ``export_url`` (a document never has one), so the
    first ``limit`` bytes are held; past them it is a document and flows through."""

    def __init__(self, limit: int = 64 * 1024) -> None:
        self.limit, self.held, self.passing = limit, bytearray(), False

    def feed(self, chunk: bytes) -> bytes:
        if self.passing:
            return chunk
        self.held += chunk
        if len(self.held) <= self.limit:
            return b""
        self.passing, out = True, bytes(self.held)
        self.held.clear()
        return out

    def link(self) -> str | None:
        """At the end of the body: the URL to follow, or None when the body was the document."""
        if self.passing:
            return None
        try:
            body = json.loads(self.held)
        except ValueError:
            return None
        return body.get("export_url") if isinstance(body, dict) else None

    def rest(self) -> bytes:
        return bytes(self.held)


Effect = Any


def run_sync(steps: Generator[Effect, Any, T], perform: Callable[[Effect], Any]) -> T:
    """Drive a plan: hand each effect it yields to ``perform`` and send back the answer."""
    try:
        effect = next(steps)
        while True:
            effect = steps.send(perform(effect))
    except StopIteration as done:
        return done.value


async def run_async(steps: Generator[Effect, Any, T], perform: Callable[[Effect], Awaitable[Any]]) -> T:
    try:
        effect = next(steps)
        while True:
            effect = steps.send(await perform(effect))
    except StopIteration as done:
        return done.value
