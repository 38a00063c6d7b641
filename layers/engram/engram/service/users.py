"""Users: who is asking (tenant API keys), consent and child mode, devices, the erasure fence."""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator

from ..dependencies import Dependencies
from ..domain.ingest.sanitise import format_timestamp as _iso
from ..domain.ingest.sanitise import validate_id
from ..domain.model import Scope
from ..domain.privacy.consent import Permissions
from ..domain.records import AuditEntry, SessionRef, UserState
from ..errors import StoreUnavailable, Unauthorized, ValidationFailed
from .retroactive import take_back


def tenant_for_key(deps: Dependencies, api_key: str | None) -> str:
    """The tenant behind an API key, validated like every other id: every key of a store is built
    from it (``domain.keys``), and a row of ``tenant_keys`` written around ``register`` must not
    bring an id the encodings were never meant to see."""
    if not api_key:
        raise Unauthorized("missing API key: send Authorization: Bearer <key>", field="Authorization")
    tenant = deps.tenants.tenant_for(api_key)
    try:
        return validate_id(tenant, "tenant")
    except ValidationFailed:
        raise Unauthorized("this API key's tenant id is not a valid id", field="Authorization") from None


# The leases this request (thread or task) holds: (fence, scope, state) for each.
_HELD: contextvars.ContextVar[tuple[tuple[object, Scope, UserState], ...]] = contextvars.ContextVar(
    "engram_write_leases", default=())


@contextlib.contextmanager
def write_lease(deps: Dependencies, scope: Scope) -> Iterator[UserState]:
    """The erasure fence around one write request: a lease taken atomically with the check of
    the user's ``erasing`` flag (409 once they are marked), held until the writes are done. The
    saga deletes only once no lease is in flight, so nothing written under one outlives it.

    One lease per request: a write nested in another of the same user on the same fence (an
    ingest inside its Idempotency-Key record's lease) runs under the outer lease, which is held
    until the outer block ends, and gets the state read when it was taken."""
    for fence, held_scope, held_state in _HELD.get():
        if fence is deps.fence and held_scope == scope:
            yield held_state
            return
    lease, state = deps.fence.begin(scope, deps.settings.write_lease_s)
    token = _HELD.set((*_HELD.get(), (deps.fence, scope, state)))
    try:
        yield state
    finally:
        _HELD.reset(token)
        # A store gone mid-request leaves the lease to expire (write_lease_s): the saga waits.
        with contextlib.suppress(StoreUnavailable):
            deps.fence.end(scope, lease)


def fenced[F: Callable](fn: F) -> F:
    """``fn(deps, scope_or_session_ref, ...)`` run under a write lease of that user."""

    @functools.wraps(fn)
    def write(deps: Dependencies, owner, *args, **kwargs):
        with write_lease(deps, owner.scope if isinstance(owner, SessionRef) else owner):
            return fn(deps, owner, *args, **kwargs)

    return write  # type: ignore[return-value]


@fenced
def set_consent(deps: Dependencies, scope: Scope, long_term: bool, age: int | None) -> dict:
    current = deps.users.state(scope)
    # No age given: the age on record still decides, so a child's later consent stays short-term.
    state = deps.users.set_consent(scope, long_term, age if age is not None else current.age)
    # The decision is audited before it is applied: an application cut short (a store down, a
    # 503) shows as a decision without its take_back entry, and the client's retry completes it.
    deps.audit.append(scope, [AuditEntry("user", "consent", "users", None, "user", None, None,
                                         {"long_term": state.long_term_consent, "age": state.age,
                                          "child_mode": state.child_mode, "version": state.consent_version})])
    take_back(deps, scope, Permissions.of(state))
    return {"long_term": state.long_term_consent, "child_mode": state.child_mode, "age": state.age,
            "version": state.consent_version, "recorded_at": _iso(state.consent_at)}


@fenced
def link_device(deps: Dependencies, scope: Scope, device_id: str, kind: str) -> dict:
    validate_id(device_id, "device_id")
    link = deps.users.link_device(scope, device_id, kind)
    return {"device_id": link.device_id, "kind": link.kind, "linked_at": _iso(link.linked_at)}
