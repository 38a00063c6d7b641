"""Relative times resolved against the turn's own time, English and Chinese, with the ones that
must stay unresolved (ambiguous, or not times at all)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engram.domain.ingest.relative_time import resolve_relative_time

SAID = datetime(2026, 5, 20, 14, 30, tzinfo=UTC)  # a Wednesday

CASES = [
    ("I booked a flight to Lisbon for next week", date(2026, 5, 27)),
    ("My exam is in two days", date(2026, 5, 22)),
    ("in 3 days I fly out", date(2026, 5, 23)),
    ("We leave in a week", date(2026, 5, 27)),
    ("the results come in a couple of days", date(2026, 5, 22)),
    ("I moved here a few days ago", date(2026, 5, 17)),
    ("I saw her two weeks ago", date(2026, 5, 6)),
    ("I started the job three months ago", date(2026, 2, 20)),
    ("We met a year ago", date(2025, 5, 20)),
    ("the party is a fortnight from now", date(2026, 6, 3)),
    ("Last Friday I ran 10k", date(2026, 5, 15)),
    ("next Monday is my interview", date(2026, 5, 25)),
    ("this Friday I'm off", date(2026, 5, 22)),
    ("I went hiking last weekend", date(2026, 5, 16)),
    ("Going camping this weekend", date(2026, 5, 23)),
    ("next weekend we paint the house", date(2026, 5, 30)),
    ("last night I couldn't sleep", date(2026, 5, 19)),
    ("this morning I had a migraine", date(2026, 5, 20)),
    ("the day before yesterday", date(2026, 5, 18)),
    ("I adopted a cat last month", date(2026, 4, 20)),
    ("we marry next year", date(2027, 5, 20)),
    ("the week before last I was ill", date(2026, 5, 6)),
    ("我上周五去看了牙医", date(2026, 5, 15)),
    ("下周三开会", date(2026, 5, 27)),
    ("这周六去爬山", date(2026, 5, 23)),
    ("上周末我们去了海边", date(2026, 5, 16)),
    ("我下个月搬家", date(2026, 6, 20)),
    ("我上个月搬到深圳了", date(2026, 4, 20)),
    ("两天后出发", date(2026, 5, 22)),
    ("三天前我感冒了", date(2026, 5, 17)),
    ("两周后考试", date(2026, 6, 3)),
    ("十天前买的", date(2026, 5, 10)),
    ("半个月前开始学钢琴", date(2026, 5, 5)),
    ("三个月后回国", date(2026, 8, 20)),
    ("大后天是我生日", date(2026, 5, 23)),
    ("大前天下雨了", date(2026, 5, 17)),
    ("前天", date(2026, 5, 18)),
    ("昨晚没睡好", date(2026, 5, 19)),
    ("明年去日本", date(2027, 5, 20)),
    ("前年我在北京", date(2024, 5, 20)),
    ("Yesterday I said I'd go next week", date(2026, 5, 19)),  # the first expression
]

UNRESOLVED = [
    "I like Fridays",
    "on Friday we meet",          # past or coming Friday: the tense would have to say
    "in October I fly to Kyoto",
    "the other day I saw a fox",
    "I took a year-long course",
    "以后天气会变好",               # 以后 + 天气, not 后天
    "尝一下月饼",                   # 一下 + 月饼, not 下月
    "我每天都跑步",
    "I have two weeks of holiday",
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_a_relative_time_is_the_day_it_names_from_when_it_was_said(text, expected):
    when, expression = resolve_relative_time(text, SAID)
    assert when is not None and when.date() == expected, (text, when, expression)
    assert expression and expression in text


@pytest.mark.parametrize("text", UNRESOLVED)
def test_what_is_not_a_relative_time_is_left_alone(text):
    assert resolve_relative_time(text, SAID) == (None, None), text


def test_a_time_beyond_the_calendar_is_named_but_not_resolved():
    assert resolve_relative_time("I met her 9999999 years ago", SAID) == (None, "9999999 years ago")
    when, expression = resolve_relative_time("I met her 99999999999 days ago", SAID)
    assert when is None and expression


@given(st.text(max_size=80), st.datetimes(timezones=st.just(UTC)))
def test_never_raises(text, said):
    when, expression = resolve_relative_time(text, said)
    assert when is None or expression is not None


@given(st.sampled_from([c[0] for c in CASES]), st.integers(-3, 3))
def test_the_answer_moves_with_the_time_it_was_said(text, days):
    from datetime import timedelta

    later = SAID + timedelta(days=7 * days)  # whole weeks: weekday-relative answers move too
    when, _ = resolve_relative_time(text, later)
    base, _ = resolve_relative_time(text, SAID)
    if "月" not in text and "month" not in text and "year" not in text and "年" not in text:
        assert when - base == timedelta(days=7 * days), text
