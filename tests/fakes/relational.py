"""Fakes of the small PostgreSQL-backed stores: turn log, audit log, idempotency keys, user
registry, tenant directory, behaviour patterns. Each keeps the real table's rows and answers as
the adapter's SQL does (ordering, conflicts, defaults)."""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from itertools import count

from engram.adapters.postgres.idempotency import EXPIRES, STALE
from engram.domain.ingest.sanitise import validate_id
from engram.domain.lifecycle.archive import shard_of
from engram.domain.model import Scope, Turn
from engram.domain.privacy.consent import decide_consent
from engram.domain.records import AuditEntry, DeviceLink, UserState
from engram.errors import Conflict, Unauthorized, Unprocessable

from ._common import UserRows, as_json, clone, serialized, utcnow

_TURN_COLUMNS = ("session_id", "device_id", "message_id", "role", "content", "truncated", "client_ts", "received_at")


@serialized
class InMemoryTurnLog(UserRows):
    table = "turn_log"
    time_column = "client_ts"

    def append(self, scope: Scope, session_id: str, device_id: str, turns: list[Turn], *,
               keep_content: bool = True) -> set[str]:
        new: set[str] = set()
        for t in turns:
            # UNIQUE (tenant, user_id, message_id, client_ts), ON CONFLICT DO NOTHING
            if any(r["message_id"] == t.message_id and r["client_ts"] == t.client_ts for r in self._of(scope)):
                continue
            self._insert({"tenant": scope.tenant, "user_id": scope.user_id, "session_id": session_id,
                          "device_id": device_id, "message_id": t.message_id, "role": t.role.value,
                          "content": t.content if keep_content else None, "content_sha256": t.raw_sha256,
                          "truncated": t.truncated, "client_ts": t.client_ts, "received_at": utcnow()})
            new.add(t.message_id)
        return new

    def turns(self, scope: Scope, message_ids: list[str] | None = None) -> list[dict]:
        rows = [r for r in self._of(scope) if message_ids is None or r["message_id"] in message_ids]
        rows.sort(key=lambda r: (r["client_ts"], r["message_id"]))
        return [{c: r[c] for c in _TURN_COLUMNS} for r in rows]

    def redact_content(self, scope: Scope) -> int:
        rows = [r for r in self._of(scope) if r["content"] is not None]
        for row in rows:
            row["content"] = None
        return len(rows)


@serialized
class InMemoryAuditLog(UserRows):
    """Append-only: nothing but an erasure (``erase_user_rows``) removes a row."""

    table = "audit_log"

    def append(self, scope: Scope, entries: list[AuditEntry]) -> None:
        for e in entries:
            self._insert({"tenant": scope.tenant, "user_id": scope.user_id, "at": utcnow(), "actor": e.actor,
                          "action": e.action, "store": e.store, "item_id": e.item_id, "source": e.source,
                          "confidence": e.confidence,
                          "before": as_json(e.before) if e.before is not None else None,
                          "after": as_json(e.after) if e.after is not None else None})

    def entries(self, scope: Scope) -> list[dict]:
        return [{k: clone(v) for k, v in r.items() if k not in ("tenant", "user_id")} for r in self._of(scope)]

    def redact(self, scope: Scope, store: str, keys: tuple[str, ...]) -> int:
        """As schema.sql's engram_redact_user_audit: top-level keys of either side, marked."""
        changed = 0
        for row in (r for r in self._of(scope) if r["store"] == store):
            sides = [side for side in ("before", "after") if isinstance(row[side], dict) and set(keys) & set(row[side])]
            for side in sides:
                row[side] = {**{k: v for k, v in row[side].items() if k not in keys}, "redacted": True}
            changed += bool(sides)
        return changed

    def delete_user(self, scope: Scope) -> int:  # the append-only trigger refuses a plain delete
        raise PermissionError("audit_log is append-only (DELETE refused)")

    def erase_user_rows(self, scope: Scope) -> dict[str, int]:
        return {self.table: UserRows.delete_user(self, scope)}


