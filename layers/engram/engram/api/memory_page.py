"""The memory page's routes: the link an agent asks for (API key), and the page its user opens
with that link (the token alone), whose forms correct, delete and export through the same use
cases, fence and idempotency as the agent-facing routes."""

from __future__ import annotations

from urllib.parse import parse_qsl

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, StreamingResponse
from pydantic import BaseModel, ValidationError
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..dependencies import Dependencies
from ..errors import ValidationFailed
from ..service import memory_page, profile
from ..service.export import deliver
from . import page_html
from . import page_schemas as ps
from . import schemas as s
from .deps import PathStr, dependencies, run_idempotent, scope_of, tenant

ERRORS = {code: {"model": s.ErrorResponse} for code in (400, 401, 403, 404, 409, 413, 503)}
router = APIRouter(prefix="/v1", responses=ERRORS, tags=["memory page"])
PAGE = "/users/{user_id}/memory-page"
# The token is in the page's URL: no cache may keep a page, no Referer may carry it, no frame may
# hold it (a framed page could be clicked through), and nothing but the page's own style may load.
PAGE_HEADERS = {
    "Content-Security-Policy": page_html.CONTENT_SECURITY_POLICY, "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer", "Cache-Control": "no-store", "X-Frame-Options": "DENY",
}
_FORM_TYPE = "application/x-www-form-urlencoded"
_MAX_FORM_FIELDS = 16


class PageHeaders:
    """Every response under the page's path carries PAGE_HEADERS, the error answers too."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or "/memory-page" not in scope.get("path", ""):
            return await self.app(scope, receive, send)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in PAGE_HEADERS.items():
                    headers[name] = value
            await send(message)

        return await self.app(scope, receive, with_headers)


def _public_base(request: Request, deps: Dependencies) -> str:
    """The API's base URL as its caller sees it: configured, else API Gateway's domain and stage
    prefix (the event's full path less the route's), else the request's own."""
    if deps.settings.api_public_url:
        return deps.settings.api_public_url.rstrip("/")
    event = request.scope.get("aws.event") or {}
    context, own = event.get("requestContext") or {}, event.get("path") or ""
    full = context.get("path") or ""
    if context.get("domainName") and own and full.endswith(own):
        return f"https://{context['domainName']}{full[:len(full) - len(own)]}"
    return str(request.base_url).rstrip("/")


@router.post("/users/{user_id}/memory-page-links", status_code=201, response_model=ps.PageLinkResponse)
def post_page_link(user_id: PathStr, request: Request, body: ps.PageLinkBody | None = None,
                   tenant_id: str = Depends(tenant), deps: Dependencies = Depends(dependencies)):
    """A short-lived link to the user's memory page, for the agent to hand to its user."""
    scope = scope_of(tenant_id, user_id)
    link = memory_page.issue_link(deps, scope, body.ttl_s if body else None)
    path = f"/v1{PAGE.format(user_id=user_id)}?token={link['token']}"
    return JSONResponse({"url": _public_base(request, deps) + path, "path": path, **link}, status_code=201,
                        headers={"Cache-Control": "no-store"})


HTML = {200: {"content": {"text/html": {"schema": {"type": "string"}}}, "description": "the page (HTML)"}}


@router.get(PAGE, response_class=HTMLResponse, responses=HTML)
def get_memory_page(user_id: PathStr, token: str | None = Query(None, max_length=4096),
                    lang: str | None = Query(None, pattern="^(en|zh)$"),
                    done: str | None = Query(None, pattern="^(corrected|deleted)$"),
                    accept_language: str | None = Header(None, max_length=512),
                    deps: Dependencies = Depends(dependencies)):
    """The user's memory page: what is believed, where it came from, and forms to correct,
    delete and export. Opened with the link's token only (no API key)."""
    scope, expires = memory_page.open_link(deps, user_id, token)
    chosen = page_html.pick_lang(lang, accept_language)
    html = page_html.render_page(memory_page.page_view(deps, scope), token, chosen,
                                 expires.isoformat().replace("+00:00", "Z"), done)
    return HTMLResponse(html)


