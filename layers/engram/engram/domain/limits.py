"""The limits every input is held to, in one place.

The HTTP edge (``api.schemas``) publishes them in the OpenAPI schema and refuses what breaks them
with a 4xx naming the field; the domain checks the same rules on every other path in (Step
Functions inputs, jobs), so no value that a store, the clock arithmetic or the JSON encoder cannot
take ever gets past the first step.

- Times lie in ``[TIME_MIN, TIME_MAX)``: 1970-01-01T00:00:00Z up to, not including,
  2200-01-01T00:00:00Z. Every store, Parquet's microsecond timestamps and the date arithmetic of
  recall windows and relative times ("3 days ago") stay representable with room to spare.
- Epoch milliseconds are integers in ``[EPOCH_MS_MIN, EPOCH_MS_MAX)``; the lower bound
  (2001-09-09) refuses epoch *seconds*, which would otherwise land in 1970.
- Text holds no NUL (PostgreSQL cannot store it) and no unpaired surrogate (not encodable as UTF-8).
- Free-form JSON (session fields, task metadata): finite numbers, integers within 64 bits, at
  most ``MAX_JSON_DEPTH`` levels of nesting and ``MAX_JSON_BYTES`` bytes as JSON.
- Sizes: ids, a message's content, a batch of messages, a question, a profile item's object, a
  page of tasks. (The largest ``k`` of a recall is fusion's: ``domain.recall.fusion.MAX_K``.)
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any, NamedTuple

TIME_MIN = datetime(1970, 1, 1, tzinfo=UTC)
TIME_MAX = datetime(2200, 1, 1, tzinfo=UTC)
EPOCH_MS_MIN = 10**12
EPOCH_MS_MAX = int(TIME_MAX.timestamp()) * 1000
TIME_RANGE_TEXT = "between 1970-01-01T00:00:00Z and 2200-01-01T00:00:00Z (exclusive)"

MAX_BODY_BYTES = 6 * 1024 * 1024   # Lambda's own limit for a synchronous request
MAX_ID_CHARS = 128                 # every id: tenant, user, session, device, message, memory
MAX_TIME_CHARS = 64                # a time written as text
MAX_MESSAGES = 100                 # per ingest request
MAX_CONTENT_CHARS = 8000           # per message, as sent
MAX_QUERY_CHARS = 2000             # a recall's question
MAX_OBJECT_CHARS = 200             # a profile item's object, as a user corrects it
MAX_TASKS_LISTED = 100             # one page of a user's tasks
MAX_NAME_CHARS = 64                # a free-form JSON key, a device's kind
MAX_IDEMPOTENCY_KEY_CHARS = 255
MAX_API_KEY_CHARS = 512
MAX_AGE = 150
MAX_ROLLBACK_STEPS = 1000
MAX_VERSION = 2**31
MAX_FIELDS = 64                    # per request and per session, after merging
MAX_JSON_BYTES = 16_384            # per request and per session, after merging
MAX_JSON_DEPTH = 8
JSON_INT_BOUND = 2**63             # integers in [-2**63, 2**63)
MAX_ALIASES = 32                   # session field ``aliases``: {alias: target}
MAX_ALIAS_CHARS = 200


class Problem(NamedTuple):
    """Why a value is refused; ``too_large`` makes it a 413 rather than a 400."""

    message: str
    too_large: bool = False


def in_time_range(when: datetime) -> bool:
    return TIME_MIN <= when < TIME_MAX


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be stored as text, or None."""
    if "\x00" in value:
        return "must not contain NUL characters"
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        return "must not contain unpaired surrogates"
    return None


def json_problem(value: Any) -> Problem | None:
    """Why ``value`` (parsed JSON) breaks the limits of free-form JSON, or None."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return Problem(f"nests deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(node, float) and not math.isfinite(node):
            return Problem("numbers must be finite")
        if isinstance(node, int) and not isinstance(node, bool) and not -JSON_INT_BOUND <= node < JSON_INT_BOUND:
            return Problem("integers must fit in 64 bits")
        if isinstance(node, str) and (problem := text_problem(node)):
            return Problem(problem)
        if isinstance(node, dict):
            for key, item in node.items():
                if not isinstance(key, str):
                    return Problem("object keys must be strings")
                if problem := text_problem(key):
                    return Problem(problem)
                stack.append((item, depth + 1))
        elif isinstance(node, list):
            stack.extend((item, depth + 1) for item in node)
    if json_size(value) > MAX_JSON_BYTES:
        return Problem(f"is larger than {MAX_JSON_BYTES} bytes as JSON", too_large=True)
    return None


def json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))


def aliases_problem(aliases: Any) -> Problem | None:
    """The session field ``aliases`` (how recall reads "that one"): a bounded map of strings."""
    if aliases is None:
        return None
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        return Problem("aliases must be an object of alias -> target strings")
    if len(aliases) > MAX_ALIASES:
        return Problem(f"aliases holds at most {MAX_ALIASES} entries", too_large=True)
    if any(len(k) > MAX_ALIAS_CHARS or len(v) > MAX_ALIAS_CHARS for k, v in aliases.items()):
        return Problem(f"aliases and their targets are at most {MAX_ALIAS_CHARS} characters", too_large=True)
    return None


def finite_json(value: Any) -> Any:
    """``value`` with every non-finite number replaced by None: what was stored before the edge
    refused NaN still reads (and serialises) as JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite_json(v) for v in value]
    return value
