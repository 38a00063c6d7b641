"""Use cases behind the HTTP API other than ingestion: working memory, tasks, profile
transparency, feedback, forgetting, consent and devices."""

from __future__ import annotations

from datetime import UTC, datetime

from ..adapters.audit_log import AuditEntry
from ..adapters.profile_graph import Fact
from ..adapters.session_store import SessionRef
from ..domain.cleaning import format_timestamp as _iso
from ..domain.cleaning import parse_timestamp, validate_id
from ..domain.decay import decay_confidence, needs_confirmation
from ..domain.model import PREDICATES, EventType, Predicate, Scope, TrustSource
from ..domain.tasks import TaskStatus
from ..domain.trust import clamp, smooth_feedback
from ..errors import Conflict, NotFound, ValidationFailed
from .privacy import protect_fact, reveal_item, reveal_items
from .stores import Stores


def _writable(stores: Stores, scope: Scope):
    state = stores.users.state(scope)
    if state.erasing:
        raise Conflict("this user is being erased; writes are refused", field="user_id")
    return state


# --- working memory ---------------------------------------------------------------------------

def session_context(stores: Stores, ref: SessionRef) -> dict:
    ctx = stores.sessions.get(ref)
    return {"turns": ctx["turns"], "fields": ctx["fields"], "version": ctx["version"]}


def set_session_fields(stores: Stores, ref: SessionRef, fields: dict) -> dict:
    _writable(stores, ref.scope)
    return {"version": stores.sessions.set_fields(ref, fields)}


def rollback_session(stores: Stores, ref: SessionRef, version: int | None, steps: int | None) -> dict:
    _writable(stores, ref.scope)
    if (version is None) == (steps is None):
        raise ValidationFailed("give exactly one of version or steps", field="version")
    return {"version": stores.sessions.rollback(ref, version=version, steps=steps)}


# --- tasks ------------------------------------------------------------------------------------

def record_task_event(stores: Stores, scope: Scope, task_id: str, body: dict) -> dict:
    _writable(stores, scope)
    validate_id(task_id, "task_id")
    try:
        status = TaskStatus(body.get("status"))
    except ValueError:
        raise ValidationFailed(f"status must be one of {', '.join(s.value for s in TaskStatus)}",
                               field="status") from None
    metadata = body.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ValidationFailed("metadata must be an object", field="metadata")
    ts = parse_timestamp(body["ts"], "ts") if body.get("ts") is not None else datetime.now(UTC)
    stores.users.ensure(scope)
    row = stores.tasks.record(scope, task_id, status, metadata, ts)
    stores.audit.append(scope, [AuditEntry("api", "task_event", "tasks", task_id, "user", None, None,
                                           {"status": status.value})])
    return _task_view(row)


def _task_view(row: dict) -> dict:
    return {**row, "ts": _iso(row["ts"])}


def list_tasks(stores: Stores, scope: Scope, status: str, limit: int) -> dict:
    if status not in ("open", "all"):
        raise ValidationFailed("status must be 'open' or 'all'", field="status")
    if not 1 <= limit <= 100:
        raise ValidationFailed("limit must be between 1 and 100", field="limit")
    rows = stores.tasks.latest(scope, open_only=status == "open", limit=limit)
    return {"tasks": [_task_view(r) for r in rows]}


# --- profile transparency ---------------------------------------------------------------------

def profile_item_view(item: dict, now: datetime) -> dict:
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
        "tags": item["tags"], "weight": item.get("weight", 1.0),
        "counter_evidence": item.get("counter_evidence") or [],
        "provenance": {"message_ids": item["message_ids"]},
    }


def profile(stores: Stores, scope: Scope, include_history: bool = False) -> dict:
    now = datetime.now(UTC)
    items = reveal_items(stores.keys, scope, stores.graph.items(scope, include_history=include_history))
    return {"items": [profile_item_view(i, now) for i in items]}


def correct_profile_item(stores: Stores, scope: Scope, item_id: str, body: dict) -> dict:
    """A person's correction: source becomes ``human``. A new object closes the old edge and
    opens a corrected one, so the history shows what was believed before."""
    _writable(stores, scope)
    stored = stores.graph.item(scope, item_id)
    before = reveal_item(stores.keys, scope, stored)
    confidence = body.get("confidence", 1.0)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0.1 <= confidence <= 1.0:
        raise ValidationFailed("confidence must be a number between 0.1 and 1.0", field="confidence")
    new_object = body.get("object")
    if new_object is not None and (not isinstance(new_object, str) or not 0 < len(new_object.strip()) <= 200):
        raise ValidationFailed("object must be a non-empty string of at most 200 characters", field="object")
    now = datetime.now(UTC)
    if new_object is not None and new_object.strip() != before["object"]:
        stores.graph.update_item(scope, item_id, {"valid_to": now, "closed_by": "human"})
        _, _, after = stores.graph.upsert_fact(scope, protect_fact(stores.keys, scope, Fact(
            predicate=Predicate(before["predicate"]), object=new_object.strip(), confidence=confidence,
            source=TrustSource.HUMAN, message_ids=tuple(before["message_ids"]), valid_from=now, observed_at=now)))
    else:
        _, after = stores.graph.update_item(scope, item_id, {"confidence": clamp(confidence), "confirmed_at": now,
                                                             "source": TrustSource.HUMAN.value})
    # The audit keeps what the graph keeps: a sensitive object only as its placeholder.
    stores.audit.append(scope, [AuditEntry("human", "correct", "graph", after["id"], TrustSource.HUMAN.value,
                                           after["confidence"], _plain(stored), _plain(after))])
    return profile_item_view(reveal_item(stores.keys, scope, after), now)


