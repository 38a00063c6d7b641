"""The stores a request may touch, built once per process (warm Lambdas reuse them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from ..adapters.audit_log import AuditLog
from ..adapters.episode_store import EpisodeStore
from ..adapters.idempotency import IdempotencyStore
from ..adapters.key_store import KeyStore
from ..adapters.profile_graph import ProfileGraph
from ..adapters.session_store import SessionStore
from ..adapters.task_store import TaskStore
from ..adapters.turn_log import TurnLog
from ..adapters.user_registry import UserRegistry


@dataclass(frozen=True)
class Stores:
    sessions: SessionStore
    episodes: EpisodeStore
    tasks: TaskStore
    graph: ProfileGraph
    audit: AuditLog
    users: UserRegistry
    turns: TurnLog
    idempotency: IdempotencyStore
    # Per-user data keys (envelope encryption); one per process so its key cache is shared.
    keys: KeyStore = field(default_factory=KeyStore)


@cache
def default_stores() -> Stores:
    return Stores(SessionStore(), EpisodeStore(), TaskStore(), ProfileGraph(), AuditLog(), UserRegistry(),
                  TurnLog(), IdempotencyStore())
