"""Signed links to a user's memory page, the pure half: made and checked given a key and a time.

The page is opened by the end user, who holds no API key: the link's token is the credential. It
says which tenant and user it opens and until when, and is signed with HMAC-SHA-256 under a key
derived from the deployment's link secret for that tenant, so a token cannot be moved to another
tenant or user, extended, or made without the secret.

Token: ``base64url(claims JSON) "." base64url(HMAC-SHA-256(tenant key, "engram.memory-page.v1." +
claims part))``, claims ``{"typ": "memory-page", "v": 1, "t": tenant, "u": user, "exp": epoch s,
"n": nonce}``. The signature is checked (in constant time) before any claim is read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass

from ...errors import Forbidden, Unauthorized
from ..ingest.sanitise import ID_PATTERN

TOKEN_TYPE, TOKEN_VERSION = "memory-page", 1
MAX_TOKEN_CHARS = 1024
_SIGNED_PREFIX = b"engram.memory-page.v1."
_KEY_LABEL = b"engram/memory-page-link/v1\x00"
_PART = re.compile(r"^[A-Za-z0-9_-]{1,1000}$")
_CLAIMS = frozenset({"typ", "v", "t", "u", "exp", "n"})


@dataclass(frozen=True)
class PageClaims:
    tenant: str
    user_id: str
    expires_at: int  # epoch seconds


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not _PART.match(text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def tenant_key(secret: bytes, tenant: str) -> bytes:
    """The signing key of one tenant's links: one tenant's key says nothing about another's."""
    return hmac.new(secret, _KEY_LABEL + tenant.encode(), hashlib.sha256).digest()


def _signature(secret: bytes, tenant: str, claims_part: str) -> bytes:
    return hmac.new(tenant_key(secret, tenant), _SIGNED_PREFIX + claims_part.encode("ascii"), hashlib.sha256).digest()


def issue(secret: bytes, tenant: str, user_id: str, expires_at: int) -> str:
    claims = {"typ": TOKEN_TYPE, "v": TOKEN_VERSION, "t": tenant, "u": user_id, "exp": int(expires_at),
              "n": secrets.token_hex(8)}
    part = _b64(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
    return f"{part}.{_b64(_signature(secret, tenant, part))}"


def _refused(why: str) -> Unauthorized:
    return Unauthorized(f"this memory page link is {why}: ask for a new link", field="token")


def verify(secret: bytes, token: object, now: float) -> PageClaims:
    """The claims of a token this deployment signed and that has not expired; Unauthorized for
    anything else (malformed, truncated, tampered, another type, expired), never another error."""
    if not isinstance(token, str) or not token:
        raise Unauthorized("a memory page link needs its token", field="token")
    if len(token) > MAX_TOKEN_CHARS or token.count(".") != 1:
        raise _refused("malformed")
    claims_part, signature_part = token.split(".")
    try:
        raw, given = _unb64(claims_part), _unb64(signature_part)
        claims = json.loads(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise _refused("malformed") from None
    tenant = claims.get("t") if isinstance(claims, dict) else None
    if not isinstance(tenant, str) or not ID_PATTERN.match(tenant):
        raise _refused("malformed")
    # Only now is anything trusted, and only what the signature covers.
    if not hmac.compare_digest(_signature(secret, tenant, claims_part), given):
        raise _refused("not valid")
    if (set(claims) != _CLAIMS or claims["typ"] != TOKEN_TYPE or claims["v"] != TOKEN_VERSION
            or not isinstance(claims["u"], str) or not ID_PATTERN.match(claims["u"])
            or type(claims["exp"]) is not int):
        raise _refused("not a memory page link")
    if now >= claims["exp"]:
        raise _refused("expired")
    return PageClaims(tenant, claims["u"], claims["exp"])


def for_user(claims: PageClaims, user_id: str) -> PageClaims:
    """A valid link opens its own user's page only."""
    if not hmac.compare_digest(claims.user_id.encode(), user_id.encode()):
        raise Forbidden("this memory page link is for another user", field="token")
    return claims
