"""What the recall steps read of the small layers, one store each: the session's fields, the
user's tasks and the profile graph's beliefs (the episodes, the large layer, are ``readers``)."""

from __future__ import annotations

from datetime import datetime

from ...dependencies import Dependencies
from ...domain.ingest.sanitise import format_timestamp as _iso
from ...domain.lifecycle.decay import decay_confidence, needs_confirmation
from ...domain.model import PREDICATES, Predicate, Scope
from ...domain.profile.beliefs import bears_on_food
from ...domain.recall.cues import own_names
from ...domain.recall.fusion import RecallItem, mentions_any
from ...domain.recall.lexical import lexical_overlap, matching_terms
from ...domain.recall.query import QueryIntent
from ...domain.records import SessionRef
from ..privacy import reveal_items


def read_session(deps: Dependencies, ref: SessionRef, intent: QueryIntent) -> tuple[dict, list[RecallItem]]:
    """Fresh session fields that speak to the query answer directly."""
    ctx = deps.sessions.get(ref)
    items = []
    for name, value in ctx.fields.items():
        text = f"{name.replace('_', ' ')}: {value}"
        relevance = max(lexical_overlap(intent.terms, text), 1.0 if name.lower() in intent.topic.lower() else 0.0)
        if relevance > 0:
            items.append(RecallItem(
                memory_id=f"session:{ref.session_id}:{name}", layer="session", type="session_field", text=text,
                confidence=1.0, decayed_confidence=1.0, trust_source="user", needs_confirmation=False,
                valid_from=None, valid_to=None, score=relevance, relevance=relevance,
                provenance={"message_ids": [], "session_id": ref.session_id, "device_id": ref.device_id,
                            "version": ctx.version}))
    return ctx.fields, items


def read_tasks(deps: Dependencies, scope: Scope, intent: QueryIntent) -> list[RecallItem]:
    """Open tasks and the most relevant recent one."""
    items = []
    for task in deps.tasks.latest(scope, open_only=False, limit=20):
        title = str(task.metadata.get("title") or task.task_id)
        shared = lexical_overlap(intent.subject_terms, f"{title} {task.task_id}")
        is_open = task.status not in ("COMPLETED", "FAILED", "CANCELLED")
        asked_for_tasks = is_open and ("task" in intent.text.lower() or "任务" in intent.text)
        if shared == 0 and not asked_for_tasks:
            continue
        # Listed and ranked from 0.3 on by the words shared, but a record to the guard only by what
        # it shares with the question counted as the episodes' lexical side counts it, Chinese in
        # bigrams: one character (我, 家) is in every Chinese text, so a task titled by a long
        # message shared a third of any question, and the 0.3 floor made every listed task a record.
        relevance = lexical_overlap(matching_terms(intent.subject_terms, intent.topic), f"{title} {task.task_id}")
        if asked_for_tasks:
            relevance = max(relevance, 0.3)
        items.append(RecallItem(
            memory_id=task.task_id, layer="task", type="task", text=f"task '{title}' is {task.status}",
            confidence=1.0, decayed_confidence=1.0, trust_source="system", needs_confirmation=False,
            valid_from=_iso(task.ts), valid_to=None, score=max(shared, 0.3), relevance=relevance,
            provenance={"message_ids": list(task.metadata.get("message_ids") or []), "ts": _iso(task.ts)}))
    return sorted(items, key=lambda i: i.score, reverse=True)[:3]


# How an allergy or a diet ranks beside what a food question found: above most of it.
_SAFETY_RANK = 0.9


def read_profile(deps: Dependencies, scope: Scope, intent: QueryIntent, now: datetime,
                 limit: int = 10) -> list[RecallItem]:
    """Beliefs about the user with decayed confidence; closed edges only when history is asked."""
    items = []
    edges = reveal_items(deps.keys, scope, deps.graph.items(scope, include_history=intent.wants_history, limit=50))
    # "What is Tom's job?" is not about the user's own job; "What is Dana's job?" asked of Dana is.
    own = own_names(intent.names, [e["object"] for e in edges if e["predicate"] == Predicate.HAS_NAME.value
                                   and e.get("valid_to") is None])
    foreground = [n for n in intent.names if n not in own]
    for edge in edges:
        predicate = Predicate(edge["predicate"])
        text = f"{predicate.value.replace('_', ' ')}: {edge['object']}"
        if foreground and not mentions_any(text, foreground):
            continue
        asked_for = predicate in intent.predicates
        # "What am I allergic to?" asks for a kind of belief; "Do I like jazz?" for one object.
        relevance = 1.0 if asked_for and not intent.object_terms else lexical_overlap(intent.subject_terms, text)
        if relevance > 0 and asked_for:
            relevance = min(1.0, relevance + 0.25)
        # An allergy or a diet is read for any question about food, ranked first, yet never what
        # makes a memory question answered (its relevance stays what the words gave).
        for_safety = intent.about_food and bears_on_food(predicate, edge["object"], edge.get("tags") or ())
        if relevance == 0 and not for_safety:
            continue
        decayed = decay_confidence(edge["confidence"], edge["confirmed_at"], now, PREDICATES[predicate].decay_class)
        ranked = max(relevance, _SAFETY_RANK) if for_safety else relevance
        items.append(RecallItem(
            memory_id=edge["id"], layer="profile", type=predicate.value, text=text, confidence=edge["confidence"],
            decayed_confidence=decayed, trust_source=edge["source"], needs_confirmation=needs_confirmation(decayed),
            valid_from=_iso(edge["valid_from"]), valid_to=_iso(edge["valid_to"]),
            score=ranked * (0.5 + 0.5 * decayed) * (edge.get("weight") or 1.0), relevance=relevance,
            provenance={"message_ids": edge["message_ids"], "ts": _iso(edge["confirmed_at"])}))
    return sorted(items, key=lambda i: i.score, reverse=True)[:limit]