def _interval(text: str) -> timedelta:
    amount, unit = text.split()
    return timedelta(**{unit if unit.endswith("s") else unit + "s": int(amount)})


@serialized
class InMemoryIdempotencyStore:
    table = "idempotency_records"
    stale, expires = _interval(STALE), _interval(EXPIRES)

    def __init__(self) -> None:
        self.keys: dict[tuple[Scope, str], dict] = {}
        self.clock = utcnow

    def claim(self, scope: Scope, key: str, request_sha256: str) -> tuple[int, dict] | None:
        row, now = self.keys.get((scope, key)), self.clock()
        if (row is None or row["created_at"] < now - self.expires
                or (row["status"] is None and row["created_at"] < now - self.stale
                    and row["request_sha256"] == request_sha256)):
            self.keys[(scope, key)] = {"request_sha256": request_sha256, "status": None, "response": None,
                                       "created_at": now}
            return None
        if row["request_sha256"] != request_sha256:
            raise Unprocessable("Idempotency-Key was already used for a different request", field="Idempotency-Key")
        if row["status"] is None:
            raise Conflict("a request with this Idempotency-Key is still in progress; retry later",
                           field="Idempotency-Key")
        return row["status"], clone(row["response"])

    def complete(self, scope: Scope, key: str, status: int, response: dict) -> None:
        row = self.keys.get((scope, key))
        if row is not None:
            row.update(status=status, response=as_json(response))

    def release(self, scope: Scope, key: str) -> None:
        if (row := self.keys.get((scope, key))) is not None and row["status"] is None:
            del self.keys[(scope, key)]

    def user_rows(self, scope: Scope) -> dict[str, int]:
        return {self.table: sum(1 for s, _ in self.keys if s == scope)}

    def erase_user_rows(self, scope: Scope) -> dict[str, int]:
        counts = self.user_rows(scope)
        self.keys = {k: v for k, v in self.keys.items() if k[0] != scope}
        return counts


