"""A question that compares two events in time is read as its two events, however it is put, and
the list it gets back holds the best record of each; a question about one event is left alone."""

from __future__ import annotations

import pytest

from engram.domain.limits import MAX_QUERY_CHARS
from engram.domain.recall.events import events_compared, with_each_event
from engram.domain.recall.fusion import RecallItem
from tests.unit.support import timed_growth

COMPARED = [
    ("Which came first: selling the flat or buying the boat?", ("selling the flat", "buying the boat")),
    ("which happened first, the wedding or the promotion", ("the wedding", "the promotion")),
    ("Which did I hear about first — the layoffs or the merger?", ("the layoffs", "the merger")),
    ("Did the tooth extraction or the marathon come first?", ("the tooth extraction", "the marathon")),
    ("How long after the audition did they call me back?", ("the audition", "they call me back")),
    ("About how long before the exam was my surgery?", ("the exam", "my surgery")),
    ("How many weeks passed between signing the lease and getting the keys?",
     ("signing the lease", "getting the keys")),
    ("How long was it from the diagnosis to the first chemo session?", ("the diagnosis", "the first chemo session")),
    ("Did I start the diet before or after the holiday in Crete?", ("I start the diet", "the holiday in Crete")),
    ("When did the roof get fixed, relative to the storm?", ("When did the roof get fixed", "the storm")),
    ("我是先换的工作，还是先买的房？", ("换的工作", "买的房")),
    ("用户是先学的游泳还是先学的骑车", ("学的游泳", "学的骑车")),
    ("装修和结婚哪个在先？", ("装修", "结婚")),
    ("搬家之后多久才找到新工作的？", ("搬家", "找到新工作的")),
    ("从面试到拿到offer隔了多久？", ("面试", "拿到offer")),
    ("我报名驾校是在过年之前还是之后？", ("我报名驾校", "过年")),
    ("毕业典礼和婚礼分别是哪天？", ("毕业典礼", "婚礼")),
]

SINGLE = ["When was Luna born?", "What date do we fly out to Japan?", "Which restaurant did you recommend first?",
          "What is my start date, and when did my lease begin?",
          "How long have I lived in Leeds?", "Do I prefer tea or coffee?", "我是哪天搬的家？", "我喜欢猫还是狗？",
          "What's the difference between my two loans?", "how long ago did I start running", "先说说我的工作吧",
          "", "?", "which first or"]


@pytest.mark.parametrize(("question", "events"), COMPARED)
def test_the_two_events_compared_are_read_however_the_question_puts_them(question, events):
    assert events_compared(question) == events


@pytest.mark.parametrize("question", SINGLE)
def test_a_question_about_one_event_or_a_choice_compares_none(question):
    assert events_compared(question) == ()


# Questions as long as the API takes, made of the words the patterns look for, over and over: the
# word that would close a comparison ("or", "and", 还是, 到, 分别) many times or never, scripts mixed.
HOSTILE = ["which came first ", "did a or b or c ", "how soon before ", "how many days between ",
           "how long between a and ", "how much time from ", "did a before or after b ", "relative to a, ",
           "先", "还是", "先买房，还是", "在家之前还是", "和猫分别", "和狗哪个", "之后多久", "从家到", "从",
           "先 which came first 还是 or between 和 and before 之前 after 之后 分别 ",
           "how long between 先 and 还是 or 之前 ", "我是先搬家还是 which first or 从搬家到 how long after "]


def _repeated(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


@pytest.mark.parametrize("unit", HOSTILE)
def test_a_hostile_question_is_read_in_time_about_linear_in_its_length(unit):
    """Not a budget in seconds: the longest question the API takes against one an eighth as long,
    in the same run (best of 3 each). Linear is about 8 times as long, quadratic 64, worse more."""
    short, long = _repeated(unit, MAX_QUERY_CHARS // 8), _repeated(unit, MAX_QUERY_CHARS)
    for question in (short, long):
        events = events_compared(question)
        assert events == () or (len(events) == 2 and all(e and e in question for e in events)), events
    short_s, long_s = timed_growth(lambda: events_compared(short), lambda: events_compared(long), 40, 1e-5)
    assert long_s < 40 * short_s, (unit, short_s, long_s)


@pytest.mark.parametrize(("question", "expected"), COMPARED[:3])
def test_a_comparison_ending_a_long_text_is_read_and_one_lost_in_its_middle_is_not(question, expected):
    """Only the end of a long text is read, from a sentence's start: the comparison that ends it
    is found, one followed by more than the read length of other words is not."""
    filler = _repeated("We talked about the garden again today. ", MAX_QUERY_CHARS - len(question) - 1)
    assert events_compared(f"{filler} {question}") == expected
    assert events_compared(f"{question} {filler}") == ()


def _items(*ids: str, score: float = 1.0) -> list[RecallItem]:
    return [RecallItem(memory_id=i, layer="episode", type="fact", text=i, confidence=1.0, decayed_confidence=1.0,
                       trust_source="user", needs_confirmation=False, valid_from=None, valid_to=None,
                       provenance={"message_ids": [i]}, score=score / (n + 1), relevance=0.5)
            for n, i in enumerate(ids)]


def test_the_best_record_of_each_event_reaches_the_top_and_the_scale_is_kept():
    whole = _items("a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b1", score=0.8)
    each = [_items("a1", "a2", "a3"), _items("b1", "b2", "a2")]
    fused = with_each_event(whole, each)
    top = [i.memory_id for i in fused[:4]]
    assert "a1" in top and "b1" in top
    assert fused[0].score == pytest.approx(0.8)
    assert [i.score for i in fused] == sorted((i.score for i in fused), reverse=True)
    assert {i.memory_id for i in fused} == {i.memory_id for i in whole} | {"b2"}
    assert whole[0].score == pytest.approx(0.8)  # the step's own list is not changed under it


def test_nothing_found_for_either_event_leaves_the_list_as_it_was():
    whole = _items("x", "y", "z")
    assert [i.memory_id for i in with_each_event(whole, [[], []])] == ["x", "y", "z"]
    assert with_each_event([], [[], []]) == []