def delete_profile_item(stores: Stores, scope: Scope, item_id: str) -> dict:
    _writable(stores, scope)
    before = stores.graph.delete_item(scope, item_id)
    stores.audit.append(scope, [AuditEntry("human", "delete", "graph", item_id, TrustSource.HUMAN.value, None,
                                           _plain(before), None)])
    return {"deleted": item_id}


def _plain(item: dict) -> dict:
    return {k: (_iso(v) if isinstance(v, datetime) else v) for k, v in item.items() if k != "sealed"}


# --- feedback and forgetting ------------------------------------------------------------------

def feedback(stores: Stores, scope: Scope, memory_id: str, useful: object) -> dict:
    if not isinstance(useful, bool):
        raise ValidationFailed("useful must be true or false", field="useful")
    _writable(stores, scope)
    vote = 1.0 if useful else 0.0
    if memory_id.startswith("ev-"):
        event = stores.episodes.get(scope, memory_id)
        if event is None:
            raise NotFound(f"memory {memory_id} not found", field="memory_id")
        old, store = event.get("weight", 1.0), "episodes"
        new = smooth_feedback(old, vote)
        stores.episodes.update(scope, memory_id, {"weight": new})
    else:
        item = stores.graph.item(scope, memory_id)
        old, store = item.get("weight") or 1.0, "graph"
        new = smooth_feedback(old, vote)
        stores.graph.update_item(scope, memory_id, {"weight": new})
    stores.audit.append(scope, [AuditEntry("user", "feedback", store, memory_id, "user", None, {"weight": old},
                                           {"weight": new, "useful": useful})])
    return {"memory_id": memory_id, "weight": round(new, 4)}


def forget(stores: Stores, scope: Scope, type_: str | None, before: str | None) -> dict:
    _writable(stores, scope)
    filters: list[dict] = []
    if type_ is not None:
        if type_ not in EventType._value2member_map_:
            raise ValidationFailed(f"type must be one of {', '.join(t.value for t in EventType)}", field="type")
        filters.append({"term": {"type": type_}})
    if before is not None:
        filters.append({"range": {"ts": {"lt": _iso(parse_timestamp(before, "before"))}}})
    if not filters:
        raise ValidationFailed("give type and/or before; to forget everything use erasure", field="type")
    deleted = stores.episodes.delete_matching(scope, filters)
    stores.audit.append(scope, [AuditEntry("user", "forget", "episodes", None, "user", None,
                                           {"type": type_, "before": before}, {"deleted": deleted})])
    return {"deleted": deleted}


# --- consent and devices ----------------------------------------------------------------------

def set_consent(stores: Stores, scope: Scope, long_term: object, age: object) -> dict:
    if not isinstance(long_term, bool):
        raise ValidationFailed("long_term must be true or false", field="long_term")
    if age is not None and (isinstance(age, bool) or not isinstance(age, int) or not 0 <= age <= 150):
        raise ValidationFailed("age must be an integer between 0 and 150", field="age")
    _writable(stores, scope)
    state = stores.users.set_consent(scope, long_term, age)
    removed = 0
    if not state.long_term_consent:  # revoked, or a child: what the consent allowed goes
        removed = stores.graph.delete_user(scope)
    stores.audit.append(scope, [AuditEntry("user", "consent", "users", None, "user", None, None,
                                           {"long_term": state.long_term_consent, "age": state.age,
                                            "child_mode": state.child_mode, "version": state.consent_version,
                                            "graph_nodes_removed": removed})])
    return {"long_term": state.long_term_consent, "child_mode": state.child_mode, "age": state.age,
            "version": state.consent_version, "recorded_at": _iso(state.consent_at)}


def link_device(stores: Stores, scope: Scope, device_id: object, kind: object) -> dict:
    validate_id(device_id, "device_id")
    if not isinstance(kind, str) or not 0 < len(kind) <= 64:
        raise ValidationFailed("kind must be a string of 1-64 characters", field="kind")
    _writable(stores, scope)
    row = stores.users.link_device(scope, device_id, kind)
    return {"device_id": row["device_id"], "kind": row["kind"], "linked_at": _iso(row["linked_at"])}
