"""The FastAPI application: error mapping and routes. No business logic lives here."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..bootstrap import Dependencies
from ..errors import EngramError
from ..service.health import check_stores
from .deps import dependencies
from .routes import router
from .schemas import HealthResponse

# Pydantic error types that mean "too much", not "malformed": 413, like the domain's own limits.
_TOO_LARGE = {"too_long", "string_too_long"}


def _field_of(error: dict) -> str:
    field = ""
    for part in error.get("loc", ()):
        if part in ("body", "query", "path", "header") and not field:
            continue
        field += f"[{part}]" if isinstance(part, int) else (f".{part}" if field else str(part))
    return field or "body"


def _error(status: int, code: str, message: str, field: str | None = None) -> JSONResponse:
    body = {"code": code, "message": message}
    if field:
        body["field"] = field
    return JSONResponse({"error": body}, status_code=status)


def create_app(deps: Dependencies | None = None) -> FastAPI:
    """The app over ``deps`` (the process's own composition root when None)."""
    app = FastAPI(title="Engram", version=__version__, description="User memory for AI agents")
    app.state.deps = deps

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
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        return _error(500, "internal_error", f"unexpected {type(exc).__name__}; the request can be retried")

    @app.get("/v1/health", response_model=HealthResponse)
    def health(request: Request) -> dict:
        return check_stores(dependencies(request))

    app.include_router(router)
    return app
