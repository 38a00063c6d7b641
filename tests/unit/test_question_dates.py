"""Calendar dates a question names are the window it asks about (``domain.recall.dates``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engram.domain.recall.dates import named_window
from engram.domain.recall.query import analyse

NOW = datetime(2024, 1, 10, tzinfo=UTC)


def days(window):
    return window and (window[0].date().isoformat(), window[1].date().isoformat())


@pytest.mark.parametrize(("text", "expected"), [
    ("What did Maria start, as mentioned on 3 June, 2023?", ("2023-06-02", "2023-06-05")),
    ("What did she share on October 13, 2023?", ("2023-10-12", "2023-10-15")),
    ("What happened on the 3rd of May?", ("2023-05-02", "2023-05-05")),  # the latest 3 May before now
    ("What setback did she face in October 2023?", ("2023-10-01", "2023-11-01")),
    ("Where was I on 2023-06-03?", ("2023-06-02", "2023-06-05")),
    ("我2023年6月3日说了什么", ("2023-06-02", "2023-06-05")),
    ("我1月8号去哪了", ("2024-01-07", "2024-01-10")),
    ("2022年12月我在干嘛", ("2022-12-01", "2023-01-01")),
])
def test_a_named_date_is_its_window(text, expected):
    assert days(named_window(text, NOW)) == expected


@pytest.mark.parametrize("text", ["What did I say in October?", "What did I do in 2023?", "I may 3 times have said it",
                                  "May I ask what I told you?", "我12月说了啥", "at 3 pm"])
def test_what_names_no_single_day_or_month_is_no_window(text):
    assert named_window(text, NOW) is None


def test_a_relative_time_comes_first_and_a_date_otherwise():
    assert days(analyse("What did I do last Friday?", NOW).window) == ("2024-01-04", "2024-01-06")
    assert days(analyse("Did I tell you what I did on 3 June, 2023?", NOW).window) == ("2023-06-02", "2023-06-05")
