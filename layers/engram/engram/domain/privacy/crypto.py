"""Envelope encryption, the pure half: AES-256-GCM under a per-user data key.

The key store (``adapters.postgres.key_store``) fetches the data key; everything here is deterministic
given a key and a nonce, so it is unit-tested without KMS.

Binary format (version 1), all of it authenticated:
  ``0x01 | key_id (8 bytes) | nonce (12 bytes) | ciphertext + GCM tag (16 bytes)``
The version byte and the key id are part of the associated data, so neither can be swapped. The
key id says which data key sealed a value: after crypto-shredding, ``open`` can tell "the key was
destroyed" apart from "this ciphertext was tampered with".
Text form: ``eg1:`` + standard base64 of the binary form (fits JSON, Neo4j and Parquet strings).

Associated data binds a ciphertext to its owner (``tenant`` and ``user``): a value copied into
another user's record fails to open even if both keys were somehow the same.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ...errors import DecryptionFailed

VERSION = 1
KEY_BYTES = 32          # AES-256
KEY_ID_BYTES = 8
NONCE_BYTES = 12        # the GCM standard nonce; random per seal (2^32 seals per key stay safe)
TAG_BYTES = 16
TEXT_PREFIX = "eg1:"
_HEADER = 1 + KEY_ID_BYTES + NONCE_BYTES


@dataclass(frozen=True)
class DataKey:
    key_id: bytes
    key: bytes

    def __post_init__(self) -> None:
        if len(self.key) != KEY_BYTES or len(self.key_id) != KEY_ID_BYTES:
            raise ValueError("a data key is 32 bytes with an 8-byte id")

    def __repr__(self) -> str:  # never print key material into a log
        return f"DataKey(key_id={self.key_id.hex()})"


_SEPARATOR = "\x1f"


def associated_data(tenant: str, user_id: str, purpose: str = "") -> bytes:
    """The owner a ciphertext is bound to: the three parts joined by the unit separator.

    Injective because a part containing the separator is refused (valid ids cannot contain it
    anyway), so no two owners share associated data. Not ``domain.keys.encode_parts``: this form
    is what every existing ciphertext, WORM archive copies included, was sealed under."""
    parts = (tenant, user_id, purpose)
    if any(not isinstance(p, str) or _SEPARATOR in p for p in parts):
        raise ValueError("associated data parts are strings without the unit separator")
    return _SEPARATOR.join(parts).encode()


def seal(data_key: DataKey, plaintext: bytes | str, aad: bytes, *, nonce: bytes | None = None) -> bytes:
    if isinstance(plaintext, str):
        plaintext = plaintext.encode()
    nonce = nonce if nonce is not None else os.urandom(NONCE_BYTES)
    if len(nonce) != NONCE_BYTES:
        raise ValueError("nonce must be 12 bytes")
    header = bytes([VERSION]) + data_key.key_id
    return header + nonce + AESGCM(data_key.key).encrypt(nonce, plaintext, header + aad)


def key_id_of(blob: bytes) -> bytes:
    """Which data key sealed ``blob`` (checked for shape, not authenticity)."""
    if len(blob) < _HEADER + TAG_BYTES or blob[0] != VERSION:
        raise DecryptionFailed("not an engram ciphertext (unknown version or truncated)")
    return blob[1:1 + KEY_ID_BYTES]


def open_(data_key: DataKey, blob: bytes, aad: bytes) -> bytes:
    if key_id_of(blob) != data_key.key_id:
        raise DecryptionFailed("sealed under another data key")
    header, nonce = blob[:1 + KEY_ID_BYTES], blob[1 + KEY_ID_BYTES:_HEADER]
    try:
        return AESGCM(data_key.key).decrypt(nonce, blob[_HEADER:], header + aad)
    except InvalidTag:
        raise DecryptionFailed("ciphertext or its owner does not authenticate") from None


def to_text(blob: bytes) -> str:
    return TEXT_PREFIX + base64.b64encode(blob).decode()


def from_text(token: str) -> bytes:
    if not is_sealed(token):
        raise DecryptionFailed("not an engram ciphertext (missing eg1: prefix)")
    try:
        return base64.b64decode(token[len(TEXT_PREFIX):], validate=True)
    except ValueError:
        raise DecryptionFailed("ciphertext is not valid base64") from None


def is_sealed(value: object) -> bool:
    return isinstance(value, str) and value.startswith(TEXT_PREFIX)


def seal_text(data_key: DataKey, text: str, aad: bytes) -> str:
    return to_text(seal(data_key, text, aad))


def open_text(data_key: DataKey, token: str, aad: bytes) -> str:
    return open_(data_key, from_text(token), aad).decode()


def blind_name(data_key: DataKey, label: str, name: str) -> str:
    """A stable, keyed stand-in for a sensitive name (graph node keys, dedupe): equal names of one
    user map to the same placeholder, and without the user's key nothing links it to the name."""
    norm = " ".join(name.lower().split())
    digest = hmac.new(data_key.key, f"{label}\x1f{norm}".encode(), hashlib.sha256).hexdigest()[:24]
    return f"sealed:{digest}"


def keyed_digest(data_key: DataKey, purpose: str, text: str) -> str:
    """A content hash only the user's key can recompute: an unkeyed SHA-256 of a short sentence
    beside its ciphertext would confirm a guess (and outlive the shred)."""
    return hmac.new(data_key.key, f"digest\x1f{purpose}\x1f{text}".encode(), hashlib.sha256).hexdigest()


def blind_term(data_key: DataKey, term: str) -> str:
    """One blind-index token (``domain.privacy.blind_index``): equal terms of one user, equal tokens."""
    return "b" + hmac.new(data_key.key, f"blind\x1f{term}".encode(), hashlib.sha256).hexdigest()[:20]
