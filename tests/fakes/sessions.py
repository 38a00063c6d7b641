"""InMemorySessionStore: working memory as ``adapters.redis.session_store`` keeps it in Redis.

Per session: the turns by message id (ordered by client time, newest ``max_turns`` kept), the
fields with their version, and the kept snapshots (newest first). Every write refreshes the
session's TTL and the user's session index, as the Redis keys' EXPIRE does; ``clock`` (seconds,
monotonic) can be replaced to let a test expire sessions. Sessions and indexes are held under the
adapter's own Redis keys (``domain.keys``), and ``count_user`` counts the keys under the user's
prefix as the adapter's SCAN does, so the fakes exercise the same encoding.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

from engram.adapters.redis.session_store import FRESH_KEPT
from engram.config import Settings
from engram.domain.keys import fresh_episodes_key, session_index_key, session_key, session_prefix
from engram.domain.model import Scope, Turn
from engram.domain.records import SessionContext, SessionRef
from engram.domain.working.sessions import snapshot_to_restore

from ._common import serialized


def _turn_json(turn: Turn) -> dict:
    return json.loads(json.dumps({"message_id": turn.message_id, "role": turn.role.value, "content": turn.content,
                                  "client_ts": turn.client_ts.isoformat().replace("+00:00", "Z")},
                                 ensure_ascii=False))


@dataclass
class _Session:
    expires: float
    turns: dict[str, tuple[float, dict]] = field(default_factory=dict)   # message_id -> (client ms, turn)
    fields: dict[str, Any] = field(default_factory=dict)
    version: int = 0
    snapshots: list[dict] = field(default_factory=list)                  # newest first

    def keys(self) -> int:
        """How many Redis keys the session occupies (hash, turns zset + hash, versions list)."""
        return 1 + (2 if self.turns else 0) + (1 if self.snapshots else 0)


@serialized
class InMemorySessionStore:
    def __init__(self, settings: Settings | None = None) -> None:
        settings = settings or Settings()
        self.ttl = settings.session_ttl_s
        self.max_turns = settings.session_max_turns
        self.versions_kept = settings.session_versions_kept
        self.fresh_ttl = settings.fresh_episodes_ttl_s
        self.clock = time.monotonic
        self._fresh: dict[str, tuple[float, list[tuple[str, list[float] | None]]]] = {}  # key -> (expires, events)
        self._sessions: dict[str, _Session] = {}                          # session_key -> session
        self._index: dict[str, tuple[float, set[tuple[str, str]]]] = {}   # session_index_key -> members

    # -- expiry -----------------------------------------------------------------------------

    def _live_key(self, key: str) -> _Session | None:
        session = self._sessions.get(key)
        if session is not None and session.expires <= self.clock():
            del self._sessions[key]
            return None
        return session

    def _live(self, ref: SessionRef) -> _Session | None:
        return self._live_key(session_key(ref))

    def _members(self, scope: Scope) -> set[tuple[str, str]]:
        entry = self._index.get(session_index_key(scope))
        if entry is None or entry[0] <= self.clock():
            self._index.pop(session_index_key(scope), None)
            return set()
        return entry[1]

    def _touch(self, ref: SessionRef) -> _Session:
        expires = self.clock() + self.ttl
        session = self._live(ref) or _Session(expires)
        session.expires = expires
        self._sessions[session_key(ref)] = session
        members = self._members(ref.scope)
        members.add((ref.device_id, ref.session_id))
        self._index[session_index_key(ref.scope)] = (expires, members)
        return session

    # -- the port ---------------------------------------------------------------------------

    def append_turns(self, ref: SessionRef, turns: list[Turn]) -> None:
        if not turns:
            return
        session = self._touch(ref)
        for turn in turns:
            session.turns[turn.message_id] = (turn.client_ts.timestamp() * 1000, _turn_json(turn))
        # A sorted set orders equal scores by member; the lowest scores are trimmed.
        ordered = sorted(session.turns, key=lambda mid: (session.turns[mid][0], mid))
        for mid in ordered[:max(0, len(ordered) - self.max_turns)]:
            del session.turns[mid]

    def get(self, ref: SessionRef) -> SessionContext:
        session = self._live(ref)
        if session is None:
            return SessionContext(turns=[], fields={}, version=0, ttl_s=0)
        ordered = sorted(session.turns.items(), key=lambda item: (item[1][0], item[0]))
        return SessionContext(turns=[json.loads(json.dumps(t)) for _, (_, t) in ordered],
                              fields=json.loads(json.dumps(session.fields)), version=session.version,
                              ttl_s=max(0, math.ceil(session.expires - self.clock())))

    def set_fields(self, ref: SessionRef, fields: dict[str, Any]) -> int:
        current = dict(self._live(ref).fields) if self._live(ref) else {}
        merged = {**current, **{k: v for k, v in fields.items() if v is not None}}
        for name in [k for k, v in fields.items() if v is None]:
            merged.pop(name, None)
        merged = json.loads(json.dumps(merged, ensure_ascii=False))
        session = self._touch(ref)
        session.version += 1
        session.fields = merged
        session.snapshots.insert(0, {"version": session.version, "fields": json.loads(json.dumps(merged))})
        del session.snapshots[self.versions_kept:]
        return session.version

    def rollback(self, ref: SessionRef, *, version: int | None = None, steps: int | None = None) -> int:
        session = self._live(ref)
        snapshots = list(session.snapshots) if session else []
        target = snapshot_to_restore(snapshots, version=version, steps=steps)
        current = {k: None for k in self.get(ref).fields}
        return self.set_fields(ref, {**current, **target["fields"]})

    def redact_turns(self, scope: Scope) -> int:
        changed = 0
        for ref in self.sessions_of(scope):
            session = self._live(ref)
            for _, turn in (session.turns.values() if session else ()):
                if turn.get("content"):
                    turn["content"], changed = "", changed + 1
        return changed

    def sessions_of(self, scope: Scope) -> list[SessionRef]:
        members = sorted(self._members(scope), key=lambda m: json.dumps(list(m)))
        return [SessionRef(scope, device_id, session_id) for device_id, session_id in members]

    def delete_session(self, ref: SessionRef) -> int:
        session = self._live(ref)
        deleted = 0
        if session is not None:
            deleted = session.keys()
            del self._sessions[session_key(ref)]
        self._members(ref.scope).discard((ref.device_id, ref.session_id))
        return deleted

    def note_fresh(self, scope: Scope, events: list[tuple[str, list[float] | None]]) -> None:
        if not events:
            return
        kept = self.fresh(scope) + [(e, list(v) if v else None) for e, v in events]
        self._fresh[fresh_episodes_key(scope)] = (self.clock() + self.fresh_ttl, kept[-FRESH_KEPT:])

    def fresh(self, scope: Scope) -> list[tuple[str, list[float] | None]]:
        entry = self._fresh.get(fresh_episodes_key(scope))
        if entry is None or entry[0] <= self.clock():
            self._fresh.pop(fresh_episodes_key(scope), None)
            return []
        return list(dict(entry[1]).items())

    def delete_user(self, scope: Scope) -> int:
        deleted = 1 if self._fresh.pop(fresh_episodes_key(scope), None) is not None else 0
        for ref in self.sessions_of(scope):
            session = self._live(ref)
            if session is not None:
                deleted += session.keys()
                del self._sessions[session_key(ref)]
        if self._index.pop(session_index_key(scope), None) is not None:
            deleted += 1
        return deleted

    def count_user(self, scope: Scope) -> int:
        prefix = session_prefix(scope)
        keys = sum(s.keys() for key, s in list(self._sessions.items())
                   if key.startswith(prefix) and self._live_key(key) is not None)
        return keys + (1 if self._members(scope) else 0) + (1 if self.fresh(scope) else 0)
