"""The rules that know an object by the shape of its word (rules_shape): an illness by its ending, a
line of work by its field, an employer by how long the user worked there, lists said as a header;
what they must not read (someone else's, a word of that shape that is no illness or job, work left);
and that none of their patterns is slow on a hostile message as long as a turn may be."""

from __future__ import annotations

import time

import pytest

from engram.domain.extraction import rules_shape
from tests.unit.support import beliefs_said


def _current(*turns: str) -> set[tuple[str, str]]:
    return beliefs_said(*turns)[0]


@pytest.mark.parametrize(("turn", "expected"), [
    ("I have costochondritis, it flares when I lift", ("has_condition", "costochondritis")),
    ("I've got trigeminal neuralgia", ("has_condition", "trigeminal neuralgia")),
    ("I take propranolol for migraines", ("has_condition", "migraines")),
    ("I tutor GCSE chemistry on Saturdays", ("works_as", "gcse chemistry tutor")),
    ("我有肩周炎，胳膊抬不起来", ("has_condition", "肩周炎")),
    ("我尿酸高，海鲜不敢吃", ("has_condition", "高尿酸")),
    ("我是做外贸的", ("works_as", "外贸")),
    ("我在顺丰送快递", ("works_as", "快递员")),
    ("我在中国银行干了二十年了", ("works_at", "中国银行")),
    ("我家俩娃，大的叫果果，小的叫豆豆", ("has_child", "豆豆")),
])
def test_a_word_known_by_its_shape_in_the_users_frame(turn, expected):
    assert expected in _current(turn)


@pytest.mark.parametrize(("turn", "absent"), [
    ("my sister has endometriosis", ("has_condition", "endometriosis")),
    ("I have a diploma in design", ("has_condition", "diploma in design")),
    ("I'm on leave for surgery", ("has_condition", "surgery")),
    ("I tutor kids after school", ("works_as", "kids tutor")),
    ("我老公有胃炎", ("has_condition", "胃炎")),
    ("我有拖延症", ("has_condition", "拖延症")),
    ("我在做销售报表", ("works_as", "销售")),
    ("上个月辞职了，在百度干了三年", ("works_at", "百度")),
    ("我在上海干了五年了", ("works_at", "上海")),
    ("Languages: Dutch, Korean (learning)", ("masters", "korean")),
])
def test_what_is_not_the_users_or_not_of_that_kind_is_no_belief(turn, absent):
    assert absent not in _current(turn)


_PATTERNS = [r.pattern for r in rules_shape.RULES_EN + rules_shape.RULES_ZH] + [rules_shape._CHILDREN_NAMED]
_UNITS = ["I have a ", "a ", "Ab ", "i'm on x for ", "rent is 1 for a b in ", "languages: A, ", "我有", "我在",
          "大的叫", "，", "1", "x", "做设计", "我只是个小"]


@pytest.mark.parametrize("unit", _UNITS)
def test_no_pattern_is_slow_on_a_hostile_turn(unit):
    for hostile in ((unit * 8000)[:8000], (("i " + unit) * 8000)[:8000]):
        for pattern in _PATTERNS:
            started = time.perf_counter()
            list(pattern.finditer(hostile))
            assert time.perf_counter() - started < 0.5, (pattern.pattern[:80], unit)
