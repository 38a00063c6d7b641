"""Recall orchestration on the fakes: deadlines, the breaker, session expansion, the guard,
fusion, verbatim originals, and the per-Lambda runner giving the in-process answer."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest

from engram.domain.recall.fusion import MAX_K, NO_RECORD_BLOCK, RecallItem
from engram.domain.records import SessionRef
from engram.runtime import FairAdmission, StepLatency
from engram.service.recall import RECALL_PLAN, RecallRequest, StepResult, recall, run_in_process, run_step
from engram.service.recall.steps import warm_up
from tests.unit.support import Wrapped, failing, say, slow
from tests.unit.support import recall_through_lambdas as _through_lambdas

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


@pytest.fixture
def memory(deps, consenting):
    """Alice's memory: a sensitive allergy, a taste, a task, a trip; her phone's session points at jazz."""
    say(deps, consenting, "I'm allergic to peanuts.", "I love jazz music.", "Remind me to call the dentist",
        "I went hiking in the Alps with my brother.")
    deps.sessions.set_fields(SessionRef(consenting, "phone", "s1"), {"current_item": "jazz music",
                                                                     "restaurant": "Luigi's trattoria"})
    return consenting


def request_for(scope, query, *, session=False, k=10) -> RecallRequest:
    """A recall at NOW, from alice's phone session when ``session``."""
    return RecallRequest.parse(scope, query, k, NOW.isoformat(), "s1" if session else None,
                               "phone" if session else None)


def ask(deps, scope, query, *, session=False, k=10, deadlines=None) -> dict:
    return run_in_process(deps, request_for(scope, query, session=session, k=k), deadlines_ms=deadlines)


def layers(answer) -> set[str]:
    return {i["layer"] for i in answer["items"]}


def texts(answer, layer=None) -> list[str]:
    return [i["text"] for i in answer["items"] if layer is None or i["layer"] == layer]


def test_every_layer_answers_when_all_is_well(deps, memory):
    answer = ask(deps, memory, "What am I allergic to?")
    assert answer["degraded"] == [] and answer["no_record"] is False
    assert texts(answer, "profile")[0] == "allergic to: peanuts"  # revealed for the user
    assert any("peanuts" in t for t in texts(answer, "episode"))
    assert set(answer["timings_ms"]) >= {"session", "tasks", "profile", "episodes", "archive", "fuse", "total"}


def test_the_model_is_warmed_once_outside_the_deadlines(deps, alice):
    warm_up(deps, RECALL_PLAN.steps())
    warm_up(deps, RECALL_PLAN.steps())
    assert deps.embedder.calls == 1
    ask(deps, alice, "What am I allergic to?")
    assert deps.embedder.calls == 2  # the query's own embedding only


# -- degradation and the breaker ---------------------------------------------------------------

def test_a_step_past_its_deadline_is_degraded_and_the_rest_still_answers(deps, memory):
    slowed = deps.with_(graph=slow(deps.graph, "items", 0.3))
    answer = ask(slowed, memory, "What am I allergic to?", deadlines={"profile": 30})
    assert answer["degraded"] == ["profile"] and answer["degraded_reasons"] == {"profile": "deadline"}
    assert "profile" not in layers(answer) and any("peanuts" in t for t in texts(answer, "episode"))
    assert answer["timings_ms"]["profile"] == 30


def test_a_store_error_degrades_the_step_and_opens_the_breaker(deps, memory):
    broken = failing(deps.graph, "items")
    down = deps.with_(graph=broken)
    first = ask(down, memory, "What am I allergic to?")
    assert first["degraded"] == ["profile"] and "episode" in layers(first)
    assert first["degraded_reasons"] == {"profile": "StoreUnavailable"}  # the class, never the message
    assert deps.runtime.breaker.is_open("profile") and broken.calls == 1
    second = ask(down, memory, "What am I allergic to?")
    assert second["degraded"] == ["profile"] and broken.calls == 1  # skipped, the store was not asked
    assert second["degraded_reasons"] == {"profile": "breaker_open"}


