"""Working memory: one device session's turns and fields (Redis), versioned and restorable."""

from __future__ import annotations

from ..bootstrap import Dependencies
from ..domain.records import SessionRef
from ..errors import ValidationFailed
from .users import writable


def session_context(deps: Dependencies, ref: SessionRef) -> dict:
    ctx = deps.sessions.get(ref)
    return {"turns": ctx.turns, "fields": ctx.fields, "version": ctx.version}


def set_session_fields(deps: Dependencies, ref: SessionRef, fields: dict) -> dict:
    writable(deps, ref.scope)
    return {"version": deps.sessions.set_fields(ref, fields)}


def rollback_session(deps: Dependencies, ref: SessionRef, version: int | None, steps: int | None) -> dict:
    writable(deps, ref.scope)
    if (version is None) == (steps is None):
        raise ValidationFailed("give exactly one of version or steps", field="version")
    return {"version": deps.sessions.rollback(ref, version=version, steps=steps)}
