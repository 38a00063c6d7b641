"""The recall chain, defined once: its steps, their order, deadlines, what runs in parallel,
the guard. Either runner executes it (``runners``): in-process (the API's default) or one Lambda
per step under the Express ``RecallStateMachine``; both give the same answer to the same request.

session -> (tasks | profile | episodes) -> originals (when verbatim detail is asked) -> fuse + guard
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from ...dependencies import Dependencies
from ...domain.cleaning import format_timestamp, parse_timestamp, validate_id
from ...domain.fusion import (
    HYBRID,
    MAX_K,
    NO_RECORD_BLOCK,
    RecallItem,
    RecallRecipe,
    context_block,
    counted_records,
    fuse,
    has_record,
    unavailable_block,
)
from ...domain.lexical import TopicWords
from ...domain.model import Scope
from ...domain.query import QueryIntent, analyse, expand_with_session
from ...domain.records import SessionRef
from ...errors import ValidationFailed
from . import layers

TIMING_KEYS = ("session", "tasks", "profile", "episodes", "archive", "fuse", "total")


@dataclass(frozen=True)
class RecallRequest:
    """A validated recall: the HTTP body plus whose memory it asks. Its JSON form is the
    ``RecallStateMachine`` input: the request body plus ``tenant`` and ``user_id``."""

    scope: Scope
    query: str
    k: int = 10
    now: datetime = dataclasses.field(default_factory=lambda: datetime.now(UTC))
    ref: SessionRef | None = None

    @classmethod
    def parse(cls, scope: Scope, query: object, k: object = 10, now: object = None, session_id: object = None,
              device_id: object = None) -> RecallRequest:
        if not isinstance(query, str) or not query.strip():
            raise ValidationFailed("query must be a non-empty string", field="query")
        if len(query) > 2000:
            raise ValidationFailed("query must be at most 2000 characters", field="query")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise ValidationFailed(f"k must be an integer between 1 and {MAX_K}", field="k")
        when = parse_timestamp(now, "now") if now is not None else datetime.now(UTC)
        ref = None
        if session_id is not None or device_id is not None:
            ref = SessionRef(scope, validate_id(device_id, "device_id"), validate_id(session_id, "session_id"))
        return cls(scope, query.strip(), k, when, ref)

    @classmethod
    def from_json(cls, event: dict) -> RecallRequest:
        if not isinstance(event, dict):
            raise ValidationFailed("the recall request must be an object", field="body")
        scope = Scope(validate_id(event.get("tenant"), "tenant"), validate_id(event.get("user_id"), "user_id"))
        return cls.parse(scope, event.get("query"), event.get("k", 10), event.get("now"), event.get("session_id"),
                         event.get("device_id"))

    def to_json(self) -> dict:
        out = {"tenant": self.scope.tenant, "user_id": self.scope.user_id, "query": self.query, "k": self.k,
               "now": format_timestamp(self.now)}
        if self.ref is not None:
            out.update(session_id=self.ref.session_id, device_id=self.ref.device_id)
        return out


@dataclass(frozen=True)
class RecallContext:
    """What every layer step reads from: the request and the question as the session expanded it."""

    request: RecallRequest
    intent: QueryIntent
    recipe: RecallRecipe


@dataclass(frozen=True)
class StepResult:
    """One step's answer as it crosses a Lambda boundary: items, or degraded and why."""

    step: str
    items: list[RecallItem]
    ms: float = 0.0
    degraded: bool = False
    reason: str | None = None
    fields: dict = dataclasses.field(default_factory=dict)
    timings: dict = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict:
        return {"step": self.step, "items": [dataclasses.asdict(i) for i in self.items], "ms": self.ms,
                "degraded": self.degraded, "reason": self.reason, "fields": self.fields, "timings": self.timings}

    @classmethod
    def from_json(cls, data: dict) -> StepResult:
        return cls(step=data["step"], items=[RecallItem(**i) for i in data.get("items") or []],
                   ms=float(data.get("ms") or 0.0), degraded=bool(data.get("degraded")), reason=data.get("reason"),
                   fields=data.get("fields") or {}, timings=data.get("timings") or {})

    @classmethod
    def failed(cls, step: str, reason: str, ms: float = 0.0) -> StepResult:
        return cls(step=step, items=[], ms=ms, degraded=True, reason=reason)


@dataclass(frozen=True)
class Step:
    name: str      # the name in ``degraded``, ``timings_ms`` and the deadline settings
    layer: str     # the layer its items belong to (fusion weights)
    read: Callable[[Dependencies, RecallContext, dict], StepResult]
    # The stores it reads (``deps.probes`` names): connected once per process before its first
    # deadline starts, as a Lambda's init would, so a cold start is not a missed deadline.
    stores: tuple[str, ...] = ()
    embeds: bool = False


