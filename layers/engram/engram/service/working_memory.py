"""Working memory: one device session's turns and fields (Redis), versioned and restorable."""

from __future__ import annotations

from ..bootstrap import Dependencies
from ..domain.limits import finite_json
from ..domain.records import SessionRef
from ..domain.sessions import merged_fields_problem
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
