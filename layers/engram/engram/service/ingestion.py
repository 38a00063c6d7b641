"""Ingestion as four steps: clean -> extract -> cleanse -> route.

Each step takes and returns plain dataclasses (``domain.codec`` turns them into JSON), so a
step can run as its own Lambda (``functions/ingest_*``) or be chained in-process by the API.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..domain.cleaning import clean_turn, order_turns, validate_id
from ..domain.cleansing import cleanse as cleanse_extraction
from ..domain.extraction import extract_event, extract_facts
from ..domain.model import Extraction, Role, Scope, Turn
from ..errors import PayloadTooLarge, Unprocessable, ValidationFailed
from .llm import LlmExtractor, configured_extractor

MAX_MESSAGES = 100


@dataclass(frozen=True)
class TurnBatch:
    scope: Scope
    session_id: str
    device_id: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class ExtractedTurn:
    turn: Turn
    event: Extraction | None
    facts: tuple[Extraction, ...] = ()


@dataclass(frozen=True)
class ExtractedBatch:
    scope: Scope
    session_id: str
    device_id: str
    items: tuple[ExtractedTurn, ...]


def clean(scope: Scope, body: dict) -> TurnBatch:
    """Validate the whole request before anything is written: one bad message rejects the batch
    with the field named, so a client never has to guess which half was kept."""
    if not isinstance(body, dict):
        raise ValidationFailed("body must be a JSON object", field="body")
    session_id = validate_id(body.get("session_id"), "session_id")
    device_id = validate_id(body.get("device_id"), "device_id")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ValidationFailed("messages must be a non-empty list", field="messages")
    if len(messages) > MAX_MESSAGES:
        raise PayloadTooLarge(f"at most {MAX_MESSAGES} messages per request", field="messages")
    turns = [clean_turn(i, m, session_id) for i, m in enumerate(messages)]
    by_id: dict[str, Turn] = {}
    for i, turn in enumerate(turns):
        twin = by_id.setdefault(turn.message_id, turn)
        if twin is not turn and twin.raw_sha256 != turn.raw_sha256:
            raise Unprocessable(f"message_id {turn.message_id} appears twice with different content",
                                field=f"messages[{i}].message_id")
    return TurnBatch(scope, session_id, device_id, tuple(order_turns(list(by_id.values()))))


def extract(batch: TurnBatch, llm: LlmExtractor | None = None) -> ExtractedBatch:
    """Rules first; the LLM (when configured) only adds facts the rules did not find."""
    llm = llm if llm is not None else configured_extractor()
    items = []
    for turn in batch.turns:
        if turn.role is not Role.USER:
            items.append(ExtractedTurn(turn, None))
            continue
        facts = extract_facts(turn)
        if llm is not None:
            known = {(f.predicate, (f.object or "").lower()) for f in facts}
            facts += [f for f in llm.extract(turn) if (f.predicate, (f.object or "").lower()) not in known]
        items.append(ExtractedTurn(turn, extract_event(turn, facts), tuple(facts)))
    return ExtractedBatch(batch.scope, batch.session_id, batch.device_id, tuple(items))


def cleanse(batch: ExtractedBatch) -> ExtractedBatch:
    """Tag tentative statements, resolve relative times, all against each turn's own clock."""
    items = []
    for item in batch.items:
        if item.event is None:
            items.append(item)
            continue
        text, sent_at = item.turn.content, item.turn.client_ts
        event = cleanse_extraction(item.event, text, sent_at)
        facts = tuple(cleanse_extraction(f, text, sent_at) for f in item.facts)
        items.append(ExtractedTurn(item.turn, event, facts))
    return replace(batch, items=tuple(items))
