"""HTTP routes of API v1 (docs/api.md, which extends shared API.md). Each route: parse, scope, one service call."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from ..dependencies import Dependencies
from ..domain.limits import MAX_IDEMPOTENCY_KEY_CHARS, MAX_TASKS_LISTED, MAX_TIME_CHARS, TIME_RANGE_TEXT
from ..domain.model import EventType
from ..service import erasure, memories, profile, tasks, users, working_memory
from ..service.export import deliver
from ..service.ingest import IngestCommand, ingest
from ..service.recall import RecallRequest, recall
from . import links
from . import schemas as s
from .deps import (
    IDEMPOTENCY_KEY_PATTERN,
    IDEMPOTENCY_KEY_TEXT,
    PathStr,
    dependencies,
    id_query,
    run_idempotent,
    scope_of,
    session_ref,
    tenant,
)

ERRORS = {code: {"model": s.ErrorResponse} for code in (400, 401, 403, 404, 409, 413, 422, 503)}
router = APIRouter(prefix="/v1", responses=ERRORS)
IdemKey = Header(default=None, alias="Idempotency-Key", min_length=1, max_length=MAX_IDEMPOTENCY_KEY_CHARS,
                 pattern=IDEMPOTENCY_KEY_PATTERN,
                 description=f"{IDEMPOTENCY_KEY_TEXT}: a retry with the same key and body returns the first result")
DeviceId = id_query()
Deps = Depends(dependencies)
TIME_TEXT = f"ISO 8601 with offset, or epoch milliseconds; {TIME_RANGE_TEXT}"
Tenant = Depends(tenant)


def _raw(model) -> dict:
    return model.model_dump(exclude_unset=True)


@router.post("/users/{user_id}/messages", response_model=s.IngestResponse, responses=links.INGESTED)
def post_messages(user_id: PathStr, request: Request, body: s.IngestBody, tenant_id: str = Tenant,
                  deps: Dependencies = Deps, idempotency_key: str | None = IdemKey):
    scope = scope_of(tenant_id, user_id)

    def accept() -> dict:
        # Built under the Idempotency-Key: a refusal (a message the edge lets through, such as
        # content that is only spaces) is the key's result too, as any other.
        command = IngestCommand.parse(scope, body.session_id, body.device_id, [m.model_dump() for m in body.messages])
        return ingest(deps, command)

    return run_idempotent(deps, request, scope, idempotency_key, _raw(body), accept)


@router.post("/users/{user_id}/recall", response_model=s.RecallResponse, responses=links.RECALLED)
def post_recall(user_id: PathStr, body: s.RecallBody, tenant_id: str = Tenant, deps: Dependencies = Deps):
    request = RecallRequest.parse(scope_of(tenant_id, user_id), body.query, body.k, body.now, body.session_id,
                                  body.device_id)
    return recall(deps, request)


@router.get("/users/{user_id}/sessions/{session_id}/context", response_model=s.SessionContextResponse)
def get_context(user_id: PathStr, session_id: PathStr, device_id: str = DeviceId, tenant_id: str = Tenant,
                deps: Dependencies = Deps):
    return working_memory.session_context(deps, session_ref(scope_of(tenant_id, user_id), session_id, device_id))


@router.put("/users/{user_id}/sessions/{session_id}/context", response_model=s.VersionResponse,
            responses=links.FIELDS_SET)
def put_context(user_id: PathStr, session_id: PathStr, request: Request, body: s.FieldsBody, device_id: str = DeviceId,
                tenant_id: str = Tenant, deps: Dependencies = Deps, idempotency_key: str | None = IdemKey):
    ref = session_ref(scope_of(tenant_id, user_id), session_id, device_id)
    return run_idempotent(deps, request, ref.scope, idempotency_key, _raw(body),
                          lambda: working_memory.set_session_fields(deps, ref, body.fields))


@router.delete("/users/{user_id}/sessions/{session_id}", response_model=s.SessionCleared)
def delete_session(user_id: PathStr, session_id: PathStr, tenant_id: str = Tenant, deps: Dependencies = Deps,
                   device_id: str | None = id_query(None, "one device's session; without it, the session on "
                                                          "every device of the user")):
    return working_memory.clear_session(deps, scope_of(tenant_id, user_id), session_id, device_id)


@router.post("/users/{user_id}/sessions/{session_id}/rollback", response_model=s.VersionResponse,
             responses=links.ROLLED_BACK)
def post_rollback(user_id: PathStr, session_id: PathStr, request: Request, body: s.RollbackBody,
                  device_id: str = DeviceId, tenant_id: str = Tenant, deps: Dependencies = Deps,
                  idempotency_key: str | None = IdemKey):
    ref = session_ref(scope_of(tenant_id, user_id), session_id, device_id)
    return run_idempotent(deps, request, ref.scope, idempotency_key, _raw(body),
                          lambda: working_memory.rollback_session(deps, ref, body.version, body.steps))


@router.post("/users/{user_id}/tasks/{task_id}/events", status_code=201, response_model=s.TaskOut,
             responses=links.TASK_EVENT)
def post_task_event(user_id: PathStr, task_id: PathStr, request: Request, body: s.TaskEventBody,
                    tenant_id: str = Tenant, deps: Dependencies = Deps, idempotency_key: str | None = IdemKey):
    scope = scope_of(tenant_id, user_id)
    return run_idempotent(deps, request, scope, idempotency_key, _raw(body),
                          lambda: tasks.record_task_event(deps, scope, task_id, body.status, body.metadata, body.ts),
                          status=201)


@router.get("/users/{user_id}/tasks", response_model=s.TasksResponse)
def get_tasks(user_id: PathStr, status: str = Query("open", pattern="^(open|all)$"),
              limit: int = Query(10, ge=1, le=MAX_TASKS_LISTED), tenant_id: str = Tenant, deps: Dependencies = Deps):
    return tasks.list_tasks(deps, scope_of(tenant_id, user_id), status, limit)


@router.get("/users/{user_id}/profile", response_model=s.ProfileResponse, responses=links.PROFILE)
def get_profile(user_id: PathStr, history: bool = Query(False), tenant_id: str = Tenant, deps: Dependencies = Deps):
    return profile.profile(deps, scope_of(tenant_id, user_id), include_history=history)


@router.patch("/users/{user_id}/profile/items/{item_id}", response_model=s.ProfileItemOut)
def patch_profile_item(user_id: PathStr, item_id: PathStr, request: Request, body: s.ProfilePatchBody,
                       tenant_id: str = Tenant, deps: Dependencies = Deps, idempotency_key: str | None = IdemKey):
    scope = scope_of(tenant_id, user_id)
    return run_idempotent(deps, request, scope, idempotency_key, _raw(body),
                          lambda: profile.correct_profile_item(deps, scope, item_id, body.object, body.confidence))


@router.delete("/users/{user_id}/profile/items/{item_id}", response_model=s.DeletedItemResponse)
def delete_profile_item(user_id: PathStr, item_id: PathStr, tenant_id: str = Tenant, deps: Dependencies = Deps):
    return profile.delete_profile_item(deps, scope_of(tenant_id, user_id), item_id)


@router.delete("/users/{user_id}/memories/{memory_id}", response_model=s.MemoryForgotten)
def delete_memory(user_id: PathStr, memory_id: PathStr, tenant_id: str = Tenant, deps: Dependencies = Deps):
    return memories.forget_memory(deps, scope_of(tenant_id, user_id), memory_id)


@router.post("/users/{user_id}/memories/{memory_id}/feedback", response_model=s.FeedbackResponse)
def post_feedback(user_id: PathStr, memory_id: PathStr, body: s.FeedbackBody, tenant_id: str = Tenant,
                  deps: Dependencies = Deps):
    return memories.feedback(deps, scope_of(tenant_id, user_id), memory_id, body.useful)


@router.delete("/users/{user_id}/memories", response_model=s.ForgetResponse)
def delete_memories(user_id: PathStr, type: EventType | None = Query(None),  # noqa: A002 - the API's name
                    before: str | None = Query(None, max_length=MAX_TIME_CHARS, description=TIME_TEXT),
                    tenant_id: str = Tenant, deps: Dependencies = Deps):
    return memories.forget(deps, scope_of(tenant_id, user_id), type.value if type else None, before)


@router.put("/users/{user_id}/consent", response_model=s.ConsentResponse, responses=links.CONSENTED)
def put_consent(user_id: PathStr, request: Request, body: s.ConsentBody, tenant_id: str = Tenant,
                deps: Dependencies = Deps, idempotency_key: str | None = IdemKey):
    scope = scope_of(tenant_id, user_id)
    return run_idempotent(deps, request, scope, idempotency_key, _raw(body),
                          lambda: users.set_consent(deps, scope, body.long_term, body.age))


@router.post("/users/{user_id}/devices", status_code=201, response_model=s.DeviceResponse)
def post_device(user_id: PathStr, request: Request, body: s.DeviceBody, tenant_id: str = Tenant,
                deps: Dependencies = Deps, idempotency_key: str | None = IdemKey):
    scope = scope_of(tenant_id, user_id)
    return run_idempotent(deps, request, scope, idempotency_key, _raw(body),
                          lambda: users.link_device(deps, scope, body.device_id, body.kind), status=201)


# --- privacy: erasure saga and export ------------------------------------------------------------

@router.post("/users/{user_id}/erasure", status_code=202, response_model=s.ErasureAccepted,
             responses=links.ERASURE)
def post_erasure(user_id: PathStr, tenant_id: str = Tenant, deps: Dependencies = Deps):
    # Idempotent by nature: a user with a running job gets that job back.
    return JSONResponse(erasure.request_erasure(deps, scope_of(tenant_id, user_id)), status_code=202)


@router.get("/erasure-jobs/{job_id}", response_model=s.ErasureJobResponse)
def get_erasure_job(job_id: PathStr, tenant_id: str = Tenant, deps: Dependencies = Deps):
    return erasure.job_view(deps, tenant_id, job_id)


EXPORT_SHAPES = {"oneOf": [s.ExportDocument.model_json_schema(), s.ExportLink.model_json_schema()]}


@router.get("/users/{user_id}/export", response_class=StreamingResponse,
            responses={200: {"content": {"application/json": {"schema": EXPORT_SHAPES}},
                             "description": "everything held about the user: the document itself, or, when it is "
                                            "too large for one response (or delivery=url), a link to it"}})
def get_export(user_id: PathStr, tenant_id: str = Tenant, deps: Dependencies = Deps,
               delivery: str = Query("auto", pattern="^(auto|url)$",
                                     description="auto: the document inline unless it is too large, then a link; "
                                                 "url: always a link")):
    result = deliver(deps, scope_of(tenant_id, user_id), delivery=delivery)
    if isinstance(result, dict):
        # The URL is a credential for its lifetime: no cache along the way may keep it.
        return JSONResponse(s.ExportLink.model_validate(result).model_dump(), headers={"Cache-Control": "no-store"})
    # Produced in full before the 200 goes out, so a store that is down is a clean 503.
    return StreamingResponse(iter(result), media_type="application/json")
