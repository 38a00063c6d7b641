"""Value objects the service layer and the store ports speak in.

Small, fixed records are frozen dataclasses. The two wide documents that are stored and exported
as JSON as they are (an episodic event, a profile edge) are ``TypedDict``s: their fields are named
and typed here once, and the same dict goes to OpenSearch, Neo4j, the archive and the export.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NotRequired, TypedDict

from .model import Predicate, Scope, TrustSource


@dataclass(frozen=True)
class SessionRef:
    """One device's session of one user: the unit of working memory."""

    scope: Scope
    device_id: str
    session_id: str


@dataclass(frozen=True)
class SessionContext:
    turns: list[dict]
    fields: dict[str, Any]
    version: int
    ttl_s: int = 0


@dataclass(frozen=True)
class UserState:
    long_term_consent: bool = False
    consent_version: int = 0
    consent_at: datetime | None = None
    age: int | None = None
    child_mode: bool = False
    erasing: bool = False
    known: bool = False


@dataclass(frozen=True)
class AuditEntry:
    actor: str
    action: str
    store: str
    item_id: str | None = None
    source: str | None = None
    confidence: float | None = None
    before: dict | None = None
    after: dict | None = None


@dataclass(frozen=True)
class Fact:
    """A belief about the user on its way into the profile graph."""

    predicate: Predicate
    object: str
    confidence: float
    source: TrustSource
    message_ids: tuple[str, ...] = ()
    valid_from: datetime | None = None
    # When the user last said it (the message's own clock): decay counts from here.
    observed_at: datetime | None = None
    tags: tuple[str, ...] = ()
    weight: float = 1.0
    sealed: str | None = None   # ciphertext of a sensitive object name (privacy layer)
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class TaskRecord:
    task_id: str
    status: str
    metadata: dict
    ts: datetime
    duration_ms: int | None = None

    def as_dict(self) -> dict:
        return {"task_id": self.task_id, "status": self.status, "metadata": self.metadata, "ts": self.ts,
                "duration_ms": self.duration_ms}


@dataclass(frozen=True)
class DeviceLink:
    device_id: str
    kind: str
    linked_at: datetime


class ProfileEdge(TypedDict):
    """A profile-graph edge as the stores return it (``object`` may be a keyed placeholder and
    ``sealed`` its ciphertext, see ``service.privacy``)."""

    id: str
    predicate: str
    object: str
    label: str
    confidence: float
    source: str
    created_at: datetime
    updated_at: datetime
    valid_from: datetime
    valid_to: datetime | None
    confirmed_at: datetime
    message_ids: list[str]
    tags: list[str]
    weight: float | None
    counter_evidence: list[str] | None
    sensitive: bool | None
    sealed: str | None
    redacted: NotRequired[bool]


class EpisodeDoc(TypedDict):
    """An episodic event as indexed: what was said (unless child mode), when, how sure. A sensitive
    event holds ``text``/``summary``/``context`` and ``keywords`` sealed (``eg1:``) and its terms as
    ``blind_terms`` (``service.privacy.seal_episode``); ``raw_sha256`` is keyed by the user's key."""

    event_id: str
    type: str
    summary: str
    text: str
    context: str
    keywords: list[str]
    blind_terms: NotRequired[list[str]]
    raw_sha256: str
    message_ids: list[str]
    session_id: str
    device_id: str
    ts: str
    occurred_at: str
    confidence: float
    trust_source: str
    weight: float
    tags: list[str]
    sensitive: bool
    evicted: bool
    archived: bool
    merged_count: int
    updated_at: str
    tenant: NotRequired[str]
    user_id: NotRequired[str]
    vector: NotRequired[list[float]]
    _score: NotRequired[float]
