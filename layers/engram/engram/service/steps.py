"""JSON-in, JSON-out faces of the ingestion steps, for one Lambda per step.

Input of the first step: ``{"tenant", "user_id", "body": <the HTTP request body>}``; every
later step takes the previous one's output unchanged.
"""

from __future__ import annotations

from ..domain.cleaning import validate_id
from ..domain.codec import from_jsonable, to_jsonable
from ..domain.model import Scope
from . import ingestion, routing
from .stores import default_stores


def clean_step(event: dict) -> dict:
    scope = Scope(validate_id(event.get("tenant"), "tenant"), validate_id(event.get("user_id"), "user_id"))
    return to_jsonable(ingestion.clean(scope, event.get("body")))


def extract_step(event: dict) -> dict:
    return to_jsonable(ingestion.extract(from_jsonable(ingestion.TurnBatch, event)))


def cleanse_step(event: dict) -> dict:
    return to_jsonable(ingestion.cleanse(from_jsonable(ingestion.ExtractedBatch, event)))


def route_step(event: dict) -> dict:
    return routing.route(from_jsonable(ingestion.ExtractedBatch, event), default_stores())