def test_an_open_breaker_closes_after_reset_and_the_step_answers_again(deps, memory):
    ask(deps.with_(graph=failing(deps.graph, "items")), memory, "What am I allergic to?")
    deps.runtime.breaker.reset()
    assert ask(deps, memory, "What am I allergic to?")["degraded"] == []


def _slow_requests(deps, scope, n):
    slowed = deps.with_(graph=slow(deps.graph, "items", 0.15))
    for _ in range(n):
        assert ask(slowed, scope, "What am I allergic to?", deadlines={"profile": 20})["degraded"] == ["profile"]
    time.sleep(0.3)  # the abandoned calls finish late: that is the same miss, not another one


def test_missed_deadlines_never_open_the_breaker(deps, memory):
    # Under load "slower" must not become "empty" for everyone else: only store errors open it.
    _slow_requests(deps, memory, 5)
    assert not deps.runtime.breaker.is_open("profile")
    assert ask(deps, memory, "What am I allergic to?")["degraded"] == []


def test_a_cold_step_gets_the_cold_allowance_and_a_warm_one_its_configured_deadline(deps, memory):
    deps.runtime.latency.reset()
    slowed = deps.with_(graph=slow(deps.graph, "items", 0.1))
    first = ask(slowed, memory, "What am I allergic to?")  # configured profile deadline: 150 ms
    assert first["degraded"] == [] and "profile" in layers(first)
    tight = slowed.with_(settings=slowed.settings.model_copy(update={"recall_deadlines_ms": {
        **slowed.settings.recall_deadlines_ms, "profile": 20}, "recall_deadline_stretch": 1.0}))
    assert ask(tight, memory, "What am I allergic to?")["degraded"] == ["profile"]


def test_deadlines_stretch_with_measured_latency_within_the_limit():
    latency = StepLatency()
    assert latency.deadline("episodes", 300, 4, 3000) == 3000  # cold
    for _ in range(50):
        latency.observe("episodes", 250)
    assert latency.deadline("episodes", 300, 4, 3000) == 500
    for _ in range(50):
        latency.observe("episodes", 5000)
    assert latency.deadline("episodes", 300, 4, 3000) == 1200
    for _ in range(100):
        latency.observe("episodes", 10)
    assert latency.deadline("episodes", 300, 4, 3000) == 300


def test_an_answer_in_time_resets_the_count_of_misses(deps, memory):
    _slow_requests(deps, memory, 2)
    ask(deps, memory, "What am I allergic to?")
    _slow_requests(deps, memory, 1)
    assert not deps.runtime.breaker.is_open("profile")


# -- session, guard, fusion --------------------------------------------------------------------

def test_that_one_is_read_as_the_sessions_current_item(deps, memory):
    with_session = ask(deps, memory, "Do I still like that one?", session=True)
    assert "has preference: jazz music" in texts(with_session, "profile")
    assert with_session["memory_dependent"] is False
    without = ask(deps, memory, "Do I still like that one?")
    assert "has preference: jazz music" not in texts(without, "profile")


def test_a_session_field_answers_directly(deps, memory):
    answer = ask(deps, memory, "Which restaurant did we pick?", session=True)
    [item] = [i for i in answer["items"] if i["layer"] == "session"]
    assert item["text"] == "restaurant: Luigi's trattoria" and item["memory_id"] == "session:s1:restaurant"


def test_a_memory_question_with_nothing_relevant_is_no_record(deps, memory):
    # (The fakes' bag-of-words embedder sees "my" as half of "my snowboard": no pronoun here.)
    answer = ask(deps, memory, "Do you remember what I told you about snowboarding lessons?")
    assert answer["memory_dependent"] is True and answer["no_record"] is True
    assert answer["items"] == [] and answer["context_block"] == NO_RECORD_BLOCK


def test_a_memory_question_with_a_record_is_answered(deps, memory):
    answer = ask(deps, memory, "Do you remember what I'm allergic to?")
    assert answer["memory_dependent"] is True and answer["no_record"] is False
    assert "allergic to: peanuts" in texts(answer) and "peanuts" in answer["context_block"]


