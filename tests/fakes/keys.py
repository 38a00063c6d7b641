"""Key storage fakes: ``InMemoryWrappedKeys`` (the ``user_keys`` table) and ``FakeKms`` (KMS's
GenerateDataKey/Decrypt bound to an encryption context). The key store itself is the real
``EnvelopeKeyStore`` over these two (see ``fake_keys``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from engram.adapters.postgres.key_store import EnvelopeKeyStore
from engram.config import Settings
from engram.domain.model import Scope
from engram.errors import Conflict, EngramError

from ._common import serialized

_MAGIC = b"fakekms1"


class FakeKms:
    """A KeyWrapper: a fresh random AES-256 key per ``generate``, wrapped under this fake's own
    master key with the encryption context as associated data, so it unwraps only with the
    same context (and only by the same FakeKms)."""

    def __init__(self, key_id: str = "arn:aws:kms:us-east-1:000000000000:key/fake-kms") -> None:
        self.key_id = key_id
        self._master = AESGCM(os.urandom(32))
        self.calls: list[str] = []

    @staticmethod
    def _aad(context: dict[str, str]) -> bytes:
        return json.dumps(context, sort_keys=True).encode()

    def generate(self, context: dict[str, str]) -> tuple[bytes, bytes, str]:
        self.calls.append("generate")
        plaintext, nonce = os.urandom(32), os.urandom(12)
        return plaintext, _MAGIC + nonce + self._master.encrypt(nonce, plaintext, self._aad(context)), self.key_id

    def unwrap(self, wrapped: bytes, context: dict[str, str]) -> bytes:
        self.calls.append("unwrap")
        body = bytes(wrapped)
        if not body.startswith(_MAGIC):
            raise EngramError("kms decrypt refused: InvalidCiphertextException")
        nonce, sealed = body[len(_MAGIC):len(_MAGIC) + 12], body[len(_MAGIC) + 12:]
        try:
            return self._master.decrypt(nonce, sealed, self._aad(context))
        except InvalidTag:
            raise EngramError("kms decrypt refused: InvalidCiphertextException") from None


@serialized
class InMemoryWrappedKeys:
    table = "user_keys"

    def __init__(self, erasing: Callable[[Scope], bool] = lambda _scope: False) -> None:
        self.rows: dict[Scope, dict] = {}
        self.erasing = erasing  # fake_deps points it at the fake user registry

    def load(self, scope: Scope) -> tuple[bytes, bytes] | None:
        row = self.rows.get(scope)
        return (row["key_id"], row["wrapped"]) if row else None

    def insert(self, scope: Scope, key_id: bytes, wrapped: bytes, kms_key: str) -> bool:
        if self.erasing(scope):
            raise Conflict("this user is being erased; no data key is made for them", field="user_id")
        if scope in self.rows:
            return False
        self.rows[scope] = {"key_id": bytes(key_id), "wrapped": bytes(wrapped), "kms_key": kms_key}
        return True

    def delete(self, scope: Scope) -> bool:
        return self.rows.pop(scope, None) is not None

    def user_rows(self, scope: Scope) -> dict[str, int]:
        return {self.table: 1 if scope in self.rows else 0}


def fake_keys(settings: Settings | None = None, wrapped: InMemoryWrappedKeys | None = None,
              kms: FakeKms | None = None) -> EnvelopeKeyStore:
    """The real envelope key store over in-memory wrapped keys and a fake KMS."""
    settings = settings or Settings()
    return EnvelopeKeyStore(wrapped or InMemoryWrappedKeys(), kms or FakeKms(), ttl_s=settings.key_cache_ttl_s,
                            max_cached=settings.key_cache_max, recheck_s=settings.key_recheck_s)


class StaticLinkSecret:
    """The memory page links' secret of one fake deployment (a new one per ``fake_deps``)."""

    def __init__(self, secret: bytes | None = None) -> None:
        self._secret = secret or os.urandom(32)

    def secret(self) -> bytes:
        return self._secret
