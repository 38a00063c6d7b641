"""IdempotencyStore: the first result of a write, replayed for every retry with the same key."""

from __future__ import annotations

from psycopg.types.json import Jsonb

from ..errors import Conflict, Unprocessable
from .clients import Clients

STALE = "5 minutes"


class IdempotencyStore:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def claim(self, tenant: str, key: str, request_sha256: str) -> tuple[int, dict] | None:
        """``None``: this request owns the key and must run. Otherwise the stored first result."""
        with self._clients.pg() as conn:
            inserted = conn.execute(
                # A claim whose owner died (no result after STALE) is taken over, so a crashed
                # attempt does not block the client's retries forever.
                "INSERT INTO idempotency_keys AS k (tenant, key, request_sha256) VALUES (%s, %s, %s) "
                "ON CONFLICT (tenant, key) DO UPDATE SET created_at = now() "
                "WHERE k.status IS NULL AND k.created_at < now() - %s::interval "
                "AND k.request_sha256 = EXCLUDED.request_sha256 RETURNING key",
                (tenant, key, request_sha256, STALE)).fetchone()
            if inserted:
                return None
            row = conn.execute("SELECT request_sha256, status, response FROM idempotency_keys "
                               "WHERE tenant = %s AND key = %s", (tenant, key)).fetchone()
        if row is None:  # released between our insert and select: try once more
            return self.claim(tenant, key, request_sha256)
        stored_sha, status, response = row
        if stored_sha != request_sha256:
            raise Unprocessable("Idempotency-Key was already used for a different request",
                                field="Idempotency-Key")
        if status is None:
            raise Conflict("a request with this Idempotency-Key is still in progress; retry later",
                           field="Idempotency-Key")
        return status, response

    def complete(self, tenant: str, key: str, status: int, response: dict) -> None:
        with self._clients.pg() as conn:
            conn.execute("UPDATE idempotency_keys SET status = %s, response = %s WHERE tenant = %s AND key = %s",
                         (status, Jsonb(response), tenant, key))

    def release(self, tenant: str, key: str) -> None:
        """A failed attempt gives the key back, so the client's retry can run for real."""
        with self._clients.pg() as conn:
            conn.execute("DELETE FROM idempotency_keys WHERE tenant = %s AND key = %s AND status IS NULL",
                         (tenant, key))