def test_an_empty_memory_is_no_record(deps, alice):
    answer = ask(deps, alice, "What am I allergic to?")
    assert answer["no_record"] is True and answer["items"] == []


def test_k_bounds_the_answer(deps, memory):
    assert len(ask(deps, memory, "What do I like and what am I allergic to?", k=1)["items"]) == 1


def _item(memory_id, layer, score, message_ids, relevance=1.0):
    return RecallItem(memory_id=memory_id, layer=layer, type="fact", text=memory_id, confidence=1.0,
                      decayed_confidence=1.0, trust_source="rule", needs_confirmation=False, valid_from=None,
                      valid_to=None, provenance={"message_ids": message_ids}, score=score, relevance=relevance)


def test_fusion_drops_repeats_and_covered_items_and_keeps_k(alice):
    request = request_for(alice, "what do I like", k=4)
    results = [
        StepResult("profile", [_item("p1", "profile", 0.9, ["m1"]), _item("p2", "profile", 0.8, ["m1"])]),
        StepResult("episodes", [_item("p1", "episode", 0.5, ["m9"]), _item("e1", "episode", 0.7, ["m1"]),
                                _item("e4", "episode", 0.65, ["m1"]), _item("e2", "episode", 0.6, ["m2"]),
                                _item("e3", "episode", 0.1, ["m3"])]),
    ]
    answer = RECALL_PLAN.finish(RECALL_PLAN.context(request, {}), results)
    # p2 is another belief read from m1 ("peanuts and shellfish"): kept. The event e4 only repeats
    # m1 within its layer, and the episode "p1" repeats a memory id: dropped; k=4.
    assert [i["memory_id"] for i in answer["items"]] == ["p1", "p2", "e1", "e2"]
    assert answer["items"][0]["score"] == pytest.approx(0.9 * 1.1)


# -- verbatim originals ------------------------------------------------------------------------

def test_a_verbatim_question_brings_the_original_turns(deps, memory):
    answer = ask(deps, memory, "What exactly did I say about the dentist?", k=20)
    originals = texts(answer, "archive")
    assert "user said: Remind me to call the dentist" in originals
    # Originals are only those of the events found (the relevance floor keeps the peanuts out of
    # a question about the dentist); a sealed turn is revealed for the user.
    sealed = texts(ask(deps, memory, "What exactly did I say about peanuts?", k=20), "archive")
    assert "user said: I'm allergic to peanuts." in sealed
    assert all(i["type"] == "original_turn" for i in answer["items"] if i["layer"] == "archive")


def test_other_questions_do_not_read_the_originals(deps, memory):
    assert "archive" not in layers(ask(deps, memory, "What did I say about the dentist?", k=20))


def test_a_broken_turn_log_degrades_only_the_originals(deps, memory):
    answer = ask(deps.with_(turns=failing(deps.turns, "turns")), memory, "What exactly did I say about the dentist?")
    assert answer["degraded"] == ["archive"] and "episode" in layers(answer)


# -- the per-Lambda runner ---------------------------------------------------------------------

@pytest.mark.parametrize(("query", "session"), [
    ("What am I allergic to?", False),
    ("Do I still like that one?", True),
    ("What exactly did I say about the dentist?", True),
    ("Do you remember what I told you about my snowboard?", False),
    ("Which restaurant did we pick and what was that task?", True),
])
def test_run_step_chain_gives_the_in_process_answer(deps, memory, query, session):
    request = request_for(memory, query, session=session)
    expected = run_in_process(deps, request)
    answer = _through_lambdas(deps, request)
    assert answer["items"] == expected["items"]
    assert (answer["no_record"], answer["memory_dependent"], answer["degraded"]) == (
        expected["no_record"], expected["memory_dependent"], expected["degraded"])
    assert answer["context_block"] == expected["context_block"]


def test_run_step_reports_a_failing_store_as_degraded(deps, memory):
    payload = request_for(memory, "What am I allergic to?").to_json()
    session = run_step(deps, "session", payload)
    out = run_step(deps.with_(graph=failing(deps.graph, "items")), "profile", {"request": payload, "session": session})
    assert (out["step"], out["degraded"], out["reason"], out["items"]) == ("profile", True, "StoreUnavailable", [])


