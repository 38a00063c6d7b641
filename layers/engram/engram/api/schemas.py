"""Request bodies as the OpenAPI schema shows them. Types are kept loose where the domain
validates more precisely (timestamps, ids), so its errors name the exact field."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MessageIn(_Body):
    role: str = Field(description="user | assistant")
    content: str
    client_ts: str | int = Field(description="ISO 8601 with offset, or epoch milliseconds")
    message_id: str | None = None


class IngestBody(_Body):
    session_id: str
    device_id: str
    messages: list[MessageIn]


class FieldsBody(_Body):
    fields: dict[str, Any]


class RollbackBody(_Body):
    version: StrictInt | None = None
    steps: StrictInt | None = None


class TaskEventBody(_Body):
    status: str
    metadata: dict[str, Any] | None = None
    ts: str | int | None = None


class ProfilePatchBody(_Body):
    object: str | None = None
    confidence: float | None = None


class FeedbackBody(_Body):
    useful: StrictBool


class ConsentBody(_Body):
    long_term: StrictBool
    age: StrictInt | None = None


class DeviceBody(_Body):
    device_id: str
    kind: str


class RecallBody(_Body):
    query: str
    session_id: str | None = None
    device_id: str | None = None
    k: StrictInt = 10
    now: str | int | None = None
