"""The guard on the topic, the relevance floor, and never claiming an absence nobody checked:
memory cues (EN and ZH) read apart from what is asked, k as a maximum, and a layer that did not
answer turning "no record" into "memory partly unavailable"."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from engram.domain.recall.cues import in_users_voice, is_memory_question, names_in, topic_of
from engram.domain.recall.fusion import HYBRID, NO_RECORD_BLOCK
from engram.domain.recall.query import analyse
from engram.service.recall import RECALL_PLAN, RecallRequest, StepResult, run_in_process
from engram.service.recall.readers import read_episodes
from engram.service.users import set_consent
from tests.fakes import fake_deps
from tests.fakes.gateways import HashingEmbedder
from tests.unit.support import failing, say, slow

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


@pytest.fixture
def trip(deps, consenting):
    say(deps, consenting, "I booked a flight to Lisbon for next week.", "My sister Ana is getting married in June.",
        "I'm allergic to peanuts.")
    return consenting


def ask(deps, scope, query, k=10, deadlines=None):
    return run_in_process(deps, RecallRequest.parse(scope, query, k, NOW.isoformat()), deadlines_ms=deadlines)


# -- the cue ---------------------------------------------------------------------------------

@pytest.mark.parametrize("query", [
    "Do you remember where I am flying?", "Remember when we went to Paris?", "What did I tell you about my sister?",
    "Did I mention my allergy?", "What did I order last time?", "Last time, what did I order?",
    "Do you recall what Caroline painted?", "I told you about my new job, right?",
    "As I mentioned before, what is my dog's name?", "Can you still remember my wife's birthday?",
    "Did I ever tell you about Ana?", "We talked about a restaurant, which one was it?",
    "你还记得我上次说的潜水课吗？", "还记得我的航班吗", "上次我们去哪吃的？", "我之前说过我喜欢什么？",
    "我跟你说过我女儿的名字吗？", "我们聊过的那本书叫什么？",
])
def test_memory_cues_mark_a_memory_question(query):
    assert is_memory_question(query) and analyse(query, NOW).memory_dependent


@pytest.mark.parametrize("query", [
    "Do you remember how to boil an egg?", "Do you remember the capital of Peru?",
    "When was the last time the Cubs won the World Series?", "What happened before the French Revolution?",
    "Where am I travelling next week?", "What is a good recipe for pancakes?", "你记得怎么做蛋炒饭吗？",
    "法国的首都是哪里？",
])
def test_general_questions_and_plain_ones_are_not_memory_questions(query):
    assert not analyse(query, NOW).memory_dependent


@pytest.mark.parametrize(("query", "topic"), [
    ("Do you remember where I am flying?", "where I am flying?"),
    ("What did I tell you about my snowboard?", "my snowboard?"),
    ("Remember when we went to Paris?", "we went to Paris?"),
    ("Did I mention my allergy?", "my allergy?"),
    ("As I mentioned before, what is my dog's name?", "what is my dog's name?"),
    ("Where did I go last time?", "Where did I go?"),
    ("When did Ana's wedding happen? I told you before.", "When did Ana's wedding happen?"),
    ("你还记得我上次说的潜水课吗？", "潜水课吗？"),
    ("我跟你说过我女儿的名字吗？", "我女儿的名字吗？"),
    ("我之前说过我喜欢什么？", "我喜欢什么？"),
    ("Do you remember?", "Do you remember?"),  # nothing but a cue: its words are all there is
])
def test_the_topic_is_the_question_without_its_cue(query, topic):
    assert topic_of(query) == topic


def test_a_cue_adds_no_search_terms_and_no_predicates():
    plain, cued = analyse("Where am I travelling next week?", NOW), analyse(
        "Do you remember where I am travelling next week?", NOW)
    assert plain.terms == cued.terms and cued.predicates == plain.predicates
    assert analyse("What did I tell you about my snowboard?", NOW).predicates == frozenset()  # "told" is no age


def test_names_are_the_capitalised_words_that_do_not_open_a_sentence():
    assert names_in("Do you remember what Caroline's sister painted in May?") == ("caroline",)
    assert names_in("Where is Lisbon? Tell me.") == ("lisbon",)
    assert names_in("What did I order?") == ()


# -- the guard on the topic ------------------------------------------------------------------

def test_a_memory_phrased_question_finds_what_the_plain_one_finds(deps, trip):
    plain = ask(deps, trip, "Where am I travelling next week?")
    for cued in ("Do you remember where I am travelling next week?",
                 "Where am I travelling next week? Did I mention that?",
                 "What did I tell you about where I am travelling next week?"):
        answer = ask(deps, trip, cued)
        assert answer["memory_dependent"] and not answer["no_record"], cued
        assert [i["memory_id"] for i in answer["items"]] == [i["memory_id"] for i in plain["items"]], cued


def test_a_name_never_said_is_no_record_though_the_topic_matches(deps, trip):
    answer = ask(deps, trip, "Do you remember when my sister Maria is getting married?")
    assert answer["no_record"] and answer["items"] == [] and answer["context_block"] == NO_RECORD_BLOCK
    said = ask(deps, trip, "Do you remember when my sister Ana is getting married?")
    assert not said["no_record"] and any("Ana" in i["text"] for i in said["items"])


# -- the relevance floor ---------------------------------------------------------------------

def test_k_is_a_maximum_not_a_quota(deps, trip):
    answer = ask(deps, trip, "Tell me about quantum chromodynamics", k=10)
    assert answer["items"] == [] and not answer["memory_dependent"]


def test_no_event_below_the_floor_is_returned(deps, trip):
    intent = analyse("Where am I flying to next week?", NOW)
    everything = read_episodes(deps, trip, intent, NOW, replace(HYBRID, relevance_floor=-1.0))
    floored = read_episodes(deps, trip, intent, NOW, replace(HYBRID, relevance_floor=0.5))
    assert floored and all(i.relevance >= 0.5 for i in floored) and len(floored) < len(everything)
    assert floored[0].text.startswith("I booked a flight to Lisbon")


# -- never claim absence you did not check ---------------------------------------------------

@pytest.mark.parametrize("half", ["lexical", "nearest"])
def test_a_failing_episode_store_is_never_no_record(deps, trip, half):
    broken = deps.with_(episodes=failing(deps.episodes, half))
    answer = ask(broken, trip, "Do you remember where I am flying?")
    assert answer["no_record"] is False and answer["memory_unavailable"] == ["episodes"]
    assert answer["degraded"] == ["episodes"] and answer["context_block"] != NO_RECORD_BLOCK
    assert "Memory partly unavailable (episodes)" in answer["context_block"]
    assert "do not assert that nothing was said" in answer["context_block"]


@pytest.mark.parametrize("half", ["lexical", "nearest"])
def test_an_episode_step_past_its_deadline_is_never_no_record(deps, trip, half):
    slowed = deps.with_(episodes=slow(deps.episodes, half, 0.3))
    answer = ask(slowed, trip, "Do you remember where I am flying?", deadlines={"episodes": 20})
    assert answer["no_record"] is False and answer["memory_unavailable"] == ["episodes"]
    assert "Memory partly unavailable (episodes)" in answer["context_block"]


def test_what_was_found_is_kept_and_the_gap_named(deps, trip):
    broken = deps.with_(graph=failing(deps.graph, "items"))
    answer = ask(broken, trip, "What am I allergic to?")
    assert answer["memory_unavailable"] == ["profile"] and answer["no_record"] is False
    assert any("peanuts" in i["text"] for i in answer["items"])
    assert "peanuts" in answer["context_block"] and "Memory partly unavailable (profile)" in answer["context_block"]


def test_every_layer_answering_with_nothing_is_no_record(deps, trip):
    answer = ask(deps, trip, "Do you remember what I told you about snowboarding lessons?")
    assert answer["no_record"] is True and answer["memory_unavailable"] == []


def test_lost_originals_do_not_make_an_absence_unchecked(alice):
    request = RecallRequest.parse(alice, "What exactly did I say about skydiving?", 10, NOW.isoformat())
    results = [StepResult(name, []) for name in ("tasks", "profile", "episodes")] + [
        StepResult.failed("archive", "StoreUnavailable")]
    answer = RECALL_PLAN.finish(RECALL_PLAN.context(request, {}), results)
    assert answer["no_record"] is True and answer["degraded"] == ["archive"] and answer["memory_unavailable"] == []


class _GreetingNearEverything(HashingEmbedder):
    """As e5 does with a greeting embedded alone: "Hello! How are you today?" sits next to any
    short question about the user."""

    def _vector(self, text: str) -> list[float]:
        return super()._vector("near" if "How are you" in text or "birthday" in text else text)


def test_a_greeting_near_the_question_by_meaning_alone_is_no_record_of_it(settings, alice):
    deps = fake_deps(settings, embedder=_GreetingNearEverything())
    set_consent(deps, alice, True, None)
    say(deps, alice, "Hello! How are you today?", "My wife loves tulips.")
    answer = ask(deps, alice, "Do you remember my wife's birthday?")
    assert answer["no_record"], answer["items"]
    # Said in it, a word of the question makes the greeting a record of it.
    say(deps, alice, "Hi! How are you? My wife's birthday is on Friday.", at=NOW)
    assert not ask(deps, alice, "Do you remember my wife's birthday?")["no_record"]


@pytest.mark.parametrize(("asked", "voiced"), [
    ("Where does the user's sister live?", "Where does my sister live?"),
    ("What exercise did the assistant recommend for the user's knee?", "What exercise did you recommend for my knee?"),
    ("Which club did this user quit?", "Which club did I quit?"),
    ("用户的猫叫什么？", "我的猫叫什么？"),
    ("助手给该用户推荐过哪本书？", "你给我推荐过哪本书？"),
    # Not the user: left as asked.
    ("What is my username?", "What is my username?"),
    ("How many users does the app have?", "How many users does the app have?"),
])
def test_a_question_about_the_user_is_asked_in_the_voice_the_memories_were_said_in(asked, voiced):
    assert in_users_voice(asked) == voiced


class _RecordingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    def embed_query(self, texts: list[str]) -> list[list[float]]:
        self.queries.extend(texts)
        return super().embed_query(texts)


def test_an_agent_asking_about_the_user_in_the_third_person_searches_in_the_users_own_voice(settings, alice):
    embedder = _RecordingEmbedder()
    deps = fake_deps(settings, embedder=embedder)
    say(deps, alice, "My sister moved to Leeds last spring.")
    answer = ask(deps, alice, "Where does the user's sister live?")
    assert any("my sister" in q for q in embedder.queries), embedder.queries
    assert not any("user" in q for q in embedder.queries), embedder.queries
    assert "Leeds" in str(answer["items"])


# -- tasks -------------------------------------------------------------------------------------

def test_a_task_sharing_a_word_with_a_memory_question_is_no_record_of_it(deps, consenting):
    from engram.domain.working.tasks import TaskStatus

    say(deps, consenting, "I booked a flight to Lisbon for next week.")
    title = "plan a trip to Porto with my sister, budget 500"
    deps.tasks.record(consenting, "t-1", TaskStatus.CREATED, {"title": title}, NOW)
    # The task shares one word ("trip") of the question's several: no record of what the user never said.
    answer = ask(deps, consenting, "Do you remember which insurance company and hotel chain I picked for the trip?")
    assert answer["no_record"] is True
    # Asked for, it is an answer.
    listed = ask(deps, consenting, "What tasks do I have open?")
    assert not listed["no_record"] and any(i["layer"] == "task" for i in listed["items"])
