"""Profile transparency: what is believed about the user, and a person's corrections of it."""

from __future__ import annotations

from datetime import UTC, datetime

from ..dependencies import Dependencies
from ..domain.ingest.sanitise import format_timestamp as _iso
from ..domain.lifecycle.decay import decay_confidence, needs_confirmation
from ..domain.limits import MAX_OBJECT_CHARS
from ..domain.model import PREDICATES, Predicate, Scope, TrustSource
from ..domain.profile.trust import clamp
from ..domain.records import AuditEntry, Fact, ProfileEdge
from ..errors import ValidationFailed
from .privacy import protect_fact, reveal_item, reveal_items
from .users import fenced


def profile_item_view(item: ProfileEdge, now: datetime) -> dict:
    """A graph edge in the same shape as a recall item."""
    predicate = Predicate(item["predicate"])
    spec = PREDICATES[predicate]
    decayed = decay_confidence(item["confidence"], item["confirmed_at"], now, spec.decay_class)
    return {
        "memory_id": item["id"], "layer": "profile", "type": predicate.value,
        "text": f"{predicate.value.replace('_', ' ')}: {item['object']}", "object": item["object"],
        "confidence": round(item["confidence"], 4), "decayed_confidence": round(decayed, 4),
        "trust_source": item["source"], "needs_confirmation": needs_confirmation(decayed),
        "valid_from": _iso(item["valid_from"]), "valid_to": _iso(item["valid_to"]),
        "created_at": _iso(item["created_at"]), "updated_at": _iso(item["updated_at"]),
        "tags": item["tags"], "weight": item.get("weight") or 1.0,
        "counter_evidence": item.get("counter_evidence") or [],
        "provenance": {"message_ids": item["message_ids"]},
    }


def profile(deps: Dependencies, scope: Scope, include_history: bool = False) -> dict:
    now = datetime.now(UTC)
    items = reveal_items(deps.keys, scope, deps.graph.items(scope, include_history=include_history))
    return {"items": [profile_item_view(i, now) for i in items]}


@fenced
def correct_profile_item(deps: Dependencies, scope: Scope, item_id: str, new_object: str | None,
                         confidence: float | None) -> dict:
    """A person's correction: source becomes ``human``. A new object closes the old edge and
    opens a corrected one, so the history shows what was believed before."""
    stored = deps.graph.item(scope, item_id)
    before = reveal_item(deps.keys, scope, stored)
    confidence = 1.0 if confidence is None else confidence
    if not 0.1 <= confidence <= 1.0:
        raise ValidationFailed("confidence must be a number between 0.1 and 1.0", field="confidence")
    if new_object is not None and not 0 < len(new_object.strip()) <= MAX_OBJECT_CHARS:
        raise ValidationFailed(f"object must be a non-empty string of at most {MAX_OBJECT_CHARS} characters",
                               field="object")
    now = datetime.now(UTC)
    if new_object is not None and new_object.strip() != before["object"]:
        deps.graph.update_item(scope, item_id, {"valid_to": now, "closed_by": "human"})
        _, _, after = deps.graph.upsert_fact(scope, protect_fact(deps.keys, scope, Fact(
            predicate=Predicate(before["predicate"]), object=new_object.strip(), confidence=confidence,
            source=TrustSource.HUMAN, message_ids=tuple(before["message_ids"]), valid_from=now, observed_at=now)))
    else:
        _, after = deps.graph.update_item(scope, item_id, {"confidence": clamp(confidence), "confirmed_at": now,
                                                           "source": TrustSource.HUMAN.value})
    # The audit keeps what the graph keeps: a sensitive object only as its placeholder.
    deps.audit.append(scope, [AuditEntry("human", "correct", "graph", after["id"], TrustSource.HUMAN.value,
                                         after["confidence"], plain_edge(stored), plain_edge(after))])
    return profile_item_view(reveal_item(deps.keys, scope, after), now)


@fenced
def delete_profile_item(deps: Dependencies, scope: Scope, item_id: str) -> dict:
    before = deps.graph.delete_item(scope, item_id)
    deps.audit.append(scope, [AuditEntry("human", "delete", "graph", item_id, TrustSource.HUMAN.value, None,
                                         plain_edge(before), None)])
    return {"deleted": item_id}


def plain_edge(item: ProfileEdge) -> dict:
    """An edge as the audit log keeps it: times as text, no ciphertext."""
    return {k: (_iso(v) if isinstance(v, datetime) else v) for k, v in item.items() if k != "sealed"}
