"""Export (GDPR art. 20): every layer's data of one user as JSON, decrypted for them: the sections
of every holder of the user's data (``deps.holders``).

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
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from ..dependencies import Dependencies
from ..domain.ingest.sanitise import format_timestamp
from ..domain.model import Scope
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


def export_chunks(deps: Dependencies, scope: Scope, now: datetime | None = None) -> Iterator[str]:
    """The document: who and when, then every holder's sections (``service.holders``), in the
    registry's order."""
    now = now or datetime.now(UTC)
    # Every holder reads its store before the first chunk: a store that is down is a clean 503,
    # not a response cut off half-way (the status line goes out with the first chunk).
    sections = [section for holder in deps.holders for section in holder.export(scope, now).items()]
    yield _dumps({"format": FORMAT_VERSION, "user_id": scope.user_id, "exported_at": now})[:-1]
    for name, produce in sections:
        yield f',"{name}":'
        content = produce()
        yield from [_dumps(content)] if isinstance(content, dict) else _array(content)
    yield "}"


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
