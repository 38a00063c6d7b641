"""Users: who is asking (tenant API keys), consent and child mode, devices, the erasure fence."""

from __future__ import annotations

from ..bootstrap import Dependencies
from ..domain.cleaning import format_timestamp as _iso
from ..domain.cleaning import validate_id
from ..domain.model import Scope
from ..domain.records import AuditEntry, UserState
from ..errors import Conflict, Unauthorized, ValidationFailed


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


def writable(deps: Dependencies, scope: Scope) -> UserState:
    """The user's state, or 409 while they are being erased."""
    state = deps.users.state(scope)
    if state.erasing:
        raise Conflict("this user is being erased; writes are refused", field="user_id")
    return state


def set_consent(deps: Dependencies, scope: Scope, long_term: bool, age: int | None) -> dict:
    current = writable(deps, scope)
    # No age given: the age on record still decides, so a child's later consent stays short-term.
    state = deps.users.set_consent(scope, long_term, age if age is not None else current.age)
    removed = 0
    if not state.long_term_consent:  # revoked, or a child: what the consent allowed goes
        removed = deps.graph.delete_user(scope)
    deps.audit.append(scope, [AuditEntry("user", "consent", "users", None, "user", None, None,
                                         {"long_term": state.long_term_consent, "age": state.age,
                                          "child_mode": state.child_mode, "version": state.consent_version,
                                          "graph_nodes_removed": removed})])
    return {"long_term": state.long_term_consent, "child_mode": state.child_mode, "age": state.age,
            "version": state.consent_version, "recorded_at": _iso(state.consent_at)}


def link_device(deps: Dependencies, scope: Scope, device_id: str, kind: str) -> dict:
    validate_id(device_id, "device_id")
    writable(deps, scope)
    link = deps.users.link_device(scope, device_id, kind)
    return {"device_id": link.device_id, "kind": link.kind, "linked_at": _iso(link.linked_at)}
