"""Calendar dates a question names ("on 3 June, 2023", "October 13, 2023", "in May 2022",
"2023-06-03", "2023年6月3日", "去年十月" is relative and left to ``relative_time``): the window of
time it asks about. A day is that day (a day either side: a turn's time and the day it recounts
may differ by one); a month is the whole month. A day and month without a year is the latest one
not after now; a year alone, or a month alone, names too much to narrow anything.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_MONTHS = {name: i + 1 for i, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec"))) for name in names}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d{2})"
_FORMS = (
    # 3 June, 2023 / 3rd of June 2023 / 3 June
    ("dmy", re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH})\.?(?:,?\s+{_YEAR})?\b", re.I)),
    # June 3, 2023 / June 3rd / June 3
    ("mdy", re.compile(rf"\b({_MONTH})\.?\s+{_DAY}(?:,?\s+{_YEAR})?\b(?!\s*(?:am|pm|:))", re.I)),
    # June 2023 / June, 2023
    ("my", re.compile(rf"\b({_MONTH})\.?,?\s+{_YEAR}\b", re.I)),
    ("iso", re.compile(r"\b((?:19|20)\d{2})-(\d{1,2})-(\d{1,2})\b")),
    # 2023年6月3日 / 2023年6月 / 6月3日 / 6月3号
    ("zh", re.compile(r"(?:((?:19|20)\d{2})年)?(\d{1,2})月(?:(\d{1,2})[日号])?")),
)


def _day_window(year: int, month: int, day: int) -> tuple[datetime, datetime] | None:
    try:
        when = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None
    return when - timedelta(days=1), when + timedelta(days=2)


def _month_window(year: int, month: int) -> tuple[datetime, datetime] | None:
    if not 1 <= month <= 12:
        return None
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _latest_year(month: int, day: int, now: datetime) -> int:
    """The year of the latest (month, day) not after ``now``."""
    try:
        return now.year if datetime(now.year, month, day, tzinfo=UTC) <= now else now.year - 1
    except ValueError:
        return now.year


def named_window(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The window of the first calendar date ``text`` names, or None."""
    found: list[tuple[int, tuple[datetime, datetime]]] = []
    for form, pattern in _FORMS:
        for match in pattern.finditer(text):
            if re.search(r"\bmay\b", match.group(0)) and form in ("dmy", "mdy"):
                continue  # "may" in lower case is the verb ("I may 2 ..."); the month is written May
            window = _window(form, match.groups(), now)
            if window is not None:
                found.append((match.start(), window))
                break
    return min(found, key=lambda f: f[0])[1] if found else None


def _window(form: str, groups: tuple, now: datetime) -> tuple[datetime, datetime] | None:
    if form == "dmy":
        day, month, year = int(groups[0]), _MONTHS[groups[1].lower()], groups[2]
    elif form == "mdy":
        month, day, year = _MONTHS[groups[0].lower()], int(groups[1]), groups[2]
    elif form == "my":
        return _month_window(int(groups[1]), _MONTHS[groups[0].lower()])
    elif form == "iso":
        return _day_window(int(groups[0]), int(groups[1]), int(groups[2]))
    else:  # zh: a month needs its year, a day its month
        year, month, day = groups
        if day is None:
            return _month_window(int(year), int(month)) if year else None
        day, month = int(day), int(month)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return _day_window(int(year) if year else _latest_year(month, day, now), month, day)
