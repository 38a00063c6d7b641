"""A LangGraph ``BaseStore`` over Engram (extra ``langgraph``).

Namespaces are ``(tenant, user_id, *collection)``: the tenant is the API key's (the store refuses
any other), the user is the Engram user, the rest names a collection of that user. For each
collection:

- ``put(ns, key, value)`` keeps the exact value as a field of the collection's working-memory
  session (``lg.<collection>``, device ``langgraph``; Engram's 24-hour session, at most 64 keys of
  up to 64 characters and 16 KiB per collection) and ingests the value's text as a user turn, so it
  becomes long-term memory (episode, and profile with consent) that recall finds from any session
  or device. The turn's ``message_id`` is derived from the key, so provenance leads back to it.
- ``get`` reads the field back; ``delete`` (or ``put(..., None)``) removes the field and the
  profile items whose provenance is that turn. The episode stays (the API has no delete by
  message id; forget by type/age or erase the user for that).
- ``search(prefix, query=...)`` is Engram recall: the best items for the user, as ``SearchItem``s
  with the recall score; an item that came from a put carries its key and value (plus
  ``memory``: layer, type, text, confidence, provenance). Without a query it lists the collection.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Generator, Iterable
from datetime import datetime, timezone
from typing import Any

from langgraph.store.base import BaseStore, GetOp, Item, ListNamespacesOp, Op, PutOp, Result, SearchItem, SearchOp

from ._pair import ClientCall, ClientPair, call
from .client import AsyncEngram, Engram

DEVICE = "langgraph"
_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_TEXT_KEYS = ("text", "content", "data", "memory")


def _text_of(value: dict[str, Any]) -> str:
    """What is remembered of a value: its text field, else the value as JSON."""
    for name in _TEXT_KEYS:
        if isinstance(value.get(name), str) and value[name].strip():
            return value[name]
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _time(text: str | None) -> datetime:
    return datetime.fromisoformat(text) if text else datetime.now(timezone.utc)


class EngramStore(BaseStore):
    def __init__(self, tenant: str, *, client: Engram | None = None, async_client: AsyncEngram | None = None,
                 **client_options: Any) -> None:
        self.tenant = tenant
        self.clients = ClientPair(client, async_client, **client_options)

    # --- mapping -----------------------------------------------------------------------------

    def _where(self, namespace: tuple[str, ...]) -> tuple[str, str]:
        """(user_id, session_id) of a namespace."""
        if len(namespace) < 2 or namespace[0] != self.tenant:
            raise ValueError(f"namespace must be ({self.tenant!r}, user_id, *collection), got {namespace!r}")
        collection = ".".join(namespace[2:]) or "default"
        session = f"lg.{collection}"
        if not _ID.match(session):
            session = "lg." + hashlib.sha256(collection.encode()).hexdigest()[:40]
        return namespace[1], session

    @staticmethod
    def _message_id(session: str, key: str) -> str:
        return "lg-" + hashlib.sha256(f"{session}\0{key}".encode()).hexdigest()[:40]

    # --- one plan per operation, run on either client -----------------------------------------

    def _plan(self, op: Op) -> Generator[ClientCall, Any, Result]:
        if isinstance(op, GetOp):
            return (yield from self._get(op))
        if isinstance(op, PutOp):
            return (yield from self._put(op))
        if isinstance(op, SearchOp):
            return (yield from self._search(op))
        if isinstance(op, ListNamespacesOp):
            raise NotImplementedError("Engram does not list users: namespaces are (tenant, user_id, *collection)")
        raise TypeError(f"unknown store operation {op!r}")

    def _entries(self, user: str, session: str) -> Generator[ClientCall, Any, dict[str, Any]]:
        context = yield call("session_context", user, session, device_id=DEVICE)
        return {k: v for k, v in context.fields.items() if isinstance(v, dict) and "value" in v}

    def _item(self, namespace: tuple[str, ...], key: str, entry: dict[str, Any], cls: type[Item] = Item,
              **extra: Any) -> Item:
        return cls(namespace=namespace, key=key, value=entry["value"], created_at=_time(entry.get("created_at")),
                   updated_at=_time(entry.get("updated_at")), **extra)

    def _get(self, op: GetOp) -> Generator[ClientCall, Any, Item | None]:
        user, session = self._where(op.namespace)
        entry = (yield from self._entries(user, session)).get(op.key)
        return None if entry is None else self._item(op.namespace, op.key, entry)

    def _put(self, op: PutOp) -> Generator[ClientCall, Any, None]:
        user, session = self._where(op.namespace)
        if len(op.key) > 64:
            raise ValueError("an Engram store key is at most 64 characters")
        message_id = self._message_id(session, op.key)
        if op.value is None:
            yield call("set_session_fields", user, session, {op.key: None}, device_id=DEVICE)
            profile = yield call("profile", user)
            for item in profile.items:
                if message_id in item.provenance.message_ids:
                    yield call("delete_profile_item", user, item.memory_id)
            return None
        value, now = dict(op.value), datetime.now(timezone.utc).isoformat()
        created = (yield from self._entries(user, session)).get(op.key, {}).get("created_at", now)
        yield call("set_session_fields", user, session,
                   {op.key: {"value": value, "created_at": created, "updated_at": now}}, device_id=DEVICE)
        turn = {"role": "user", "content": _text_of(value), "message_id": message_id}
        yield call("ingest", user, [turn], session_id=session, device_id=DEVICE)
        return None

    def _search(self, op: SearchOp) -> Generator[ClientCall, Any, list[SearchItem]]:
        user, session = self._where(op.namespace_prefix)
        entries = yield from self._entries(user, session)
        matches = lambda value: all(value.get(k) == v for k, v in (op.filter or {}).items())  # noqa: E731
        if not op.query:
            found = [self._item(op.namespace_prefix, k, e, SearchItem) for k, e in entries.items()]
            return [i for i in found if matches(i.value)][op.offset:op.offset + op.limit]
        by_message = {self._message_id(session, k): k for k in entries}
        answer = yield call("recall", user, op.query, k=min(50, op.offset + op.limit))
        results: list[SearchItem] = []
        for item in answer.items:
            memory = {"memory_id": item.memory_id, "layer": item.layer, "type": item.type, "text": item.text,
                      "confidence": item.confidence, "trust_source": item.trust_source,
                      "provenance": item.provenance.model_dump()}
            key = next((by_message[m] for m in item.provenance.message_ids if m in by_message), None)
            if key is not None:
                entry = entries[key]
                value = {**entry["value"], "memory": memory}
                created, updated = _time(entry.get("created_at")), _time(entry.get("updated_at"))
            else:
                key, value = item.memory_id, memory
                created = updated = _time(item.valid_from)
            if matches(value):
                results.append(SearchItem(namespace=op.namespace_prefix, key=key, value=value, created_at=created,
                                          updated_at=updated, score=item.score))
        return results[op.offset:op.offset + op.limit]

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self.clients.run(self._plan(op)) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return [await self.clients.arun(self._plan(op)) for op in ops]
