"""Two runners of the one recall plan.

``run_in_process``: the session step, then the layer steps in parallel on a thread pool, each
under its own deadline; the API's default and the lowest latency. ``run_step`` is one step as a
Lambda under ``RecallStateMachine`` (statemachines/recall.asl.json), and ``run_on_step_functions``
starts that state machine and waits for its answer. Both go through ``execute``, so the breaker,
the late-is-degraded rule and the degraded log line are the same whichever runner ran the step.
"""

from __future__ import annotations

import math
import threading
import time
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from functools import cache

from aws_lambda_powertools import Logger

from ...dependencies import Dependencies
from ...domain import metrics
from ...errors import ValidationFailed
from ...ports import Embedder
from .plan import RECALL_PLAN, RecallContext, RecallPlan, RecallRequest, Step, StepResult

log = Logger(child=True)  # the handler's Logger (POWERTOOLS_SERVICE_NAME) formats and ships it
# Only a store error opens the breaker: while open the step is skipped, so a dead store costs one
# failure, not a thread per request stuck on a connect. A missed deadline never opens it: under
# load "slower" must not become "empty" for every other request (the late step degrades only the
# answer it was late for).
BREAKER_OPEN_S = 5.0


class CircuitBreaker:
    def __init__(self) -> None:
        self._open_until: dict[str, float] = {}
        self._lock = threading.Lock()

    def is_open(self, step: str) -> bool:
        return self._open_until.get(step, 0.0) > time.monotonic()

    def record(self, step: str, outcome: str) -> None:
        if outcome != "error":
            return
        with self._lock:
            self._open_until[step] = time.monotonic() + BREAKER_OPEN_S

    def reset(self) -> None:
        with self._lock:
            self._open_until.clear()


class StepLatency:
    """What each step has recently taken in this process (an exponentially weighted mean), so a
    configured deadline can stretch with measured load instead of cutting layers off.

    A step that has not run yet in this process gets the cold allowance: its first run opens
    pools and warms caches on a possibly busy machine, and failing the user's first question for
    it would tell them nothing was ever said. Past that, the deadline is twice the recent mean,
    never below the configured one and never above ``stretch`` times it."""

    WEIGHT = 0.2

    def __init__(self) -> None:
        self._mean: dict[str, float] = {}
        self._lock = threading.Lock()

    def observe(self, step: str, ms: float) -> None:
        with self._lock:
            mean = self._mean.get(step)
            self._mean[step] = ms if mean is None else (1 - self.WEIGHT) * mean + self.WEIGHT * ms

    def deadline(self, step: str, configured: float, stretch: float, cold_ms: float) -> float:
        mean = self._mean.get(step)
        if mean is None:
            return max(configured, cold_ms)
        return min(max(configured, 2 * mean), configured * stretch)

    def reset(self) -> None:
        with self._lock:
            self._mean.clear()


LATENCY = StepLatency()
BREAKER = CircuitBreaker()


def _degraded(step: Step, reason: str, ms: float) -> StepResult:
    # Why, never what: the step, the reason and the time; no query, no user content.
    log.warning("recall step degraded", extra={"step": step.name, "reason": reason, "ms": round(ms, 2)})
    return StepResult.failed(step.name, reason, ms)


def execute(deps: Dependencies, step: Step, ctx: RecallContext, inputs: dict, deadline_ms: float) -> StepResult:
    """Run one step synchronously: breaker first, then the step; an error or a finish past the
    deadline is a degraded result, never an exception."""
    if BREAKER.is_open(step.name):
        return _degraded(step, "breaker_open", 0.0)
    started = time.perf_counter()
    try:
        result = step.read(deps, ctx, inputs)
    except Exception as exc:  # noqa: BLE001 - a failing layer degrades the answer, never breaks it
        BREAKER.record(step.name, "error")
        return _degraded(step, type(exc).__name__, (time.perf_counter() - started) * 1000)
    ms = (time.perf_counter() - started) * 1000
    LATENCY.observe(step.name, ms)  # late runs too: they are what the load looks like
    if ms > deadline_ms:
        return _degraded(step, "deadline", float(deadline_ms))
    BREAKER.record(step.name, "ok")
    return StepResult(result.step, result.items, round(ms, 2), fields=result.fields, timings=result.timings)


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=8, thread_name_prefix="recall")


