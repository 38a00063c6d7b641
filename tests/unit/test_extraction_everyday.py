"""The rules for how everyday chat says a fact (rules_en_everyday, rules_zh_everyday, and the shapes of
speech they lean on): what they read, what they must not read, and that none of their patterns is
slow on a hostile message as long as a turn may be (8,000 characters)."""

from __future__ import annotations

import time

import pytest

from engram.domain import extraction
from engram.domain.extraction import (
    discourse,
    rules_change,
    rules_en_everyday,
    rules_zh_everyday,
    speech,
    text,
)
from tests.unit.support import beliefs_said


def _current(*turns: str) -> set[tuple[str, str]]:
    current, ended = beliefs_said(*turns)
    return current - ended


@pytest.mark.parametrize(("turns", "expected"), [
    (("I'm a nurse in Leeds, sorry about that",), {("works_as", "nurse"), ("lives_in", "leeds")}),
    (("this is Priya btw, new here",), {("has_name", "priya")}),
    (("hey, I'm Tomasz, from Gdańsk, living in Oslo now",), {("comes_from", "gdańsk"), ("lives_in", "oslo")}),
    (("can you suggest a stretching routine, I'm 58 and I have arthritis",),
     {("has_age", "58"), ("has_condition", "arthritis")}),
    (("just got my first proper job as a junior accountant at KPMG",),
     {("works_as", "junior accountant"), ("works_at", "kpmg")}),
    (("i make like 52k as a barista at blue bottle",), {("works_as", "barista"), ("works_at", "blue bottle")}),
    (("I get hay fever every spring",), {("has_condition", "hay fever")}),
    (("just moved to seattle last week lol",), {("lives_in", "seattle")}),
    (("im an econ major at nyu",), {("studied_at", "nyu")}),
    (("proud dad of three: Sam, Ella and Noah",), {("has_child", "sam"), ("has_child", "ella"), ("has_child", "noah")}),
    (("used to live in Leeds, now I'm in York",), {("lives_in", "york")}),
    (("currently in Austin, looking for a dentist",), {("lives_in", "austin")}),
    (("I'm all about spicy food",), {("has_preference", "spicy food")}),
    (("these days I mostly cycle",), {("has_hobby", "cycling")}),
    (("我现在还在兰州",), {("lives_in", "兰州")}),
    (("我前年从上海搬到了厦门",), {("lives_in", "厦门")}),
    (("我从百度跳到了阿里",), {("works_at", "阿里")}),
    (("我跟室友住在深圳",), {("lives_in", "深圳")}),
    (("90后程序员一枚，坐标成都",), {("works_as", "程序员"), ("lives_in", "成都")}),
    (("我养了两只狗，一只叫豆豆，一只叫球球",), {("has_pet", "豆豆 (狗)"), ("has_pet", "球球 (狗)")}),
    (("我英文名叫Kevin",), {("has_name", "kevin")}),
    (("hey im zoë lol nice to meet you",), {("has_name", "zoë")}),
    (("write a short bio for my linkedin: software engineer at Stripe, based in Dublin",),
     {("works_as", "software engineer"), ("works_at", "stripe"), ("lives_in", "dublin")}),
    (("现在一个人住在杭州，挺自在",), {("lives_in", "杭州")}),
    (("我现在在西安，下个月去北京出差",), {("lives_in", "西安")}),
    (("we moved to austin",), {("lives_in", "austin")}),
    (("我叫陈思远，叫我思远就好",), {("has_name", "陈思远")}),
    (("我35岁", "不对，上个月刚过生日，36了"), {("has_age", "36")}),
])
def test_everyday_chat_is_read(turns, expected):
    assert expected <= _current(*turns)


