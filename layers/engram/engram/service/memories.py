"""What a user or agent does to any one memory: say it was (not) useful, or forget a kind of it."""

from __future__ import annotations

from ..bootstrap import Dependencies
from ..domain.cleaning import parse_timestamp
from ..domain.model import EventType, Scope
from ..domain.records import AuditEntry
from ..domain.trust import smooth_feedback
from ..errors import NotFound, ValidationFailed
from .users import fenced


@fenced
def feedback(deps: Dependencies, scope: Scope, memory_id: str, useful: bool) -> dict:
    vote = 1.0 if useful else 0.0
    if memory_id.startswith("ev-"):
        event = deps.episodes.get(scope, memory_id)
        if event is None:
            raise NotFound(f"memory {memory_id} not found", field="memory_id")
        old, store = event.get("weight", 1.0), "episodes"
        new = smooth_feedback(old, vote)
        deps.episodes.update(scope, memory_id, {"weight": new})
    else:
        item = deps.graph.item(scope, memory_id)
        old, store = item.get("weight") or 1.0, "graph"
        new = smooth_feedback(old, vote)
        deps.graph.update_item(scope, memory_id, {"weight": new})
    deps.audit.append(scope, [AuditEntry("user", "feedback", store, memory_id, "user", None, {"weight": old},
                                         {"weight": new, "useful": useful})])
    return {"memory_id": memory_id, "weight": round(new, 4)}


@fenced
def forget(deps: Dependencies, scope: Scope, type_: str | None, before: str | None) -> dict:
    if type_ is not None and type_ not in EventType._value2member_map_:
        raise ValidationFailed(f"type must be one of {', '.join(t.value for t in EventType)}", field="type")
    cutoff = parse_timestamp(before, "before") if before is not None else None
    if type_ is None and cutoff is None:
        raise ValidationFailed("give type and/or before; to forget everything use erasure", field="type")
    deleted = deps.episodes.delete_matching(scope, type_=type_, before=cutoff)
    deps.audit.append(scope, [AuditEntry("user", "forget", "episodes", None, "user", None,
                                         {"type": type_, "before": before}, {"deleted": deleted})])
    return {"deleted": deleted}