@cache
def _warm_model(embedder: Embedder) -> None:  # once per model, whichever Dependencies share it
    embedder.warm_up()


# Per Dependencies object (weakly: a test's short-lived fakes must not leave an id to be reused):
# each store's warm-up state, the monotonic time from which it may be tried again (inf once done).
_connected: weakref.WeakKeyDictionary[Dependencies, dict[str, float]] = weakref.WeakKeyDictionary()
WARM_UP_RETRY_S = 30.0


def warm_up(deps: Dependencies, steps: tuple[Step, ...]) -> None:
    """Once per process and outside every deadline: load the model (its first inference is slow)
    and open a connection to each store the steps read. A failure is never raised (the step
    itself will then fail, and say so, within its deadline) and is tried again only after
    ``WARM_UP_RETRY_S``: a store that is down must not cost every request a second attempt."""
    state = _connected.setdefault(deps, {})
    for step in steps:
        if step.embeds:
            try:
                _warm_model(deps.embedder)
            except Exception as exc:  # noqa: BLE001 - see above
                log.warning("recall warm-up failed", extra={"step": step.name, "error": type(exc).__name__})
        for store in step.stores:
            if store not in deps.probes or state.get(store, 0.0) > time.monotonic():
                continue
            try:
                deps.probes[store]()
                state[store] = math.inf
            except Exception as exc:  # noqa: BLE001 - see above
                state[store] = time.monotonic() + WARM_UP_RETRY_S
                log.warning("recall warm-up failed", extra={"step": step.name, "store": store,
                                                            "error": type(exc).__name__})


def _deadlines(deps: Dependencies, overrides: dict[str, float] | None) -> dict[str, float]:
    """The configured deadlines as measured load stretches them; an explicit per-request
    deadline is kept exactly (it is the caller's own limit)."""
    settings = deps.settings
    adapted = {name: LATENCY.deadline(name, ms, settings.recall_deadline_stretch, settings.recall_cold_deadline_ms)
               for name, ms in settings.recall_deadlines_ms.items()}
    return {**adapted, **(overrides or {})}


class FairAdmission:
    """At most ``size`` holders at once; the others get in first come, first served. A plain
    semaphore lets a thread that has just released take its slot straight back (barging): with 4
    clients over 2 slots, two clients kept both slots for a whole run of their questions while the
    other two waited half a second, which was the recall p95 under load. Here a release hands the
    slot to the oldest waiter."""

    def __init__(self, size: int) -> None:
        self._free = size
        self._waiting: deque[threading.Event] = deque()
        self._lock = threading.Lock()

    def __enter__(self) -> FairAdmission:
        with self._lock:
            if self._free and not self._waiting:
                self._free -= 1
                return self
            turn = threading.Event()
            self._waiting.append(turn)
        turn.wait()  # the releasing thread has passed its slot on to this one
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            if self._waiting:
                self._waiting.popleft().set()
            else:
                self._free += 1


@cache
def _admission(size: int) -> FairAdmission:
    return FairAdmission(size)


def run_in_process(deps: Dependencies, request: RecallRequest, plan: RecallPlan = RECALL_PLAN,
                   deadlines_ms: dict[str, float] | None = None) -> dict:
    """At most ``recall_concurrency`` recalls run at once in a process; the others queue here,
    before any deadline starts, instead of starving each other's steps of the cores."""
    warm_up(deps, plan.steps())
    with _admission(deps.settings.recall_concurrency):
        return _run_in_process(deps, request, plan, deadlines_ms)


def _run_in_process(deps: Dependencies, request: RecallRequest, plan: RecallPlan,
                    deadlines_ms: dict[str, float] | None) -> dict:
    deadlines = _deadlines(deps, deadlines_ms)
    started = time.perf_counter()
    first_ctx = plan.context(request, {})

    def submit(step: Step, ctx: RecallContext, inputs: dict):
        return _pool().submit(execute, deps, step, ctx, inputs, deadlines[step.name])

    def settle(step: Step, future, timeout_s: float) -> StepResult:
        try:
            return future.result(timeout=max(timeout_s, 0.001))
        except FutureTimeout:
            return _degraded(step, "deadline", float(deadlines[step.name]))

    results = []
    session = StepResult(plan.first.name, [])
    if request.ref is not None:
        session = settle(plan.first, submit(plan.first, first_ctx, {}), deadlines[plan.first.name] / 1000)
        results.append(session)
    ctx = plan.context(request, session.fields)
    phase = time.perf_counter()
    futures = [(step, submit(step, ctx, {})) for step in plan.parallel]
    for step, future in futures:
        results.append(settle(step, future, deadlines[step.name] / 1000 - (time.perf_counter() - phase)))
    if ctx.intent.wants_verbatim:
        episodes = next((r.items for r in results if r.step == "episodes"), [])
        step = plan.verbatim
        results.append(settle(step, submit(step, ctx, {"episodes": episodes}), deadlines[step.name] / 1000))
    return _finish(deps, plan, ctx, results, started)


