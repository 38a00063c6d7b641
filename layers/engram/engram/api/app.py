"""The FastAPI application: error mapping and routes. No business logic lives here."""

from __future__ import annotations

import re

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import __version__
from ..bootstrap import bootstrap
from ..dependencies import Dependencies
from ..domain.limits import MAX_BODY_BYTES
from ..errors import EngramError
from ..service.health import check_stores
from .deps import dependencies
from .memory_page import PageHeaders
from .memory_page import router as page_router
from .routes import router
from .schemas import DESCRIPTION, HealthResponse

# Pydantic error types that mean "too much", not "malformed": 413, like the domain's own limits.
_TOO_LARGE = {"too_long", "string_too_long"}
# A part of an error's location that is a field's name (not a client's map key or a type's tag).
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


def _field_of(error: dict) -> str:
    """Where the error is, as ``messages[0].client_ts``: the path of names and indexes up to the
    first part that is none (a client's own map key, or a type tag), so no input is echoed."""
    if error.get("type") == "json_invalid":
        return "body"
    loc = list(error.get("loc", ()))
    if loc and loc[0] in ("body", "query", "path", "header"):
        loc = loc[1:]
    field = ""
    for part in loc:
        if isinstance(part, int):
            field += f"[{part}]"
        elif isinstance(part, str) and _NAME.match(part):
            field += f".{part}" if field else part
        else:
            break
    return field or "body"


def _error(status: int, code: str, message: str, field: str | None = None) -> JSONResponse:
    body = {"code": code, "message": message}
    if field:
        body["field"] = field
    return JSONResponse({"error": body}, status_code=status)


class BodyLimit:
    """Refuse a body over ``max_bytes`` with 413 naming ``body``: by its Content-Length before it
    is read, or while it is read when it comes without one."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = Headers(scope=scope).get("content-length", "")
        if length.isascii() and length.isdigit() and int(length) > self.max_bytes:
            response = _error(413, "payload_too_large", f"body is larger than {self.max_bytes} bytes", "body")
            return await response(scope, receive, send)
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:  # FastAPI lets an HTTPException from here reach its handler
                raise StarletteHTTPException(413)
            return message

        return await self.app(scope, limited, send)


def create_app(deps: Dependencies | None = None) -> FastAPI:
    """The app over ``deps`` (the process's own composition root when None)."""
    app = FastAPI(title="Engram", version=__version__, description=DESCRIPTION)
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    app.add_middleware(PageHeaders)
    # The process's own are built by the first request that needs them: create_app() runs at a
    # Lambda's init, which must not wait for a store.
    app.state.deps_of = bootstrap if deps is None else lambda: deps

    @app.exception_handler(EngramError)
    async def engram_error(_: Request, exc: EngramError) -> JSONResponse:
        return JSONResponse(exc.to_body(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        field = _field_of(first)
        if first.get("type") in _TOO_LARGE:
            return _error(413, "payload_too_large", f"{field}: {first.get('msg', 'too large')}", field)
        return _error(400, "invalid_request", f"{field}: {first.get('msg', 'invalid')}", field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code in (400, 413):  # a body that does not parse (bad UTF-8, nested too deep), or too big
            code = "invalid_request" if exc.status_code == 400 else "payload_too_large"
            detail = "is not valid JSON" if exc.status_code == 400 else f"is larger than {MAX_BODY_BYTES} bytes"
            return _error(exc.status_code, code, f"body {detail}", "body")
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        return _error(500, "internal_error", f"unexpected {type(exc).__name__}; the request can be retried")

    @app.get("/v1/health", response_model=HealthResponse)
    def health(request: Request) -> dict:
        return check_stores(dependencies(request))

    app.include_router(router)
    app.include_router(page_router)
    return app