@pytest.mark.parametrize(("turns", "absent"), [
    (("my sister's job as a nurse is so stressful",), {("works_as", "nurse")}),
    (("I quit my job as a waiter",), {("works_as", "waiter")}),
    (("my old job as a lifeguard was fun",), {("works_as", "lifeguard")}),
    (("I'd make more as a nurse",), {("works_as", "nurse")}),
    (("my daughter gets migraines",), {("has_condition", "migraines")}),
    (("my sister moved to boston",), {("lives_in", "boston")}),
    (("i moved to marketing last year",), {("lives_in", "marketing")}),
    (("i moved to a new apartment",), {("lives_in", "a new apartment"), ("lives_in", "new apartment")}),
    (("my sister is a mom of two, Ava and Jo",), {("has_child", "ava"), ("has_child", "jo")}),
    (("currently in Paris for a conference",), {("lives_in", "paris"), ("lives_in", "pari")}),
    (("what would you do, would I be happier in Lisbon",), {("lives_in", "lisbon")}),
    (("can you check if I'm allergic to penicillin, my doctor thinks so",), {("allergic_to", "penicillin")}),
    (("my kids are all about minecraft",), {("has_preference", "minecraft")}),
    (("I love biking to work",), {("has_hobby", "biking")}),
    (("我在上海出差，帮我找个酒店",), {("lives_in", "上海")}),
    (("我在北京转机",), {("lives_in", "北京")}),
    (("我朋友从北京搬到了大理",), {("lives_in", "大理")}),
    (("我和男朋友住在一起",), {("lives_in", "一起")}),
    (("我从市场部跳到了另一个部门",), {("works_at", "另一个部门")}),
    (("我男朋友程序员一枚",), {("works_as", "程序员"), ("works_as", "男朋友程序员")}),
    (("我朋友养了两只猫，一只叫大黄一只叫小白",), {("has_pet", "大黄 (猫)"), ("has_pet", "小白 (猫)")}),
    (("我女儿小名叫糖糖",), {("has_name", "糖糖")}),
    (("im nervous lol nice to meet you",), {("has_name", "nervous")}),
    (("write a bio for my brother: chef at Nobu, lives in Miami",), {("works_as", "chef"), ("works_at", "nobu")}),
    (("我弟现在一个人住在杭州",), {("lives_in", "杭州")}),
    (("I'm currently in Rome, flying home tomorrow",), {("lives_in", "rome")}),
    (("我在北京，明天回上海",), {("lives_in", "北京")}),
    (("my rent went up again",), {("lives_in", "went")}),
    (("my part of the deal is done",), {("lives_in", "deal"), ("lives_in", "the deal")}),
    (("我28岁", "不对，过了生日29了"), {("has_age", "过了生日29")}),
    (("i work at deloitte", "i quit deloitte last week"), {("works_at", "deloitte")}),
    (("我在南京", "说错了，我六月份已经搬到苏州了"), {("lives_in", "我六月份已经搬到苏州")}),
])
def test_what_is_not_the_users_or_not_a_value_is_no_belief(turns, absent):
    assert not absent & _current(*turns)


def test_a_nickname_gives_way_to_the_name_said_with_it():
    assert _current("我小名叫妞妞，大名叫赵雅琪") >= {("has_name", "赵雅琪")}
    assert ("has_name", "妞妞") not in _current("我小名叫妞妞，大名叫赵雅琪")
    assert ("has_name", "妞妞") in _current("我小名叫妞妞")


_PATTERNS = [r.pattern for r in rules_en_everyday.RULES + rules_zh_everyday.RULES] + [
    speech._RESUMED, speech._INTRODUCING, text._EN_SPLIT, discourse._SLIP, rules_change._LEFT_EMPLOYER,
    rules_zh_everyday._ONE_BY_ONE, extraction._AGE_SAID, discourse._OWN_WRITEUP, speech._ZH_DROPPED,
    extraction._GOING_BACK]
_UNITS = ["write my bio ", "现在跟", "a ", "Ab ", "my ", "my job as a ", "mom of two, ", "Ann, ", "i moved to ",
          "我", "在", "从", "两只狗，一只叫", "，", "1", "i make ", "I'm currently in ", "Aa Bb ", "sorry ", "left ",
          "now, ", "x"]


@pytest.mark.parametrize("unit", _UNITS)
def test_no_pattern_is_slow_on_a_hostile_turn(unit):
    for hostile in ((unit * 8000)[:8000], (("i " + unit) * 8000)[:8000]):
        for pattern in _PATTERNS:
            started = time.perf_counter()
            list(pattern.finditer(hostile))
            assert time.perf_counter() - started < 0.5, (pattern.pattern[:80], unit)