# -- one Lambda per step ------------------------------------------------------------------------
# Payloads (statemachines/recall.asl.json): the session step gets the request; a layer step gets
# {"request", "session": <session result>}; the originals step also "episodes": <its result>;
# the fuse step {"request", "session", "layers": [<results>], "originals"?}.

def run_step(deps: Dependencies, name: str, event: dict, plan: RecallPlan = RECALL_PLAN) -> dict:
    if name == "fuse":
        return _fuse(deps, plan, event)
    is_first = name == plan.first.name
    request = RecallRequest.from_json(event if is_first else event.get("request"))
    step = plan.step(name)
    warm_up(deps, (step,))  # only what this step reads: the others need not load the model
    session = StepResult.from_json(event["session"]) if not is_first else StepResult(name, [])
    ctx = plan.context(request, session.fields)
    inputs = {}
    if step is plan.verbatim:
        if not ctx.intent.wants_verbatim:
            # Reached only when the session step failed (its result then cannot say): run_in_process
            # would not read originals for this question, so neither does this runner.
            return StepResult(name, []).to_json()
        inputs["episodes"] = StepResult.from_json(event["episodes"]).items
    result = execute(deps, step, ctx, inputs, _deadlines(deps, None)[name])
    out = result.to_json()
    if is_first:  # the Choice state after the layers reads it
        out["wants_verbatim"] = ctx.intent.wants_verbatim
    return out


def _fuse(deps: Dependencies, plan: RecallPlan, event: dict) -> dict:
    request = RecallRequest.from_json(event.get("request"))
    session = StepResult.from_json(event["session"])
    results = ([session] if request.ref is not None else []) + [StepResult.from_json(r)
                                                                 for r in event.get("layers") or []]
    if event.get("originals"):
        results.append(StepResult.from_json(event["originals"]))
    return _finish(deps, plan, plan.context(request, session.fields), results)


def _finish(deps: Dependencies, plan: RecallPlan, ctx: RecallContext, results: list[StepResult],
            started: float | None = None) -> dict:
    """The answer, and its datapoints recorded where it is made: in the process that fused it,
    whichever runner ran the steps, so each answer is counted once."""
    answer = plan.finish(ctx, results, started)
    session = next((r for r in results if r.step == plan.first.name), None)
    hit = None if ctx.request.ref is None else bool(session and session.items)
    deps.metrics.record(metrics.answered({r.step: r.ms for r in results}, bool(answer["degraded"]),
                                         answer["no_record"], hit, answer["timings_ms"]["total"]))
    return answer


def run_on_step_functions(deps: Dependencies, request: RecallRequest) -> dict:
    arn = deps.settings.recall_state_machine_arn
    if not arn:
        raise ValidationFailed("ENGRAM_RECALL_RUNNER=stepfunctions needs ENGRAM_RECALL_STATE_MACHINE_ARN",
                               field="runner")
    return deps.workflows.run_sync(arn, request.to_json())


def recall(deps: Dependencies, request: RecallRequest, deadlines_ms: dict[str, float] | None = None) -> dict:
    """The configured runner (``ENGRAM_RECALL_RUNNER``: ``inprocess``, the default, or ``stepfunctions``).
    A recall that gives no answer for a reason of ours (a 5xx, not the caller's 4xx) is counted as
    failed: with the answers counted at fusion, that is the success rate's denominator."""
    try:
        if deps.settings.recall_runner == "stepfunctions":
            return run_on_step_functions(deps, request)
        return run_in_process(deps, request, deadlines_ms=deadlines_ms)
    except Exception as exc:
        if getattr(exc, "status", 500) >= 500:
            deps.metrics.record(metrics.failed())
        raise
