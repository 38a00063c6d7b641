"""The two runners of the one recall plan, ``service.chain``'s over ``RecallPlan.chain``.

``run_in_process``: the session step, then the layer steps in parallel on a thread pool, each
under its own deadline; the API's default and the lowest latency. ``run_step`` is one step as a
Lambda under ``RecallStateMachine`` (statemachines/recall.asl.json), and ``run_on_step_functions``
starts that state machine and waits for its answer. Either way each step goes through
``steps.execute`` and the answer through the plan's fuse step.
"""

from __future__ import annotations

import time

from ...dependencies import Dependencies
from ...domain.recall import metrics
from .. import chain
from .plan import RECALL_PLAN, RecallPlan
from .request import RecallRequest
from .steps import deadlines


def run_in_process(deps: Dependencies, request: RecallRequest, plan: RecallPlan = RECALL_PLAN,
                   deadlines_ms: dict[str, float] | None = None) -> dict:
    """At most ``recall_concurrency`` recalls run at once in a process; the others queue here,
    before any deadline starts, instead of starving each other's steps of the cores."""
    chain.prepare(deps, plan.chain)
    with deps.runtime.admission(deps.settings.recall_concurrency):
        limits = deadlines(deps, deadlines_ms)
        return chain.run_in_process(deps, plan.chain, plan.start(request, limits, time.perf_counter()))


def run_step(deps: Dependencies, name: str, event: dict, plan: RecallPlan = RECALL_PLAN) -> dict:
    """One step as its own Lambda: the payloads are the state machine's (``plan._chain``)."""
    return chain.run_step(deps, plan.chain, name, event)


def run_on_step_functions(deps: Dependencies, request: RecallRequest) -> dict:
    return chain.run_on_step_functions(deps, RECALL_PLAN.chain, request)


def recall(deps: Dependencies, request: RecallRequest, deadlines_ms: dict[str, float] | None = None) -> dict:
    """The configured runner (``ENGRAM_RECALL_RUNNER``: ``inprocess``, the default, or ``stepfunctions``).
    A recall that gives no answer for a reason of ours (a 5xx, not the caller's 4xx) is counted as
    failed: with the answers counted at fusion, that is the success rate's denominator."""
    try:
        return chain.run_configured(deps, RECALL_PLAN.chain, request,
                                    lambda: run_in_process(deps, request, deadlines_ms=deadlines_ms))
    except Exception as exc:
        if getattr(exc, "status", 500) >= 500:
            deps.metrics.record(metrics.failed())
        raise
