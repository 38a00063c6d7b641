"""Export (GDPR art. 20): every layer's data of one user as JSON, decrypted for them.

The document is produced section by section (and the big sections item by item), so the API can
stream it: an export never holds a heavy user's whole history in memory at once.

``deliver`` decides how it reaches the user. A synchronous Lambda response is at most 6 MB, body
and headers, so a document larger than ``export_inline_max_bytes`` (or any, with ``delivery=url``)
is streamed into the export store instead and answered with a short-lived pre-signed URL. The size
is only known once the document has been produced: up to the threshold it is held (that much, no
more), past it the held chunks and the rest go to the store as they come.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from ..bootstrap import Dependencies
from ..domain.cleaning import format_timestamp
from ..domain.limits import finite_json
from ..domain.model import Scope
from .privacy import reveal_episode, reveal_items, reveal_turn
from .profile import profile_item_view
from .users import write_lease

FORMAT_VERSION = 1


def _default(value):
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes | memoryview):
        return bytes(value).hex()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _dumps(value) -> str:
    return json.dumps(value, default=_default, ensure_ascii=False)


def _array(items: Iterable) -> Iterator[str]:
    yield "["
    for i, item in enumerate(items):
        yield ("," if i else "") + _dumps(item)
    yield "]"


def _sessions(deps: Dependencies, scope: Scope) -> Iterator[dict]:
    """Working memory per device and session."""
    for ref in deps.sessions.sessions_of(scope):
        ctx = deps.sessions.get(ref)
        yield {"device_id": ref.device_id, "session_id": ref.session_id, "turns": ctx.turns,
               "fields": finite_json(ctx.fields), "version": ctx.version, "ttl_s": ctx.ttl_s}


def export_chunks(deps: Dependencies, scope: Scope, now: datetime | None = None) -> Iterator[str]:
    now = now or datetime.now(UTC)
    state = deps.users.state(scope)
    # Every store is touched before the first chunk: a store that is down is a clean 503,
    # not a response cut off half-way (the status line goes out with the first chunk).
    deps.episodes.count(scope, tier="all")
    deps.sessions.sessions_of(scope)
    turns = [reveal_turn(deps.keys, scope, t) for t in deps.turns.turns(scope)]
    stored = deps.graph.items(scope, include_history=True)
    revealed = reveal_items(deps.keys, scope, stored)
    profile = [profile_item_view(i, now) | ({"redacted": True} if i.get("redacted") else {}) for i in revealed]
    # The audit names a sensitive object by its keyed placeholder; the user sees the name.
    names = {raw["object"]: clear["object"] for raw, clear in zip(stored, revealed, strict=True) if raw.get("sealed")}
    yield _dumps({"format": FORMAT_VERSION, "user_id": scope.user_id, "exported_at": now,
                  "user": {"known": state.known, "long_term_consent": state.long_term_consent,
                           "consent_version": state.consent_version, "consent_at": state.consent_at,
                           "age": state.age, "child_mode": state.child_mode, "erasing": state.erasing}})[:-1]
    sections = [
        ("consent_history", lambda: deps.users.consent_history(scope)),
        ("devices", lambda: (asdict(d) for d in deps.users.devices(scope))),
        ("sessions", lambda: _sessions(deps, scope)),
        ("profile", lambda: profile),
        ("tasks", lambda: (t.as_dict() for t in deps.tasks.history(scope))),
        ("episodes", lambda: (reveal_episode(deps.keys, scope, e) for e in deps.episodes.all_for_user(scope))),
        ("turns", lambda: turns),
        ("audit", lambda: (_named(e, names) for e in deps.audit.entries(scope))),
    ]
    for name, produce in sections:
        yield f',"{name}":'
        yield from _array(produce())
    yield "}"


def _named(entry: dict, names: dict[str, str]) -> dict:
    for side in ("before", "after"):
        value = entry.get(side)
        if isinstance(value, dict) and value.get("object") in names:
            entry = {**entry, side: {**value, "object": names[value["object"]]}}
    return entry


def export_document(deps: Dependencies, scope: Scope, now: datetime | None = None) -> dict:
    return json.loads("".join(export_chunks(deps, scope, now)))


# -- delivery: inline, or stored behind a pre-signed URL ---------------------------------------------

Delivery = Literal["auto", "url"]


def payload_bytes(chunk: str) -> int:
    """What ``chunk`` takes inside Lambda's response, where the body travels as a JSON string:
    quotes and backslashes escaped, non-ASCII as ``\\uXXXX``. Never less than its UTF-8 size, so
    the threshold holds whatever the runtime's serialiser does."""
    return len(json.dumps(chunk)) - 2


def deliver(deps: Dependencies, scope: Scope, *, delivery: Delivery = "auto",
            now: datetime | None = None) -> list[str] | dict:
    """The export as its chunks (small enough to answer inline), or ``{export_url, expires_at,
    bytes}`` once it has been stored. Every store failure happens before either is returned, so
    the API answers a clean error, never a document cut off half-way."""
    limit = -1 if delivery == "url" else deps.settings.export_inline_max_bytes
    chunks = export_chunks(deps, scope, now)
    held: deque[str] = deque()
    size = 0
    for chunk in chunks:
        held.append(chunk)
        size += payload_bytes(chunk)
        if size > limit:
            return _stored(deps, scope, _drain(held, chunks))
    return list(held)


def _drain(held: deque[str], rest: Iterator[str]) -> Iterator[bytes]:
    # Popping lets what was held go as soon as the store has it.
    while held:
        yield held.popleft().encode()
    for chunk in rest:
        yield chunk.encode()


def _stored(deps: Dependencies, scope: Scope, chunks: Iterator[bytes]) -> dict:
    # A stored export is a new copy of the user's data, so it is a write: under the user's write
    # lease, none is made once an erasure has begun, and the saga's deletes wait for an upload
    # in progress (then find its object).
    with write_lease(deps, scope):
        stored = deps.exports.put(scope, chunks)
    ttl = deps.settings.export_url_ttl_s
    expires = datetime.now(UTC) + timedelta(seconds=ttl)  # signing time, not the document's
    return {"export_url": deps.exports.url(stored["key"], ttl), "expires_at": format_timestamp(expires),
            "bytes": stored["bytes"]}
