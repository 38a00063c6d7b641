"""Request-scoped dependencies: the composition root's parts, the tenant behind the API key,
the user scope, idempotent writes."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Header, Path, Query, Request
from fastapi.responses import JSONResponse

from ..dependencies import Dependencies
from ..domain.ingest.sanitise import ID_PATTERN, validate_id
from ..domain.limits import MAX_API_KEY_CHARS, MAX_ID_CHARS, MAX_IDEMPOTENCY_KEY_CHARS
from ..domain.model import Scope
from ..domain.records import SessionRef
from ..errors import DecryptionFailed, EngramError, KeyDestroyed, PayloadTooLarge, Unauthorized, ValidationFailed
from ..service.users import tenant_for_key, write_lease

# An id in a path or a query, held to the rules of every id (``domain.ingest.sanitise.ID_PATTERN``).
PathStr = Annotated[str, Path(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN.pattern)]


def id_query(default: object = ..., description: str | None = None) -> object:
    return Query(default, min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN.pattern, description=description)


_KEY_TTL_S = 60.0
IDEMPOTENCY_KEY_PATTERN = rf"^[!-~]{{1,{MAX_IDEMPOTENCY_KEY_CHARS}}}$"
IDEMPOTENCY_KEY_TEXT = f"1-{MAX_IDEMPOTENCY_KEY_CHARS} printable ASCII characters, no spaces"
# An API key or Idempotency-Key is printable ASCII: anything else cannot be a key we issued or
# stored, and must not reach a store's encoder.
_API_KEY = re.compile(rf"^[!-~]{{1,{MAX_API_KEY_CHARS}}}$")
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)


def dependencies(request: Request) -> Dependencies:
    """The app's dependencies (``create_app(deps)``, the process's own by default)."""
    return request.app.state.deps_of()


def tenant(authorization: str | None = Header(default=None), deps: Dependencies = Depends(dependencies)) -> str:
    if not authorization or not authorization.startswith("Bearer "):
        raise Unauthorized("missing API key: send Authorization: Bearer <key>", field="Authorization")
    key = authorization.removeprefix("Bearer ").strip()
    if not _API_KEY.match(key):
        raise Unauthorized(f"malformed API key: 1-{MAX_API_KEY_CHARS} printable ASCII characters",
                           field="Authorization")
    known = deps.runtime.tenant_keys  # the process's, whichever app or copy of deps asks
    cached = known.get(key)
    if cached and cached[1] > time.monotonic():
        return cached[0]
    tenant_id = tenant_for_key(deps, key)
    known[key] = (tenant_id, time.monotonic() + _KEY_TTL_S)
    return tenant_id


def scope_of(tenant_id: str, user_id: str) -> Scope:
    return Scope(tenant_id, validate_id(user_id, "user_id"))


def session_ref(scope: Scope, session_id: str, device_id: str | None) -> SessionRef:
    return SessionRef(scope, validate_id(device_id, "device_id"), validate_id(session_id, "session_id"))


def run_idempotent(deps: Dependencies, request_: Request, scope: Scope, key: str | None, body: object,
                   action: Callable[[], dict], status: int = 200) -> JSONResponse:
    """Run a write once per Idempotency-Key (per user): a retry gets the first result and writes
    nothing. The stored result is sealed under the user's data key: what a user said is never kept
    in clear for a replay, and after an erasure there is nothing to replay (the records go with the
    user), so the same key then runs as a new request."""
    if key is None:
        return JSONResponse(action(), status_code=status)
    if len(key) > MAX_IDEMPOTENCY_KEY_CHARS:
        raise PayloadTooLarge(f"Idempotency-Key must be at most {MAX_IDEMPOTENCY_KEY_CHARS} characters",
                              field="Idempotency-Key")
    if not _IDEMPOTENCY_KEY.match(key):
        raise ValidationFailed(f"Idempotency-Key must be {IDEMPOTENCY_KEY_TEXT}",
                               field="Idempotency-Key")
    fingerprint = hashlib.sha256(json.dumps([request_.method, request_.url.path, str(request_.url.query), body],
                                            sort_keys=True, default=str).encode()).hexdigest()
    # The record is a write of the user's too: claimed and completed under their write lease,
    # so an erasure's delete steps never run between the two and leave a record behind.
    with write_lease(deps, scope):
        return _run_once(deps, scope, key, fingerprint, action, status)


def _run_once(deps: Dependencies, scope: Scope, key: str, fingerprint: str, action: Callable[[], dict],
              status: int) -> JSONResponse:
    idem = deps.idempotency
    stored = idem.claim(scope, key, fingerprint)
    if stored is not None:
        replay = _opened(deps, scope, stored[1])
        if replay is not None:
            return JSONResponse(replay, status_code=stored[0], headers={"Idempotent-Replayed": "true"})
    try:
        result = action()
    except EngramError as exc:
        if exc.status >= 500:
            idem.release(scope, key)
        else:  # a refusal is a result too (an error body: no user content, kept as it is)
            idem.complete(scope, key, exc.status, exc.to_body())
        raise
    except Exception:
        idem.release(scope, key)
        raise
    idem.complete(scope, key, status, {_SEALED: deps.keys.seal(scope, json.dumps(result), _PURPOSE)})
    return JSONResponse(result, status_code=status)


_SEALED, _PURPOSE = "sealed", "idempotency"


def _opened(deps: Dependencies, scope: Scope, stored: dict) -> dict | None:
    """The stored first result, opened; None when its key is gone (the request runs anew)."""
    if _SEALED not in stored:
        return stored
    try:
        return json.loads(deps.keys.open(scope, stored[_SEALED], _PURPOSE))
    except (KeyDestroyed, DecryptionFailed):
        return None
