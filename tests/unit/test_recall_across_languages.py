"""A question in the other language than the user's memories is matched through a dictionary:
"What is the name of my hamster?" finds "我家仓鼠芝麻又开始跑轮子了", and "我的仓鼠叫什么" finds "My
hamster is called Sesame", by words, where an embedder matches such pairs only weakly (the unit
suite's matches none: it shares no word across scripts)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engram.domain.recall.glossary import Glossary, gloss_overlap, gloss_weights, load_glossary
from engram.domain.recall.lexical import Tokens
from engram.service.recall import RecallRequest, run_in_process
from tests.unit.support import T0, body, message, run_ingest

NOW = T0 + timedelta(days=3)

LINES = [
    "# CC-CEDICT",
    "名字 名字 [ming2 zi5] /name (of a person or thing)/CL:個|个[ge4]/",
    "名兒 名儿 [ming2 r5] /name/",
    "名 名 [ming2] /name/noun (part of speech)/place (e.g. among winners)/",
    "倉鼠 仓鼠 [cang1 shu3] /hamster/",
    "血壓 血压 [xue4 ya1] /blood pressure/",
    "血 血 [xue4] /blood/",
    "壓力 压力 [ya1 li4] /pressure/stress/",
    "蛋糕 蛋糕 [dan4 gao1] /cake/CL:塊|块[kuai4],個|个[ge4]/",
    "推薦 推荐 [tui1 jian4] /to recommend/recommendation/",
    "王 王 [Wang2] /surname Wang/",
    "噁 恶 [e3] /variant of 惡|恶[e3]/",
]


def glossary(**frequency: int) -> Glossary:
    return Glossary.from_lines(LINES, frequency)


def test_a_word_is_translated_by_the_entries_whose_sense_it_is_commonest_first():
    assert glossary(名字=5000, 名儿=3).han_for("What is the name of my hamster?") == (("名字", "名儿"), ("仓鼠",))
    assert glossary(名字=3, 名儿=5000).han_for("name")[0] == ("名儿", "名字")
    # A lone character only after every word (名 is inside 名单, 名牌, 有名).
    assert "名" not in glossary().han_for("name")[0]


def test_a_phrase_that_is_a_sense_of_its_own_is_translated_whole():
    assert glossary().han_for("What was my blood pressure?") == (("血压",),)


def test_inflections_and_possessives_are_undone():
    assert glossary().han_for("Which cakes did you recommend for my hamster's birthday?") == (
        ("蛋糕",), ("推荐",), ("仓鼠",))


def test_cross_references_measure_words_and_surnames_are_no_translation():
    g = glossary()
    assert g.to_han.get("wang") is None and g.to_han.get("ge") is None
    assert all("variant" not in gloss for gloss in g.to_han)


def test_chinese_words_read_back_as_their_first_senses():
    assert glossary().latin_for(["仓鼠", "推荐", "没有的词"]) == (("hamster",), ("recommend", "recommendation"))


def test_a_word_counts_once_whichever_translation_a_memory_holds():
    weighted = gloss_weights([("名字", "名儿"), ("仓鼠",)], {"名字": 5, "仓鼠": 1}, 20)
    assert gloss_overlap(weighted, Tokens.of("我家仓鼠芝麻")) == pytest.approx(
        weighted[("仓鼠",)] / sum(weighted.values()))
    assert gloss_overlap(weighted, Tokens.of("它的名儿叫芝麻，我家仓鼠")) == 1.0
    assert gloss_overlap({}, Tokens.of("仓鼠")) == 0.0


def test_the_shipped_dictionary_translates_everyday_words_both_ways():
    g = load_glossary()
    assert "仓鼠" in {w for gloss in g.han_for("What's the name of my hamster?") for w in gloss}
    assert ("血压",) == g.han_for("blood pressure")[0][:1]
    assert "过敏" in {w for gloss in g.han_for("Which fruit is my son allergic to?") for w in gloss}
    assert ("hamster",) in g.latin_for(["仓鼠"])


CHINESE = ["今天加班到十点，累死了。", "我家仓鼠芝麻又开始跑轮子了，咔咔咔的。", "周末想去爬山，天气不错。",
           "我儿子对芒果过敏，吃了嘴巴起红疹子。", "公司楼下新开了一家面馆，味道一般。", "晚上跟朋友吃了火锅。"]
ENGLISH = ["Worked late again today, so tired.", "My hamster Sesame keeps running on its wheel all night.",
           "Thinking of hiking this weekend, the weather looks good.",
           "My son is allergic to mangoes, his lips got a rash.", "A new noodle place opened downstairs."]


def ask(deps, scope, said: list[str], query: str) -> dict:
    run_ingest(deps, scope, body(*[message(t, f"m{i}", T0 + timedelta(minutes=i)) for i, t in enumerate(said)]))
    return run_in_process(deps, RecallRequest.parse(scope, query, 5, NOW.isoformat()))


@pytest.mark.parametrize(("said", "question", "answer"), [
    (CHINESE, "What is the name of my hamster?", "仓鼠"),
    (CHINESE, "Which fruit is my son allergic to?", "过敏"),
    (ENGLISH, "我的仓鼠叫什么名字？", "hamster"),
    (ENGLISH, "我儿子对什么水果过敏？", "allergic"),
])
def test_a_question_in_the_other_language_finds_the_memory_through_its_words(deps, consenting, said, question,
                                                                              answer):
    items = ask(deps, consenting, said, question)["items"]
    assert items and answer in items[0]["text"]

