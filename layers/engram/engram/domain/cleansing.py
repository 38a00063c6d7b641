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
from datetime import datetime, timedelta

from .limits import in_time_range
from .model import Extraction

TENTATIVE_WEIGHT = 0.2
TENTATIVE_TAG = "tentative"
RESOLVED_TAG, UNRESOLVED_TAG = "time_resolved", "time_unresolved"
_MAX_COUNT_DIGITS = 7  # "9999999 days ago" is already out of range; longer numbers are not parsed

_TENTATIVE_EN = re.compile(
    r"\b(maybe|perhaps|might|if|suppose|supposing|hypothetically|possibly|probably|not sure|thinking about)\b",
    re.IGNORECASE,
)
_TENTATIVE_ZH = re.compile(r"可能|如果|假设|假如|也许|或许|大概|说不定|要是")


def is_tentative(text: str) -> bool:
    return bool(_TENTATIVE_EN.search(text) or _TENTATIVE_ZH.search(text))


_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


def _months(base: datetime, months: int) -> datetime:
    month_index = base.month - 1 + months
    year, month = base.year + month_index // 12, month_index % 12 + 1
    return base.replace(year=year, month=month, day=min(base.day, 28))


def _number(token: str) -> int:
    if token.isdigit():
        if len(token) > _MAX_COUNT_DIGITS:
            raise OverflowError(f"{token[:_MAX_COUNT_DIGITS]}... is out of range")
        return int(token)
    return _ZH_DIGITS.get(token, 1)


# (pattern, function of (match, base) -> datetime). Order matters: specific before general.
_RELATIVE: list[tuple[re.Pattern, callable]] = [
    (re.compile(r"\bday before yesterday\b|前天", re.I), lambda m, b: b - timedelta(days=2)),
    (re.compile(r"\bday after tomorrow\b|后天", re.I), lambda m, b: b + timedelta(days=2)),
    (re.compile(r"\byesterday\b|昨天|昨晚", re.I), lambda m, b: b - timedelta(days=1)),
    (re.compile(r"\btomorrow\b|明天", re.I), lambda m, b: b + timedelta(days=1)),
    (re.compile(r"\btonight\b|\btoday\b|今天|今晚", re.I), lambda m, b: b),
    (re.compile(r"\b(\d+) days? ago\b|(\d+|[一二两三四五六七八九十])天前", re.I),
     lambda m, b: b - timedelta(days=_number(m.group(1) or m.group(2)))),
    (re.compile(r"\bin (\d+) days?\b|(\d+|[一二两三四五六七八九十])天后", re.I),
     lambda m, b: b + timedelta(days=_number(m.group(1) or m.group(2)))),
    (re.compile(r"\b(\d+) weeks? ago\b", re.I), lambda m, b: b - timedelta(weeks=_number(m.group(1)))),
    (re.compile(r"\blast week\b|上周|上个?星期|上个?礼拜", re.I), lambda m, b: b - timedelta(weeks=1)),
    (re.compile(r"\bnext week\b|下周|下个?星期|下个?礼拜", re.I), lambda m, b: b + timedelta(weeks=1)),
    (re.compile(r"\b(\d+) months? ago\b", re.I), lambda m, b: _months(b, -_number(m.group(1)))),
    (re.compile(r"\blast month\b|上个?月", re.I), lambda m, b: _months(b, -1)),
    (re.compile(r"\bnext month\b|下个?月", re.I), lambda m, b: _months(b, 1)),
    (re.compile(r"\blast year\b|去年", re.I), lambda m, b: _months(b, -12)),
    (re.compile(r"\bnext year\b|明年", re.I), lambda m, b: _months(b, 12)),
    (re.compile(r"\blast (" + "|".join(_WEEKDAYS) + r")\b", re.I),
     lambda m, b: b - timedelta(days=(b.weekday() - _WEEKDAYS.index(m.group(1).lower())) % 7 or 7)),
    (re.compile(r"\bnext (" + "|".join(_WEEKDAYS) + r")\b", re.I),
     lambda m, b: b + timedelta(days=(_WEEKDAYS.index(m.group(1).lower()) - b.weekday()) % 7 or 7)),
]


def resolve_relative_time(text: str, base: datetime) -> tuple[datetime | None, str | None]:
    """The absolute time a relative expression refers to, measured from the message's own
    timestamp (not the server's clock: a turn replayed next week still means the same day).

    ``(when, expression)``; ``(None, expression)`` when the expression names a time outside the
    documented range (or one no calendar holds); ``(None, None)`` when there is none. Never raises.
    """
    for pattern, shift in _RELATIVE:
        match = pattern.search(text)
        if match:
            try:
                when = shift(match, base)
            except (OverflowError, ValueError):  # beyond datetime's years, or a count too long
                return None, match.group(0)
            return (when if in_time_range(when) else None), match.group(0)
    return None, None


def cleanse(extraction: Extraction, text: str, sent_at: datetime) -> Extraction:
    """Tag tentative statements and resolve relative times of one extraction."""
    tags = list(extraction.tags)
    weight, confidence = extraction.weight, extraction.confidence
    if is_tentative(text):
        tags.append(TENTATIVE_TAG)
        weight = TENTATIVE_WEIGHT
        confidence = min(confidence, TENTATIVE_WEIGHT)
    occurred_at, expression = resolve_relative_time(text, sent_at)
    summary = extraction.summary
    if occurred_at is not None:
        tags.append(RESOLVED_TAG)
        summary = f"{summary} ({expression} = {occurred_at.date().isoformat()})"
    elif expression is not None:
        tags.append(UNRESOLVED_TAG)
    return replace(extraction, tags=tuple(dict.fromkeys(tags)), weight=weight, confidence=confidence,
                   occurred_at=occurred_at or sent_at, summary=summary)
