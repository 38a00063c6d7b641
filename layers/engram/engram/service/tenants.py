"""Tenant API keys: stored as SHA-256 hashes, never in clear."""

from __future__ import annotations

import hashlib

from ..adapters import postgres
from ..errors import Unauthorized


def _hash(api_key: str) -> str:
    return hashlib.sha256(api_key.encode()).hexdigest()


def ensure_tenant_key(tenant_id: str, api_key: str) -> None:
    with postgres.connection() as conn:
        conn.execute(
            "INSERT INTO tenant_keys (key_hash, tenant_id) VALUES (%s, %s) "
            "ON CONFLICT (key_hash) DO UPDATE SET tenant_id = EXCLUDED.tenant_id",
            (_hash(api_key), tenant_id),
        )


def tenant_for_key(api_key: str | None) -> str:
    if not api_key:
        raise Unauthorized("missing API key: send Authorization: Bearer <key>", field="Authorization")
    with postgres.connection() as conn:
        row = conn.execute("SELECT tenant_id FROM tenant_keys WHERE key_hash = %s", (_hash(api_key),)).fetchone()
    if row is None:
        raise Unauthorized("unknown API key", field="Authorization")
    return row[0]