def _session(deps: Dependencies, ctx: RecallContext, _inputs: dict) -> StepResult:
    if ctx.request.ref is None:
        return StepResult("session", [])
    fields, items = layers.read_session(deps, ctx.request.ref, ctx.intent)
    return StepResult("session", items, fields=fields)


def _tasks(deps: Dependencies, ctx: RecallContext, _inputs: dict) -> StepResult:
    return StepResult("tasks", layers.read_tasks(deps, ctx.request.scope, ctx.intent))


def _profile(deps: Dependencies, ctx: RecallContext, _inputs: dict) -> StepResult:
    return StepResult("profile", layers.read_profile(deps, ctx.request.scope, ctx.intent, ctx.request.now))


def _episodes(deps: Dependencies, ctx: RecallContext, _inputs: dict) -> StepResult:
    timings: dict = {}
    signals: dict = {}
    items = layers.read_episodes(deps, ctx.request.scope, ctx.intent, ctx.request.now, ctx.recipe, timings, signals)
    if ctx.intent.memory_dependent and "topic_words" in signals:  # only the guard needs it
        started = time.perf_counter()
        heard = layers.heard_events(deps, _asked_about(ctx.intent, signals), ctx.recipe, items[:ctx.request.k],
                                    signals["topic_words"])
        if heard is not None:
            signals["heard"] = heard
            timings["hear"] = (time.perf_counter() - started) * 1000
    return StepResult("episodes", items, fields=signals,
                      timings={f"episodes_{k}": round(v, 2) for k, v in timings.items()})


def _asked_about(intent: QueryIntent, signals: dict) -> QueryIntent:
    """The question with the user's own names (``signals["own_names"]``, the episodes step's) no
    longer among the people a record must mention."""
    own = set(signals.get("own_names") or ())
    return replace(intent, names=tuple(n for n in intent.names if n not in own)) if own else intent


def _originals(deps: Dependencies, ctx: RecallContext, inputs: dict) -> StepResult:
    hits = inputs.get("episodes", [])[:ctx.request.k]
    return StepResult("archive", layers.read_originals(deps, ctx.request.scope, hits))


@dataclass(frozen=True)
class RecallPlan:
    """A named, frozen plan (copy with ``dataclasses.replace``; never mutate a shared one)."""

    first: Step
    parallel: tuple[Step, ...]
    verbatim: Step
    recipe: RecallRecipe = HYBRID

    def steps(self) -> tuple[Step, ...]:
        return (self.first, *self.parallel, self.verbatim)

    def answering(self) -> tuple[str, ...]:
        """The steps that could hold an answer of their own. The originals only give the words
        behind episodes already found, so their loss never makes an absence unchecked."""
        return (self.first.name, *(s.name for s in self.parallel))

    def step(self, name: str) -> Step:
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

    def finish(self, ctx: RecallContext, results: list[StepResult], started: float | None = None) -> dict:
        """Fuse what came back, apply the guard, write the context block: the response. ``started``
        (``time.perf_counter()`` when the request began) gives the total; without it (one Lambda per
        step) the total is the steps' own time plus fusion's."""
        fuse_started = time.perf_counter()
        by_step = {r.step: r for r in results}
        layers_ = {s.layer: by_step[s.name].items if s.name in by_step else [] for s in self.steps()}
        items = fuse(layers_, self.recipe, ctx.request.k)
        signals = by_step["episodes"].fields if "episodes" in by_step else {}
        intent = _asked_about(ctx.intent, signals)
        unsaid = "topic_words" in signals and TopicWords.from_fields(signals["topic_words"]).all_unsaid
        heard = set(signals["heard"]) if "heard" in signals else None
        found = bool(items) and (not intent.memory_dependent or has_record(
            counted_records(items, heard), self.recipe.record_threshold(unsaid), intent.names))
        if not found:
            items = []  # never pad an answer with weak matches
        degraded = [s.name for s in self.steps() if s.name in by_step and by_step[s.name].degraded]
        # "No record" is a claim about every layer that could hold the answer: one that did not
        # answer (down, late, breaker open) makes it a claim nobody checked.
        unavailable = [name for name in degraded if name in self.answering()]
        no_record = not found and not unavailable
        if unavailable:
            block = "\n".join([*([context_block(items, self.recipe.context_tokens, intent.temporal)] if items else []),
                               unavailable_block(unavailable)])
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
                "memory_unavailable": unavailable, "timings_ms": timings}


RECALL_PLAN = RecallPlan(
    first=Step("session", "session", _session, stores=("redis",)),
    parallel=(Step("tasks", "task", _tasks, stores=("postgres",)),
              Step("profile", "profile", _profile, stores=("neo4j", "postgres")),
              Step("episodes", "episode", _episodes, stores=("opensearch", "redis"), embeds=True)),
    verbatim=Step("archive", "archive", _originals, stores=("postgres", "s3")),
)

