"""The guard on short memories, as a new user's would be: a few dozen things said, questions
asked about them in other words (English and Chinese), and questions about what was never said.
Real stores and the configured embedder: the thresholds in ``domain.recall.fusion.HYBRID`` are held to
these cases as well as to LoCoMo's long conversations."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

pytestmark = pytest.mark.stack
T0 = datetime(2026, 5, 1, 9, tzinfo=UTC)

MEMORY = [
    ("a1", "I'm allergic to peanuts, even a trace makes me ill."),
    ("a2", "I adopted a grey cat called Pixel last month."),
    ("a3", "I live in Lisbon now, near the river."),
    ("a4", "I work as a nurse at the city hospital."),
    ("a5", "I'm planning a trip to Kyoto in October with my sister Ana."),
    ("a6", "My favourite food is ramen with extra garlic."),
    ("a7", "I have a son named Leo who is seven."),
    ("a8", "I started learning the piano in January."),
    ("a9", "I hate running in the rain."),
    ("a10", "My dentist appointment is on Friday at 3pm."),
    ("a12", "我对花粉过敏，春天很难受。"),
    ("a13", "我喜欢喝绿茶，每天早上一杯。"),
    ("a14", "我在上海的一家银行工作。"),
    ("a15", "Hello! How are you today?"),
    ("a16", "By the way, my name is Dana."),
]

# (question, a message that answers it): the question in other words than the memory's.
ANSWERABLE = [
    ("Do you remember where I am flying?", "a11"),
    ("What pet do I have?", "a2"),
    ("Did I mention my cat?", "a2"),
    ("What's my job?", "a4"),
    ("Do you remember what I do for work?", "a4"),
    ("What instrument am I learning?", "a8"),
    ("Did I tell you about my son?", "a7"),
    ("What did I say about my allergies?", "a1"),
    ("What do I hate doing?", "a9"),
    ("When is my dentist?", "a10"),
    ("Where am I going in October?", "a5"),
    ("Do you remember my sister's name?", "a5"),
    ("Where am I travelling next week?", "a11"),
    ("我对什么过敏？", "a12"),
    ("我早上喝什么？", "a13"),
    ("你还记得我在哪里工作吗？", "a14"),
]

# As an agent asks about its user: in the third person, or by the name the user gave.
ANSWERABLE_AGENT = [
    ("Where does the user live?", "a3"),
    ("What is the user allergic to?", "a1"),
    ("Does the user have any pets?", "a2"),
    ("What is Dana's job?", "a4"),
    ("Where does Dana work?", "a4"),
    ("Did the user mention a trip?", "a5"),
    ("Do you remember what instrument Dana is learning?", "a8"),
    ("Has the user ever said anything about running?", "a9"),
]
NEVER_SAID_AGENT = [
    "Did the user mention a dog?", "Has the user ever said anything about skiing?",
    "Do you remember Dana's blood type?", "Did the user tell you about their brother?",
    "Do you remember what car Dana drives?",
]

NEVER_SAID = [
    "Did I mention a dog before?", "Did I tell you my favourite football team?", "Do you remember my wife's birthday?",
    "Do you remember what car I drive?", "Did I tell you about my brother?",
    "Did I mention which university I went to?",
    "Do you remember what I said about skiing?", "Did I ever tell you my blood type?",
    "Did I ever mention my grandmother?", "What did I say about my mortgage?", "Did I tell you about my tattoo?",
    "Do you remember when my wedding anniversary is?",
]
# Chinese questions about what was never said, asked of this mostly English memory (below).
NEVER_SAID_ZH = ["你还记得我的车是什么牌子吗？", "我提过我的哥哥吗？", "你还记得我上的大学吗？",
                 "我上次说的潜水课是哪天？"]


@pytest.fixture(scope="module")
def memory(deps):
    from fastapi.testclient import TestClient

    from engram.api.app import create_app
    from engram.domain.model import Scope
    from engram.service.users import set_consent

    client = TestClient(create_app(deps))
    tenant, key = f"tenant-{uuid.uuid4().hex[:10]}", f"key-{uuid.uuid4().hex}"
    deps.tenants.register(tenant, key)
    user = f"guard-{uuid.uuid4().hex[:10]}"
    set_consent(deps, Scope(tenant, user), True, None)
    headers = {"Authorization": f"Bearer {key}"}
    r = client.post(f"/v1/users/{user}/messages", headers=headers, json={
        "session_id": "s1", "device_id": "phone",
        "messages": [{"role": "user", "content": text, "message_id": mid,
                      "client_ts": (T0 + timedelta(minutes=i)).isoformat()} for i, (mid, text) in enumerate(MEMORY)]})
    assert r.status_code == 200, r.text
    # Said on its own, as a user would: a turn is embedded after the one before it in its request,
    # and a dentist appointment before it takes the flight's cosine to "flying" from 0.43 to 0.26.
    r = client.post(f"/v1/users/{user}/messages", headers=headers, json={
        "session_id": "s2", "device_id": "phone", "messages": [{
            "role": "user", "content": "I booked a flight to Lisbon for next week.", "message_id": "a11",
            "client_ts": (T0 + timedelta(hours=5)).isoformat()}]})
    assert r.status_code == 200, r.text
    return client, headers, user


def ask(memory, question: str) -> dict:
    client, headers, user = memory
    r = client.post(f"/v1/users/{user}/recall", headers=headers,
                    json={"query": question, "k": 5, "now": (T0 + timedelta(days=2)).isoformat()})
    assert r.status_code == 200, r.text
    return r.json()


# Issue 23, open: with multilingual-e5-small (the default) "flying" embedded alone sits at 0.27 on
# the model's scale from "I booked a flight to Lisbon" (the unheard-topic check asks 0.30), so the
# guard hides it. Strict: the day it passes, this marker must go.
_FLYING = pytest.mark.xfail(strict=True, reason="issue 23: e5 puts 'flying' alone under the unheard check")
ANSWERABLE = [pytest.param(q, a, marks=_FLYING) if q == "Do you remember where I am flying?" else (q, a)
              for q, a in ANSWERABLE]


@pytest.mark.parametrize(("question", "answer"), ANSWERABLE)
def test_what_was_said_is_found_in_other_words(memory, question, answer):
    found = ask(memory, question)
    assert found["no_record"] is False, f"{question!r}: the guard hid a memory"
    ids = [m for item in found["items"] for m in item["provenance"].get("message_ids") or []]
    assert answer in ids, f"{question!r}: {answer} not among {ids}"


@pytest.mark.parametrize(("question", "answer"), ANSWERABLE_AGENT)
def test_what_was_said_is_found_as_an_agent_asks(memory, question, answer):
    test_what_was_said_is_found_in_other_words(memory, question, answer)


def test_what_was_never_said_is_no_record_as_an_agent_asks(memory):
    missed = [q for q in NEVER_SAID_AGENT if not ask(memory, q)["no_record"]]
    assert missed == [], f"answered as if said: {missed}"


@pytest.mark.parametrize("question", ["What is Tom's job?", "Where does Tom live?", "Is Tom allergic to anything?"])
def test_another_persons_name_gets_none_of_the_users_beliefs(memory, question):
    ids = {m for item in ask(memory, question)["items"] for m in item["provenance"].get("message_ids") or []}
    assert not ids & {"a1", "a3", "a4", "a12", "a14"}, f"{question!r}: {ids}"


def test_what_was_never_said_is_no_record(memory):
    answers = {q: ask(memory, q) for q in NEVER_SAID}
    assert all(a["memory_dependent"] for a in answers.values())
    missed = [q for q, a in answers.items() if not a["no_record"]]
    # "my favourite football team" to someone whose favourite food is ramen passes for a record:
    # the one miss these cases allow.
    assert len(missed) <= 1, f"answered as if said: {missed}"


# Issue 23, open: a Chinese question asked of a user who wrote mostly in English measures its
# candidates against a background of English memories, which every Chinese memory outscores by
# language alone (relevance 0.40-0.46 against the 0.36 an unsaid topic needs). Strict: the day the
# guard holds here, this marker must go.
@pytest.mark.xfail(strict=True, reason="issue 23: a bilingual user's background is the other language's")
def test_what_was_never_said_in_chinese_is_no_record(memory):
    answers = {q: ask(memory, q) for q in NEVER_SAID_ZH}
    assert all(a["memory_dependent"] for a in answers.values())
    missed = [q for q, a in answers.items() if not a["no_record"]]
    assert len(missed) <= 1, f"answered as if said: {missed}"
