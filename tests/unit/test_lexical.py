"""Lexical relevance with the user's own statistics: a name they say everywhere weighs nothing,
a word they never said weighs most, Chinese questions are matched on their content bigrams."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engram.domain.recall.lexical import (
    Tokens,
    background_names,
    bm25,
    is_cjk,
    query_terms,
    repeats_wording,
    term_frequency,
    weighted_overlap,
    weights,
)
from engram.service.recall import RecallRequest, run_in_process
from tests.unit.support import say


def test_a_ubiquitous_name_weighs_almost_nothing_and_an_unsaid_word_most():
    w = weights(["caroline", "paris"], {"caroline": 580, "paris": 0}, 600)
    assert w["paris"] > 10 * w["caroline"]
    assert weighted_overlap(w, "Caroline: I went to a support group") < 0.1
    assert weighted_overlap(w, "We loved Paris in spring") > 0.9


def test_bm25_prefers_the_rare_term_and_ignores_absent_ones():
    w = weights(["caroline", "adoption"], {"caroline": 500, "adoption": 4}, 600)
    assert bm25(w, "Caroline: the adoption agency called", 8) > bm25(w, "Caroline: Caroline said hi", 8)
    assert bm25(w, "nothing in common", 8) == 0


def test_a_term_in_every_one_of_few_events_still_counts():
    # A new user with one event: rarity cannot be read from one event, so it stays a good sign.
    w = weights(["牙医"], {"牙医": 1}, 1)
    assert weighted_overlap(w, "我上周五去看了牙医") == 1.0 and w["牙医"] > 1


@pytest.mark.parametrize(("question", "expected"), [
    ("我什么时候去看的牙医？", ("去看", "牙医")),
    ("你还记得我对什么过敏吗", ("对", "过敏")),
    ("What am I allergic to?", ("allergic",)),
    ("When was Caroline in Paris?", ("caroline", "paris")),
])
def test_query_terms(question, expected):
    assert query_terms(question) == expected


def test_background_names_are_those_in_a_fifth_of_the_users_events():
    assert background_names(("caroline", "paris"), {"caroline": 300, "paris": 2}, 600) == {"caroline"}
    assert background_names(("jon",), {"jon": 5}, 600) == frozenset()
    assert background_names(("jon",), {}, 0) == frozenset()


@given(st.text(max_size=200))
def test_terms_and_scores_never_fail(text):
    terms = query_terms(text)
    assert len(terms) <= 12
    w = weights(terms, {}, 0)
    assert 0.0 <= weighted_overlap(w, text) <= 1.0 and bm25(w, text, 10) >= 0


T0 = datetime(2026, 5, 1, 9, tzinfo=UTC)


def test_a_memory_question_about_a_place_never_named_is_no_record_though_the_users_name_is_everywhere(
        deps, consenting):
    say(deps, consenting, *[f"Caroline: {t}" for t in (
        "I went to a support group yesterday.", "I'm painting a sunset these days.", "My cat Pixel is sick.",
        "I started a pottery class.", "I love hiking with my friends.", "The adoption agency called me.")], at=T0)
    now = (T0 + timedelta(days=2)).isoformat()

    def ask(query: str) -> dict:
        return run_in_process(deps, RecallRequest.parse(consenting, query, 5, now, None, None))

    never = ask("Do you remember when Caroline was in Paris?")
    assert never["no_record"] is True and never["items"] == [], never["items"]
    said = ask("Do you remember what Caroline is painting?")
    assert said["no_record"] is False and "sunset" in said["items"][0]["text"]


def test_a_chinese_name_never_mentioned_is_no_record_and_one_mentioned_is_found(deps, consenting):
    say(deps, consenting, "王老师推荐我读《活着》。", "我每天早上喝一杯绿茶。", "周末我和女儿去爬山。", at=T0)
    now = (T0 + timedelta(days=2)).isoformat()

    def ask(query: str) -> dict:
        return run_in_process(deps, RecallRequest.parse(consenting, query, 5, now, None, None))

    assert ask("你还记得刘主任推荐了什么书吗？")["no_record"] is True
    found = ask("你还记得王老师推荐了什么书吗？")
    assert found["no_record"] is False and "活着" in found["items"][0]["text"]


# -- Tokens: one reading of a text answers every term as the per-term reading did ------------

_REFERENCE_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|\d+")


def _reference_frequency(term: str, text: str) -> int:
    """The per-term reading ``Tokens`` replaced, kept here as its specification."""
    if is_cjk(term):
        return text.count(term)
    words = [w.lower() for w in _REFERENCE_WORD.findall(text)]
    if len(term) >= 5:
        return sum(1 for w in words if w.startswith(term[:5]))
    return sum(1 for w in words if w == term)


_TEXT = st.text(alphabet=st.sampled_from(list("abcdeHIKNG'- 123.,我喜欢爵士乐上海")), max_size=80)


@given(text=_TEXT, terms=st.lists(st.one_of(st.sampled_from(["hiking", "hikes", "hike", "gina's", "jazz", "12",
                                                             "上海", "爵士", "上", "ab", "abcde", "abcdef"]),
                                            st.text(alphabet="abcdeg'-", min_size=1, max_size=7)), max_size=6))
def test_tokens_count_every_term_as_reading_the_text_for_each_did(text, terms):
    tokens = Tokens.of(text)
    for term in terms:
        assert tokens.frequency(term) == term_frequency(term, text) == _reference_frequency(term, text)
    weights_ = {t: 1.0 + i for i, t in enumerate(dict.fromkeys(terms))}
    assert bm25(weights_, tokens, 12.0) == pytest.approx(bm25(weights_, text, 12.0))
    assert weighted_overlap(weights_, tokens) == weighted_overlap(weights_, text)


def test_repeats_wording_needs_most_of_the_terms_of_the_new_text():
    assert repeats_wording("I really enjoy long walks by the river!", "I really enjoy long walks by the river.")
    assert repeats_wording("I enjoy long walks by the river", "Long walks by the river are what I enjoy most")
    assert not repeats_wording("Wow, that's great! I'm so proud of you for going.",
                               "I went to the support group yesterday and it was powerful.")
    assert repeats_wording("我喜欢爵士乐", "我很喜欢爵士乐") and not repeats_wording("我喜欢爵士乐", "今天下雨了")
    assert repeats_wording("ok", "anything at all")  # nothing to compare: the cosine decides


@given(term=st.text(alphabet=st.sampled_from(list("ab'1 上海我\u4e00\u9fff\u3400\u4dff")), max_size=4))
def test_is_cjk_is_a_whole_run_of_chinese_characters(term):
    """Its shortcut on the first character answers as the full match it stands in front of."""
    assert is_cjk(term) == bool(re.fullmatch(r"[\u4e00-\u9fff]+", term))
