"""Working memory: one device session's turns and fields (Redis), versioned and restorable."""

from __future__ import annotations

from ..dependencies import Dependencies
from ..domain.ingest.sanitise import validate_id
from ..domain.limits import finite_json
from ..domain.model import Scope
from ..domain.records import AuditEntry, SessionRef
from ..domain.working.sessions import merged_fields_problem
from ..errors import PayloadTooLarge, ValidationFailed
from .users import fenced


def session_context(deps: Dependencies, ref: SessionRef) -> dict:
    ctx = deps.sessions.get(ref)
    # finite_json: a NaN stored before the edge refused it still reads as JSON (null).
    return {"turns": ctx.turns, "fields": finite_json(ctx.fields), "version": ctx.version}


@fenced
def set_session_fields(deps: Dependencies, ref: SessionRef, fields: dict) -> dict:
    if problem := merged_fields_problem(deps.sessions.get(ref).fields, fields):
        raise PayloadTooLarge(f"fields: {problem}", field="fields")
    return {"version": deps.sessions.set_fields(ref, fields)}


@fenced
def rollback_session(deps: Dependencies, ref: SessionRef, version: int | None, steps: int | None) -> dict:
    if (version is None) == (steps is None):
        raise ValidationFailed("give exactly one of version or steps", field="version")
    return {"version": deps.sessions.rollback(ref, version=version, steps=steps)}


@fenced
def clear_session(deps: Dependencies, scope: Scope, session_id: str, device_id: str | None) -> dict:
    """Forget a session's working memory (turns, fields, versions): on one device, or on every
    device of the user when none is named. Long-term memory made from its turns stays. Clearing
    what is already empty is not an error: a chat history's ``clear()`` may run on a new one."""
    validate_id(session_id, "session_id")
    refs = ([SessionRef(scope, validate_id(device_id, "device_id"), session_id)] if device_id is not None
            else [r for r in deps.sessions.sessions_of(scope) if r.session_id == session_id])
    deleted = {r.device_id: deps.sessions.delete_session(r) for r in refs}
    cleared = sorted(d for d, n in deleted.items() if n)
    result = {"session_id": session_id, "device_ids": cleared, "deleted": sum(deleted.values())}
    deps.audit.append(scope, [AuditEntry("user", "clear_session", "sessions", session_id, "user", None,
                                         {"device_id": device_id}, result)])
    return result
