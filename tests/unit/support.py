"""Helpers of the service-layer unit tests: request bodies, ingesting a few turns, and wrappers
that make one method of a fake store fail or run slow (the fakes themselves live in tests/fakes).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient

from engram.api.app import create_app
from engram.domain.extraction import extract_facts
from engram.domain.ingest.sanitise import clean_turn
from engram.domain.model import Role, Scope, Turn
from engram.domain.profile.beliefs import ENDED_TAG
from engram.errors import StoreUnavailable
from engram.service import erasure
from engram.service.ingest import INGEST_CHAIN, IngestCommand, run_in_process
from engram.service.ingest import ingest as ingest_command
from engram.service.ingest import run_step as run_ingest_step
from engram.service.recall import RecallRequest
from engram.service.recall import run_step as run_recall_step

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def best_seconds(call: Callable[[], object], runs: int = 3) -> float:
    """The best of ``runs`` timings of ``call()``: what a timing test compares with itself at two
    sizes in the same run (never against a budget in seconds)."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def timed_growth(short: Callable[[], object], long: Callable[[], object], bound: float, floor: float = 1e-4,
                 tries: int = 3) -> tuple[float, float]:
    """The best-of-3 times of ``short()`` and ``long()`` (the short one floored at ``floor``), measured
    again, up to ``tries`` times, while the long one takes ``bound`` times as long or more: a machine
    busy with other work stretches one measurement, a routine that grows faster than linearly every
    one. The pair of the lowest ratio."""
    pairs = []
    for _ in range(tries):
        pair = (max(best_seconds(short), floor), best_seconds(long))
        pairs.append(pair)
        if pair[1] < bound * pair[0]:
            break
    return min(pairs, key=lambda p: p[1] / p[0])


def beliefs_said(*turns: str) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """The (predicate, object) beliefs a user's turns leave, read one after another as extraction
    reads them: (those not ended by a later turn, those ended), objects lower-cased."""
    said = []
    for i, content in enumerate(turns):
        turn = clean_turn(i, {"role": "user", "content": content, "client_ts": "2026-05-14T09:00:00+00:00",
                              "message_id": f"m{i}"}, "s")
        said += extract_facts(turn, said)
    current = {(f.predicate.value, f.object.lower()) for f in said if ENDED_TAG not in f.tags}
    return current, {(f.predicate.value, f.object.lower()) for f in said if ENDED_TAG in f.tags}


def extracting(content: str) -> Callable[[], object]:
    """Extracting one user turn of ``content``, to be timed."""
    turn = Turn(message_id="m", role=Role.USER, content=content, client_ts=T0, raw_sha256="0" * 64)
    return lambda: extract_facts(turn)


def extraction_growth(short: str, long: str, bound: float) -> tuple[float, float]:
    """What the extraction timing tests compare: extracting ``short`` and ``long`` in the same run
    (``timed_growth``, floored at a millisecond), never against a budget in seconds."""
    return timed_growth(extracting(short), extracting(long), bound, floor=1e-3)


def iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


def message(content: str, message_id: str | None = None, at: datetime | str = T0, role: str = "user") -> dict:
    out = {"role": role, "content": content, "client_ts": at if isinstance(at, str) else iso(at)}
    if message_id is not None:
        out["message_id"] = message_id
    return out


def body(*messages: dict, session: str = "s1", device: str = "phone") -> dict:
    return {"session_id": session, "device_id": device, "messages": list(messages)}


def run_ingest(deps, scope: Scope, request_body: object) -> dict:
    """The chain in-process over a body as a client posts it: the command the API builds, then
    the API's runner (a body that would be refused is refused here, as there)."""
    return run_in_process(deps, IngestCommand.from_body(scope, request_body))


def ingest(deps, scope: Scope, request_body: object) -> dict:
    """``run_ingest`` through the configured runner (``ENGRAM_INGEST_RUNNER``)."""
    return ingest_command(deps, IngestCommand.from_body(scope, request_body))


