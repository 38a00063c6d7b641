"""What crosses between the recall steps: the validated request (the chain's input, and the
``RecallStateMachine``'s as JSON), the question as the layers read it, and one step's result."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime

from ...domain.ingest.sanitise import format_timestamp, parse_timestamp, validate_id
from ...domain.limits import MAX_QUERY_CHARS
from ...domain.model import Scope
from ...domain.recall.fusion import MAX_K, RecallItem, RecallRecipe
from ...domain.recall.query import QueryIntent
from ...domain.records import SessionRef
from ...errors import ValidationFailed


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
        if len(query) > MAX_QUERY_CHARS:
            raise ValidationFailed(f"query must be at most {MAX_QUERY_CHARS} characters", field="query")
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
