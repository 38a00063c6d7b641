"""A message's extraction grows about linearly with its length, whatever shape a hostile or careless
client gives it: a message of thousands of clauses ("两只狗，" repeated to 8,000 characters) once took
1.3 s, read in time that grew with the square of its length.

Not a budget in seconds: the time of a 16,000-character message is compared with that of a
2,000-character one in the same run (best of 3 each). Eight times the length takes about 8 times as
long when linear, about 64 times when quadratic; anything under 32 passes (a machine busy with other
work has stretched a linear 8 to 20)."""

from __future__ import annotations

import pytest

from tests.unit.support import extraction_growth

_UNITS = ["两只狗，", "I have two dogs, ", "我叫", "，", "我今天在家里看书喝茶然后出去散步",
          "i really like long walks ", "我叫小明, I live in Paris，两只狗。my name is Ann "]


def _text(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


@pytest.mark.parametrize("unit", _UNITS)
def test_extraction_time_grows_about_linearly_with_the_length(unit):
    short, long = extraction_growth(_text(unit, 2000), _text(unit, 16000), 32)
    assert long < 32 * short, (unit, short, long)