class InMemoryUserRegistry:
    def __init__(self) -> None:
        self.users: dict[Scope, dict] = {}
        self.consent_events: list[dict] = []
        self.device_rows: dict[tuple[Scope, str], dict] = {}
        self._ids = count(1)
        self._fence = threading.Condition()
        self._fenced: Counter[Scope] = Counter()

    def state(self, scope: Scope) -> UserState:
        row = self.users.get(scope)
        return UserState(**row, known=True) if row else UserState()

    def ensure(self, scope: Scope, *, erasing: bool = False) -> None:
        self.users.setdefault(scope, {"long_term_consent": False, "consent_version": 0, "consent_at": None,
                                      "age": None, "child_mode": False, "erasing": erasing})

    def set_consent(self, scope: Scope, long_term: bool, age: int | None) -> UserState:
        decision = decide_consent(long_term, age)
        row = self.users.get(scope)
        if row is None:
            row = self.users[scope] = {"long_term_consent": decision.long_term, "consent_version": 1,
                                       "consent_at": utcnow(), "age": age, "child_mode": bool(decision.child_mode),
                                       "erasing": False}
        else:
            row.update(long_term_consent=decision.long_term, consent_version=row["consent_version"] + 1,
                       consent_at=utcnow(), age=row["age"] if age is None else age,
                       child_mode=row["child_mode"] if decision.child_mode is None else decision.child_mode)
        self.consent_events.append({"id": next(self._ids), "tenant": scope.tenant, "user_id": scope.user_id,
                                    "long_term": row["long_term_consent"], "age": row["age"],
                                    "version": row["consent_version"], "at": utcnow()})
        return UserState(**row, known=True)

    def link_device(self, scope: Scope, device_id: str, kind: str) -> DeviceLink:
        self.ensure(scope)
        row = self.device_rows.setdefault((scope, device_id), {"device_id": device_id, "linked_at": utcnow()})
        row["kind"] = kind
        return DeviceLink(**row)

    def devices(self, scope: Scope) -> list[DeviceLink]:
        rows = [r for (s, _), r in self.device_rows.items() if s == scope]
        return [DeviceLink(**r) for r in sorted(rows, key=lambda r: (r["linked_at"], r["device_id"]))]

    def consent_history(self, scope: Scope) -> list[dict]:
        return [{k: e[k] for k in ("long_term", "age", "version", "at")} for e in self.consent_events
                if (e["tenant"], e["user_id"]) == (scope.tenant, scope.user_id)]

    # -- erasures in progress ---------------------------------------------------------------

    def erasing_users(self, tenant: str | None = None) -> set[Scope]:
        return {s for s, row in self.users.items() if row["erasing"] and tenant in (None, s.tenant)}

    def users_in_shard(self, shard: int, shards: int, after: Scope | None, limit: int,
                       tenant: str | None = None) -> tuple[list[Scope], Scope | None]:
        key = (after.tenant, after.user_id) if after else None
        read = sorted((s.tenant, s.user_id) for s in self.users
                      if tenant in (None, s.tenant) and (key is None or (s.tenant, s.user_id) > key))[:limit]
        mine = [Scope(t, u) for t, u in read
                if not self.users[Scope(t, u)]["erasing"] and shard_of(t, u, shards) == shard]
        return mine, (Scope(*read[-1]) if len(read) == limit else None)

    def is_erasing(self, scope: Scope) -> bool:
        return self.state(scope).erasing

    @contextmanager
    def erasure_fence(self, scopes: Iterable[Scope]) -> Iterator[set[Scope]]:
        """As the adapter's row locks: ``mark_erasing`` of a fenced user waits for the block."""
        wanted = set(scopes)
        with self._fence:
            for scope in wanted:
                self.ensure(scope)
            erasing = {s for s in wanted if self.users[s]["erasing"]}
            self._fenced.update(wanted)
        try:
            yield erasing
        finally:
            with self._fence:
                self._fenced.subtract(wanted)
                self._fence.notify_all()

    # -- what the erasure store touches ------------------------------------------------------

    def mark_erasing(self, scope: Scope) -> bool:
        with self._fence:
            self._fence.wait_for(lambda: self._fenced[scope] <= 0)
            known = scope in self.users
            self.ensure(scope, erasing=True)
            self.users[scope]["erasing"] = True
            return known

    def drop(self, scope: Scope) -> None:
        self.users.pop(scope, None)

    def user_rows(self, scope: Scope) -> dict[str, int]:
        return {"consent_events": len(self.consent_history(scope)),
                "devices": sum(1 for s, _ in self.device_rows if s == scope)}

    def erase_user_rows(self, scope: Scope) -> dict[str, int]:
        counts = self.user_rows(scope)
        self.consent_events = [e for e in self.consent_events
                               if (e["tenant"], e["user_id"]) != (scope.tenant, scope.user_id)]
        self.device_rows = {k: v for k, v in self.device_rows.items() if k[0] != scope}
        return counts


@serialized
class InMemoryTenantDirectory:
    """API keys by their SHA-256, never in clear."""

    def __init__(self) -> None:
        self.by_hash: dict[str, str] = {}

    def register(self, tenant_id: str, api_key: str) -> None:
        validate_id(tenant_id, "tenant")
        self.by_hash[hashlib.sha256(api_key.encode()).hexdigest()] = tenant_id

    def tenant_for(self, api_key: str) -> str:
        found = self.by_hash.get(hashlib.sha256(api_key.encode()).hexdigest())
        if found is None:
            raise Unauthorized("unknown API key", field="Authorization")
        return found


@serialized
class InMemoryPatternStore(UserRows):
    table = "behaviour_patterns"

    def replace(self, scope: Scope, counts: dict[tuple[str, int, int], int]) -> int:
        UserRows.delete_user(self, scope)
        for (type_, weekday, hour), n in sorted(counts.items()):
            self._insert({"tenant": scope.tenant, "user_id": scope.user_id, "type": type_, "weekday": weekday,
                          "hour": hour, "count": n, "updated_at": utcnow()})
        return len(counts)

    def patterns(self, scope: Scope) -> list[dict]:
        rows = sorted(self._of(scope), key=lambda r: (-r["count"], r["type"], r["weekday"], r["hour"]))
        return [{k: r[k] for k in ("type", "weekday", "hour", "count")} for r in rows]


