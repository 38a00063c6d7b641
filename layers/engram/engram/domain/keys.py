"""Keys that cannot collide: every store key, document id, routing value and node key of an
identity is built here, from its parts, by one injective encoding.

Ids may contain ``:`` (and a store must not rely on validation for anything else), so joining
parts with a separator is ambiguous: user ``alice`` on device ``x:y`` and user ``alice:x`` on
device ``y`` would share ``alice:x:y``. ``encode_parts`` writes each part as its length in
characters, a colon and the part itself::

    encode_parts("acme", "alice", "x:y") == "4:acme5:alice3:x:y"

Two properties make it safe, and ``decode_parts`` (its inverse) is what the tests hold it to:

* injective: reading left to right, a length says exactly where its part ends, so an encoding
  has one reading; different sequences of parts never share an encoding;
* prefix-consistent: ``encode_parts(*a)`` begins with ``encode_parts(*p)`` only when the parts
  ``p`` begin the parts ``a``. So "every key of this user" is a prefix match that no other user
  can satisfy (Redis SCAN, Neo4j ``STARTS WITH``).

Where a store limits the length of an id (an OpenSearch ``_id`` is at most 512 bytes) or an id
must not name its owner (erasure jobs), the id is the SHA-256 of an encoding instead.

``FORMAT_VERSION`` names this layout; ``local/stack`` wipes local data written under another one
(see docs/operations.md), because keys of the old ``t:u:d:s`` form cannot be decoded unambiguously.

Not built here, on purpose: the AES-GCM associated data (``domain.privacy.crypto.associated_data``) keeps
its unit-separator form, which is injective because it refuses parts containing the separator;
changing it would make every existing ciphertext, WORM archive copies included, unopenable. The
KMS encryption context is a map with one entry per part, injective as it is. The archive shard
(``domain.lifecycle.archive.shard_of``) is a many-to-one bucket by design: every read of it filters on the
exact tenant and user columns.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Scope
    from .records import SessionRef

FORMAT_VERSION = 2

# Object nodes of these labels belong to one user (somebody's son is nobody else's); nodes of the
# other labels (a preference, a concept) are shared by the users of a tenant.
PER_USER_LABELS = frozenset({"Person"})

_GLOB_SPECIAL = re.compile(r"([*?\[\]\\])")


def encode_parts(*parts: str) -> str:
    """The parts, each as ``<length>:<part>``, concatenated (injective, prefix-consistent)."""
    for part in parts:
        if not isinstance(part, str):
            raise TypeError(f"key parts are strings, got {type(part).__name__}")
    return "".join(f"{len(part)}:{part}" for part in parts)


def decode_parts(encoded: str) -> tuple[str, ...]:
    """The parts ``encode_parts`` was given; ValueError for a string it cannot have produced."""
    parts, i = [], 0
    while i < len(encoded):
        colon = encoded.find(":", i)
        digits = encoded[i:colon] if colon > i else ""
        if not digits.isascii() or not digits.isdigit() or (len(digits) > 1 and digits[0] == "0"):
            raise ValueError(f"not an encoding of parts at offset {i}: {encoded!r}")
        end = colon + 1 + int(digits)
        if end > len(encoded):
            raise ValueError(f"part at offset {i} runs past the end: {encoded!r}")
        parts.append(encoded[colon + 1:end])
        i = end
    return tuple(parts)


def digest_parts(*parts: str) -> str:
    """SHA-256 (hex) of the parts' encoding: a fixed-length id that names no one."""
    return hashlib.sha256(encode_parts(*parts).encode()).hexdigest()


def glob_escape(text: str) -> str:
    """``text`` matched literally inside a Redis glob pattern (SCAN MATCH)."""
    return _GLOB_SPECIAL.sub(r"\\\1", text)


# -- an identity ------------------------------------------------------------------------------

def scope_key(tenant: str, user_id: str) -> str:
    """The user's identity as one string (``Scope.key``): tenant and user, encoded."""
    return encode_parts(tenant, user_id)


