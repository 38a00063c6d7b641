"""HTTP routes of API v1 (see shared API.md). Each route: parse, scope, one service call."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from ..service import erasure, memory
from ..service.export import export_chunks
from ..service.recall import recall
from ..service.routing import ingest
from ..service.stores import Stores
from .deps import run_idempotent, scope_of, session_ref, stores, tenant
from .schemas import (
    ConsentBody,
    DeviceBody,
    FeedbackBody,
    FieldsBody,
    IngestBody,
    ProfilePatchBody,
    RecallBody,
    RollbackBody,
    TaskEventBody,
)

router = APIRouter(prefix="/v1")
IdemKey = Header(default=None, alias="Idempotency-Key")


def _raw(model) -> dict[str, Any]:
    return model.model_dump(exclude_unset=True)


@router.post("/users/{user_id}/messages")
def post_messages(user_id: str, request: Request, body: IngestBody, tenant_id: str = Depends(tenant),
                  s: Stores = Depends(stores), idempotency_key: str | None = IdemKey):
    scope, raw = scope_of(tenant_id, user_id), _raw(body)
    return run_idempotent(request, tenant_id, idempotency_key, raw, lambda: ingest(scope, raw, s))


@router.post("/users/{user_id}/recall")
def post_recall(user_id: str, body: RecallBody, tenant_id: str = Depends(tenant), s: Stores = Depends(stores)):
    return recall(s, tenant_id, user_id, _raw(body))


@router.get("/users/{user_id}/sessions/{session_id}/context")
def get_context(user_id: str, session_id: str, device_id: str = Query(...), tenant_id: str = Depends(tenant),
                s: Stores = Depends(stores)):
    return memory.session_context(s, session_ref(scope_of(tenant_id, user_id), session_id, device_id))


@router.put("/users/{user_id}/sessions/{session_id}/context")
def put_context(user_id: str, session_id: str, request: Request, body: FieldsBody, device_id: str = Query(...),
                tenant_id: str = Depends(tenant), s: Stores = Depends(stores),
                idempotency_key: str | None = IdemKey):
    ref = session_ref(scope_of(tenant_id, user_id), session_id, device_id)
    return run_idempotent(request, tenant_id, idempotency_key, _raw(body),
                          lambda: memory.set_session_fields(s, ref, body.fields))


@router.post("/users/{user_id}/sessions/{session_id}/rollback")
def post_rollback(user_id: str, session_id: str, request: Request, body: RollbackBody, device_id: str = Query(...),
                  tenant_id: str = Depends(tenant), s: Stores = Depends(stores),
                  idempotency_key: str | None = IdemKey):
    ref = session_ref(scope_of(tenant_id, user_id), session_id, device_id)
    return run_idempotent(request, tenant_id, idempotency_key, _raw(body),
                          lambda: memory.rollback_session(s, ref, body.version, body.steps))


@router.post("/users/{user_id}/tasks/{task_id}/events")
def post_task_event(user_id: str, task_id: str, request: Request, body: TaskEventBody,
                    tenant_id: str = Depends(tenant), s: Stores = Depends(stores),
                    idempotency_key: str | None = IdemKey):
    scope, raw = scope_of(tenant_id, user_id), _raw(body)
    return run_idempotent(request, tenant_id, idempotency_key, raw,
                          lambda: memory.record_task_event(s, scope, task_id, raw), status=201)


@router.get("/users/{user_id}/tasks")
def get_tasks(user_id: str, status: str = Query("open"), limit: int = Query(10),
              tenant_id: str = Depends(tenant), s: Stores = Depends(stores)):
    return memory.list_tasks(s, scope_of(tenant_id, user_id), status, limit)


@router.get("/users/{user_id}/profile")
def get_profile(user_id: str, history: bool = Query(False), tenant_id: str = Depends(tenant),
                s: Stores = Depends(stores)):
    return memory.profile(s, scope_of(tenant_id, user_id), include_history=history)


@router.patch("/users/{user_id}/profile/items/{item_id}")
def patch_profile_item(user_id: str, item_id: str, request: Request, body: ProfilePatchBody,
                       tenant_id: str = Depends(tenant), s: Stores = Depends(stores),
                       idempotency_key: str | None = IdemKey):
    scope, raw = scope_of(tenant_id, user_id), _raw(body)
    return run_idempotent(request, tenant_id, idempotency_key, raw,
                          lambda: memory.correct_profile_item(s, scope, item_id, raw))


@router.delete("/users/{user_id}/profile/items/{item_id}")
def delete_profile_item(user_id: str, item_id: str, tenant_id: str = Depends(tenant), s: Stores = Depends(stores)):
    return memory.delete_profile_item(s, scope_of(tenant_id, user_id), item_id)


@router.post("/users/{user_id}/memories/{memory_id}/feedback")
def post_feedback(user_id: str, memory_id: str, body: FeedbackBody, tenant_id: str = Depends(tenant),
                  s: Stores = Depends(stores)):
    return memory.feedback(s, scope_of(tenant_id, user_id), memory_id, body.useful)


@router.delete("/users/{user_id}/memories")
def delete_memories(user_id: str, type: str | None = Query(None), before: str | None = Query(None),  # noqa: A002
                    tenant_id: str = Depends(tenant), s: Stores = Depends(stores)):
    return memory.forget(s, scope_of(tenant_id, user_id), type, before)


@router.put("/users/{user_id}/consent")
def put_consent(user_id: str, request: Request, body: ConsentBody, tenant_id: str = Depends(tenant),
                s: Stores = Depends(stores), idempotency_key: str | None = IdemKey):
    scope = scope_of(tenant_id, user_id)
    return run_idempotent(request, tenant_id, idempotency_key, _raw(body),
                          lambda: memory.set_consent(s, scope, body.long_term, body.age))


@router.post("/users/{user_id}/devices")
def post_device(user_id: str, request: Request, body: DeviceBody = Body(...), tenant_id: str = Depends(tenant),
                s: Stores = Depends(stores), idempotency_key: str | None = IdemKey):
    scope = scope_of(tenant_id, user_id)
    return run_idempotent(request, tenant_id, idempotency_key, _raw(body),
                          lambda: memory.link_device(s, scope, body.device_id, body.kind), status=201)


# --- privacy (issue 5): erasure saga and export ---------------------------------------------

@router.post("/users/{user_id}/erasure", status_code=202)
def post_erasure(user_id: str, tenant_id: str = Depends(tenant)):
    # Idempotent by nature: a user with a running job gets that job back.
    return JSONResponse(erasure.request_erasure(scope_of(tenant_id, user_id)), status_code=202)


@router.get("/erasure-jobs/{job_id}")
def get_erasure_job(job_id: str, tenant_id: str = Depends(tenant)):
    return erasure.job_view(tenant_id, job_id)


@router.get("/users/{user_id}/export")
def get_export(user_id: str, tenant_id: str = Depends(tenant), s: Stores = Depends(stores)):
    chunks = export_chunks(s, scope_of(tenant_id, user_id))
    first = next(chunks)  # fail before the 200 goes out if a store is down
    return StreamingResponse(_prepend(first, chunks), media_type="application/json")


def _prepend(first: str, rest):
    yield first
    yield from rest