@serialized
class InMemoryPendingWrites(UserRows):
    table = "pending_writes"
    _KEEP = ("seq", "tenant", "user_id", "layer", "batch_key", "message_ids", "said_at", "payload", "attempts",
             "next_at")

    def __init__(self) -> None:
        super().__init__()
        self._seq = count(1)

    def add(self, scope: Scope, layer: str, batch_key: str, message_ids: list[str], said_at, payload: bytes) -> bool:
        if any(r["layer"] == layer and r["batch_key"] == batch_key for r in self._of(scope)):
            return False
        now = utcnow()
        self._insert({"seq": next(self._seq), "tenant": scope.tenant, "user_id": scope.user_id, "layer": layer,
                      "batch_key": batch_key, "message_ids": list(message_ids), "said_at": said_at,
                      "payload": bytes(payload), "attempts": 0, "next_at": now, "last_error": None, "dead": False,
                      "claimed_until": None,
                      "created_at": now})
        return True

    def layers(self, scope: Scope) -> set[str]:
        return {r["layer"] for r in self._of(scope)}

    def due(self, now, limit: int, layers) -> list[dict]:
        heads: dict[tuple, dict] = {}
        for row in sorted((r for r in self.rows if not r["dead"] and r["layer"] in layers), key=lambda r: r["seq"]):
            heads.setdefault((row["tenant"], row["user_id"], row["layer"]), row)
        due = sorted((r for r in heads.values() if r["next_at"] <= now), key=lambda r: r["seq"])
        return [{k: clone(r[k]) for k in self._KEEP} for r in due[:limit]]

    def claim(self, seq: int, hold_s: float) -> bool:
        now = utcnow()
        for row in self.rows:
            if row["seq"] == seq and (row["claimed_until"] is None or row["claimed_until"] < now):
                row["claimed_until"] = now + timedelta(seconds=hold_s)
                return True
        return False

    def done(self, seq: int) -> None:
        self.rows = [r for r in self.rows if r["seq"] != seq]

    def postpone(self, seq: int, next_at, error: str | None, *, attempted: bool, dead: bool) -> None:
        for row in self.rows:
            if row["seq"] == seq:
                row.update(next_at=next_at, last_error=(error and error[:500]) or row["last_error"], claimed_until=None,
                           attempts=row["attempts"] + int(attempted), dead=dead)

    def dead_letters(self, limit: int) -> list[dict]:
        keep = ("seq", "tenant", "user_id", "layer", "batch_key", "message_ids", "said_at", "attempts", "last_error",
                "created_at")
        return [{k: clone(r[k]) for k in keep} for r in sorted(self.rows, key=lambda r: r["seq"]) if r["dead"]][:limit]

    def replay(self, seqs: list[int]) -> int:
        replayed = 0
        for row in self.rows:
            if row["dead"] and row["seq"] in seqs:
                row.update(dead=False, attempts=0, next_at=utcnow())
                replayed += 1
        return replayed

    def oldest_said_at(self):
        return min((r["said_at"] for r in self.rows), default=None)

    def stats(self) -> dict[str, dict]:
        now, out = utcnow(), {}
        for row in self.rows:
            layer = out.setdefault(row["layer"], {"pending": 0, "dead": 0, "oldest_s": 0.0})
            layer["dead" if row["dead"] else "pending"] += 1
            if not row["dead"]:
                layer["oldest_s"] = max(layer["oldest_s"], (now - row["created_at"]).total_seconds())
        return out


__all__ = ["InMemoryAuditLog", "InMemoryIdempotencyStore", "InMemoryPatternStore", "InMemoryPendingWrites",
           "InMemoryTenantDirectory",
           "InMemoryTurnLog", "InMemoryUserRegistry"]
