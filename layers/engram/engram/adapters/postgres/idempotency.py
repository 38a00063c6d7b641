"""IdempotencyStore: the first result of a write, replayed for every retry with the same key.

Records are per (tenant, user, key): a key names one user's request, and erasing the user takes
their records with them (``erasure_store.USER_TABLES``). A record expires after ``EXPIRES``; what
it keeps is whatever the caller hands it (the API hands it a response sealed under the user's key).
"""

from __future__ import annotations

from psycopg.types.json import Jsonb

from ...domain.model import Scope
from ...errors import Conflict, Unprocessable
from ..clients import Clients

STALE = "5 minutes"     # a claim with no result after this: its owner died; the same request takes over
EXPIRES = "24 hours"    # a completed record older than this is gone: the key starts afresh


class IdempotencyStore:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def claim(self, scope: Scope, key: str, request_sha256: str) -> tuple[int, dict] | None:
        """``None``: this request owns the key and must run. Otherwise the stored first result."""
        ident = (scope.tenant, scope.user_id, key)
        with self._clients.pg() as conn:
            inserted = conn.execute(
                "INSERT INTO idempotency_records AS k (tenant, user_id, key, request_sha256) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (tenant, user_id, key) DO UPDATE SET created_at = now(), "
                "request_sha256 = EXCLUDED.request_sha256, status = NULL, response = NULL "
                "WHERE (k.status IS NULL AND k.created_at < now() - %s::interval "
                "AND k.request_sha256 = EXCLUDED.request_sha256) OR k.created_at < now() - %s::interval "
                "RETURNING key", (*ident, request_sha256, STALE, EXPIRES)).fetchone()
            if inserted:
                return None
            row = conn.execute("SELECT request_sha256, status, response FROM idempotency_records "
                               "WHERE tenant = %s AND user_id = %s AND key = %s", ident).fetchone()
        if row is None:  # released between our insert and select: try once more
            return self.claim(scope, key, request_sha256)
        stored_sha, status, response = row
        if stored_sha != request_sha256:
            raise Unprocessable("Idempotency-Key was already used for a different request",
                                field="Idempotency-Key")
        if status is None:
            raise Conflict("a request with this Idempotency-Key is still in progress; retry later",
                           field="Idempotency-Key")
        return status, response

    def complete(self, scope: Scope, key: str, status: int, response: dict) -> None:
        with self._clients.pg() as conn:
            conn.execute("UPDATE idempotency_records SET status = %s, response = %s "
                         "WHERE tenant = %s AND user_id = %s AND key = %s",
                         (status, Jsonb(response), scope.tenant, scope.user_id, key))

    def release(self, scope: Scope, key: str) -> None:
        """A failed attempt gives the key back, so the client's retry can run for real."""
        with self._clients.pg() as conn:
            conn.execute("DELETE FROM idempotency_records WHERE tenant = %s AND user_id = %s AND key = %s "
                         "AND status IS NULL", (scope.tenant, scope.user_id, key))
