"""The recall chain: session -> (tasks | profile | episodes) -> archive -> fuse -> guard.

Every step has its own deadline. A step that misses it, or whose store is down, is named in
``degraded`` and the answer is built from the rest: recall degrades, it does not fail.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import replace
from datetime import UTC, datetime
from functools import cache

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit

from ..adapters import embedder
from ..adapters.session_store import SessionRef
from ..config import get_settings
from ..domain.cleaning import parse_timestamp, validate_id
from ..domain.fusion import HYBRID, NO_RECORD_BLOCK, RecallRecipe, context_block, fuse, has_record
from ..domain.model import Scope
from ..domain.query import analyse, expand_with_session
from ..errors import ValidationFailed
from . import recall_steps
from .stores import Stores

metrics = Metrics(namespace="Engram", service="engram-recall")
# Circuit breaker per step: after a failure or a missed deadline the step is skipped for a
# while, so a dead store costs one timeout, not a thread per request stuck on a connect.
# A store error opens it at once; missed deadlines only when several come in a row (one slow
# request is noise, three are a pattern).
BREAKER_OPEN_S = 5.0
TIMEOUTS_TO_OPEN = 3
_open_until: dict[str, float] = {}
_timeouts_in_a_row: dict[str, int] = {}


def _breaker_open(step: str) -> bool:
    return _open_until.get(step, 0.0) > time.monotonic()


def _record(step: str, outcome: str) -> None:
    if outcome == "ok":
        _timeouts_in_a_row[step] = 0
        return
    if outcome == "timeout":
        _timeouts_in_a_row[step] = _timeouts_in_a_row.get(step, 0) + 1
        if _timeouts_in_a_row[step] < TIMEOUTS_TO_OPEN:
            return
    _timeouts_in_a_row[step] = 0
    _open_until[step] = time.monotonic() + BREAKER_OPEN_S


@cache
def _prepare(stores: Stores) -> None:
    """Once per process and outside every deadline: schema, indexes, model."""
    embedder.embed(["warm-up"])  # the first inference after loading is several times slower
    stores.episodes.ensure_index()
    stores.graph.ensure_constraints()


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=8, thread_name_prefix="recall")


def _timed(fn, timings: dict, name: str):
    def run():
        start = time.perf_counter()
        try:
            return fn()
        finally:
            timings[name] = round((time.perf_counter() - start) * 1000, 2)
    return run


def _parse_request(body: dict) -> tuple[str, int, SessionRef | None, datetime, str | None]:
    if not isinstance(body, dict):
        raise ValidationFailed("body must be a JSON object", field="body")
    query = body.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValidationFailed("query must be a non-empty string", field="query")
    if len(query) > 2000:
        raise ValidationFailed("query must be at most 2000 characters", field="query")
    k = body.get("k", 10)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 50:
        raise ValidationFailed("k must be an integer between 1 and 50", field="k")
    now = parse_timestamp(body["now"], "now") if body.get("now") is not None else datetime.now(UTC)
    return query.strip(), k, body.get("session_id"), now, body.get("device_id")


def recall(stores: Stores, tenant: str, user_id: str, body: dict, recipe: RecallRecipe = HYBRID,
           deadlines_ms: dict[str, float] | None = None) -> dict:
    scope = Scope(tenant, validate_id(user_id, "user_id"))
    query, k, session_id, now, device_id = _parse_request(body)
    ref = None
    if session_id is not None or device_id is not None:
        ref = SessionRef(scope, validate_id(device_id, "device_id"), validate_id(session_id, "session_id"))
    try:
        _prepare(stores)
    except Exception:  # noqa: BLE001 - a store down at cold start: its step will degrade below
        pass
    deadlines = {**get_settings().recall_deadlines_ms, **(deadlines_ms or {})}
    timings: dict[str, float] = {}
    degraded: list[str] = []
    floor: dict[str, float] = {}
    started = time.perf_counter()
    intent = analyse(query, now)

    def settle(name, future, timeout, default):
        try:
            result = future.result(timeout=max(timeout, 0.001))
            if timings.get(name, 0.0) <= deadlines[name]:
                _record(name, "ok")
                return result
            # Done by the time we looked, but later than its deadline: late is degraded, whatever
            # order the parallel steps happened to be collected in.
            timings[name] = float(deadlines[name])
            _record(name, "timeout")
        except FutureTimeout:
            timings.setdefault(name, float(deadlines[name]))
            _record(name, "timeout")
        except Exception:  # noqa: BLE001 - a failing layer degrades the answer, never breaks it
            _record(name, "error")
        degraded.append(name)
        return default

    def submit(name, fn):
        return None if _breaker_open(name) else _pool().submit(_timed(fn, timings, name))

    def collect(name, fn, default):
        future = submit(name, fn)
        if future is None:
            degraded.append(name)
            return default
        return settle(name, future, deadlines[name] / 1000, default)

    fields, session_items = ({}, [])
    if ref is not None:
        fields, session_items = collect("session", lambda: recall_steps.session_step(stores, ref, intent), ({}, []))
    expanded = expand_with_session(query, fields)
    if expanded != query:  # the session's "that one" is part of what is asked about
        intent = replace(analyse(expanded, now), memory_dependent=intent.memory_dependent)

    parallel = {
        "tasks": (lambda: recall_steps.tasks_step(stores, scope, intent), []),
        "profile": (lambda: recall_steps.profile_step(stores, scope, intent, now), []),
        "episodes": (lambda: recall_steps.episodes_step(stores, scope, intent, now, recipe, floor), []),
    }
    futures = {name: submit(name, fn) for name, (fn, _) in parallel.items()}
    results = {}
    phase_start = time.perf_counter()
    for name, future in futures.items():
        if future is None:
            degraded.append(name)
            results[name] = parallel[name][1]
            continue
        remaining = deadlines[name] / 1000 - (time.perf_counter() - phase_start)
        results[name] = settle(name, future, remaining, parallel[name][1])
    archive_items = []
    if intent.wants_verbatim:
        archive_items = collect("archive", lambda: recall_steps.archive_step(stores, scope, results["episodes"][:k]),
                                [])
    else:
        timings["archive"] = 0.0

    fuse_start = time.perf_counter()
    layers = {"session": session_items, "task": results["tasks"], "profile": results["profile"],
              "episode": results["episodes"], "archive": archive_items}
    items = fuse(layers, recipe, k)
    no_record = not items or (intent.memory_dependent and not has_record(items, recipe.guard_threshold))
    if no_record:
        items = []  # never pad an answer with weak matches
    block = NO_RECORD_BLOCK if no_record else context_block(items, recipe.context_tokens)
    timings["fuse"] = round((time.perf_counter() - fuse_start) * 1000, 2)
    timings["total"] = round((time.perf_counter() - started) * 1000, 2)
    _emit_metrics(timings, no_record, bool(session_items))
    response = {
        "items": [item.public() for item in items], "context_block": block,
        "memory_dependent": intent.memory_dependent, "no_record": no_record, "degraded": degraded,
        "timings_ms": {name: timings.get(name, 0.0) for name in
                       ("session", "tasks", "profile", "episodes", "archive", "fuse", "total")},
    }
    if floor:
        response["timings_ms"].update({f"episodes_{k}": round(v, 2) for k, v in floor.items()})
    return response


def _emit_metrics(timings: dict, no_record: bool, session_hit: bool) -> None:
    # EMF lines are shipped by Lambda's log pipeline and flushed by the handler's log_metrics;
    # anywhere else (uvicorn, benchmarks) they would only pile up and spill onto stdout.
    if not os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        return
    metrics.add_metric(name="RecallSuccess", unit=MetricUnit.Count, value=0 if no_record else 1)
    metrics.add_metric(name="RecallRequests", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="SessionContextHit", unit=MetricUnit.Count, value=1 if session_hit else 0)
    for step in ("session", "tasks", "profile", "episodes", "archive", "total"):
        if step in timings:
            metrics.add_metric(name=f"RecallLatency_{step}", unit=MetricUnit.Milliseconds, value=timings[step])
