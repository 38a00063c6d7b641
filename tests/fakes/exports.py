"""``InMemoryExportStore``: the export bucket as a dict of objects, and pre-signed URLs that a
test can fetch as a client would (``fetch``), refused once their lifetime has passed."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable
from urllib.parse import parse_qs, quote, unquote, urlsplit

from engram.config import Settings
from engram.domain.keys import export_key, export_prefix
from engram.domain.model import Scope

from ._common import serialized


@serialized
class InMemoryExportStore:
    """``objects``: key -> bytes; ``chunks``: key -> how many chunks its stream came in (a test
    can see that a document was streamed, not handed over whole)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.bucket = (settings or Settings()).export_bucket
        self.objects: dict[str, bytes] = {}
        self.chunks: dict[str, int] = {}

    def put(self, scope: Scope, chunks: Iterable[bytes]) -> dict:
        key = export_key(scope, secrets.token_hex(16))
        received = list(chunks)  # a stream that raises stops here: nothing is stored
        self.objects[key] = b"".join(received)
        self.chunks[key] = len(received)
        return {"key": key, "bytes": len(self.objects[key])}

    def url(self, key: str, ttl_s: int) -> str:
        return f"memory://{self.bucket}/{quote(key)}?expires={time.time() + ttl_s:.3f}"

    def fetch(self, url: str, *, at: float | None = None) -> bytes | None:
        """What a GET of ``url`` gives at time ``at`` (now): the bytes, or None (expired, gone)."""
        parts = urlsplit(url)
        if parts.scheme != "memory" or parts.netloc != self.bucket:
            return None
        if (time.time() if at is None else at) > float(parse_qs(parts.query)["expires"][0]):
            return None
        return self.objects.get(unquote(parts.path.removeprefix("/")))

    def _keys_of(self, scope: Scope) -> list[str]:
        return [k for k in self.objects if k.startswith(export_prefix(scope))]

    def count_user(self, scope: Scope) -> int:
        return len(self._keys_of(scope))

    def delete_user(self, scope: Scope) -> int:
        keys = self._keys_of(scope)
        for key in keys:
            del self.objects[key]
            self.chunks.pop(key, None)
        return len(keys)
