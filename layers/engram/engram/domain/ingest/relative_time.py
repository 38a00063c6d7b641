"""Relative times in what users say ("next week", "in two days", "last Friday", "上周五", "下个月"),
resolved against the moment the turn was said, never the server's clock: a turn replayed a week
later still means the same day.

One table of expressions, English and Chinese. The earliest expression in the text wins (the
longest at the same place, so "大后天" is not read as "后天", nor "上周五" as "上周"). Weeks start
on Monday, as both a Chinese "上周五" (Friday of last calendar week) and an ISO week do; an English
"last Friday" is the most recent Friday before the day it was said, "next Friday" the first one
after it. What stays ambiguous without tense or context ("on Friday", "in October", "the other
day") is not resolved: a wrong date is worse than none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

from ..limits import in_time_range

_MAX_COUNT_DIGITS = 7  # "9999999 days ago" is already out of range; longer numbers are not parsed

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
               "a few": 3, "few": 3, "several": 3}
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}

_EN_COUNT = (r"(\d+|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|"
             r"eleven|twelve)")
_EN_UNIT = r"(day|week|fortnight|month|year)s?(?!-)"  # not "in a year-long course"
# A count is read from its first digit only: one begun inside a run of digits ends where the run
# does, as the whole run would. Tried at every digit of a long run, it read the rest of the run
# each time, the square of its length (8,000 digits in a message took 5 s).
_ZH_COUNT = r"((?<!\d)\d+|(?<![零一二两三四五六七八九十])[零一二两三四五六七八九十]+|半)"
_ZH_UNIT = r"(天|日|周|个星期|星期|个礼拜|礼拜|个月|年)"
_WEEKDAY = "|".join(WEEKDAYS)

Shift = Callable[[re.Match, datetime], datetime]


def _count(token: str) -> float:
    token = token.lower()
    if token.isdigit():
        if len(token) > _MAX_COUNT_DIGITS:
            raise OverflowError(f"{token[:_MAX_COUNT_DIGITS]}... is out of range")
        return int(token)
    if token in _EN_NUMBERS:
        return _EN_NUMBERS[token]
    if token == "半":
        return 0.5
    if "十" in token:  # 十 = 10, 十二 = 12, 二十 = 20, 二十五 = 25
        tens, _, ones = token.partition("十")
        return _ZH_DIGITS.get(tens, 1) * 10 + _ZH_DIGITS.get(ones, 0)
    return int("".join(str(_ZH_DIGITS[c]) for c in token)) if all(c in _ZH_DIGITS for c in token) else 1


def _months(base: datetime, months: int) -> datetime:
    month_index = base.month - 1 + months
    year, month = base.year + month_index // 12, month_index % 12 + 1
    return base.replace(year=year, month=month, day=min(base.day, 28))


def shift_by(base: datetime, count: float, unit: str) -> datetime:
    """``count`` units after ``base`` (negative: before). A half month is 15 days, a half year 6 months."""
    unit = unit.lower()
    if unit in ("day", "天", "日"):
        return base + timedelta(days=count)
    if unit in ("week", "周", "个星期", "星期", "个礼拜", "礼拜"):
        return base + timedelta(weeks=count)
    if unit == "fortnight":
        return base + timedelta(weeks=2 * count)
    if unit in ("month", "个月"):
        return _months(base, int(count)) if count == int(count) else base + timedelta(days=30 * count)
    return _months(base, int(12 * count))


def _week_day(base: datetime, weeks: int, weekday: int) -> datetime:
    """``weekday`` (Monday 0) of the calendar week ``weeks`` from the one ``base`` is in."""
    return base + timedelta(days=7 * weeks + weekday - base.weekday())


def _previous(base: datetime, weekday: int) -> datetime:
    return base - timedelta(days=(base.weekday() - weekday) % 7 or 7)


def _following(base: datetime, weekday: int) -> datetime:
    return base + timedelta(days=(weekday - base.weekday()) % 7 or 7)


def _weekend(base: datetime, weeks: int) -> datetime:
    """The Saturday of this weekend (today if it is the weekend), moved by ``weeks``."""
    return _week_day(base, weeks, 5)


_SIGN = {"last": -1, "next": 1, "this": 0, "上": -1, "下": 1, "这": 0, "本": 0}


def _rule(pattern: str, shift: Shift) -> tuple[re.Pattern, Shift]:
    return re.compile(pattern, re.IGNORECASE), shift


_RULES: tuple[tuple[re.Pattern, Shift], ...] = (
    _rule(r"\b(?:the )?day before yesterday\b", lambda m, b: b - timedelta(days=2)),
    _rule(r"\b(?:the )?day after tomorrow\b", lambda m, b: b + timedelta(days=2)),
    _rule(r"\byesterday\b|\blast night\b", lambda m, b: b - timedelta(days=1)),
    _rule(r"\btomorrow\b", lambda m, b: b + timedelta(days=1)),
    _rule(r"\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening)\b", lambda m, b: b),
    _rule(rf"\b{_EN_COUNT} {_EN_UNIT} ago\b", lambda m, b: shift_by(b, -_count(m.group(1)), m.group(2))),
    _rule(rf"\b(?:in|within) {_EN_COUNT} {_EN_UNIT}\b|\b{_EN_COUNT} {_EN_UNIT} from now\b",
          lambda m, b: shift_by(b, _count(m.group(1) or m.group(3)), m.group(2) or m.group(4))),
    _rule(r"\b(?:the )?week before last\b", lambda m, b: b - timedelta(weeks=2)),
    _rule(r"\b(?:the )?week after next\b", lambda m, b: b + timedelta(weeks=2)),
    _rule(rf"\blast ({_WEEKDAY})\b", lambda m, b: _previous(b, WEEKDAYS.index(m.group(1).lower()))),
    _rule(rf"\bnext ({_WEEKDAY})\b", lambda m, b: _following(b, WEEKDAYS.index(m.group(1).lower()))),
    _rule(rf"\bthis (?:coming )?({_WEEKDAY})\b", lambda m, b: _week_day(b, 0, WEEKDAYS.index(m.group(1).lower()))),
    _rule(r"\b(last|next|this) weekend\b", lambda m, b: _weekend(b, _SIGN[m.group(1).lower()])),
    _rule(r"\b(last|next|this) (week|month|year)\b", lambda m, b: shift_by(b, _SIGN[m.group(1).lower()], m.group(2))),
    # Chinese.
    _rule(r"大前天", lambda m, b: b - timedelta(days=3)),
    _rule(r"大后天", lambda m, b: b + timedelta(days=3)),
    _rule(r"(?<![以之])前天", lambda m, b: b - timedelta(days=2)),
    _rule(r"(?<![以之])后天", lambda m, b: b + timedelta(days=2)),
    _rule(r"昨天|昨晚|昨日|昨儿", lambda m, b: b - timedelta(days=1)),
    _rule(r"明天|明晚|明早|明日|明儿", lambda m, b: b + timedelta(days=1)),
    _rule(r"今天|今晚|今早|今日|今儿", lambda m, b: b),
    _rule(rf"{_ZH_COUNT}{_ZH_UNIT}(?:前|以前|之前)", lambda m, b: shift_by(b, -_count(m.group(1)), m.group(2))),
    _rule(rf"{_ZH_COUNT}{_ZH_UNIT}(?:后|以后|之后)", lambda m, b: shift_by(b, _count(m.group(1)), m.group(2))),
    _rule(r"(上|下|这|本)(?:个)?(?:周|星期|礼拜)([一二三四五六日天末])",
          lambda m, b: _week_day(b, _SIGN[m.group(1)], _ZH_WEEKDAY[m.group(2)])),
    _rule(r"(上|下|这|本)(?:个)?(?:周|星期|礼拜)", lambda m, b: b + timedelta(weeks=_SIGN[m.group(1)])),
    _rule(r"(?<![一马])(上|下|这|本)(?:个)?月", lambda m, b: _months(b, _SIGN[m.group(1)])),
    _rule(r"前年", lambda m, b: _months(b, -24)),
    _rule(r"后年", lambda m, b: _months(b, 24)),
    _rule(r"去年", lambda m, b: _months(b, -12)),
    _rule(r"明年", lambda m, b: _months(b, 12)),
    _rule(r"今年", lambda m, b: b),
)


# Every rule at once, to tell in one pass that a text names no relative time (most do not).
_ANY_RULE = re.compile("|".join(f"(?:{pattern.pattern})" for pattern, _ in _RULES), re.IGNORECASE)


def resolve_relative_time(text: str, base: datetime) -> tuple[datetime | None, str | None]:
    """The absolute time the text's first relative expression refers to, from ``base``.

    ``(when, expression)``; ``(None, expression)`` when the expression names a time outside the
    documented range (or one no calendar holds); ``(None, None)`` when there is none. Never raises.
    """
    if not _ANY_RULE.search(text):
        return None, None
    found = [(m.start(), -len(m.group(0)), i, m) for i, (pattern, _) in enumerate(_RULES)
             if (m := pattern.search(text))]
    if not found:
        return None, None
    *_, index, match = min(found, key=lambda f: f[:3])
    try:
        when = _RULES[index][1](match, base)
    except (OverflowError, ValueError):  # beyond datetime's years, or a count too long
        return None, match.group(0)
    return (when if in_time_range(when) else None), match.group(0)
