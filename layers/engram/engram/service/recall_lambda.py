"""JSON faces of the recall steps, for deployments that run one Lambda per step under the
Express state machine ``statemachines/recall.asl.json``.

Every step takes the recall request ``{tenant, user_id, query, k?, now?, session_id?, device_id?}``
and returns ``{"layer", "items"}``; ``fuse_step`` takes ``{"request", "layers": [...]}`` where a
layer whose Task failed arrives as ``{"layer", "degraded": true}``.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from ..adapters.session_store import SessionRef
from ..domain.cleaning import parse_timestamp, validate_id
from ..domain.fusion import HYBRID, NO_RECORD_BLOCK, RecallItem, context_block, fuse, has_record
from ..domain.model import Scope
from ..domain.query import analyse, expand_with_session
from . import recall_steps
from .stores import default_stores


def _request(event: dict):
    scope = Scope(validate_id(event.get("tenant"), "tenant"), validate_id(event.get("user_id"), "user_id"))
    now = parse_timestamp(event["now"], "now") if event.get("now") else datetime.now(UTC)
    query = str(event.get("query") or "")
    ref = None
    if event.get("session_id") and event.get("device_id"):
        ref = SessionRef(scope, validate_id(event["device_id"], "device_id"),
                         validate_id(event["session_id"], "session_id"))
    return scope, now, query, ref


def _out(layer: str, items: list[RecallItem], **extra) -> dict:
    return {"layer": layer, "items": [dataclasses.asdict(i) for i in items], **extra}


def session_step(event: dict) -> dict:
    scope, now, query, ref = _request(event)
    if ref is None:
        return _out("session", [], expanded_query=query)
    fields, items = recall_steps.session_step(default_stores(), ref, analyse(query, now))
    return _out("session", items, expanded_query=expand_with_session(query, fields))


def tasks_step(event: dict) -> dict:
    scope, now, query, _ = _request(event)
    return _out("task", recall_steps.tasks_step(default_stores(), scope, analyse(query, now)))


def profile_step(event: dict) -> dict:
    scope, now, query, _ = _request(event)
    return _out("profile", recall_steps.profile_step(default_stores(), scope, analyse(query, now), now))


def episodes_step(event: dict) -> dict:
    scope, now, query, _ = _request(event)
    return _out("episode", recall_steps.episodes_step(default_stores(), scope, analyse(query, now), now, HYBRID))


def fuse_step(event: dict) -> dict:
    request = event.get("request", {})
    _, now, query, _ = _request(request)
    intent = analyse(query, now)
    layers, degraded = {}, []
    for result in event.get("layers", []):
        if result.get("degraded"):
            degraded.append(result["layer"])
            continue
        layers[result["layer"]] = [RecallItem(**item) for item in result.get("items", [])]
    items = fuse(layers, HYBRID, int(request.get("k", 10)))
    no_record = not items or (intent.memory_dependent and not has_record(items, HYBRID.guard_threshold))
    return {"items": [] if no_record else [i.public() for i in items],
            "context_block": NO_RECORD_BLOCK if no_record else context_block(items, HYBRID.context_tokens),
            "memory_dependent": intent.memory_dependent, "no_record": no_record, "degraded": degraded}
