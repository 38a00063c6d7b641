"""OpenAPI links between the routes: where a response's ids lead next (an ingested turn's session
and memories, a task's next event, a profile item, an erasure job). They document the API's flows
and drive schemathesis' stateful run (tests/integration/test_api_fuzz.py)."""

from __future__ import annotations

import re

USER = {"user_id": "$request.path.user_id"}
_ROUTES = {  # route function -> (path under /v1, method): FastAPI derives operation ids from both
    "get_context": ("/users/{user_id}/sessions/{session_id}/context", "get"),
    "post_rollback": ("/users/{user_id}/sessions/{session_id}/rollback", "post"),
    "post_recall": ("/users/{user_id}/recall", "post"),
    "post_task_event": ("/users/{user_id}/tasks/{task_id}/events", "post"),
    "get_tasks": ("/users/{user_id}/tasks", "get"),
    "get_profile": ("/users/{user_id}/profile", "get"),
    "patch_profile_item": ("/users/{user_id}/profile/items/{item_id}", "patch"),
    "delete_profile_item": ("/users/{user_id}/profile/items/{item_id}", "delete"),
    "post_feedback": ("/users/{user_id}/memories/{memory_id}/feedback", "post"),
    "delete_memory": ("/users/{user_id}/memories/{memory_id}", "delete"),
    "get_export": ("/users/{user_id}/export", "get"),
    "get_erasure_job": ("/erasure-jobs/{job_id}", "get"),
}


def operation_id(route: str) -> str:
    """FastAPI's own ``generate_unique_id`` for the route function ``route``."""
    path, method = _ROUTES[route]
    return re.sub(r"\W", "_", f"{route}/v1{path}") + f"_{method}"


def _link(route: str, parameters: dict, body: dict | None = None) -> dict:
    link = {"operationId": operation_id(route), "parameters": parameters}
    if body is not None:
        link["requestBody"] = body
    return link


def links(status: int, **named: dict) -> dict:
    """The ``responses`` entry of a route whose ``status`` answer leads to ``named`` links."""
    return {status: {"links": named}}


def _in_session(session: str, device: str) -> dict:
    return {**USER, "session_id": session, "device_id": device}


INGESTED = links(
    200,
    SessionContext=_link("get_context", _in_session("$request.body#/session_id", "$request.body#/device_id")),
    ExtractedFeedback=_link("post_feedback", {**USER, "memory_id": "$response.body#/extracted/0/memory_id"}),
    ForgetExtracted=_link("delete_memory", {**USER, "memory_id": "$response.body#/extracted/0/memory_id"}),
    Recall=_link("post_recall", USER),
    Export=_link("get_export", USER),
)
FIELDS_SET = links(
    200,
    Rollback=_link("post_rollback", _in_session("$request.path.session_id", "$request.query.device_id"),
                   {"version": "$response.body#/version"}),
    SessionContext=_link("get_context", _in_session("$request.path.session_id", "$request.query.device_id")),
)
ROLLED_BACK = links(200, SessionContext=_link("get_context", _in_session("$request.path.session_id",
                                                                          "$request.query.device_id")))
RECALLED = links(200, ItemFeedback=_link("post_feedback", {**USER, "memory_id": "$response.body#/items/0/memory_id"}),
                 ForgetItem=_link("delete_memory", {**USER, "memory_id": "$response.body#/items/0/memory_id"}))
TASK_EVENT = links(
    201,
    NextEvent=_link("post_task_event", {**USER, "task_id": "$response.body#/task_id"}),
    Tasks=_link("get_tasks", USER),
)
PROFILE = links(
    200,
    CorrectItem=_link("patch_profile_item", {**USER, "item_id": "$response.body#/items/0/memory_id"}),
    DeleteItem=_link("delete_profile_item", {**USER, "item_id": "$response.body#/items/0/memory_id"}),
)
CONSENTED = links(200, Profile=_link("get_profile", USER))
ERASURE = links(202, Job=_link("get_erasure_job", {"job_id": "$response.body#/job_id"}))
