"""A word said over and over ("officially officially …", "刚刚刚刚…") is read in time that grows with how
often it is said, never doubling with each repeat: an adverb listed twice, or one made of two others
("刚刚" is 刚 twice), let the regex engine read n repeats in 2^n ways, and 20 repeats took 0.9 s.

The adverb lists are checked as they are written, and extraction is timed against itself: twice the repeats
take about twice as long when linear, a thousand times as long when exponential."""

from __future__ import annotations

import pytest

from engram.domain.extraction import rules_change, rules_en, rules_en_coach, rules_zh
from tests.unit.support import extraction_growth


def _made_of(word: str, words: set[str]) -> bool:
    """Whether a word is two or more of the others written one after another."""
    return any(word[:cut] in words and (word[cut:] in words or _made_of(word[cut:], words))
               for cut in range(1, len(word)))


def _plain(adverbs: tuple[str, ...]) -> list[str]:
    return [a for a in adverbs if a.replace(" ", "").isalpha()]


# Besides the adverbs, the other lists a rule reads any number of: when a death was ("花花去年冬天走的"), what a
# business is ("a small family bakery").
@pytest.mark.parametrize("adverbs", [rules_en.ADVERBS, rules_zh.ADVERBS, rules_change.DIED_WHEN,
                                     rules_en_coach.BUSINESS_ADJECTIVES], ids=["en", "zh", "zh-died", "en-business"])
def test_no_adverb_is_listed_twice_or_made_of_others(adverbs):
    plain = _plain(adverbs)
    assert len(plain) == len(set(plain)), sorted(a for a in plain if plain.count(a) > 1)
    assert [a for a in plain if _made_of(a, set(plain) - {a})] == []


def test_a_word_made_of_others_is_found():
    assert _made_of("刚刚", {"刚"}) and _made_of("从小就", {"从小", "就"}) and not _made_of("超级", {"超"})


# Besides the adverbs, words found read in 2^n ways before: a time said twice over ("刚刚" in a list of
# times), a laugh at the end ("哈哈哈…"), a word that is both an adverb and how often ("平时").
_ALSO_SAID = ("刚刚", "哈", "哈哈", "平时", "常常", "每天", "经常", "嘿嘿")
_SAID = sorted({(a, "en") for a in _plain(rules_en.ADVERBS)}
               | {(a, "zh") for a in (*_plain(rules_zh.ADVERBS), *_ALSO_SAID)})


@pytest.mark.parametrize(("said", "lang"), _SAID)
@pytest.mark.parametrize("opening", ["the user", "nothing"])
def test_a_word_said_over_and_over_is_read_in_time_that_grows_with_the_repeats(said, lang, opening):
    def message(n: int) -> str:
        if lang == "en":
            return ("I " if opening == "the user" else "") + (said + " ") * n + "xyzzy."
        return ("我" if opening == "the user" else "") + said * n + "嗯嗯。"

    ten, twenty = extraction_growth(message(10), message(20), 10)
    assert twenty < 10 * ten, (said, ten, twenty)


# The same, said where a rule reads a list any number of times, or an adverb beside a word it also reads:
# (opening, the word said over and over, an ending that does not match)
_IN_RULES = sorted({*(("I run a ", a + " ", "xyzzy.") for a in rules_en_coach.BUSINESS_ADJECTIVES),
                    *(("雪球", a, "嗯嗯。") for a in _plain(rules_change.DIED_WHEN)),
                    ("I've always ", "always ", "xyzzy."), ("I speak ", "Yoruba and ", "1"),
                    ("我物理", "好", "嗯。"), ("我家里", "就", "嗯。"), ("数学", "很", "嗯。"),
                    ("来北京", "也", "嗯嗯。")})


@pytest.mark.parametrize(("opening", "said", "ending"), _IN_RULES)
def test_a_word_said_over_and_over_inside_a_rule_is_read_in_time_that_grows_with_the_repeats(opening, said, ending):
    ten, twenty = extraction_growth(opening + said * 10 + ending, opening + said * 20 + ending, 10)
    assert twenty < 10 * ten, (said, ten, twenty)
