"""The recall steps: what each reads (``Read``), and how any runner runs one (``execute``): the
breaker, the late-is-degraded rule and the degraded log line, deadlines as measured load stretches
them, and the warm-up before a step's first deadline (their state is the process's,
``deps.runtime``). Both runners go through ``execute``, so a step behaves the same whichever
runner ran it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from aws_lambda_powertools import Logger

from ...dependencies import Dependencies
from ...domain.recall.events import with_each_event
from ...domain.recall.glossary import load_glossary
from ...domain.recall.lexical import load_segmenter
from ...domain.recall.query import QueryIntent, analyse
from . import originals, readers, small_layers
from .heard import heard_events
from .request import RecallContext, StepResult

log = Logger(child=True)  # the handler's Logger (POWERTOOLS_SERVICE_NAME) formats and ships it


@dataclass(frozen=True)
class Read:
    """What one step of the plan reads, and from where (the chain's step that runs it is built
    over it by the plan: ``plan.RecallPlan.chain``)."""

    name: str      # the step's name: in ``degraded``, ``timings_ms`` and the deadline settings
    layer: str     # the layer its items belong to (fusion weights)
    read: Callable[[Dependencies, RecallContext, dict], StepResult]
    # The stores it reads (``deps.probes`` names): connected once per process before its first
    # deadline starts, as a Lambda's init would, so a cold start is not a missed deadline.
    stores: tuple[str, ...] = ()
    embeds: bool = False


def _session(deps: Dependencies, ctx: RecallContext, _inputs: dict) -> StepResult:
    if ctx.request.ref is None:
        return StepResult("session", [])
    fields, items = small_layers.read_session(deps, ctx.request.ref, ctx.intent)
    return StepResult("session", items, fields=fields)


def _tasks(deps: Dependencies, ctx: RecallContext, _inputs: dict) -> StepResult:
    # The layers with this user's writes still being caught up live in the same database as the
    # tasks: read here, so the fuse step stays pure (and reads no store) under either runner.
    pending = sorted(deps.pending.layers(ctx.request.scope))
    return StepResult("tasks", small_layers.read_tasks(deps, ctx.request.scope, ctx.intent),
                      fields={"pending": pending} if pending else {})


def _profile(deps: Dependencies, ctx: RecallContext, _inputs: dict) -> StepResult:
    return StepResult("profile", small_layers.read_profile(deps, ctx.request.scope, ctx.intent, ctx.request.now))


def _episodes(deps: Dependencies, ctx: RecallContext, _inputs: dict) -> StepResult:
    timings: dict = {}
    signals: dict = {}
    items = readers.read_episodes(deps, ctx.request.scope, ctx.intent, ctx.request.now, ctx.recipe, timings, signals)
    if ctx.intent.memory_dependent and "topic_words" in signals:  # only the guard needs it
        started = time.perf_counter()
        heard = heard_events(deps, asked_about(ctx.intent, signals), ctx.recipe, items[:ctx.request.k],
                                    signals["topic_words"], signals.get("han", False))
        if heard is not None:
            signals["heard"] = heard
            timings["hear"] = (time.perf_counter() - started) * 1000
    if ctx.intent.events:
        # Each event compared in time searched on its own too; the guard has read the question's own.
        each = [readers.read_episodes(deps, ctx.request.scope, analyse(event, ctx.request.now), ctx.request.now,
                                      ctx.recipe) for event in ctx.intent.events]
        items = with_each_event(items, each)
    return StepResult("episodes", items, fields=signals,
                      timings={f"episodes_{k}": round(v, 2) for k, v in timings.items()})


def asked_about(intent: QueryIntent, signals: dict) -> QueryIntent:
    """The question with the user's own names (``signals["own_names"]``, the episodes step's) no
    longer among the people a record must mention."""
    own = set(signals.get("own_names") or ())
    return replace(intent, names=tuple(n for n in intent.names if n not in own)) if own else intent


def _originals(deps: Dependencies, ctx: RecallContext, inputs: dict) -> StepResult:
    hits = inputs.get("episodes", [])[:ctx.request.k]
    return StepResult("archive", originals.read_originals(deps, ctx.request.scope, hits))


SESSION = Read("session", "session", _session, stores=("redis",))
TASKS = Read("tasks", "task", _tasks, stores=("postgres",))
PROFILE = Read("profile", "profile", _profile, stores=("neo4j", "postgres"))
EPISODES = Read("episodes", "episode", _episodes, stores=("opensearch", "redis"), embeds=True)
ORIGINALS = Read("archive", "archive", _originals, stores=("postgres", "s3"))


def degraded(step: Read, reason: str, ms: float) -> StepResult:
    # Why, never what: the step, the reason and the time; no query, no user content.
    log.warning("recall step degraded", extra={"step": step.name, "reason": reason, "ms": round(ms, 2)})
    return StepResult.failed(step.name, reason, ms)


def execute(deps: Dependencies, step: Read, ctx: RecallContext, inputs: dict, deadline_ms: float) -> StepResult:
    """Run one step synchronously: breaker first, then the step; an error or a finish past the
    deadline is a degraded result, never an exception."""
    breaker = deps.runtime.breaker
    if breaker.is_open(step.name):
        return degraded(step, "breaker_open", 0.0)
    started = time.perf_counter()
    try:
        result = step.read(deps, ctx, inputs)
    except Exception as exc:  # noqa: BLE001 - a failing layer degrades the answer, never breaks it
        breaker.record(step.name, "error")
        return degraded(step, type(exc).__name__, (time.perf_counter() - started) * 1000)
    ms = (time.perf_counter() - started) * 1000
    deps.runtime.latency.observe(step.name, ms)  # late runs too: they are what the load looks like
    if ms > deadline_ms:
        return degraded(step, "deadline", float(deadline_ms))
    breaker.record(step.name, "ok")
    return StepResult(result.step, result.items, round(ms, 2), fields=result.fields, timings=result.timings)


WARM_UP_RETRY_S = 30.0


def warm_up(deps: Dependencies, steps: tuple[Read, ...]) -> None:
    """Once per process and outside every deadline: load the model (its first inference is slow)
    and open a connection to each store the steps read. A failure is never raised (the step
    itself will then fail, and say so, within its deadline) and is tried again only after
    ``WARM_UP_RETRY_S``: a store that is down must not cost every request a second attempt."""
    # Keyed by the model, and by each store with the probe that reaches it: copies of these
    # dependencies (``with_``) share the runtime, and one that swapped a store is probed anew.
    state = deps.runtime.warmed
    for step in steps:
        if step.embeds and deps.embedder not in state:  # once per model, whichever copies share it
            try:
                deps.embedder.warm_up()
                load_segmenter()  # a Chinese question's topic words (the step that embeds reads them)
                # A question in the other language than the memories' reads the dictionary (1.5 s
                # to load): loaded beside, so the first request waits only if it is such a one.
                deps.runtime.submit(("recall-warm-up", 1), load_glossary)
                state[deps.embedder] = math.inf
            except Exception as exc:  # noqa: BLE001 - see above
                log.warning("recall warm-up failed", extra={"step": step.name, "error": type(exc).__name__})
        for store in step.stores:
            probe = deps.probes.get(store)
            if probe is None or state.get((store, probe), 0.0) > time.monotonic():
                continue
            try:
                probe()
                state[(store, probe)] = math.inf
            except Exception as exc:  # noqa: BLE001 - see above
                state[(store, probe)] = time.monotonic() + WARM_UP_RETRY_S
                log.warning("recall warm-up failed", extra={"step": step.name, "store": store,
                                                            "error": type(exc).__name__})


def deadlines(deps: Dependencies, overrides: dict[str, float] | None) -> dict[str, float]:
    """The configured deadlines as measured load stretches them; an explicit per-request
    deadline is kept exactly (it is the caller's own limit)."""
    settings, latency = deps.settings, deps.runtime.latency
    adapted = {name: latency.deadline(name, ms, settings.recall_deadline_stretch, settings.recall_cold_deadline_ms)
               for name, ms in settings.recall_deadlines_ms.items()}
    return {**adapted, **(overrides or {})}