def say(deps, scope: Scope, *texts: str, session: str = "s1", device: str = "phone", at: datetime = T0,
        prefix: str | None = None) -> dict:
    """Ingest ``texts`` as the user's turns, one minute apart, with ids ``<prefix>-<i>``."""
    prefix = prefix or f"{session}-{at:%Y%m%d%H%M}"
    messages = [message(t, f"{prefix}-{i}", at + timedelta(minutes=i)) for i, t in enumerate(texts)]
    return run_ingest(deps, scope, body(*messages, session=session, device=device))


def through_lambdas(deps, value: dict) -> dict:
    """The ingest chain one step per Lambda: each step's JSON output is the next one's input."""
    for step in INGEST_CHAIN:
        value = json.loads(json.dumps(run_ingest_step(deps, step.name, json.loads(json.dumps(value)))))
    return value


def recall_through_lambdas(deps, request: RecallRequest) -> dict:
    """The recall state machine's chaining of ``run_step``, each payload through JSON."""
    def step(name, event):
        return json.loads(json.dumps(run_recall_step(deps, name, json.loads(json.dumps(event)))))

    payload = request.to_json()
    session = step("session", payload)
    results = [step(name, {"request": payload, "session": session}) for name in ("tasks", "profile", "episodes")]
    fuse = {"request": payload, "session": session, "layers": results}
    if session["wants_verbatim"]:
        episodes = next(r for r in results if r["step"] == "episodes")
        fuse["originals"] = step("archive", {"request": payload, "session": session, "episodes": episodes})
    return step("fuse", fuse)


def start_erasure(deps, scope: Scope) -> dict:
    """Request the user's erasure; the saga's input (``deps`` needs an erasure state machine ARN)."""
    job = erasure.request_erasure(deps, scope)
    return {"job_id": job["job_id"], "tenant": scope.tenant, "user_id": scope.user_id}


def run_saga(deps, event: dict) -> dict:
    """The erasure saga's steps in the state machine's order; the verify step's result."""
    erasure.validate(deps, event)
    erasure.mark(deps, event)
    for store in deps.holders.names:
        erasure.delete_from(deps, event, store)
    verified = erasure.verify(deps, event)
    erasure.record(deps, {**event, "verify": verified})
    return verified


class Wrapped:
    """A fake store with one method replaced; every other attribute is the fake's own."""

    def __init__(self, inner, method: str, replacement) -> None:
        self._inner, self._method, self._replacement = inner, method, replacement
        self.calls = 0
        self._lock = threading.Lock()

    def __getattr__(self, name: str):
        if name == self._method:
            def call(*args, **kwargs):
                with self._lock:
                    self.calls += 1
                return self._replacement(self._inner, *args, **kwargs)
            return call
        return getattr(self._inner, name)


def failing(inner, method: str, exc: Exception | None = None, times: int | None = None) -> Wrapped:
    """``method`` raises ``exc`` (StoreUnavailable by default), the first ``times`` calls or always."""
    error = exc or StoreUnavailable(f"{method}: down")
    state = {"left": times}

    def replacement(store, *args, **kwargs):
        if state["left"] is None or state["left"] > 0:
            if state["left"] is not None:
                state["left"] -= 1
            raise error
        return getattr(store, method)(*args, **kwargs)

    return Wrapped(inner, method, replacement)


def slow(inner, method: str, seconds: float) -> Wrapped:
    """``method`` answers correctly, after ``seconds``."""
    def replacement(store, *args, **kwargs):
        time.sleep(seconds)
        return getattr(store, method)(*args, **kwargs)

    return Wrapped(inner, method, replacement)


def client_for(deps, tenant: str = "t1") -> TestClient:
    """A client of the app over ``deps``, with an API key of its own for ``tenant`` (the API
    caches keys per process, so every client gets a fresh one)."""
    key = f"key-{uuid.uuid4().hex}"
    deps.tenants.register(tenant, key)
    client = TestClient(create_app(deps), raise_server_exceptions=False)
    client.headers["Authorization"] = f"Bearer {key}"
    return client


class OpeningNoted:
    """The key store, with each purpose it opened a sealed value for noted."""

    def __init__(self, keys) -> None:
        self._keys, self.opened = keys, []

    def __getattr__(self, name):
        return getattr(self._keys, name)

    def open(self, scope, token, purpose):
        self.opened.append(purpose)
        return self._keys.open(scope, token, purpose)

