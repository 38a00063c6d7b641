"""The recall chain, defined once: its steps, their order, deadlines, what runs in parallel,
the guard. Either runner executes it (``runners``, over ``service.chain``): in-process (the API's
default) or one Lambda per step under the Express ``RecallStateMachine``; both give the same answer
to the same request.

session -> (tasks | profile | episodes) -> originals (when verbatim detail is asked) -> fuse + guard
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import cached_property

from ...dependencies import Dependencies
from ...domain.recall import metrics
from ...domain.recall.fusion import (
    HYBRID,
    NO_RECORD_BLOCK,
    RecallRecipe,
    context_block,
    counted_records,
    fuse,
    has_record,
    pending_block,
    unavailable_block,
)
from ...domain.recall.lexical import TopicWords
from ...domain.recall.query import analyse, expand_with_session
from ..chain import Chain, Parallel, Step
from .request import RecallContext, RecallRequest, StepResult
from .steps import (
    EPISODES,
    ORIGINALS,
    PROFILE,
    SESSION,
    TASKS,
    Read,
    asked_about,
    deadlines,
    degraded,
    execute,
    warm_up,
)

TIMING_KEYS = ("session", "tasks", "profile", "episodes", "archive", "fuse", "total")


@dataclass(frozen=True)
class Gathered:
    """A recall between its steps: the question as the layers read it and the results so far. In
    process it flows from step to step; each Lambda rebuilds it from the payload its state hands
    over (statemachines/recall.asl.json)."""

    ctx: RecallContext
    results: tuple[StepResult, ...] = ()
    session: StepResult | None = None
    started: float | None = None  # ``time.perf_counter()`` when the request began (in-process)
    # The request's deadlines, set once when it began; None (a Lambda): each step reads its own.
    deadlines_ms: dict[str, float] | None = None

    @property
    def request(self) -> RecallRequest:
        return self.ctx.request

    def plus(self, *results: StepResult) -> Gathered:
        return replace(self, results=self.results + results)

    def result(self, name: str) -> StepResult | None:
        return next((r for r in self.results if r.step == name), None)

    def deadline(self, deps: Dependencies, name: str) -> float:
        return (self.deadlines_ms if self.deadlines_ms is not None else deadlines(deps, None))[name]


@dataclass(frozen=True)
class RecallPlan:
    """A named, frozen plan (copy with ``dataclasses.replace``; never mutate a shared one)."""

    first: Read
    parallel: tuple[Read, ...]
    verbatim: Read
    recipe: RecallRecipe = HYBRID

    def steps(self) -> tuple[Read, ...]:
        return (self.first, *self.parallel, self.verbatim)

    def answering(self) -> tuple[str, ...]:
        """The steps that could hold an answer of their own. The originals only give the words
        behind episodes already found, so their loss never makes an absence unchecked."""
        return (self.first.name, *(s.name for s in self.parallel))

    def step(self, name: str) -> Read:
        return next(s for s in self.steps() if s.name == name)

    def context(self, request: RecallRequest, session_fields: dict) -> RecallContext:
        """The question as the layers see it: the session's "that one" is part of what is asked
        about, while whether it depends on memory, and which names a record must mention, is
        decided by the words the user used."""
        intent = analyse(request.query, request.now)
        expanded = expand_with_session(request.query, session_fields)
        if expanded != request.query:
            intent = replace(analyse(expanded, request.now), memory_dependent=intent.memory_dependent,
                             names=intent.names)
        return RecallContext(request, intent, self.recipe)

    def start(self, request: RecallRequest, deadlines_ms: dict[str, float] | None = None,
              started: float | None = None) -> Gathered:
        return Gathered(self.context(request, {}), started=started, deadlines_ms=deadlines_ms)

    def after_session(self, gathered: Gathered, session: StepResult) -> Gathered:
        """What the session step's result changes: the question as its fields expand it, and (when
        a session was named, so that it could answer) one more result to fuse."""
        counted = (session,) if gathered.request.ref is not None else ()
        return replace(gathered, ctx=self.context(gathered.request, session.fields), session=session,
                       results=gathered.results + counted)

    @cached_property
    def chain(self) -> Chain:
        """This plan as ``service.chain``'s runners run it."""
        return _chain(self)

    def finish(self, ctx: RecallContext, results: list[StepResult], started: float | None = None) -> dict:
        """Fuse what came back, apply the guard, write the context block: the response. ``started``
        (``time.perf_counter()`` when the request began) gives the total; without it (one Lambda per
        step) the total is the steps' own time plus fusion's. The tasks step reports the layers
        with writes of this user still being caught up (``domain.ingest.pending.Layer`` values)."""
        fuse_started = time.perf_counter()
        by_step = {r.step: r for r in results}
        layers_ = {s.layer: by_step[s.name].items if s.name in by_step else [] for s in self.steps()}
        items = fuse(layers_, self.recipe, ctx.request.k)
        signals = by_step["episodes"].fields if "episodes" in by_step else {}
        intent = asked_about(ctx.intent, signals)
        unsaid = "topic_words" in signals and TopicWords.from_fields(signals["topic_words"]).all_unsaid
        heard = set(signals["heard"]) if "heard" in signals else None
        # A relation the user never spoke of ("my brother" to a user with sisters) is no one's record.
        found = bool(items) and (not intent.memory_dependent or not signals.get("unsaid_relations") and has_record(
            counted_records(items, heard, intent.about_assistant),
            self.recipe.record_threshold(unsaid, han=bool(signals.get("han"))),
            intent.names))
        if not found:
            items = []  # never pad an answer with weak matches
        degraded = [s.name for s in self.steps() if s.name in by_step and by_step[s.name].degraded]
        # "No record" is a claim about every layer that could hold the answer: one that did not
        # answer (down, late, breaker open) makes it a claim nobody checked.
        unavailable = [name for name in degraded if name in self.answering()]
        pending = list(by_step["tasks"].fields.get("pending", ())) if "tasks" in by_step else []
        no_record = not found and not unavailable and not pending
        # What could not be checked is said after what was found, never replaced by "no record".
        caveats = [*([unavailable_block(unavailable)] if unavailable else []),
                   *([pending_block(pending)] if pending else [])]
        if caveats:
            block = "\n".join([*([context_block(items, self.recipe.context_tokens, intent.temporal)] if items else []),
                               *caveats])
        else:
            block = NO_RECORD_BLOCK if no_record else context_block(items, self.recipe.context_tokens, intent.temporal)
        timings = {name: 0.0 for name in TIMING_KEYS}
        for result in results:
            timings[result.step] = result.ms  # rounded where measured; a deadline stays exact
            timings.update(result.timings)
        now = time.perf_counter()
        fuse_ms = (now - fuse_started) * 1000
        timings["fuse"] = round(fuse_ms, 2)
        total_ms = (now - started) * 1000 if started is not None else sum(r.ms for r in results) + fuse_ms
        timings["total"] = round(total_ms, 2)
        return {"items": [item.public() for item in items], "context_block": block,
                "memory_dependent": intent.memory_dependent, "no_record": no_record, "degraded": degraded,
                "degraded_reasons": {name: by_step[name].reason or "unknown" for name in degraded},
                "memory_unavailable": unavailable, "memory_pending": pending, "timings_ms": timings}


