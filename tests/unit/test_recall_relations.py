"""A person asked about by relation ("my brother", "我弟弟") is checked as a name is: a memory
question about a relation the user never spoke of has no record, whatever else comes close; one
the user did speak of, in any of its words ("我妈" for 妈妈, "mum" for mother), is answered. And a
Chinese question told to the assistant ("我跟你说过…吗") asks what the user said, not the assistant."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from engram.domain.recall.cues import asks_what_assistant_said, is_memory_question, topic_of
from engram.domain.recall.fusion import HYBRID
from engram.domain.recall.lexical import chinese_words
from engram.domain.recall.relations import relations_in, unsaid_relations
from engram.service.recall import RecallRequest, run_in_process
from tests.unit.support import T0, body, message, run_ingest

NOW = T0 + timedelta(days=3)


@pytest.mark.parametrize(("question", "asked"), [
    ("我弟弟叫啥", ["弟弟"]), ("我外孙女多大了", ["外孙"]), ("我爸妈住在哪个城市", ["我爸妈"]),
    ("额闺女在哪儿上班", ["女儿"]), ("What does my older brother do?", ["brother"]),
    ("What's my son-in-law's job?", ["son-in-law"]), ("Where does the user's sister live?", ["sister"]),
    ("What did my mom and dad say?", ["mom"]), ("What is my personal best?", []), ("我的年终奖多少", []),
    ("What does the user's husband Gareth do for a living?", []),  # named: the name is checked
])
def test_a_relation_is_read_by_its_longest_form(question, asked):
    assert [r.asked[0] for r in relations_in(question)] == asked


def test_a_relation_counts_as_said_by_any_of_its_words():
    assert unsaid_relations(relations_in("我弟弟叫啥"), {}, ["我姐姐在上海"], memories_in_han=True) == ["弟弟"]
    assert unsaid_relations(relations_in("我爸妈住哪"), {"爸": 1}, [], memories_in_han=True) == []
    assert unsaid_relations(relations_in("我妈妈做什么的"), {}, ["我妈是护士"], memories_in_han=True) == []
    assert unsaid_relations(relations_in("What does my mother do?"), {}, ["My mum is a nurse."],
                            memories_in_han=False) == []
    # Another script than the memories': "my sister" may be her 姐姐.
    assert unsaid_relations(relations_in("Where does my sister live?"), {}, ["我姐姐在上海"],
                            memories_in_han=True) == []


@pytest.mark.parametrize("question", [
    "我跟你说过我家狗叫什么名字吗？", "我有没有跟你讲过我住几楼？", "额跟你说过额闺女在哪儿上班吗？",
    "我告诉过你我买车打算花多少钱吗？", "我是不是跟你说过我老伴做过心脏手术？",
])
def test_what_the_user_told_the_assistant_is_a_memory_question_about_the_user(question):
    assert is_memory_question(question) and not asks_what_assistant_said(question)
    assert "跟你" not in topic_of(question) and "告诉" not in topic_of(question)


def test_chinese_topic_words_are_dictionary_words_of_a_topic_kind():
    # No pronoun joined to a verb (我住, 我换), no question word (哪位, 啥时候), adverb (分别) or locative (前后).
    assert chinese_words("我现在住哪儿") == ()
    assert chinese_words("我换工作前后，公司分别在深圳哪个区") == ("工作", "公司", "深圳")
    assert chinese_words("我最喜欢哪位粤剧名伶") == ("喜欢", "粤剧", "名伶")
    assert chinese_words("周子航想复合，我最后怎么决定的") == ("周子航", "复合", "决定")  # a name it does not know


def test_a_question_is_held_to_its_own_languages_thresholds():
    chinese_apart = dataclasses.replace(HYBRID, han_guard_threshold=0.5, han_unsaid_guard_threshold=0.6)
    assert chinese_apart.record_threshold(False, han=True) == 0.5
    assert chinese_apart.record_threshold(True, han=True) == 0.6
    assert chinese_apart.record_threshold(False) == HYBRID.guard_threshold
    assert HYBRID.record_threshold(True) > HYBRID.record_threshold(False)


SAID = {"zh": ["我姐姐在上海当老师，教初中数学。", "我妈是护士，在市一院上班。"],
        "en": ["My sister Ana just moved to Lisbon for work.",
               "My mum retired last spring after thirty years as a nurse."]}


def ask(deps, scope, query: str) -> dict:
    """``query`` asked of a user who said ``SAID`` in the question's language (one language a user:
    a relation is checked against memories in its own script)."""
    said = SAID["en" if query.isascii() else "zh"]
    run_ingest(deps, scope, body(*[message(t, f"m{i}", T0 + timedelta(minutes=i)) for i, t in enumerate(said)]))
    return run_in_process(deps, RecallRequest.parse(scope, query, 5, NOW.isoformat()))


# Each shares its words with what was said of someone else (the sister, the mother): only the
# relation tells them apart.
@pytest.mark.parametrize("question", ["我跟你说过我弟弟在上海当老师吗？", "还记得我爸是护士，在市一院上班吗？",
                                      "Did I ever tell you my brother just moved to Lisbon for work?",
                                      "Do you remember when my dad retired after thirty years as a nurse?"])
def test_a_relation_never_spoken_of_has_no_record(deps, consenting, question):
    answer = ask(deps, consenting, question)
    assert answer["memory_dependent"] and answer["no_record"] and answer["items"] == []


# Worded close to what was said: the unit suite's embedder matches words, not meanings.
@pytest.mark.parametrize(("question", "said"), [("还记得我姐姐在哪儿工作吗？", "上海"),
                                                ("我跟你说过我妈妈在哪上班吗？", "护士"),
                                                ("Do you remember when my mother retired?", "nurse"),
                                                ("What does my sister Ana do in Lisbon, did I tell you?", "Lisbon")])
def test_a_relation_spoken_of_in_any_of_its_words_is_answered(deps, consenting, question, said):
    answer = ask(deps, consenting, question)
    assert not answer["no_record"] and any(said in i["text"] for i in answer["items"])


def test_a_relation_said_with_a_name_is_checked_by_the_name(deps, consenting):
    # "my husband Gareth": the user may have spoken of Gareth without ever saying "husband".
    assert not ask(deps, consenting, "Do you remember where my cousin Ana moved for work?")["no_record"]


def test_a_surname_with_a_title_is_the_user_who_gave_that_surname():
    from engram.domain.recall.cues import own_names

    assert own_names(["王老师", "李老师"], ["王"]) == {"王老师"}  # "我姓王": 王老师 is how others address her
    assert own_names(["王经理"], ["王小明"]) == {"王经理"}
    assert own_names(["王老师"], ["李娜"]) == frozenset()
