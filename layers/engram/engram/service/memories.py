"""What a user or agent does to any one memory: say it was (not) useful, forget it, or forget a
kind of it."""

from __future__ import annotations

from ..dependencies import Dependencies
from ..domain.ingest.sanitise import parse_timestamp
from ..domain.model import EventType, Scope
from ..domain.profile.trust import smooth_feedback
from ..domain.records import AuditEntry, EpisodeDoc
from ..errors import NotFound, ValidationFailed
from .ingest.route import CONTEXT_CHARS
from .privacy import reveal_episode, reveal_turn
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


@fenced
def forget_memory(deps: Dependencies, scope: Scope, memory_id: str) -> dict:
    """Forget one memory by the id recall, ingest or the profile gave for it, whichever layer
    holds it: an episode (``ev-``), a profile item (``e-``), else a task of that id. 404 when the
    user has none (a second delete of the same id included: nothing is kept to tell it from an
    id never seen). The audit says what went, never what it said."""
    event = deps.episodes.get(scope, memory_id) if memory_id.startswith("ev-") else None
    if event is not None:
        counts, layer, type_ = _forget_episode(deps, scope, event), "episode", event["type"]
        message_ids = event["message_ids"]
    elif memory_id.startswith("e-") and (edge := _profile_item(deps, scope, memory_id)) is not None:
        deps.graph.delete_item(scope, memory_id)
        counts, layer, type_, message_ids = {"profile_items": 1}, "profile", edge["predicate"], edge["message_ids"]
    elif changes := deps.tasks.delete_task(scope, memory_id):
        counts, layer, type_, message_ids = {"task_changes": changes}, "task", "task", []
    else:
        raise NotFound(f"memory {memory_id} not found", field="memory_id")
    counts = {"episodes": 0, "profile_items": 0, "task_changes": 0, "contexts_cleared": 0, **counts}
    deps.audit.append(scope, [AuditEntry("user", "forget_memory", _STORES[layer], memory_id, "user", None,
                                         {"layer": layer, "type": type_, "message_ids": list(message_ids)},
                                         counts)])
    deleted = counts["episodes"] + counts["profile_items"] + counts["task_changes"]
    return {"memory_id": memory_id, "layer": layer, "deleted": deleted, **counts}


_STORES = {"episode": "episodes", "profile": "graph", "task": "tasks"}


def _profile_item(deps: Dependencies, scope: Scope, item_id: str) -> dict | None:
    try:
        return deps.graph.item(scope, item_id)
    except NotFound:
        return None


def _forget_episode(deps: Dependencies, scope: Scope, event: EpisodeDoc) -> dict:
    """The event, and what was made only from the turns it came from: events folded into it
    (their messages are all among its own), profile items learned from those turns alone, and
    the search context a neighbouring event took from them (the turn before it)."""
    said = set(event["message_ids"])
    events = deps.episodes.all_for_user(scope)
    doomed = [event["event_id"], *(e["event_id"] for e in events
                                   if e["event_id"] != event["event_id"] and set(e["message_ids"]) <= said)]
    episodes = deps.episodes.delete_ids([(scope, event_id) for event_id in doomed])
    edges = [e["id"] for e in deps.graph.items(scope, include_history=True)
             if e["message_ids"] and set(e["message_ids"]) <= said]
    for edge_id in edges:
        deps.graph.delete_item(scope, edge_id)
    words = {(reveal_episode(deps.keys, scope, event).get("text") or "")[:CONTEXT_CHARS]}
    words |= {(reveal_turn(deps.keys, scope, t).get("content") or "")[:CONTEXT_CHARS]
              for t in deps.turns.turns(scope, sorted(said))}
    words.discard("")
    neighbours = [e["event_id"] for e in events if e["event_id"] not in doomed and e.get("context")
                  and reveal_episode(deps.keys, scope, e).get("context") in words]
    for event_id in neighbours:
        deps.episodes.update(scope, event_id, {"context": ""})
    return {"episodes": episodes, "profile_items": len(edges), "contexts_cleared": len(neighbours)}
