"""Ingestion as one chain of four steps: clean -> extract -> cleanse -> route.

``INGEST_CHAIN`` is the only definition. Each step takes and returns plain dataclasses
(``domain.codec`` turns them into JSON), so the chain runs in-process (``run_ingest``, the API's
path) or one Lambda per step under ``IngestStateMachine`` (``run_ingest_step``, the same steps
between a JSON decode and encode).

Consent reaches the chain at the extract step, which reads the user's state once and attaches it
to the batch (``Permissions``): it decides whether the LLM extractor may read a turn, and the
cleanse step withholds a child's words from the write step. The write step trusts neither: it
reads the state itself, and afterwards takes back (``retroactive``) whatever it wrote under a
consent withdrawn meanwhile.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..dependencies import Dependencies
from ..domain.cleaning import clean_turn, order_turns, validate_id
from ..domain.cleansing import cleanse as cleanse_extraction
from ..domain.codec import from_jsonable, to_jsonable
from ..domain.consent import Permissions
from ..domain.extraction import extract_event, extract_facts, extract_reply
from ..domain.model import Extraction, Role, Scope, Turn
from ..errors import Conflict, PayloadTooLarge, Unprocessable, ValidationFailed
from ..ports import LlmExtractor
from .retroactive import take_back
from .users import write_lease

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
    permissions: Permissions = Permissions()


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


def extract(batch: TurnBatch, llm: LlmExtractor | None = None,
            permissions: Permissions = Permissions()) -> ExtractedBatch:
    """Rules first; the LLM (when configured, and when ``permissions`` let it read the turn) only
    adds facts the rules did not find."""
    items, said = [], []  # said: the facts of earlier turns, which a correction ("I meant 31") refers to
    for turn in batch.turns:
        if turn.role is not Role.USER:  # what the assistant said is memory, never the user's belief
            items.append(ExtractedTurn(turn, extract_reply(turn)))
            continue
        facts = extract_facts(turn, said)
        if llm is not None and permissions.llm_may_read(sensitive=any(f.sensitive for f in facts)):
            known = {(f.predicate, (f.object or "").lower()) for f in facts}
            facts += [f for f in llm.extract(turn) if (f.predicate, (f.object or "").lower()) not in known]
        said += facts
        items.append(ExtractedTurn(turn, extract_event(turn, facts), tuple(facts)))
    return ExtractedBatch(batch.scope, batch.session_id, batch.device_id, tuple(items), permissions)


def cleanse(batch: ExtractedBatch) -> ExtractedBatch:
    """Tag tentative statements, resolve relative times, all against each turn's own clock."""
    items = []
    for item in batch.items:
        if item.event is None:
            items.append(item)
            continue
        text, sent_at = item.turn.content, item.turn.client_ts
        event = cleanse_extraction(item.event, text, sent_at, hedges_doubt=item.turn.role is Role.USER)
        facts = tuple(cleanse_extraction(f, text, sent_at) for f in item.facts)
        items.append(ExtractedTurn(item.turn, event, facts))
    if batch.permissions.child_mode:
        items = [_withheld(item) for item in items]
    return replace(batch, items=tuple(items))


def _withheld(item: ExtractedTurn) -> ExtractedTurn:
    """A child's turn as the write step gets it: what was said stops here, once it has been typed
    and timed; the type, times, tags, ids and hash go on (and the write step stores no more)."""
    event = replace(item.event, summary="", keywords=()) if item.event is not None else None
    return ExtractedTurn(replace(item.turn, content=""), event, ())


@dataclass(frozen=True)
class IngestStep:
    name: str
    input_type: type | None      # None: the request ``{"tenant", "user_id", "body"}`` itself
    run: Callable[[Dependencies, object], object]


def _clean(_deps: Dependencies, request: object) -> TurnBatch:
    if not isinstance(request, dict):
        raise ValidationFailed("the ingest request must be an object", field="body")
    scope = Scope(validate_id(request.get("tenant"), "tenant"), validate_id(request.get("user_id"), "user_id"))
    return clean(scope, request.get("body"))


def _extract(deps: Dependencies, batch: TurnBatch) -> ExtractedBatch:
    return extract(batch, deps.llm, Permissions.of(deps.users.state(batch.scope)))


def _route(deps: Dependencies, batch: ExtractedBatch) -> dict:
    from .routing import route  # routing writes to the stores; the steps before it only read consent

    try:
        return route(batch, deps)
    finally:  # a write cut short may have written too: it is checked as well
        _take_back_if_withdrawn(deps, batch)


def _take_back_if_withdrawn(deps: Dependencies, batch: ExtractedBatch) -> None:
    """A consent withdrawn while this batch was written (the write step read the state before
    the change, and the change's own take_back ran before these writes landed) is applied now."""
    current = Permissions.of(deps.users.state(batch.scope))
    if not batch.permissions.withdrawn_in(current):
        return
    # Under a write lease, as any write: a user being erased (409) loses everything anyway. (The
    # lease may be the request's own, held since before this read: the state read here decides.)
    with contextlib.suppress(Conflict), write_lease(deps, batch.scope):
        take_back(deps, batch.scope, current, actor="ingest")


INGEST_CHAIN: tuple[IngestStep, ...] = (
    IngestStep("clean", None, _clean),
    IngestStep("extract", TurnBatch, _extract),
    IngestStep("cleanse", ExtractedBatch, lambda _deps, batch: cleanse(batch)),
    IngestStep("route", ExtractedBatch, _route),
)
STEPS = {step.name: step for step in INGEST_CHAIN}


def run_ingest(deps: Dependencies, scope: Scope, body: object) -> dict:
    """The whole chain in-process (the API's path): each step's output is the next one's input."""
    value: object = {"tenant": scope.tenant, "user_id": scope.user_id, "body": body}
    for step in INGEST_CHAIN:
        value = step.run(deps, value)
    return value


def ingest(deps: Dependencies, scope: Scope, body: object) -> dict:
    """The configured runner (``ENGRAM_INGEST_RUNNER``): in-process, or ``IngestStateMachine``."""
    if deps.settings.ingest_runner == "stepfunctions":
        if not deps.settings.ingest_state_machine_arn:
            raise ValidationFailed("ENGRAM_INGEST_RUNNER=stepfunctions needs ENGRAM_INGEST_STATE_MACHINE_ARN",
                                   field="runner")
        return deps.workflows.run_sync(deps.settings.ingest_state_machine_arn,
                                       {"tenant": scope.tenant, "user_id": scope.user_id, "body": body})
    return run_ingest(deps, scope, body)


def run_ingest_step(deps: Dependencies, name: str, event: dict) -> dict:
    """One step as its own Lambda: JSON in (the previous step's output), JSON out."""
    step = STEPS[name]
    value = event if step.input_type is None else from_jsonable(step.input_type, event)
    if step.input_type is not None:  # a batch from JSON names its owner: validated as at the first step
        validate_id(value.scope.tenant, "tenant")
        validate_id(value.scope.user_id, "user_id")
    return to_jsonable(step.run(deps, value))
