"""What an agent asks when it needs the user as a whole ("What do you know about me?", "介绍一下我")
and when it is about to feed them ("What should I cook for Priya tonight?"): the first gets every
kind of belief, not only the events that share its words; the second always sees the user's
allergies and diet, which never make a memory question answered on their own."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engram.domain.recall.query import analyse
from engram.service.recall import RecallRequest, run_in_process
from tests.unit.support import say

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


@pytest.fixture
def priya(deps, consenting):
    say(deps, consenting, "Hi, I'm Priya. I'm a data analyst at Spotify.", "I live in Stockholm.",
        "I'm allergic to shellfish.", "I'm vegetarian.", "I love hiking.", "My partner Sam is a chef.",
        "We watched a documentary about whales yesterday.")
    return consenting


def ask(deps, scope, query: str, k: int = 10) -> dict:
    return run_in_process(deps, RecallRequest.parse(scope, query, k, NOW.isoformat()))


def beliefs(answer: dict) -> set[str]:
    return {i["text"] for i in answer["items"] if i["layer"] == "profile"}


@pytest.mark.parametrize("query", [
    "What do you know about me?", "Tell me about the user.", "Who am I?", "Summarize what you know about me.",
    "What do you know about Priya?", "你都知道我什么？", "介绍一下我", "关于用户你知道些什么？",
])
def test_a_question_about_the_user_as_a_whole_gets_their_beliefs(deps, priya, query):
    found = beliefs(ask(deps, priya, query))
    assert {"has name: Priya", "works as: data analyst", "lives in: Stockholm", "allergic to: shellfish",
            "has hobby: hiking"} <= found, found


@pytest.mark.parametrize(("query", "overview"), [
    ("What do you know about me?", True), ("Who am I?", True), ("Who am I meeting tomorrow?", False),
    ("Tell me about the user's job.", False), ("What do you know about cooking?", False), ("我是谁？", True),
    ("我是谁的朋友？", False), ("What do you know about Sam?", True), ("你还记得我的什么？", True),
    ("你对我了解多少？", True), ("关于用户你都知道些什么？", True),
    # A Chinese memory question about one thing is not one about the user as a whole.
    ("你还记得我在哪里工作吗？", False), ("你还记得我上次说的潜水课吗？", False), ("你知道我喜欢什么音乐吗？", False),
    ("介绍一下我的工作", False), ("Describe the user's job.", False),
    ("Tell me everything you know about Python.", False),
    ("Tell me everything you know about me.", True), ("Recap everything we said about the trip.", False),
])
def test_what_asks_for_the_user_as_a_whole(query, overview):
    assert analyse(query, NOW).overview is overview


def test_a_question_about_someone_else_as_a_whole_gets_only_what_names_them(deps, priya):
    found = beliefs(ask(deps, priya, "What do you know about Sam?"))
    assert "has spouse: Sam" in found and "allergic to: shellfish" not in found, found


@pytest.mark.parametrize("query", [
    "What should I cook for Priya tonight?", "Can I make shrimp pasta for her?", "Recommend a restaurant for dinner.",
    "Any dietary restrictions I should know about?", "今晚给她做什么菜好？",
])
def test_a_question_about_food_sees_the_allergies_and_the_diet(deps, priya, query):
    answer = ask(deps, priya, query, k=5)
    assert {"allergic to: shellfish", "has preference: vegetarian diet"} <= beliefs(answer), answer["items"]


def test_an_allergy_is_not_read_for_a_question_that_is_not_about_food(deps, priya):
    assert "allergic to: shellfish" not in beliefs(ask(deps, priya, "What music do I like?"))


def test_an_allergy_never_makes_a_food_memory_question_answered(deps, priya):
    # Never said: the allergy shown beside food questions is no record of a meal in Rome.
    answer = ask(deps, priya, "Do you remember what I ate in Rome?")
    assert answer["memory_dependent"] and answer["no_record"], answer


def test_a_weekend_activity_is_asked_of_the_hobbies(deps, priya):
    assert "has hobby: hiking" in beliefs(ask(deps, priya, "Recommend a weekend activity for me."))


@pytest.mark.parametrize(("said", "belief"), [
    ("I have celiac disease.", "has condition: celiac disease"), ("I'm lactose intolerant.",
                                                                   "has condition: lactose intolerance"),
    ("I have type 2 diabetes.", "has condition: type 2 diabetes"),
])
def test_a_condition_that_rules_foods_out_is_read_for_a_question_about_food(deps, consenting, said, belief):
    say(deps, consenting, said, "I have asthma.", "I love jazz.")
    found = beliefs(ask(deps, consenting, "Suggest a snack for me.", k=5))
    assert belief in found and "has condition: asthma" not in found, found


@pytest.mark.parametrize(("said", "belief"), [("I can't eat gluten.", "dislikes: gluten"),
                                              ("I don't eat pork.", "dislikes: pork"), ("我不吃辣。", "dislikes: 辣")])
def test_what_the_user_does_not_eat_is_read_for_a_question_about_food(deps, consenting, said, belief):
    say(deps, consenting, said, "I don't like jazz.", "I love hiking.")
    found = beliefs(ask(deps, consenting, "What should I cook for dinner?", k=5))
    assert belief in found and "dislikes: jazz" not in found, found


@pytest.mark.parametrize("query", ["What do you remember about me?", "What do you know about me?", "Who am I?",
                                   "你还记得我的什么？"])
def test_a_question_about_the_user_as_a_whole_finds_what_they_said_without_a_profile(deps, alice, query):
    # No long-term consent: no beliefs, yet every event is a record of the user ("no record"
    # here would hide what they said).
    say(deps, alice, "Hello!", "I work as a nurse in Leeds.", "I love jazz and hiking.", "We had pasta tonight.")
    answer = ask(deps, alice, query)
    assert not answer["no_record"], answer
    found = [i["text"] for i in answer["items"]]
    assert found[:3] == ["We had pasta tonight.", "I love jazz and hiking.", "I work as a nurse in Leeds."], found
    assert "Hello!" not in found  # a greeting says nothing about the user


def test_a_question_about_the_user_as_a_whole_with_no_memory_is_no_record(deps, alice):
    answer = ask(deps, alice, "What do you remember about me?")
    assert answer["no_record"] and answer["items"] == []


def test_a_question_about_someone_else_as_a_whole_reads_the_events_that_name_them(deps, alice):
    say(deps, alice, "My sister Ana lives in Porto.", "I love jazz.", "We had pasta tonight.")
    found = [i["text"] for i in ask(deps, alice, "What do you know about Ana?")["items"]]
    assert found == ["My sister Ana lives in Porto."], found