async def _form[F: BaseModel](request: Request, model: type[F]) -> F:
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != _FORM_TYPE:
        raise ValidationFailed(f"the body must be {_FORM_TYPE}", field="body")
    try:
        pairs = parse_qsl((await request.body()).decode("utf-8"), keep_blank_values=True, strict_parsing=False,
                          max_num_fields=_MAX_FORM_FIELDS)
    except (UnicodeDecodeError, ValueError):
        raise ValidationFailed("the form is not valid UTF-8 or has too many fields", field="body") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise ValidationFailed("a form field is given twice", field="body")
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None


def _form_body(model: type[BaseModel]) -> dict:
    return {"requestBody": {"required": True, "content": {_FORM_TYPE: {"schema": model.model_json_schema()}}}}


def _back(form: ps.PageExportForm, done: str) -> RedirectResponse:
    """Back to the page (POST, redirect, GET: reloading it posts nothing again)."""
    return RedirectResponse(f"../memory-page?{page_html.page_query(form.token or '', form.lang or 'en', done)}",
                            status_code=303)


REDIRECT = {303: {"description": "done: back to the page"}}


async def _page_action(user_id: str, request: Request, deps: Dependencies, form_type: type, body, action,
                       done: str) -> RedirectResponse:
    """A form of the page: its token opens the link, its request id makes a resubmission replay the
    first result, and ``action(scope, form)`` is the same use case the agent-facing route calls."""
    form = await _form(request, form_type)

    def run() -> None:
        scope, _ = memory_page.open_link(deps, user_id, form.token)
        run_idempotent(deps, request, scope, form.request_id, body(form), lambda: action(scope, form))
    await run_in_threadpool(run)
    return _back(form, done)


@router.post(PAGE + "/corrections", status_code=303, response_class=RedirectResponse, responses=REDIRECT,
             openapi_extra=_form_body(ps.PageCorrectionForm))
async def post_page_correction(user_id: PathStr, request: Request, deps: Dependencies = Depends(dependencies)):
    """The page's correction form: the item's object as the user says it is (source ``human``)."""
    return await _page_action(
        user_id, request, deps, ps.PageCorrectionForm, lambda f: {"item_id": f.item_id, "object": f.object},
        lambda scope, f: profile.correct_profile_item(deps, scope, f.item_id, f.object, None), "corrected")


@router.post(PAGE + "/deletions", status_code=303, response_class=RedirectResponse, responses=REDIRECT,
             openapi_extra=_form_body(ps.PageDeletionForm))
async def post_page_deletion(user_id: PathStr, request: Request, deps: Dependencies = Depends(dependencies)):
    """The page's delete button: the item is deleted as DELETE /profile/items/{id} deletes it."""
    return await _page_action(
        user_id, request, deps, ps.PageDeletionForm, lambda f: {"item_id": f.item_id},
        lambda scope, f: profile.delete_profile_item(deps, scope, f.item_id), "deleted")


@router.post(PAGE + "/export", response_class=StreamingResponse, openapi_extra=_form_body(ps.PageExportForm),
             responses={200: {"content": {"application/json": {"schema": {"type": "object"}},
                                          "text/html": {"schema": {"type": "string"}}},
                              "description": "the export document as a download, or (too large to answer "
                                             "inline) a page linking to it"}})
async def post_page_export(user_id: PathStr, request: Request, deps: Dependencies = Depends(dependencies)):
    """The page's download button: the export document of GET /export, as a file."""
    form = await _form(request, ps.PageExportForm)

    def export():
        scope, _ = memory_page.open_link(deps, user_id, form.token)
        return deliver(deps, scope)
    result = await run_in_threadpool(export)
    if isinstance(result, dict):
        return HTMLResponse(page_html.render_export_link(result["export_url"], form.lang or "en"))
    return StreamingResponse(iter(result), media_type="application/json",
                             headers={"Content-Disposition": 'attachment; filename="memory-export.json"'})
