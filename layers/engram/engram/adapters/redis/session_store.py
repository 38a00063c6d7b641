"""SessionStore: working memory of one device's session in Redis.

Keys (``domain.keys``) name a session by its parts length-prefixed, ``<n>:<part>`` each, so ids
containing ':' cannot make two sessions share a key. Tenant ``acme``, user ``alice``, device
``phone``, session ``s1`` (``K`` = ``4:acme5:alice5:phone2:s1``, the hash tag: a Redis Cluster
keeps a session's keys on one slot and a MULTI covers them all):
  ``eng:{K}``                HASH  version, updated_at, f:<name> -> JSON field value
  ``eng:{K}:turns``          ZSET  message_id scored by client time (ms)
  ``eng:{K}:turn``           HASH  message_id -> JSON turn
  ``eng:{K}:versions``       LIST  JSON snapshots of the fields, newest first
  ``eng:idx:{4:acme5:alice}`` SET  the user's sessions as JSON [device, session]
  ``eng:{4:acme5:alice}:fresh`` LIST events just written, JSON [event id, base64 float32 vector]
Every key expires with the session (TTL refreshed on each write); the fresh list within seconds.
"""

from __future__ import annotations

import base64
import json
import time
from array import array

import redis

from ...config import Settings
from ...domain.keys import fresh_episodes_key, session_index_key, session_key, session_scan_pattern
from ...domain.model import Scope, Turn
from ...domain.records import SessionContext, SessionRef
from ...domain.working.sessions import snapshot_to_restore
from ...errors import StoreUnavailable
from ..clients import Clients

SUFFIXES = ("", ":turns", ":turn", ":versions")
FRESH_KEPT = 500  # a burst's events past this many wait for the index like any bulk load


def _member(ref: SessionRef) -> str:
    # The index names each session by its ids (a JSON pair), so it lists them without decoding keys.
    return json.dumps([ref.device_id, ref.session_id])


def _turn_json(turn: Turn) -> str:
    return json.dumps({"message_id": turn.message_id, "role": turn.role.value, "content": turn.content,
                       "client_ts": turn.client_ts.isoformat().replace("+00:00", "Z")}, ensure_ascii=False)


