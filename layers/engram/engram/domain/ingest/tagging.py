"""Step 3 of ingestion: tag what is uncertain and pin down when things happened.

Cleansing never deletes: a tentative statement is kept with a low weight and a tag, so a
later confirmation can raise it and an agent can still see that it was said. Nor does it ever
fail: a relative time that lands outside the documented range (``domain.limits``: "I met her
800000 days ago") stays unresolved, its words kept as said and the extraction tagged
``time_unresolved``, so one such turn never makes its batch fail.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from ..extraction.discourse import META_IF
from ..model import Extraction
from .relative_time import resolve_relative_time

TENTATIVE_WEIGHT = 0.2
TENTATIVE_TAG = "tentative"
RESOLVED_TAG, UNRESOLVED_TAG = "time_resolved", "time_unresolved"

_TENTATIVE_EN = re.compile(
    r"\b(maybe|perhaps|might|if|(?<!\bi )suppose|supposing|hypothetically|possibly|probably|not sure|thinking about)\b",
    re.IGNORECASE,
)
_TENTATIVE_ZH = re.compile(r"可能|如果|假设|假如|也许|或许|大概|说不定|要是")


# Where one statement ends: a sentence's end, a line, or the next item of a list ("2. maybe 80-100?").
# A run of spaces is read from its start only (what follows it decides, wherever in it one starts):
# tried at each of its spaces, it cost the square of its length (8,000 of them took 2 s).
_STATEMENT_END = re.compile(r"[.!?;。！？；\n]+\s*|(?<!\s)\s+(?=\d{1,2}[.)]\s)")


def _hedged(sentence: str) -> bool:
    # "if that matters", "if I'm honest": an "if" about the conversation doubts nothing
    sentence = META_IF.sub("", sentence)
    return bool(_TENTATIVE_EN.search(sentence) or _TENTATIVE_ZH.search(sentence))


def is_tentative(text: str) -> bool:
    """Whether the turn as a whole is said in doubt: a hedge doubts its own sentence, so at least
    half of the turn's statements must carry one. "I might switch to Rust" is tentative; a turn
    listing five answers, one of them "maybe 80-100?", is not (it was kept at a fifth of its weight,
    and ranked below every turn that did not hedge)."""
    statements = [s for s in _STATEMENT_END.split(text) if any(c.isalnum() for c in s)]
    hedged = sum(_hedged(s) for s in statements)
    return hedged > 0 and hedged * 2 >= len(statements)


# Where a clause ends inside a statement: a hedge doubts the clause it is in ("I speak Vietnamese at
# home, so I'm wondering if…" doubts the wondering, not the Vietnamese).
_CLAUSE_END = re.compile(r"[,;:，；：]\s*|(?<!\s)\s+(?:and|but|so|because|though)\s+", re.IGNORECASE)


def is_tentative_fact(text: str, obj: str) -> bool:
    """Whether a fact is said in doubt: every clause that names its object hedges. A fact whose
    object the turn does not name word for word ("diabetic" -> diabetes) is judged as the turn is."""
    clauses = [c for s in _STATEMENT_END.split(text) for c in _CLAUSE_END.split(s)]
    # "vegan diet" is said as "vegan": the object's first word finds its clause when the whole does not
    holding = [c for c in clauses if obj.lower() in c.lower()] or [
        c for c in clauses if obj.split()[0].lower() in c.lower()]
    if not holding:
        return is_tentative(text)
    return all(_hedged(c) for c in holding)


def cleanse(extraction: Extraction, text: str, sent_at: datetime, hedges_doubt: bool = True) -> Extraction:
    """Tag tentative statements and resolve relative times of one extraction. ``hedges_doubt``:
    whether "maybe", "if" make it tentative; the assistant's "you might try..." is what it said,
    not a doubt about the user."""
    tags = list(extraction.tags)
    weight, confidence = extraction.weight, extraction.confidence
    doubted = is_tentative_fact(text, extraction.object) if extraction.is_fact and extraction.object \
        else is_tentative(text)
    if hedges_doubt and doubted:
        tags.append(TENTATIVE_TAG)
        weight = TENTATIVE_WEIGHT
        confidence = min(confidence, TENTATIVE_WEIGHT)
    occurred_at, expression = resolve_relative_time(text, sent_at)
    summary = extraction.summary
    if occurred_at is not None and extraction.is_fact and occurred_at > sent_at:
        # "My daughter Emma starts kindergarten next Monday": the time is the event's, and a
        # belief said now holds from now, never from a day still to come.
        occurred_at = None
    if occurred_at is not None:
        tags.append(RESOLVED_TAG)
        if not extraction.is_fact:  # a belief reads "has child: Emma"; its start is its valid_from
            summary = f"{summary} ({expression} = {occurred_at.date().isoformat()})"
    elif expression is not None:
        tags.append(UNRESOLVED_TAG)
    return replace(extraction, tags=tuple(dict.fromkeys(tags)), weight=weight, confidence=confidence,
                   occurred_at=occurred_at or sent_at, summary=summary)
