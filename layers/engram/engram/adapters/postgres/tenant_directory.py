"""TenantDirectory: tenant API keys, stored as SHA-256 hashes, never in clear."""

from __future__ import annotations

import hashlib

from ...domain.ingest.sanitise import validate_id
from ...errors import Unauthorized
from ..clients import Clients


def _hash(api_key: str) -> str:
    return hashlib.sha256(api_key.encode()).hexdigest()


class TenantDirectory:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def register(self, tenant_id: str, api_key: str) -> None:
        """Bind an API key to a tenant; the tenant id must be a valid id (``validate_id``)."""
        validate_id(tenant_id, "tenant")
        with self._clients.pg() as conn:
            conn.execute("INSERT INTO tenant_keys (key_hash, tenant_id) VALUES (%s, %s) "
                         "ON CONFLICT (key_hash) DO UPDATE SET tenant_id = EXCLUDED.tenant_id",
                         (_hash(api_key), tenant_id))

    def tenant_for(self, api_key: str) -> str:
        with self._clients.pg() as conn:
            row = conn.execute("SELECT tenant_id FROM tenant_keys WHERE key_hash = %s", (_hash(api_key),)).fetchone()
        if row is None:
            raise Unauthorized("unknown API key", field="Authorization")
        return row[0]
