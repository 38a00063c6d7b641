"""KeyStore: per-user data keys, wrapped by KMS, kept in PostgreSQL (``user_keys``).

Envelope encryption: KMS ``GenerateDataKey`` under ``settings.kms_key_id`` returns a fresh
AES-256 key in plaintext and wrapped; only the wrapped form is stored. The KMS encryption
context names the tenant and user, so a wrapped key copied to another row does not unwrap.
Plaintext keys are cached in-process for ``key_cache_ttl_s`` (bounded LRU) because sealing one
value per KMS round trip would put KMS on every write's critical path.

Crypto-shredding: ``shred`` deletes the wrapped key. Every ciphertext names the key that sealed
it, so afterwards ``open`` raises ``KeyDestroyed`` (not a tamper error), and a user who comes back
later gets a new key that cannot open the old copies either. A warm process that cached the key
can still open for up to the TTL after a shred in *another* process; the shredding process
forgets it at once.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict

from botocore.exceptions import BotoCoreError, ClientError

from ..config import get_settings
from ..domain import crypto
from ..domain.crypto import DataKey
from ..domain.model import Scope
from ..errors import EngramError, KeyDestroyed, StoreUnavailable
from . import postgres
from .aws import aws_client

_TRANSIENT = {"ThrottlingException", "KMSInternalException", "DependencyTimeoutException",
              "ServiceUnavailableException", "RequestLimitExceeded"}


def _context(scope: Scope) -> dict[str, str]:
    return {"engram:tenant": scope.tenant, "engram:user": scope.user_id}


class KeyStore:
    def __init__(self, kms=None, *, ttl_s: float | None = None, max_cached: int | None = None) -> None:
        settings = get_settings()
        self._kms = kms
        self.kms_key_id = settings.kms_key_id
        self.ttl_s = settings.key_cache_ttl_s if ttl_s is None else ttl_s
        self.max_cached = max_cached or settings.key_cache_max
        self._cache: OrderedDict[tuple[str, str], tuple[DataKey, float]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def kms(self):
        return self._kms or aws_client("kms")

    # -- sealing ----------------------------------------------------------------------------

    def seal(self, scope: Scope, text: str, purpose: str = "") -> str:
        """``text`` sealed under the user's data key (made on first use), as an ``eg1:`` token."""
        return crypto.seal_text(self.data_key(scope), text, crypto.associated_data(scope.tenant, scope.user_id,
                                                                                     purpose))

    def open(self, scope: Scope, token: str, purpose: str = "") -> str:
        return self.open_bytes(scope, crypto.from_text(token), purpose).decode()

    def seal_bytes(self, scope: Scope, data: bytes, purpose: str = "") -> bytes:
        return crypto.seal(self.data_key(scope), data, crypto.associated_data(scope.tenant, scope.user_id, purpose))

    def open_bytes(self, scope: Scope, blob: bytes, purpose: str = "") -> bytes:
        key = self._key_for(scope, crypto.key_id_of(blob))
        return crypto.open_(key, blob, crypto.associated_data(scope.tenant, scope.user_id, purpose))

    def blind(self, scope: Scope, label: str, name: str) -> str:
        """A keyed placeholder for a sensitive name (see ``crypto.blind_name``)."""
        return crypto.blind_name(self.data_key(scope), label, name)

    # -- keys -------------------------------------------------------------------------------

    def data_key(self, scope: Scope) -> DataKey:
        """The user's current data key, created (and stored wrapped) if they have none."""
        cached = self._cached(scope)
        if cached is not None:
            return cached
        key = self._load(scope)
        if key is None:
            key = self._create(scope)
        self._remember(scope, key)
        return key

    def has_key(self, scope: Scope) -> bool:
        with postgres.connection() as conn:
            return conn.execute("SELECT 1 FROM user_keys WHERE tenant = %s AND user_id = %s",
                                (scope.tenant, scope.user_id)).fetchone() is not None

    def shred(self, scope: Scope) -> bool:
        """Destroy the user's data key; True if there was one. Idempotent."""
        with self._lock:
            self._cache.pop((scope.tenant, scope.user_id), None)
        with postgres.connection() as conn:
            return conn.execute("DELETE FROM user_keys WHERE tenant = %s AND user_id = %s",
                                (scope.tenant, scope.user_id)).rowcount > 0

    def forget_cached(self) -> None:
        with self._lock:
            self._cache.clear()

    def _key_for(self, scope: Scope, key_id: bytes) -> DataKey:
        cached = self._cached(scope)
        if cached is not None and cached.key_id == key_id:
            return cached
        key = self._load(scope)
        if key is None or key.key_id != key_id:
            raise KeyDestroyed(f"the data key {key_id.hex()} of this user was destroyed; the value is unreadable")
        self._remember(scope, key)
        return key

    def _cached(self, scope: Scope) -> DataKey | None:
        with self._lock:
            entry = self._cache.get((scope.tenant, scope.user_id))
            if entry is None:
                return None
            if entry[1] < time.monotonic():
                del self._cache[(scope.tenant, scope.user_id)]
                return None
            self._cache.move_to_end((scope.tenant, scope.user_id))
            return entry[0]

    def _remember(self, scope: Scope, key: DataKey) -> None:
        if self.ttl_s <= 0:
            return
        with self._lock:
            self._cache[(scope.tenant, scope.user_id)] = (key, time.monotonic() + self.ttl_s)
            self._cache.move_to_end((scope.tenant, scope.user_id))
            while len(self._cache) > self.max_cached:
                self._cache.popitem(last=False)

    def _load(self, scope: Scope) -> DataKey | None:
        with postgres.connection() as conn:
            row = conn.execute("SELECT key_id, wrapped FROM user_keys WHERE tenant = %s AND user_id = %s",
                               (scope.tenant, scope.user_id)).fetchone()
        if row is None:
            return None
        plaintext = self._kms_call("decrypt", CiphertextBlob=bytes(row[1]), EncryptionContext=_context(scope))
        return DataKey(bytes.fromhex(row[0]), plaintext["Plaintext"])

    def _create(self, scope: Scope) -> DataKey:
        made = self._kms_call("generate_data_key", KeyId=self.kms_key_id, KeySpec="AES_256",
                              EncryptionContext=_context(scope))
        key = DataKey(os.urandom(crypto.KEY_ID_BYTES), made["Plaintext"])
        with postgres.connection() as conn:
            inserted = conn.execute(
                "INSERT INTO user_keys (tenant, user_id, key_id, wrapped, kms_key) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING RETURNING key_id",
                (scope.tenant, scope.user_id, key.key_id.hex(), made["CiphertextBlob"], made.get("KeyId", ""))
            ).fetchone()
        if inserted:
            return key
        # Another process created the user's key first: use theirs, so there is only ever one.
        existing = self._load(scope)
        if existing is None:  # shredded in between: try again from scratch
            return self._create(scope)
        return existing

    def _kms_call(self, operation: str, **kwargs) -> dict:
        try:
            return getattr(self.kms, operation)(**kwargs)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code in _TRANSIENT:
                raise StoreUnavailable(f"kms: {code}") from exc
            raise EngramError(f"kms {operation} refused: {code or exc}") from exc
        except BotoCoreError as exc:  # endpoint unreachable, timeouts
            raise StoreUnavailable(f"kms: {exc}") from exc
