"""The guard on a topic mostly never said: its words split by what the user said, the events
heard to be about it (a said word, a time it names, or closeness to an unsaid word embedded
alone), and the names and dates that decide which words are a topic at all."""

from __future__ import annotations

from dataclasses import asdict, replace
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from engram.domain.recall.cues import names_in
from engram.domain.recall.fusion import HYBRID, RecallItem, best_cosine, counted_records, record_candidates
from engram.domain.recall.lexical import TopicWords, background_names, chinese_words, topic_words, what_is_asked
from engram.domain.recall.query import analyse
from engram.service.recall import RECALL_PLAN, RecallRequest, run_in_process
from engram.service.recall.heard import heard_events
from tests.unit.support import say

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


def item(memory_id: str, text: str, relevance: float, layer: str = "episode") -> RecallItem:
    return RecallItem(memory_id=memory_id, layer=layer, type="event", text=text, confidence=1.0,
                      decayed_confidence=1.0, trust_source="user", needs_confirmation=False, valid_from=None,
                      valid_to=None, provenance={"message_ids": [memory_id]}, score=relevance, relevance=relevance)


# -- the topic's words -----------------------------------------------------------------------

def test_a_topic_never_said_is_all_unsaid_names_and_times_aside():
    words = topic_words(("gina's", "necklace", "symbolize", "october"), ("gina",), {"gina's": 300}, 600,
                        ["Gina: Nice reminder! It's so important to be free."])
    assert words.said == () and words.unsaid == ("necklace", "symbolize") and words.times == ("october",)
    assert words.all_unsaid and words.unsaid_share == 1.0 and words.mostly_unsaid(0.6)


def test_a_word_said_once_leaves_a_topic_mostly_unsaid_and_two_rare_ones_do_not():
    host = topic_words(("host", "dance", "competition"), (), {"dance": 1}, 600, [])
    assert host.said == ("dance",) and not host.all_unsaid and host.mostly_unsaid(0.6)
    leaning = topic_words(("political", "leaning", "likely"), (), {"leaning": 1, "likely": 20}, 600, [])
    assert leaning.unsaid == ("political",) and not leaning.mostly_unsaid(0.6)


def test_a_word_in_an_event_found_for_the_question_is_said():
    words = topic_words(("tattoo",), (), {}, 10, ["I got a new tattoo on my arm"])
    assert words.said == ("tattoo",) and not words.mostly_unsaid(0.6)


def test_chinese_words_are_left_to_the_thresholds():
    words = topic_words(("潜水", "课"), (), {}, 10, ["我喜欢喝绿茶"])
    assert words.unsaid == ("潜水", "课") and words.all_unsaid and not words.mostly_unsaid(0.6)


def test_a_noun_of_one_character_is_a_topic_and_the_naming_verb_is_not_joined_to_it():
    # jieba's dictionary reads 狗叫 ("barking") and 猫叫 as words: the pet asked about was lost.
    assert chinese_words("我家狗叫什么名字") == ("狗", "名字")
    assert chinese_words("我之前跟你说过我家猫叫啥吗") == ("猫",)
    # a lone character of another kind is still no word (the verb 开, the measure 家)
    assert chinese_words("我们家开的什么车") == ()


def test_a_said_word_or_a_named_time_in_an_event_is_heard_there():
    words = TopicWords(said=("dance",), unsaid=("competition",), unsaid_share=0.7, times=("october",))
    assert words.said_in("We danced all night") and words.said_in("See you in October!")
    assert not words.said_in("Nice reminder, Gina!")
    assert TopicWords(unsaid=("grandma's", "gift")).plain_unsaid() == ["grandma", "gift"]


def test_a_possessive_name_is_as_much_in_the_background_as_the_name():
    assert background_names(("gina",), {"gina's": 258}, 600) == {"gina"}
    assert background_names(("gina",), {"gina's": 3}, 600) == frozenset()


@pytest.mark.parametrize("query", ["What did John's teammates give him when they met on Aug 15th?",
                                   "Did John call on Sept 3 or on Fri?"])
def test_an_abbreviated_date_is_no_name(query):
    assert names_in(query) == ("john",)


# -- which items count -----------------------------------------------------------------------

def test_record_candidates_are_the_most_relevant_that_mention_the_names():
    items = [item("a", "Gina: hello", 0.3), item("b", "Jon: hi", 0.9), item("c", "Gina: the shop", 0.5),
             item("d", "Gina: bye", 0.1)]
    assert [i.memory_id for i in record_candidates(items, 0.26, ("gina",), 3)] == ["c", "a"]
    assert [i.memory_id for i in record_candidates(items, 0.26, (), 1)] == ["b"]


def test_only_heard_events_count_and_other_layers_always_do():
    items = [item("a", "x", 0.5), item("b", "y", 0.5), item("p", "allergic to: peanuts", 1.0, layer="profile")]
    assert [i.memory_id for i in counted_records(items, {"b"})] == ["b", "p"]
    assert counted_records(items, None) == items


def test_best_cosine_is_the_nearest_word_on_the_calibrated_scale():
    assert best_cosine([[1.0, 0.0], [0.0, 1.0]], [0.6, 0.8], 0.0) == pytest.approx(0.8)
    assert best_cosine([[1.0, 0.0]], [0.8, 0.6], 0.6) == pytest.approx(0.5)
    assert best_cosine([], [1.0, 0.0], 0.0) == float("-inf")


