"""Questions about the user as an agent puts them: by the name the user gave ("What is Dana's
job?" asked of Dana's memory), or in the third person ("Where does the user live?"), for any
kind of belief (pets, languages, fears, several read from one sentence). None may hide what the
user said about themselves, and none may answer for someone else."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from engram.domain.model import Predicate
from engram.domain.recall.cues import is_memory_question, own_names
from engram.domain.recall.query import analyse
from engram.service.recall import RecallRequest, run_in_process
from tests.unit.support import failing, say, slow

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


@pytest.fixture
def dana(deps, consenting):
    say(deps, consenting, "Hi! I'm Dana, I just moved to Lisbon from Berlin.", "I work as a nurse at a hospital.",
        "I'm allergic to peanuts.", "My son Leo is seven.", "I love jazz.", "I started running on weekends.",
        "I drive a small blue car.", "We had pasta for dinner tonight.")
    # Dana is said in one event of eight: not a name said all over the memory (lexical.BACKGROUND_SHARE).
    return consenting


def ask(deps, scope, query: str, deadlines: dict | None = None) -> dict:
    return run_in_process(deps, RecallRequest.parse(scope, query, 10, NOW.isoformat()), deadlines_ms=deadlines)


def texts(answer: dict) -> list[str]:
    return [i["text"] for i in answer["items"]]


def test_own_names_match_the_given_name_whole_or_by_word():
    assert own_names(("dana",), ["Dana"]) == {"dana"}
    assert own_names(("dana", "tom"), ["Dana  Smith"]) == {"dana"}
    assert own_names(("smith",), ["Dana Smith"]) == {"smith"}
    assert own_names(("dan",), ["Dana"]) == frozenset()
    assert own_names(("小明",), ["王小明"]) == {"小明"}
    assert own_names(("dana",), []) == frozenset()


@pytest.mark.parametrize("query", ["What is Dana's job?", "What does Dana do for work?", "Where does Dana work?"])
def test_the_users_own_name_asks_about_the_user(deps, dana, query):
    answer = ask(deps, dana, query)
    assert "works as: nurse" in texts(answer), answer["items"]
    assert not answer["no_record"]


def test_the_users_own_name_keeps_the_events_that_do_not_say_it(deps, dana):
    assert "I work as a nurse at a hospital." in texts(ask(deps, dana, "Where does Dana work?"))
    assert "I love jazz." in texts(ask(deps, dana, "What music does Dana love?"))


def test_the_guard_needs_no_record_of_the_users_own_name(deps, dana):
    answer = ask(deps, dana, "Do you remember what Dana said about jazz?")
    assert answer["memory_dependent"] and not answer["no_record"], answer
    assert "I love jazz." in texts(answer)


def test_a_memory_question_by_the_users_own_name_finds_the_record(deps, dana):
    answer = ask(deps, dana, "Do you remember where Dana works?")
    assert answer["memory_dependent"] and not answer["no_record"]
    assert "works as: nurse" in texts(answer)


@pytest.mark.parametrize("query", ["What is Tom's job?", "Where does Tom live?", "Is Tom allergic to anything?"])
def test_another_persons_name_is_not_answered_with_the_users_beliefs(deps, dana, query):
    answer = ask(deps, dana, query)
    assert not any(t.startswith(("works as", "lives in", "allergic to")) for t in texts(answer)), answer["items"]


def test_a_memory_question_about_someone_never_mentioned_is_no_record(deps, dana):
    answer = ask(deps, dana, "Do you remember what Tom does for work?")
    assert answer["memory_dependent"] and answer["no_record"] and answer["items"] == []


def test_a_name_the_user_no_longer_goes_by_is_not_theirs(deps, consenting):
    say(deps, consenting, "I'm Dana.", "I work as a nurse at a hospital.")
    say(deps, consenting, "Actually, call me Dee from now on.", prefix="later")
    names = [i["object"] for i in deps.graph.items(consenting, predicates=[Predicate.HAS_NAME])]
    if names != ["Dee"]:
        pytest.skip(f"the extraction did not hear the new name: {names}")
    assert "works as: nurse" in texts(ask(deps, consenting, "What is Dee's job?"))
    assert "works as: nurse" not in texts(ask(deps, consenting, "What is Dana's job?"))


@pytest.mark.parametrize(("query", "expected"), [
    ("Where does the user live?", "lives in: Lisbon"), ("What is the user's job?", "works as: nurse"),
    ("What is the user allergic to?", "allergic to: peanuts"), ("Does the user have kids?", "has child: Leo"),
])
def test_the_user_in_the_third_person_is_the_user(deps, dana, query, expected):
    assert expected in texts(ask(deps, dana, query))


@pytest.mark.parametrize(("query", "memory"), [
    ("Did the user mention a dog?", True), ("Has the user ever said anything about skiing?", True),
    ("What did the user tell you about their job?", True), ("Have I ever mentioned my brother?", True),
    ("Where does the user live?", False), ("Did the Cubs win?", False), ("用户之前提过狗吗？", True),
    ("用户跟你说过他的工作吗？", True), ("用户住在哪里？", False),
])
def test_third_person_memory_cues(query, memory):
    assert is_memory_question(query) is memory


def test_a_third_person_question_about_a_thing_never_said_is_no_record(deps, dana):
    answer = ask(deps, dana, "Did the user mention a dog?")
    assert answer["no_record"] and answer["items"] == []


@pytest.mark.parametrize(("query", "asked", "not_asked"), [
    ("What is my favourite song?", {Predicate.HAS_PREFERENCE}, {Predicate.HAS_CHILD}),
    ("What language am I learning?", set(), {Predicate.HAS_AGE}),
    ("Who delivers my groceries?", set(), {Predicate.LIVES_IN}),
    ("How old is my son?", {Predicate.HAS_AGE, Predicate.HAS_CHILD}, set()),
    ("What are my allergies?", {Predicate.ALLERGIC_TO}, set()),
    ("我对什么过敏？", {Predicate.ALLERGIC_TO}, set()),
    ("我住在哪里？", {Predicate.LIVES_IN}, set()),
])
def test_a_kind_of_belief_is_asked_by_a_word_not_by_letters_inside_one(query, asked, not_asked):
    predicates = analyse(query, NOW).predicates
    assert asked <= predicates and not (not_asked & predicates)


def test_a_song_question_is_not_answered_with_the_users_children(deps, dana):
    assert "has child: Leo" not in texts(ask(deps, dana, "What is my favourite song?"))


@pytest.mark.parametrize(("query", "expected"), [("我对什么过敏？", "allergic to: peanuts"),
                                                 ("我住在哪里？", "lives in: Lisbon"),
                                                 ("用户住在哪里？", "lives in: Lisbon")])
def test_a_chinese_question_for_a_kind_of_belief_finds_it(deps, dana, query, expected):
    assert expected in texts(ask(deps, dana, query))


def test_a_graph_that_is_down_costs_the_name_check_not_the_episodes(deps, dana):
    answer = ask(replace(deps, graph=failing(deps.graph, "items")), dana, "What music does Dana love?")
    assert answer["degraded"] == ["profile"]
    assert "episodes" not in answer["degraded"] and answer["items"], answer


def test_a_slow_graph_does_not_hold_the_episodes_past_their_deadline(deps, dana):
    deadlines = {"session": 2000, "tasks": 2000, "profile": 300, "episodes": 1000, "archive": 2000}
    answer = ask(replace(deps, graph=slow(deps.graph, "items", 3.0)), dana, "What music does Dana love?", deadlines)
    assert answer["degraded"] == ["profile"], answer


@pytest.mark.parametrize(("query", "expected"), [
    ("What pets does the user have?", "has pet: Rex (dog)"), ("What's my dog's name?", "has pet: Rex (dog)"),
    ("我有什么宠物？", "has pet: Rex (dog)"),
])
def test_a_pet_is_a_belief_a_question_finds(deps, consenting, query, expected):
    say(deps, consenting, "I have a dog named Rex.", "I'm allergic to cats.")
    assert expected in texts(ask(deps, consenting, query))
    assert "has pet: Rex (dog)" not in texts(ask(deps, consenting, "Is the user allergic to anything?"))


@pytest.mark.parametrize(("query", "expected"), [
    ("What languages does the user speak?", "masters: French"), ("What am I afraid of?", "dislikes: heights"),
    ("Which team do I support?", "has preference: Arsenal"), ("我会说什么语言？", "masters: French"),
])
def test_languages_fears_and_teams_are_beliefs_a_question_finds(deps, consenting, query, expected):
    say(deps, consenting, "I speak French and Spanish.", "I'm afraid of heights.", "I support Arsenal.")
    assert expected in texts(ask(deps, consenting, query))


def test_every_belief_read_from_one_sentence_is_an_answer(deps, consenting):
    # Two allergies said at once are two answers: one hidden behind the other is a safety defect.
    say(deps, consenting, "I'm allergic to peanuts and shellfish.")
    found = texts(ask(deps, consenting, "What am I allergic to?"))
    assert {"allergic to: peanuts", "allergic to: shellfish"} <= set(found), found


@pytest.fixture
def employed(deps, consenting):
    say(deps, consenting, "I'm a nurse at St. Mary's Hospital.", "I'm originally from Lagos but I live in Leeds.",
        "My birthday is March 3rd.", "I love jazz.", "My sister works at Boeing.")
    return consenting


@pytest.mark.parametrize(("query", "expected"), [
    ("Where do I work?", "works at: St. Mary's Hospital"), ("Which company does the user work for?",
                                                             "works at: St. Mary's Hospital"),
    ("Who is my employer?", "works at: St. Mary's Hospital"), ("What's my job?", "works as: nurse"),
    ("Where am I from?", "comes from: Lagos"), ("Where did the user grow up?", "comes from: Lagos"),
    ("What's my hometown?", "comes from: Lagos"), ("When is my birthday?", "has birthday: March 3"),
    ("When was I born?", "has birthday: March 3"), ("我在哪里上班？", "works at: St. Mary's Hospital"),
    ("我是哪里人？", "comes from: Lagos"), ("我的生日是哪天？", "has birthday: March 3"),
])
def test_a_workplace_an_origin_and_a_birthday_are_beliefs_a_question_finds(deps, employed, query, expected):
    assert expected in texts(ask(deps, employed, query))


@pytest.mark.parametrize("query", ["Where does the user live?", "What music do I like?", "Do I have any allergies?"])
def test_a_workplace_an_origin_and_a_birthday_do_not_answer_other_questions(deps, employed, query):
    assert not any(t.startswith(("works at", "comes from", "has birthday")) for t in texts(ask(deps, employed, query)))


def test_where_the_user_lives_is_not_where_they_are_from(deps, employed):
    found = texts(ask(deps, employed, "Where does the user live?"))
    assert "lives in: Leeds" in found and "comes from: Lagos" not in found, found


@pytest.fixture
def hobbyist(deps, consenting):
    say(deps, consenting, "I play the guitar and I go hiking most weekends.", "I studied economics at Duke.",
        "I live in Denver.", "My brother plays tennis.")
    return consenting


@pytest.mark.parametrize(("query", "expected"), [
    ("What are my hobbies?", "has hobby: guitar"), ("What does the user do in their free time?", "has hobby: hiking"),
    ("What instrument do I play?", "has hobby: guitar"), ("What did I study?", "studied: economics"),
    ("Where did the user go to college?", "studied at: Duke"), ("What was my major?", "studied: economics"),
    ("我有什么爱好？", "has hobby: hiking"), ("我是哪个大学毕业的？", "studied at: Duke"),
])
def test_hobbies_and_schooling_are_beliefs_a_question_finds(deps, hobbyist, query, expected):
    assert expected in texts(ask(deps, hobbyist, query))


def test_a_brothers_sport_is_not_the_users_hobby(deps, hobbyist):
    assert "has hobby: tennis" not in texts(ask(deps, hobbyist, "What are my hobbies?"))