def _chain(plan: RecallPlan) -> Chain:
    """The plan's steps around ``execute``. A Lambda's payload is its state's (the request apart,
    then ``session``, ``layers``, ``episodes``, ``originals`` as the state machine gathers them)."""

    def resumed(event: dict, *results: StepResult) -> Gathered:
        request = RecallRequest.from_json(event.get("request"))
        return plan.after_session(plan.start(request), StepResult.from_json(event["session"])).plus(*results)

    def timed(read: Read, g: Gathered, asked: bool = True) -> float | None:
        return g.deadlines_ms[read.name] if asked and g.deadlines_ms is not None else None

    def session(deps: Dependencies, g: Gathered) -> Gathered:
        if g.request.ref is None:  # no session named: nothing to read, nothing to count
            return g
        return plan.after_session(g, execute(deps, plan.first, g.ctx, {}, g.deadline(deps, plan.first.name)))

    def session_json(g: Gathered) -> dict:
        out = (g.session or StepResult(plan.first.name, [])).to_json()
        # Read by the Choice state after the layers, from the question as asked.
        out["wants_verbatim"] = plan.context(g.request, {}).intent.wants_verbatim
        return out

    def layer(read: Read) -> Step:
        return Step(read.name, lambda deps, g: execute(deps, read, g.ctx, {}, g.deadline(deps, read.name)),
                    decode=resumed, encode=StepResult.to_json, deadline_ms=lambda g: timed(read, g),
                    late=lambda _g, ms: degraded(read, "deadline", ms), prepare=lambda deps: warm_up(deps, (read,)))

    verbatim = plan.verbatim

    def originals(deps: Dependencies, g: Gathered) -> Gathered:
        if not g.ctx.intent.wants_verbatim:
            # As a Lambda, reached only when the session step failed (its result then cannot say):
            # in-process this question reads no originals, so neither does this runner.
            return g
        episodes = g.result("episodes")
        inputs = {"episodes": episodes.items if episodes else []}
        return g.plus(execute(deps, verbatim, g.ctx, inputs, g.deadline(deps, verbatim.name)))

    def fused(event: dict) -> Gathered:
        g = resumed(event, *(StepResult.from_json(r) for r in event.get("layers") or []))
        return g.plus(StepResult.from_json(event["originals"])) if event.get("originals") else g

    return Chain("recall", (
        Step(plan.first.name, session, decode=lambda event: plan.start(RecallRequest.from_json(event)),
             encode=session_json, deadline_ms=lambda g: timed(plan.first, g, g.request.ref is not None),
             late=lambda g, ms: plan.after_session(g, degraded(plan.first, "deadline", ms)),
             prepare=lambda deps: warm_up(deps, (plan.first,))),
        Parallel("layers", tuple(layer(read) for read in plan.parallel), join=lambda g, results: g.plus(*results)),
        Step(verbatim.name, originals, decode=lambda event: resumed(event, StepResult.from_json(event["episodes"])),
             encode=lambda g: (g.result(verbatim.name) or StepResult(verbatim.name, [])).to_json(),
             deadline_ms=lambda g: timed(verbatim, g, g.ctx.intent.wants_verbatim),
             late=lambda g, ms: g.plus(degraded(verbatim, "deadline", ms)),
             prepare=lambda deps: warm_up(deps, (verbatim,))),
        Step("fuse", lambda deps, g: _answer(deps, plan, g), decode=fused, encode=lambda answer: answer),
    ))


def _answer(deps: Dependencies, plan: RecallPlan, g: Gathered) -> dict:
    """The answer, and its datapoints recorded where it is made: in the process that fused it,
    whichever runner ran the steps, so each answer is counted once."""
    results = list(g.results)
    answer = plan.finish(g.ctx, results, g.started)
    session = g.result(plan.first.name)
    hit = None if g.request.ref is None else bool(session and session.items)
    deps.metrics.record(metrics.answered({r.step: r.ms for r in results}, bool(answer["degraded"]),
                                         answer["no_record"], hit, answer["timings_ms"]["total"]))
    return answer


RECALL_PLAN = RecallPlan(first=SESSION, parallel=(TASKS, PROFILE, EPISODES), verbatim=ORIGINALS)
