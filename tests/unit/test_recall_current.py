"""A question about how things are now is answered by the newest word on it first."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engram.domain.recall.fusion import lateness_of
from engram.domain.recall.query import analyse
from engram.service.recall import RecallRequest, run_in_process
from tests.unit.support import T0, body, message, run_ingest


@pytest.mark.parametrize(("query", "current"), [
    ("What bike do I ride now?", True), ("Do I still play bass?", True), ("我现在住哪儿？", True),
    ("额晚上还喝西凤不？", True), ("What's my current job?", True),
    ("What bike did I ride last summer?", False), ("你还记得我女儿叫什么吗", False), ("还有别的推荐吗", False),
])
def test_a_question_about_now_is_told_apart(query, current):
    assert analyse(query, T0).current is current


def test_the_newest_word_on_a_changed_thing_comes_first(deps, consenting):
    said = ["I ride an old steel road bike to work every day.", "My sister visited and we baked bread.",
            "Work was busy, three meetings and a long review.",
            "Sold the steel one last week: I ride a gravel bike to work now."]
    messages = [message(text, f"b{i}", T0 + timedelta(days=i * 20)) for i, text in enumerate(said)]
    run_ingest(deps, consenting, body(*messages))
    now = (T0 + timedelta(days=90)).isoformat()
    answer = run_in_process(deps, RecallRequest.parse(consenting, "Which bike do I ride to work now?", 5, now))
    episodes = [i for i in answer["items"] if i["layer"] == "episode"]
    assert "gravel" in episodes[0]["text"]


def test_lateness_runs_from_the_earliest_to_the_latest_event():
    assert lateness_of({"a": 10.0, "b": 20.0, "c": 15.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert lateness_of({"a": 5.0, "b": 5.0}) == {} and lateness_of({}) == {}


@pytest.mark.parametrize(("query", "topic"), [
    ("Where do I work now?", "Where do I work?"), ("Where do I live these days?", "Where do I live?"),
    ("What's my current job?", "What's my job?"), ("Do I still play bass?", "Do I play bass?"),
    ("我现在住哪儿？", "我住哪儿？"), ("我目前在哪家公司上班？", "我在哪家公司上班？"),
    # Nothing else asked: the words stay.
    ("What now?", "What now?"), ("现在呢？", "现在呢？"),
])
def test_when_a_question_is_asked_is_not_what_it_is_about(query, topic):
    intent = analyse(query, T0)
    assert (intent.topic, intent.current) == (topic, True)


def test_a_turn_that_says_now_is_not_about_what_is_asked_now(deps, consenting):
    said = ["I work at Tidewater since May, the commute is short.",
            "ok let's do the packing list now", "now the cat is sulking now", "fine, now the budget, now"]
    messages = [message(text, f"n{i}", T0 + timedelta(days=i)) for i, text in enumerate(said)]
    run_ingest(deps, consenting, body(*messages))
    now = (T0 + timedelta(days=30)).isoformat()
    answer = run_in_process(deps, RecallRequest.parse(consenting, "Where do I work now?", 5, now))
    episodes = [i for i in answer["items"] if i["layer"] == "episode"]
    assert "Tidewater" in episodes[0]["text"], [e["text"] for e in episodes]