# -- Redis: working memory ----------------------------------------------------------------------
# A session's keys carry the session's encoding as their hash tag ({...}), so a Redis Cluster keeps
# them on one slot and one MULTI covers them; the suffixes (":turns", ...) follow the tag.

def session_key(ref: SessionRef) -> str:
    """The base key of one device session (its field hash; ``+ ":turns"`` etc. for the rest)."""
    scope = ref.scope
    return "eng:{" + encode_parts(scope.tenant, scope.user_id, ref.device_id, ref.session_id) + "}"


def session_index_key(scope: Scope) -> str:
    """The set naming the user's sessions (erasure and export find them here)."""
    return "eng:idx:{" + scope_key(scope.tenant, scope.user_id) + "}"


def session_prefix(scope: Scope) -> str:
    """What every session key of the user begins with, and no key of anybody else does."""
    return "eng:{" + scope_key(scope.tenant, scope.user_id)


def fresh_episodes_key(scope: Scope) -> str:
    """The list of the user's events written but not yet searchable (under the user's session
    prefix: an erasure's scan finds it)."""
    return session_prefix(scope) + "}:fresh"


def session_scan_pattern(scope: Scope) -> str:
    """A SCAN MATCH pattern for exactly the user's session keys (not their index)."""
    return glob_escape(session_prefix(scope)) + "*"


# -- OpenSearch: episodic events -------------------------------------------------------------------

def episode_routing(scope: Scope) -> str:
    """The routing value of the user's events: all of them on one shard."""
    return scope_key(scope.tenant, scope.user_id)


def episode_doc_id(scope: Scope, event_id: str) -> str:
    """The document ``_id`` of one of the user's events: unique per owner, not only per index, so
    another owner's event of the same id is another document."""
    return digest_parts("episode", scope.tenant, scope.user_id, event_id)


# -- Neo4j: the profile graph ---------------------------------------------------------------------

def user_node_key(scope: Scope) -> str:
    """``User.uid``."""
    return encode_parts("user", scope.tenant, scope.user_id)


def person_key_prefix(scope: Scope) -> str:
    """What the key of every per-user object node of the user begins with (and no other's)."""
    return encode_parts("person", scope.tenant, scope.user_id)


def normalise_name(name: str) -> str:
    return " ".join(name.lower().split())


def object_node_key(scope: Scope, label: str, name: str) -> str:
    """The ``key`` of an object node: per user for ``PER_USER_LABELS``, else per tenant."""
    if label in PER_USER_LABELS:
        return person_key_prefix(scope) + encode_parts(normalise_name(name))
    return encode_parts("object", scope.tenant, str(label).lower(), normalise_name(name))


# -- PostgreSQL ---------------------------------------------------------------------------------------

def erasure_user_ref(scope: Scope) -> str:
    """The pseudonymous subject of an erasure job (``erasure_jobs.user_ref``)."""
    return digest_parts(scope.tenant, scope.user_id)


def task_lock_key(scope: Scope, task_id: str) -> str:
    """What the advisory lock serialising one task's status changes is taken on."""
    return encode_parts(scope.tenant, scope.user_id, task_id)


def erasure_audit_subject(job_id: str) -> str:
    """The audit ``user_id`` an erasure's own records go under. ``#`` is outside every valid id
    (``domain.ingest.sanitise.ID_PATTERN``), so no user can be this subject: erasing or exporting a
    user never reaches the record that an erasure happened."""
    return f"#erasure:{job_id}"


# -- S3: stored exports -----------------------------------------------------------------------------

EXPORT_ROOT = "exports"


def export_prefix(scope: Scope) -> str:
    """What the key of every stored export of the user begins with, and no other owner's does.
    A digest, not the encoding itself: S3 neither encrypts key names nor keeps them out of access
    logs and inventories, so a key must not name its owner."""
    return f"{EXPORT_ROOT}/{digest_parts('export', scope.tenant, scope.user_id)}/"


def export_key(scope: Scope, token: str) -> str:
    """One stored export of the user; ``token`` is random, so a key cannot be guessed."""
    if not token or "/" in token:
        raise ValueError("an export token is one non-empty path segment")
    return f"{export_prefix(scope)}{token}.json"
