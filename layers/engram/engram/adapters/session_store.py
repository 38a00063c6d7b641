"""SessionStore: working memory of one device's session in Redis.

Keys share one hash tag per session so a Redis Cluster keeps them on one slot and a MULTI
covers them all:
  ``eng:{t:u:d:s}``          HASH  version, updated_at, f:<name> -> JSON field value
  ``eng:{t:u:d:s}:turns``    ZSET  message_id scored by client time (ms)
  ``eng:{t:u:d:s}:turn``     HASH  message_id -> JSON turn
  ``eng:{t:u:d:s}:versions`` LIST  JSON snapshots of the fields, newest first
  ``eng:idx:{t:u}``          SET   session keys of the user (erasure and export find them here)
Every key expires with the session (TTL refreshed on each write).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import redis

from ..config import get_settings
from ..domain.model import Scope, Turn
from ..errors import NotFound, StoreUnavailable, ValidationFailed
from .redis_store import redis_client


@dataclass(frozen=True)
class SessionRef:
    scope: Scope
    device_id: str
    session_id: str

    @property
    def base(self) -> str:
        return f"eng:{{{self.scope.tenant}:{self.scope.user_id}:{self.device_id}:{self.session_id}}}"


def _index_key(scope: Scope) -> str:
    return f"eng:idx:{{{scope.tenant}:{scope.user_id}}}"


def _turn_json(turn: Turn) -> str:
    return json.dumps({"message_id": turn.message_id, "role": turn.role.value, "content": turn.content,
                       "client_ts": turn.client_ts.isoformat().replace("+00:00", "Z")}, ensure_ascii=False)


class SessionStore:
    def __init__(self, client: redis.Redis | None = None) -> None:
        self._client = client
        settings = get_settings()
        self.ttl = settings.session_ttl_s
        self.max_turns = settings.session_max_turns
        self.versions_kept = settings.session_versions_kept

    @property
    def client(self) -> redis.Redis:
        return self._client or redis_client()

    def _expire_all(self, pipe, ref: SessionRef) -> None:
        for suffix in ("", ":turns", ":turn", ":versions"):
            pipe.expire(ref.base + suffix, self.ttl)
        pipe.sadd(_index_key(ref.scope), ref.base)
        pipe.expire(_index_key(ref.scope), self.ttl)

    def append_turns(self, ref: SessionRef, turns: list[Turn]) -> None:
        """Add turns (a repeated message id overwrites itself) and keep the newest N by client time."""
        if not turns:
            return
        try:
            with self.client.pipeline(transaction=True) as pipe:
                pipe.zadd(ref.base + ":turns", {t.message_id: t.client_ts.timestamp() * 1000 for t in turns})
                pipe.hset(ref.base + ":turn", mapping={t.message_id: _turn_json(t) for t in turns})
                pipe.hsetnx(ref.base, "version", 0)
                pipe.hset(ref.base, "updated_at", time.time())
                self._expire_all(pipe, ref)
                pipe.execute()
            self._trim(ref)
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc

    def _trim(self, ref: SessionRef) -> None:
        overflow = self.client.zrange(ref.base + ":turns", 0, -(self.max_turns + 1))
        if overflow:
            with self.client.pipeline(transaction=True) as pipe:
                pipe.zrem(ref.base + ":turns", *overflow)
                pipe.hdel(ref.base + ":turn", *overflow)
                pipe.execute()

    def get(self, ref: SessionRef) -> dict:
        try:
            with self.client.pipeline(transaction=True) as pipe:
                pipe.hgetall(ref.base)
                pipe.zrange(ref.base + ":turns", 0, -1)
                pipe.hgetall(ref.base + ":turn")
                pipe.ttl(ref.base)
                header, order, by_id, ttl = pipe.execute()
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc
        fields = {k[2:]: json.loads(v) for k, v in header.items() if k.startswith("f:")}
        turns = [json.loads(by_id[mid]) for mid in order if mid in by_id]
        return {"turns": turns, "fields": fields, "version": int(header.get("version", 0)),
                "ttl_s": max(ttl, 0)}

    def set_fields(self, ref: SessionRef, fields: dict) -> int:
        """Merge fields (a ``None`` value removes one) and snapshot the result as a new version."""
        key = ref.base
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
        pipe.delete(ref.base)
        mapping = {f"f:{k}": json.dumps(v, ensure_ascii=False) for k, v in fields.items()}
        pipe.hset(ref.base, mapping={**mapping, "version": version, "updated_at": time.time()})
        pipe.lpush(ref.base + ":versions", json.dumps({"version": version, "fields": fields}, ensure_ascii=False))
        pipe.ltrim(ref.base + ":versions", 0, self.versions_kept - 1)
        self._expire_all(pipe, ref)

    def rollback(self, ref: SessionRef, *, version: int | None = None, steps: int | None = None) -> int:
        """Restore an earlier snapshot of the fields; the restore itself becomes a new version."""
        snapshots = [json.loads(s) for s in self.client.lrange(ref.base + ":versions", 0, -1)]
        if not snapshots:
            raise NotFound("no kept versions for this session", field="version")
        if steps is not None:
            if not 1 <= steps < len(snapshots):
                raise ValidationFailed(f"steps must be between 1 and {len(snapshots) - 1}", field="steps")
            target = snapshots[steps]
        else:
            target = next((s for s in snapshots if s["version"] == version), None)
            if target is None:
                raise NotFound(f"version {version} is not kept", field="version")
        current = {k: None for k in self.get(ref)["fields"]}
        return self.set_fields(ref, {**current, **target["fields"]})

    def session_keys(self, scope: Scope) -> list[str]:
        return sorted(self.client.smembers(_index_key(scope)))

    def delete_user(self, scope: Scope) -> int:
        """Every device and session of the user; returns how many keys went."""
        try:
            keys = [k + s for k in self.session_keys(scope) for s in ("", ":turns", ":turn", ":versions")]
            return self.client.delete(*keys, _index_key(scope))
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc

    def count_user(self, scope: Scope) -> int:
        """Keys of the user left in Redis, found by scanning (not by the index, which an erasure
        deletes). Ids containing ':' can make another user's keys match: it may over-count,
        which fails a verification safely; it never deletes anything."""
        pattern = f"eng:{{{scope.tenant}:{scope.user_id}:*"
        try:
            found = sum(1 for _ in self.client.scan_iter(match=pattern, count=1000))
            return found + self.client.exists(_index_key(scope))
        except redis.RedisError as exc:
            raise StoreUnavailable(f"session store: {exc}") from exc
