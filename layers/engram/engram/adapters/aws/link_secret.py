"""The memory page links' secret: a Secrets Manager secret made per deployment (fetched once per
process through ``Clients.secret``), else the configured key, else, on a local stage only, a key
of the process."""

from __future__ import annotations

import hashlib
import secrets

from ...config import Settings
from ...errors import StoreUnavailable
from ..clients import Clients


class ConfiguredLinkSecret:
    def __init__(self, clients: Clients, settings: Settings) -> None:
        self._clients, self._settings = clients, settings
        self._process_key: bytes | None = None

    def secret(self) -> bytes:
        arn = self._settings.page_link_secret_arn
        if arn:
            value = self._clients.secret(arn).get("key")
            if not isinstance(value, str) or len(value) < 32:
                raise StoreUnavailable(f"secret {arn}: no key of at least 32 characters")
            return hashlib.sha256(value.encode()).digest()
        if self._settings.page_link_key is not None:
            return hashlib.sha256(self._settings.page_link_key.get_secret_value().encode()).digest()
        if self._settings.stage != "local":
            raise StoreUnavailable("memory page links are not configured (ENGRAM_PAGE_LINK_SECRET_ARN)")
        if self._process_key is None:
            self._process_key = secrets.token_bytes(32)
        return self._process_key