class SessionStore:
    def __init__(self, clients: Clients, settings: Settings) -> None:
        self._clients = clients
        self.ttl = settings.session_ttl_s
        self.max_turns = settings.session_max_turns
        self.versions_kept = settings.session_versions_kept
        self.fresh_ttl_ms = int(settings.fresh_episodes_ttl_s * 1000)

    @property
    def client(self) -> redis.Redis:
        return self._clients.redis

    def _expire_all(self, pipe, ref: SessionRef) -> None:
        for suffix in SUFFIXES:
            pipe.expire(session_key(ref) + suffix, self.ttl)
        pipe.sadd(session_index_key(ref.scope), _member(ref))
        pipe.expire(session_index_key(ref.scope), self.ttl)

    def append_turns(self, ref: SessionRef, turns: list[Turn]) -> None:
        """Add turns (a repeated message id overwrites itself) and keep the newest N by client time."""
        if not turns:
            return
        try:
            with self.client.pipeline(transaction=True) as pipe:
                pipe.zadd(session_key(ref) + ":turns", {t.message_id: t.client_ts.timestamp() * 1000 for t in turns})
                pipe.hset(session_key(ref) + ":turn", mapping={t.message_id: _turn_json(t) for t in turns})
                pipe.hsetnx(session_key(ref), "version", 0)
                pipe.hset(session_key(ref), "updated_at", time.time())
                self._expire_all(pipe, ref)
                pipe.execute()
            self._trim(ref)
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc

    def _trim(self, ref: SessionRef) -> None:
        overflow = self.client.zrange(session_key(ref) + ":turns", 0, -(self.max_turns + 1))
        if overflow:
            with self.client.pipeline(transaction=True) as pipe:
                pipe.zrem(session_key(ref) + ":turns", *overflow)
                pipe.hdel(session_key(ref) + ":turn", *overflow)
                pipe.execute()

    def get(self, ref: SessionRef) -> SessionContext:
        try:
            with self.client.pipeline(transaction=True) as pipe:
                pipe.hgetall(session_key(ref))
                pipe.zrange(session_key(ref) + ":turns", 0, -1)
                pipe.hgetall(session_key(ref) + ":turn")
                pipe.ttl(session_key(ref))
                header, order, by_id, ttl = pipe.execute()
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc
        fields = {k[2:]: json.loads(v) for k, v in header.items() if k.startswith("f:")}
        turns = [json.loads(by_id[mid]) for mid in order if mid in by_id]
        return SessionContext(turns=turns, fields=fields, version=int(header.get("version", 0)), ttl_s=max(ttl, 0))

    def set_fields(self, ref: SessionRef, fields: dict) -> int:
        """Merge fields (a ``None`` value removes one) and snapshot the result as a new version."""
        key = session_key(ref)
        try:
            with self.client.pipeline(transaction=True) as pipe:
                while True:
                    try:
                        pipe.watch(key)
                        current = {k[2:]: json.loads(v) for k, v in pipe.hgetall(key).items() if k.startswith("f:")}
                        version = int(pipe.hget(key, "version") or 0) + 1
                        merged = {**current, **{k: v for k, v in fields.items() if v is not None}}
                        for name in [k for k, v in fields.items() if v is None]:
                            merged.pop(name, None)
                        pipe.multi()
                        self._write_fields(pipe, ref, merged, version)
                        pipe.execute()
                        return version
                    except redis.WatchError:
                        continue
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc

    def _write_fields(self, pipe, ref: SessionRef, fields: dict, version: int) -> None:
        pipe.delete(session_key(ref))
        mapping = {f"f:{k}": json.dumps(v, ensure_ascii=False) for k, v in fields.items()}
        pipe.hset(session_key(ref), mapping={**mapping, "version": version, "updated_at": time.time()})
        snapshot = json.dumps({"version": version, "fields": fields}, ensure_ascii=False)
        pipe.lpush(session_key(ref) + ":versions", snapshot)
        pipe.ltrim(session_key(ref) + ":versions", 0, self.versions_kept - 1)
        self._expire_all(pipe, ref)

    def rollback(self, ref: SessionRef, *, version: int | None = None, steps: int | None = None) -> int:
        """Restore an earlier snapshot of the fields; the restore itself becomes a new version."""
        snapshots = [json.loads(s) for s in self.client.lrange(session_key(ref) + ":versions", 0, -1)]
        target = snapshot_to_restore(snapshots, version=version, steps=steps)
        current = {k: None for k in self.get(ref).fields}
        return self.set_fields(ref, {**current, **target["fields"]})

    def sessions_of(self, scope: Scope) -> list[SessionRef]:
        """Every device session of the user that working memory still holds."""
        try:
            members = self.client.smembers(session_index_key(scope))
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc
        refs = []
        for member in sorted(members):
            try:
                device_id, session_id = json.loads(member)
            except (ValueError, TypeError):
                continue  # not one of ours
            refs.append(SessionRef(scope, device_id, session_id))
        return refs

    def note_fresh(self, scope: Scope, events: list[tuple[str, list[float] | None]]) -> None:
        if not events:
            return
        entries = [json.dumps([event_id, base64.b64encode(array("f", vector).tobytes()).decode() if vector else None])
                   for event_id, vector in events]
        key = fresh_episodes_key(scope)
        try:
            with self.client.pipeline(transaction=True) as pipe:
                pipe.rpush(key, *entries)
                pipe.ltrim(key, -FRESH_KEPT, -1)
                pipe.pexpire(key, self.fresh_ttl_ms)
                pipe.execute()
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc

    def fresh(self, scope: Scope) -> list[tuple[str, list[float] | None]]:
        try:
            entries = self.client.lrange(fresh_episodes_key(scope), 0, -1)
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc
        out = {}
        for entry in entries:
            event_id, packed = json.loads(entry)
            out[event_id] = array("f", base64.b64decode(packed)).tolist() if packed else None
        return list(out.items())

    def redact_turns(self, scope: Scope) -> int:
        """Child mode, applied to the working memory it found: each turn keeps its id, role and
        time, as a child's new turns are written."""
        try:
            return sum(self._redact_session(session_key(ref) + ":turn") for ref in self.sessions_of(scope))
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc

    def _redact_session(self, key: str) -> int:
        # WATCH: a session that expires (or takes a new turn) meanwhile is read again, so the HSET
        # never recreates an expired hash without its TTL. HSET itself leaves the TTL as it was.
        with self.client.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(key)
                    stored = {mid: json.loads(raw) for mid, raw in pipe.hgetall(key).items()}
                    blanked = {mid: json.dumps({**turn, "content": ""}, ensure_ascii=False)
                               for mid, turn in stored.items() if turn.get("content")}
                    if not blanked:
                        return 0
                    pipe.multi()
                    pipe.hset(key, mapping=blanked)
                    pipe.execute()
                    return len(blanked)
                except redis.WatchError:
                    continue

    def delete_session(self, ref: SessionRef) -> int:
        """The session's keys and its index entry, in one transaction."""
        try:
            with self.client.pipeline(transaction=True) as pipe:
                pipe.delete(*(session_key(ref) + suffix for suffix in SUFFIXES))
                pipe.srem(session_index_key(ref.scope), _member(ref))
                deleted, _ = pipe.execute()
            return deleted
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc

    def delete_user(self, scope: Scope) -> int:
        """Every device and session of the user; returns how many keys went."""
        try:
            doomed = [session_key(r) + s for r in self.sessions_of(scope) for s in SUFFIXES]
            return self.client.delete(*doomed, session_index_key(scope), fresh_episodes_key(scope))
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc

    def count_user(self, scope: Scope) -> int:
        """Keys of the user left in Redis, found by scanning (not by the index, which an erasure
        deletes). Exact: the pattern is the user's key prefix (``domain.keys.session_scan_pattern``),
        which no key of another user begins with."""
        try:
            found = sum(1 for _ in self.client.scan_iter(match=session_scan_pattern(scope), count=1000))
            return found + self.client.exists(session_index_key(scope))
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc
