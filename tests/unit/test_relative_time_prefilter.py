"""The one-pass check that a text names no relative time agrees with the rules one by one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engram.domain.ingest.relative_time import _ANY_RULE, _RULES

PIECES = ["next week", "last Friday", "in two days", "3 days ago", "the day before yesterday", "tomorrow",
          "上周五", "下个月", "三天前", "两周后", "昨天", "去年", "一马月", "以前天", "Tomorrow", "NEXT MONTH",
          "I booked a flight", "to Lisbon", "我住在北京", " ", ",", "yesterdays", "weekend", "ago"]


@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=8), max_size=6).map("".join))
def test_the_prefilter_finds_a_time_exactly_when_some_rule_does(text):
    assert bool(_ANY_RULE.search(text)) == any(pattern.search(text) for pattern, _ in _RULES)
