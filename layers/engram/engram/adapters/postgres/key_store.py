"""Per-user data keys: envelope encryption with KMS, wrapped keys kept in PostgreSQL.

``EnvelopeKeyStore`` is the one key cache of the process (the composition root builds it once).
KMS ``GenerateDataKey`` returns a fresh AES-256 key in plaintext and wrapped; only the wrapped form
is stored (``PgWrappedKeys``, table ``user_keys``). The KMS encryption context names the tenant
and user, so a wrapped key copied to another row does not unwrap. Plaintext keys are cached for
``key_cache_ttl_s`` (bounded LRU): sealing one value per KMS round trip would put KMS on every
write's critical path.

Crypto-shredding: ``shred`` deletes the wrapped key. Every ciphertext names the key that sealed
it, so afterwards ``open`` raises ``KeyDestroyed`` (not a tamper error), and a user who comes back
later gets a new key that cannot open the old copies either. This process forgets the key at
once; every other warm process within ``recheck_s`` (default 5 s): a cached key older than that
is checked against its wrapped row (one indexed read, no KMS call) before use, so no process
seals under, or opens with, a destroyed key for longer than that.

No key is created for a user marked for erasure (``insert`` refuses under the same row lock the
mark takes): a job or a late write can neither make the user a fresh key the shred would miss,
nor seal anything for them after it.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict

from botocore.exceptions import BotoCoreError, ClientError

from ...domain.model import Scope
from ...domain.privacy import crypto
from ...domain.privacy.crypto import DataKey
from ...errors import Conflict, EngramError, KeyDestroyed, StoreUnavailable
from ...ports import KeyWrapper, WrappedKeys
from ..clients import Clients

_TRANSIENT = {"ThrottlingException", "KMSInternalException", "DependencyTimeoutException",
              "ServiceUnavailableException", "RequestLimitExceeded"}


def encryption_context(scope: Scope) -> dict[str, str]:
    return {"engram:tenant": scope.tenant, "engram:user": scope.user_id}


class PgWrappedKeys:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def load(self, scope: Scope) -> tuple[bytes, bytes] | None:
        with self._clients.pg() as conn:
            row = conn.execute("SELECT key_id, wrapped FROM user_keys WHERE tenant = %s AND user_id = %s",
                               (scope.tenant, scope.user_id)).fetchone()
        return (bytes.fromhex(row[0]), bytes(row[1])) if row else None

    def insert(self, scope: Scope, key_id: bytes, wrapped: bytes, kms_key: str) -> bool:
        """False when the user already has a key (another process made it first); ``Conflict``
        when the user is marked for erasure."""
        with self._clients.pg() as conn, conn.transaction():
            # FOR SHARE: a mark in progress waits for this insert, or this insert sees the mark.
            erasing = conn.execute("SELECT erasing FROM users WHERE tenant = %s AND user_id = %s FOR SHARE",
                                   (scope.tenant, scope.user_id)).fetchone()
            if erasing is not None and erasing[0]:
                raise Conflict("this user is being erased; no data key is made for them", field="user_id")
            return conn.execute(
                "INSERT INTO user_keys (tenant, user_id, key_id, wrapped, kms_key) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING RETURNING key_id",
                (scope.tenant, scope.user_id, key_id.hex(), wrapped, kms_key)).fetchone() is not None

    def delete(self, scope: Scope) -> bool:
        with self._clients.pg() as conn:
            return conn.execute("DELETE FROM user_keys WHERE tenant = %s AND user_id = %s",
                                (scope.tenant, scope.user_id)).rowcount > 0


class KmsKeyWrapper:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients
        self.key_id = clients.settings.kms_key_id

    def generate(self, context: dict[str, str]) -> tuple[bytes, bytes, str]:
        made = self._call("generate_data_key", KeyId=self.key_id, KeySpec="AES_256", EncryptionContext=context)
        return made["Plaintext"], made["CiphertextBlob"], made.get("KeyId", "")

    def unwrap(self, wrapped: bytes, context: dict[str, str]) -> bytes:
        return self._call("decrypt", CiphertextBlob=wrapped, EncryptionContext=context)["Plaintext"]

    def _call(self, operation: str, **kwargs) -> dict:
        try:
            return getattr(self._clients.aws("kms"), operation)(**kwargs)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code in _TRANSIENT:
                raise StoreUnavailable(f"kms: {code}") from exc
            raise EngramError(f"kms {operation} refused: {code or exc}") from exc
        except BotoCoreError as exc:  # endpoint unreachable, timeouts
            raise StoreUnavailable(f"kms: {exc}") from exc


class EnvelopeKeyStore:
    def __init__(self, wrapped: WrappedKeys, kms: KeyWrapper, *, ttl_s: float, max_cached: int,
                 recheck_s: float = 5.0) -> None:
        self._wrapped, self._kms = wrapped, kms
        self.ttl_s, self.max_cached, self.recheck_s = ttl_s, max_cached, recheck_s
        # (key, expires at, checked against its wrapped row at) per owner
        self._cache: OrderedDict[tuple[str, str], tuple[DataKey, float, float]] = OrderedDict()
        self._lock = threading.Lock()

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

    def digest(self, scope: Scope, text: str, purpose: str = "content") -> str:
        """A content hash keyed by the user's data key (``crypto.keyed_digest``)."""
        return crypto.keyed_digest(self.data_key(scope), purpose, text)

    def blind_terms(self, scope: Scope, terms: list[str], *, create: bool = True) -> list[str]:
        """Blind-index tokens of ``terms`` (``domain.privacy.blind_index``). With ``create=False`` (a read:
        a query) a user without a key has no sealed events, so no tokens and no key made."""
        key = self.data_key(scope) if create else self.existing_key(scope)
        return [crypto.blind_term(key, t) for t in terms] if key is not None else []

    def existing_key(self, scope: Scope) -> DataKey | None:
        """The user's current key if they have one; never creates one."""
        key = self._cached(scope) or self._load(scope)
        if key is not None:
            self._remember(scope, key)
        return key

    # -- keys -------------------------------------------------------------------------------

    def data_key(self, scope: Scope) -> DataKey:
        """The user's current data key, created (and stored wrapped) if they have none."""
        key = self._cached(scope) or self._load(scope) or self._create(scope)
        self._remember(scope, key)
        return key

    def has_key(self, scope: Scope) -> bool:
        return self._wrapped.load(scope) is not None

    def shred(self, scope: Scope) -> bool:
        """Destroy the user's data key; True if there was one. Idempotent."""
        with self._lock:
            self._cache.pop((scope.tenant, scope.user_id), None)
        return self._wrapped.delete(scope)

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
        owner, now = (scope.tenant, scope.user_id), time.monotonic()
        with self._lock:
            entry = self._cache.get(owner)
            if entry is None:
                return None
            if entry[1] < now:
                del self._cache[owner]
                return None
            self._cache.move_to_end(owner)
        key, expires, checked = entry
        if now - checked <= self.recheck_s:
            return key
        # Another process may have shredded it: the wrapped row decides (no KMS call).
        row = self._wrapped.load(scope)
        with self._lock:
            if row is None or row[0] != key.key_id:
                self._cache.pop(owner, None)
                return None
            self._cache[owner] = (key, expires, now)
        return key

    def _remember(self, scope: Scope, key: DataKey) -> None:
        if self.ttl_s <= 0:
            return
        now = time.monotonic()
        with self._lock:
            self._cache[(scope.tenant, scope.user_id)] = (key, now + self.ttl_s, now)
            self._cache.move_to_end((scope.tenant, scope.user_id))
            while len(self._cache) > self.max_cached:
                self._cache.popitem(last=False)

    def _load(self, scope: Scope) -> DataKey | None:
        row = self._wrapped.load(scope)
        if row is None:
            return None
        return DataKey(row[0], self._kms.unwrap(row[1], encryption_context(scope)))

    def _create(self, scope: Scope) -> DataKey:
        plaintext, wrapped, kms_key = self._kms.generate(encryption_context(scope))
        key = DataKey(os.urandom(crypto.KEY_ID_BYTES), plaintext)
        if self._wrapped.insert(scope, key.key_id, wrapped, kms_key):
            return key
        # Another process created the user's key first: use theirs, so there is only ever one.
        existing = self._load(scope)
        return existing if existing is not None else self._create(scope)  # shredded in between: again
