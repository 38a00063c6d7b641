"""The HTTP API: FastAPI routes that validate, resolve the tenant, and call the service layer."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from .. import __version__
from ..errors import EngramError
from ..service.health import check_stores


def _field_of(error: dict) -> str:
    loc = [str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path", "header")]
    return ".".join(loc) or "body"


def create_app() -> FastAPI:
    app = FastAPI(title="Engram", version=__version__, description="User memory for AI agents")

    @app.exception_handler(EngramError)
    async def engram_error(_: Request, exc: EngramError) -> JSONResponse:
        return JSONResponse(exc.to_body(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        field = _field_of(first)
        body = {"error": {"code": "invalid_request", "message": f"{field}: {first.get('msg', 'invalid')}",
                          "field": field}}
        return JSONResponse(body, status_code=400)

    @app.get("/v1/health")
    def health() -> dict:
        return check_stores()

    return app
