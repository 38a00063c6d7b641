"""What the ingestion steps do before the write: clean -> extract -> cleanse, each over plain
dataclasses (``domain.codec`` turns them into JSON between Lambdas). The write is ``route``; the
chain that runs them is ``plan``.

Consent reaches the chain at the extract step, which reads the user's state once and attaches it
to the batch (``Permissions``): it decides whether the LLM extractor may read a turn, and the
cleanse step withholds a child's words from the write step. The write step trusts neither: it
reads the state itself, and afterwards takes back (``retroactive``) whatever it wrote under a
consent withdrawn meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...domain.extraction import extract_event, extract_facts, extract_reply
from ...domain.ingest.sanitise import clean_message, order_turns
from ...domain.ingest.tagging import cleanse as cleanse_extraction
from ...domain.model import Extraction, Role, Scope, Turn
from ...domain.privacy.consent import Permissions
from ...errors import Unprocessable
from ...ports import LlmExtractor
from .command import IngestCommand


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


def clean(command: IngestCommand) -> TurnBatch:
    """The command's messages as turns, in the client's order of time. A message sent twice is
    one turn; one id given to two different messages refuses the batch, naming the second."""
    turns = [clean_message(m, command.session_id) for m in command.messages]
    by_id: dict[str, Turn] = {}
    for i, turn in enumerate(turns):
        twin = by_id.setdefault(turn.message_id, turn)
        if twin is not turn and twin.raw_sha256 != turn.raw_sha256:
            raise Unprocessable(f"message_id {turn.message_id} appears twice with different content",
                                field=f"messages[{i}].message_id")
    return TurnBatch(command.scope, command.session_id, command.device_id, tuple(order_turns(list(by_id.values()))))


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
    return ExtractedTurn(replace(item.turn, content="", substance=""), event, ())
