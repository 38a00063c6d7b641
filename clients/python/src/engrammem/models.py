"""Typed request and response bodies of Engram API v1.

Written by hand, checked against the server's ``/openapi.json`` by the test suite
(tests/unit/test_client_schema.py in-process, tests/e2e/test_client_quickstart.py live): every
request model has the schema's properties with the same required set, every response model's
fields exist in its schema. Requests refuse unknown fields, as the server does; responses keep
fields a newer server adds (the API is extended, never broken).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Timestamp = str | int  # ISO 8601 with an offset, or epoch milliseconds


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Response(BaseModel):
    model_config = ConfigDict(extra="allow")


# --- requests -----------------------------------------------------------------------------------

class MessageIn(Request):
    role: Literal["user", "assistant"]
    content: str
    client_ts: Timestamp
    message_id: str | None = None


class IngestBody(Request):
    session_id: str
    device_id: str
    messages: list[MessageIn] = Field(min_length=1, max_length=100)


class RecallBody(Request):
    query: str
    session_id: str | None = None
    device_id: str | None = None
    k: int = 10
    now: Timestamp | None = None


class FieldsBody(Request):
    fields: dict[str, Any]


class RollbackBody(Request):
    version: int | None = None
    steps: int | None = None


class TaskEventBody(Request):
    status: Literal["CREATED", "ASSIGNED", "IN_PROGRESS", "PAUSED", "COMPLETED", "FAILED", "CANCELLED"]
    metadata: dict[str, Any] | None = None
    ts: Timestamp | None = None


class ProfilePatchBody(Request):
    object: str | None = None
    confidence: float | None = None


class FeedbackBody(Request):
    useful: bool


class ConsentBody(Request):
    long_term: bool
    age: int | None = None


class DeviceBody(Request):
    device_id: str
    kind: str


# --- responses ----------------------------------------------------------------------------------

class ErrorDetail(Response):
    code: str
    message: str
    field: str | None = None


class ErrorResponse(Response):
    error: ErrorDetail


class HealthResponse(Response):
    status: Literal["ok", "degraded"]
    stores: dict[str, Literal["ok", "down"]]
    version: str
    embedder: str | None = None  # "model/runtime"; servers before it was added do not send it
    # Per derived layer: writes a store missed, waiting for the catch-up (older servers: empty).
    pending: dict[str, dict[str, float]] = Field(default_factory=dict)


class Extracted(Response):
    memory_id: str
    kind: Literal["episode", "task", "profile"]
    type: str
    summary: str
    confidence: float
    tags: list[str]


class IngestResponse(Response):
    accepted: int
    message_ids: list[str]
    extracted: list[Extracted]
    # Layers whose store did not take the batch: accepted, and caught up later (older servers: empty).
    pending: list[str] = Field(default_factory=list)


class Turn(Response):
    message_id: str
    role: str
    content: str | None
    client_ts: str


class SessionContext(Response):
    turns: list[Turn]
    fields: dict[str, Any]
    version: int


class VersionResponse(Response):
    version: int


class Provenance(Response):
    """Where an item came from: the ingested messages (and session, device, time when known)."""

    message_ids: list[str]


class MemoryItem(Response):
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


class RecallItem(MemoryItem):
    layer: Literal["session", "task", "profile", "episode", "archive"]
    score: float


class RecallResponse(Response):
    items: list[RecallItem]
    context_block: str
    memory_dependent: bool
    no_record: bool
    degraded: list[str]
    # Why each degraded step was skipped: "deadline", "breaker_open" or the error's class name.
    degraded_reasons: dict[str, str] = Field(default_factory=dict)
    memory_unavailable: list[str] = Field(default_factory=list)
    # Layers with this user's writes still being caught up: what they hold is incomplete.
    memory_pending: list[str] = Field(default_factory=list)
    timings_ms: dict[str, float]


class Task(Response):
    task_id: str
    status: str
    metadata: dict[str, Any]
    ts: str
    duration_ms: int | None


class TasksResponse(Response):
    tasks: list[Task]


class ProfileItem(MemoryItem):
    layer: Literal["profile"]
    object: str
    created_at: str | None
    updated_at: str | None
    tags: list[str]
    weight: float
    counter_evidence: list[str]


class ProfileResponse(Response):
    items: list[ProfileItem]


class DeletedItem(Response):
    deleted: str


class MemoryForgotten(Response):
    memory_id: str
    layer: str
    deleted: int
    episodes: int
    profile_items: int
    task_changes: int
    contexts_cleared: int


class SessionCleared(Response):
    session_id: str
    device_ids: list[str]
    deleted: int


class FeedbackResponse(Response):
    memory_id: str
    weight: float


class ForgetResponse(Response):
    deleted: int


class ConsentResponse(Response):
    long_term: bool
    child_mode: bool
    age: int | None
    version: int
    recorded_at: str | None


class DeviceResponse(Response):
    device_id: str
    kind: str
    linked_at: str


class ErasureAccepted(Response):
    job_id: str
    status: Literal["RUNNING"]


class ErasureJob(Response):
    job_id: str
    status: Literal["RUNNING", "SUCCEEDED", "FAILED"]
    steps: dict[str, str | None]
    residue: dict[str, int]
    details: dict[str, Any]
    error: dict[str, Any] | None
    created_at: str | None
    finished_at: str | None