def test_recall_on_step_functions_hands_over_the_request(settings, memory):
    from tests.fakes import fake_deps

    deps = fake_deps(settings.model_copy(update={"recall_runner": "stepfunctions",
                                                 "recall_state_machine_arn": "arn:aws:states:r:1:stateMachine:recall"}))
    deps.workflows.runner = lambda arn, payload: {"items": [], "echo": payload}
    request = request_for(memory, "What am I allergic to?", k=5)
    assert recall(deps, request)["echo"] == request.to_json()


def test_a_cold_step_connects_its_stores_before_its_deadline(deps, alice):
    calls = []
    probed = deps.with_(probes={name: (lambda n=name: calls.append(n)) for name in ("redis", "postgres", "neo4j",
                                                                                   "opensearch", "s3")})
    warm_up(probed, (RECALL_PLAN.step("profile"),))
    warm_up(probed, (RECALL_PLAN.step("profile"),))
    assert calls == ["neo4j", "postgres"]  # once per process, only what the step reads


def test_recalls_beyond_the_process_limit_queue_before_their_deadlines(deps, memory):
    running, most = [0], [0]
    lock = threading.Lock()

    def counted(store, *args, **kwargs):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.1)
        with lock:
            running[0] -= 1
        return store.items(*args, **kwargs)

    one_at_a_time = deps.with_(graph=Wrapped(deps.graph, "items", counted),
                               settings=deps.settings.model_copy(update={"recall_concurrency": 1}))
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(ask(one_at_a_time, memory, "What am I allergic to?")))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1 and len(answers) == 4 and all(a["degraded"] == [] for a in answers)


def test_a_store_whose_warm_up_failed_is_not_probed_again_on_every_request(deps, memory):
    calls = []

    def down() -> None:
        calls.append(1)
        raise ConnectionError("refused")

    broken = deps.with_(probes={**deps.probes, "neo4j": down})
    for _ in range(3):
        warm_up(broken, RECALL_PLAN.steps())
    assert len(calls) == 1


def test_the_largest_k_gets_as_many_episodes_as_the_user_has_relevant(deps, alice):
    """The k-NN candidates of the default recipe (``RecallRecipe.candidates``) are never fewer
    than the largest k a request may ask: asking for MAX_K finds MAX_K events."""
    assert RECALL_PLAN.recipe.candidates >= MAX_K
    say(deps, alice, *[f"I played chess with cousin number {i} today." for i in range(MAX_K + 10)])
    answer = ask(deps, alice, "Who did I play chess with?", k=MAX_K)
    assert len(texts(answer, "episode")) == MAX_K


def _wait_until(condition) -> None:
    for _ in range(2000):
        if condition():
            return
        time.sleep(0.001)
    raise AssertionError("never happened")


@pytest.mark.parametrize("admission", [FairAdmission])
def test_a_released_slot_goes_to_the_oldest_waiter_not_back_to_its_holder(admission):
    """A client that releases and asks again queues behind those already waiting (a plain
    ``threading.Semaphore`` hands it straight back: the other client starves)."""
    gate, entered = admission(1), []
    gate.__enter__()
    waiter = threading.Thread(target=lambda: (gate.__enter__(), entered.append("waiter"), gate.__exit__()))
    waiter.start()
    _wait_until(lambda: len(gate._waiting) == 1)
    gate.__exit__()
    with gate:
        entered.append("holder again")
    waiter.join(5)
    assert entered == ["waiter", "holder again"]


def test_waiters_get_in_in_the_order_they_came():
    gate, entered, threads = FairAdmission(1), [], []
    gate.__enter__()
    for name in "abcde":
        thread = threading.Thread(target=lambda n=name: (gate.__enter__(), entered.append(n), gate.__exit__()))
        thread.start()
        threads.append(thread)
        _wait_until(lambda k=len(threads): len(gate._waiting) == k)
    gate.__exit__()
    for thread in threads:
        thread.join(5)
    assert entered == list("abcde")
    assert gate._free == 1 and not gate._waiting