class WordEmbedder:
    """Vectors by hand: a text is near a word when it holds a word of the same family."""

    unrelated_cosine = 0.0
    translation_cosine = None
    unrelated_across_cosine = None
    FAMILIES = {"flying": 0, "flight": 0, "necklace": 1, "jewel": 1}

    def __init__(self) -> None:
        self.calls = 0

    def _vector(self, text: str) -> list[float]:
        vector = [0.0, 0.0, 0.1]
        for word, axis in self.FAMILIES.items():
            if word in text.lower():
                vector[axis] = 1.0
        norm = sum(v * v for v in vector) ** 0.5
        return [v / norm for v in vector]

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [self._vector(t) for t in texts]

    embed_query = embed


def hear(question: str, items: list[RecallItem], words: TopicWords, embedder: WordEmbedder):
    intent = analyse(question, NOW)
    return heard_events(SimpleNamespace(embedder=embedder), intent, HYBRID, items, asdict(words))


def test_an_event_close_to_an_unsaid_word_is_heard_and_a_mere_chat_turn_is_not():
    embedder = WordEmbedder()
    words = TopicWords(unsaid=("flying",), unsaid_share=1.0)
    items = [item("chat", "Nice to hear from you!", 0.45), item("trip", "I booked a flight to Lisbon", 0.43)]
    assert hear("Do you remember where I am flying?", items, words, embedder) == ["trip"]
    assert hear("Do you remember where I am flying?", items[:1], words, embedder) == []
    assert embedder.calls == 4  # the words and the candidates, one batch each, per question


def test_a_said_word_needs_no_embedding_and_a_topic_mostly_said_no_check():
    embedder = WordEmbedder()
    words = TopicWords(said=("dance",), unsaid=("competition",), unsaid_share=0.7)
    items = [item("e", "We danced at the gala", 0.4)]
    assert hear("Did I mention a dance competition?", items, words, embedder) == ["e"] and embedder.calls == 0
    mostly_said = TopicWords(said=("dance", "gala"), unsaid=("competition",), unsaid_share=0.4)
    assert hear("Did I mention a dance competition?", items, mostly_said, embedder) is None
    assert hear("Did I mention a dance competition?", [item("e", "hi", 0.1)], words, embedder) == []


# -- through recall --------------------------------------------------------------------------

def test_a_topic_never_said_is_no_record_though_a_turn_shares_the_questions_frame(deps, consenting):
    say(deps, consenting, "What does that say about you and me?", "I opened a clothing store last month.",
        "My dance studio is doing great.")
    question = "Do you remember what does the necklace say about you and me?"
    request = RecallRequest.parse(consenting, question, 10, NOW.isoformat())
    unchecked = replace(RECALL_PLAN, recipe=replace(HYBRID, unheard_share=2.0))
    assert run_in_process(deps, request, unchecked)["no_record"] is False  # the frame alone passes the bar
    answer = run_in_process(deps, request)
    assert answer["no_record"] is True and answer["items"] == []
    said = run_in_process(deps, RecallRequest.parse(consenting, "Do you remember what my store sells?", 10,
                                                    NOW.isoformat()))
    assert said["no_record"] is False and said["items"][0]["text"].startswith("I opened a clothing store")


def test_a_word_in_the_other_script_than_the_memories_is_neither_said_nor_unsaid():
    # "What subject did I teach before I retired?" asked of a user who writes in Chinese: the
    # English words' absence says nothing; a Latin word they did write ("SQL") is still said.
    asked = topic_words(("subject", "teach", "retired", "sql"), (), {"sql": 2}, 40, ["退休前在小学教语文"],
                        memories_in_han=True)
    assert asked.said == ("sql",) and asked.unsaid == () and not asked.all_unsaid
    # The same words asked of memories in English are unsaid, and a Chinese one asked of them drops.
    assert topic_words(("retired", "潜水"), (), {}, 40, [], memories_in_han=False).unsaid == ("retired",)
    assert topic_words(("潜水", "retired"), (), {}, 40, [], memories_in_han=True).unsaid == ("潜水",)


def test_whom_a_question_names_is_not_what_ranks_the_events_that_name_them():
    assert what_is_asked(("theo's", "living"), ("theo",)) == ["living"]
    assert what_is_asked(("theo",), ("theo",)) == ["theo"]  # "Who is Theo?" keeps him
    assert what_is_asked(("王老师", "推荐"), ("王老师",)) == ["推荐"]


def test_a_chinese_question_is_about_its_words_not_its_bigrams():
    from engram.domain.recall.lexical import chinese_words, query_terms, topic_terms

    question = "还记得我上次说的滑雪旅行吗？"
    assert set(chinese_words(question)) == {"滑雪", "旅行"}  # no 上次, no 雪旅 across two words
    assert "雪旅" in query_terms(question)  # ranking still matches on bigrams
    assert topic_terms(query_terms("my ski trip 滑雪旅行"), chinese_words("my ski trip 滑雪旅行")) == [
        "ski", "trip", "滑雪", "旅行"]
    assert chinese_words("What was it?") == () and chinese_words("你记得吗") == ()


def test_an_unsaid_chinese_topic_is_checked_only_with_a_model_that_reads_chinese():
    words = topic_words(("滑雪", "旅行"), (), {"旅行": 0}, 50, ["我们去海边了"])
    assert words.all_unsaid and words.mostly_unsaid(0.6, reads_han=True)
    assert not words.mostly_unsaid(0.6)  # MiniLM: a Chinese cosine says nothing
