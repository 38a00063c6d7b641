"""Ingestion and routing on the fakes: what each kind of turn leaves in which store."""

from __future__ import annotations

import json

import pytest

from engram.domain.privacy import crypto
from engram.errors import Conflict, PayloadTooLarge, StoreUnavailable, Unprocessable, ValidationFailed
from engram.service.ingest import INGEST_CHAIN
from engram.service.ingest.catch_up import catch_up
from engram.service.ingest.route import event_id
from engram.service.memories import feedback
from engram.service.profile import correct_profile_item, profile
from engram.service.users import set_consent
from tests.fakes import fake_deps
from tests.unit.support import T0, OpeningNoted, body, ingest, message, run_ingest, say, through_lambdas


def episodes(deps, scope) -> list[dict]:
    return sorted(deps.episodes.all_for_user(scope), key=lambda d: d["ts"])


def comparable(result: dict) -> list[dict]:
    """The extracted memories without the graph's edge ids (random per store)."""
    return [{k: v for k, v in e.items() if not (e["kind"] == "profile" and k == "memory_id")}
            for e in result["extracted"]]


def kinds(result):
    return sorted({e["kind"] for e in result["extracted"]})


# -- the chain ---------------------------------------------------------------------------------

def test_chain_is_clean_extract_cleanse_route():
    assert [s.name for s in INGEST_CHAIN] == ["clean", "extract", "cleanse", "route"]


def test_step_by_step_through_json_equals_the_in_process_chain(settings, alice):
    request = body(message("I'm allergic to peanuts.", "m1"), message("Remind me to call the dentist", "m2"),
                   message("Sure, noted.", "m3", role="assistant"))
    in_process, stepped = fake_deps(settings), fake_deps(settings)
    for d in (in_process, stepped):
        set_consent(d, alice, True, None)
    expected = run_ingest(in_process, alice, request)
    value = through_lambdas(stepped, {"tenant": alice.tenant, "user_id": alice.user_id, "body": request})
    assert comparable(value) == comparable(expected) and len(expected["extracted"]) == 5
    assert value["accepted"] == expected["accepted"] == 3
    assert value["message_ids"] == expected["message_ids"] == ["m1", "m2", "m3"]
    assert [d["event_id"] for d in episodes(stepped, alice)] == [d["event_id"] for d in episodes(in_process, alice)]
    assert len(episodes(stepped, alice)) == 3
    assert [(i["predicate"], i["message_ids"]) for i in stepped.graph.items(alice)] == [
        (i["predicate"], i["message_ids"]) for i in in_process.graph.items(alice)] == [("allergic_to", ["m1"])]


def test_the_stepfunctions_runner_hands_the_request_to_the_state_machine(settings, alice):
    deps = fake_deps(settings.model_copy(update={"ingest_runner": "stepfunctions",
                                                 "ingest_state_machine_arn": "arn:sm:ingest"}))
    deps.workflows.runner = lambda _arn, payload: through_lambdas(deps, payload)
    result = ingest(deps, alice, body(message("hello there", "m1")))
    assert result["message_ids"] == ["m1"] and [t["message_id"] for t in deps.turns.turns(alice)] == ["m1"]
    [call] = deps.workflows.synced
    assert call["state_machine_arn"] == "arn:sm:ingest" and call["payload"]["user_id"] == "alice"


def test_the_stepfunctions_runner_needs_its_state_machine(settings, alice):
    deps = fake_deps(settings.model_copy(update={"ingest_runner": "stepfunctions"}))
    with pytest.raises(ValidationFailed) as caught:
        ingest(deps, alice, body(message("hello there", "m1")))
    assert caught.value.field == "runner" and deps.workflows.synced == []


# -- consent -----------------------------------------------------------------------------------

def test_without_long_term_consent_no_graph_facts(deps, alice):
    result = say(deps, alice, "I'm allergic to peanuts.")
    assert deps.graph.items(alice) == [] and "profile" not in kinds(result)
    assert [d["type"] for d in episodes(deps, alice)] == ["health"]


def test_with_consent_the_fact_reaches_the_graph(deps, consenting):
    result = say(deps, consenting, "I love jazz music.")
    [item] = deps.graph.items(consenting)
    assert (item["predicate"], item["object"], item["source"]) == ("has_preference", "jazz music", "rule")
    assert item["message_ids"] == ["s1-202611200900-0"]
    assert kinds(result) == ["episode", "profile"]


def test_revoking_consent_removes_the_graph_items(deps, consenting):
    say(deps, consenting, "I love jazz music.", "I live in Berlin.")
    assert len(deps.graph.items(consenting)) == 2
    answer = set_consent(deps, consenting, False, None)
    assert answer["long_term"] is False and answer["version"] == 2
    assert deps.graph.items(consenting, include_history=True) == []
    assert len(episodes(deps, consenting)) == 2  # episodic memory is not what the consent covered
    say(deps, consenting, "I love tea.", prefix="later")
    assert deps.graph.items(consenting) == []


# -- child mode --------------------------------------------------------------------------------

def test_child_mode_keeps_type_and_time_only(deps, alice):
    set_consent(deps, alice, True, 10)
    result = say(deps, alice, "My name is Tim and I love dinosaurs.", "Remind me to feed the cat")
    docs = episodes(deps, alice)
    assert [(d["type"], d["ts"]) for d in docs] == [("profile", "2026-11-20T09:00:00Z"),
                                                    ("task", "2026-11-20T09:01:00Z")]
    for doc in docs:
        assert (doc["summary"], doc["text"], doc["context"], doc["keywords"]) == ("", "", "", [])
        assert doc["sensitive"] is False and "vector" not in doc
    assert [t["content"] for t in deps.turns.turns(alice)] == [None, None]
    assert deps.graph.items(alice, include_history=True) == []
    assert [t.metadata["title"] for t in deps.tasks.history(alice)] == [""]
    assert all(e["summary"] == "" for e in result["extracted"])


def test_a_child_never_gets_long_term_memory_even_if_asked(deps, alice):
    answer = set_consent(deps, alice, True, 12)
    assert answer == {**answer, "long_term": False, "child_mode": True, "age": 12}
    assert deps.users.state(alice).child_mode is True


# -- cleansing: tentative, corrections, relative time -----------------------------------------

def test_tentative_statements_are_tagged_and_weak(deps, consenting):
    say(deps, consenting, "Maybe I'm allergic to cats.")
    [doc] = episodes(deps, consenting)
    assert "tentative" in doc["tags"] and doc["weight"] == 0.2 and doc["confidence"] == pytest.approx(0.2)
    [item] = deps.graph.items(consenting)
    assert "tentative" in item["tags"] and item["confidence"] == pytest.approx(0.2)


def test_a_correction_without_a_fact_is_a_correction_event(deps, alice):
    result = say(deps, alice, "No, I meant the other one")
    assert [e["type"] for e in result["extracted"]] == ["correction"]


def test_a_correction_of_a_functional_fact_closes_the_old_value(deps, consenting):
    say(deps, consenting, "I live in Paris.", prefix="a")
    say(deps, consenting, "Actually, I meant I live in Berlin.", prefix="b", at=T0.replace(hour=10))
    [current] = deps.graph.items(consenting)
    assert current["object"] == "Berlin" and "correction" in current["tags"]
    history = {i["object"]: i for i in deps.graph.items(consenting, include_history=True)}
    assert set(history) == {"Paris", "Berlin"} and history["Paris"]["valid_to"] is not None


def test_relative_time_is_resolved_against_the_turns_own_clock(deps, alice):
    say(deps, alice, "I went hiking yesterday.", at=T0.replace(year=2024, month=3, day=1))
    [doc] = episodes(deps, alice)
    assert doc["occurred_at"].startswith("2024-02-29") and doc["ts"].startswith("2024-03-01")
    assert "time_resolved" in doc["tags"] and "(yesterday = 2024-02-29)" in doc["summary"]


def test_turns_are_ordered_by_client_time_not_arrival(deps, alice):
    result = run_ingest(deps, alice, body(message("second", "b", "2026-11-20T09:05:00Z"),
                                          message("first", "a", "2026-11-20T09:00:00Z")))
    assert result["message_ids"] == ["a", "b"]


# -- validation: the whole batch or nothing ----------------------------------------------------

def test_a_message_id_reused_with_other_content_is_unprocessable(deps, alice):
    with pytest.raises(Unprocessable) as caught:
        run_ingest(deps, alice, body(message("one", "m1"), message("two", "m1")))
    assert caught.value.field == "messages[1].message_id" and caught.value.status == 422
    assert deps.turns.turns(alice) == [] and episodes(deps, alice) == []


def test_the_same_message_twice_in_one_batch_is_one_turn(deps, alice):
    result = run_ingest(deps, alice, body(message("one", "m1"), message("one", "m1")))
    assert result["accepted"] == 1 and len(deps.turns.turns(alice)) == 1


@pytest.mark.parametrize(("request_body", "error", "field"), [
    ({"session_id": "s1", "device_id": "d", "messages": []}, ValidationFailed, "messages"),
    ({"session_id": "bad id!", "device_id": "d", "messages": [message("x", "m")]}, ValidationFailed, "session_id"),
    (body(*[message(f"x{i}", f"m{i}") for i in range(101)]), PayloadTooLarge, "messages"),
    (body(message("x" * 8001, "m1")), PayloadTooLarge, "messages[0].content"),
    (body(message("ok", "m0"), {"role": "user", "content": "no clock"}), ValidationFailed, "messages[1].client_ts"),
    (body(message("x", "m1", role="system")), ValidationFailed, "messages[0].role"),
    (body(message("x", "m1", at="yesterday")), ValidationFailed, "messages[0].client_ts"),
])
def test_bad_input_is_refused_naming_the_field(deps, alice, request_body, error, field):
    with pytest.raises(error) as caught:
        run_ingest(deps, alice, request_body)
    assert caught.value.field == field
    assert deps.turns.turns(alice) == []


# -- retries, merges, the cap ------------------------------------------------------------------

def test_a_retry_writes_nothing_twice(deps, consenting):
    request = body(message("I love jazz music.", "m1"), message("Remind me to buy milk", "m2"))
    first = run_ingest(deps, consenting, request)
    state = (deps.turns.turns(consenting), episodes(deps, consenting), deps.tasks.history(consenting))
    graph = deps.graph.items(consenting)
    again = run_ingest(deps, consenting, request)
    assert again["message_ids"] == first["message_ids"]
    assert [e["memory_id"] for e in again["extracted"]] == [e["memory_id"] for e in first["extracted"]]
    assert len(deps.turns.turns(consenting)) == len(state[0]) == 2
    assert [d["event_id"] for d in episodes(deps, consenting)] == [d["event_id"] for d in state[1]]
    assert len(deps.tasks.history(consenting)) == len(state[2]) == 1
    [item] = deps.graph.items(consenting)
    assert item["id"] == graph[0]["id"] and item["message_ids"] == ["m1"]
    assert item["confidence"] == graph[0]["confidence"]


# A device that reconnects sends its backlog again, message ids and all. Such a late retry should
# change nothing, but routing rebuilds the event over the stored one and reinforces the belief
# again (see the report): these document the gap until routing skips what is already stored.


def test_a_late_retry_keeps_a_merge(deps, alice):
    first = body(message("I really enjoy long walks by the river.", "a-0"), session="s1")
    run_ingest(deps, alice, first)
    say(deps, alice, "I really enjoy long walks by the river.", session="s2", prefix="b", at=T0.replace(hour=12))
    run_ingest(deps, alice, first)
    [doc] = episodes(deps, alice)
    assert doc["message_ids"] == ["a-0", "b-0"] and doc["merged_count"] == 2


def test_a_late_retry_keeps_feedback(deps, alice):
    request = body(message("I went hiking in the Alps.", "m1"))
    memory_id = run_ingest(deps, alice, request)["extracted"][0]["memory_id"]
    feedback(deps, alice, memory_id, False)
    run_ingest(deps, alice, request)
    assert deps.episodes.get(alice, memory_id)["weight"] < 1.0


def test_a_late_retry_keeps_a_human_correction(deps, consenting):
    request = body(message("I love jazz music.", "m1"))
    run_ingest(deps, consenting, request)
    correct_profile_item(deps, consenting, deps.graph.items(consenting)[0]["id"], None, 1.0)
    run_ingest(deps, consenting, request)
    assert deps.graph.items(consenting)[0]["confidence"] == 1.0  # 0.79: reinforced by the same message


def test_a_near_duplicate_folds_into_the_event_it_repeats(deps, alice):
    first = say(deps, alice, "I really enjoy long walks by the river.", session="s1", prefix="a")
    second = say(deps, alice, "I really enjoy long walks by the river.", session="s2", prefix="b",
                 at=T0.replace(hour=12))
    target = first["extracted"][0]["memory_id"]
    assert second["extracted"][0]["memory_id"] == target
    [doc] = episodes(deps, alice)
    assert doc["event_id"] == target and doc["merged_count"] == 2
    assert doc["message_ids"] == ["a-0", "b-0"] and doc["ts"] == "2026-11-20T12:00:00Z"
    assert doc["confidence"] == pytest.approx(0.7)
    assert any(e["action"] == "merge" for e in deps.audit.entries(alice))


def test_the_per_user_cap_evicts_the_weakest(settings, alice):
    deps = fake_deps(settings.model_copy(update={"episodes_per_user": 3}))
    say(deps, alice, "I went to Rome in May.", "Maybe I'll learn the violin.", "I bought a red bicycle.",
        "We painted the kitchen green.", "Remind me to renew my passport")
    assert deps.episodes.count(alice, tier="hot") == 3
    assert deps.episodes.count(alice, tier="retrievable") == 5
    evicted = {d["event_id"] for d in episodes(deps, alice) if d["evicted"]}
    # the tentative one (lowest weight), then the oldest of the equally weighted
    assert evicted == {event_id(alice, "s1-202611200900-1"), event_id(alice, "s1-202611200900-0")}
    assert sum(e["action"] == "evict" for e in deps.audit.entries(alice)) == 2


def test_a_user_being_erased_is_refused_with_409(deps, alice):
    deps.erasure_jobs.mark_erasing(alice)
    with pytest.raises(Conflict) as caught:
        say(deps, alice, "I love jazz music.")
    assert caught.value.field == "user_id" and caught.value.status == 409
    assert deps.turns.turns(alice) == [] and episodes(deps, alice) == []


def test_users_are_kept_apart(deps, alice, bob):
    say(deps, alice, "I love jazz music.")
    assert deps.turns.turns(bob) == [] and deps.episodes.all_for_user(bob) == []


def test_what_the_assistant_said_is_an_episode_of_its_own_kind_never_a_belief(deps, consenting):
    result = run_ingest(deps, consenting, body(
        message("Any ideas for a rainy Sunday?", "m1"),
        message("You said you love jazz. Maybe try the Blue Note brunch set, or bake the lemon tart I gave you.",
                "m2", role="assistant")))
    [answer] = [e for e in episodes(deps, consenting) if e["message_ids"] == ["m2"]]
    assert answer["type"] == "assistant" and "Blue Note" in answer["text"]
    # Its hedge ("maybe") is how the assistant put it, not a doubt about the user.
    assert answer["weight"] == 1.0 and "tentative" not in answer["tags"]
    # Embedded with the request it answered, so either finds the other.
    assert answer["context"] == "Any ideas for a rainy Sunday?"
    assert [x["kind"] for x in result["extracted"]] == ["episode", "episode"]
    assert deps.graph.items(consenting) == []  # "you love jazz" is the assistant's, not the user's word
    assert [t["role"] for t in deps.turns.turns(consenting)] == ["user", "assistant"]


def test_the_assistants_pleasantries_are_chatter(deps, alice):
    run_ingest(deps, alice, body(message("Thanks!", "m1", role="assistant")))
    assert [e["type"] for e in episodes(deps, alice)] == ["small_talk"]


# -- sensitive turns and facts -----------------------------------------------------------------

def test_sensitive_turns_and_facts_are_sealed_at_rest(deps, consenting):
    say(deps, consenting, "I'm allergic to peanuts.", "I love jazz music.")
    rows = {t["message_id"]: t["content"] for t in deps.turns.turns(consenting)}
    assert crypto.is_sealed(rows["s1-202611200900-0"]) and "peanuts" not in rows["s1-202611200900-0"]
    assert rows["s1-202611200900-1"] == "I love jazz music."
    stored = {i["predicate"]: i for i in deps.graph.items(consenting)}
    allergy = stored["allergic_to"]
    assert allergy["object"].startswith("sealed:") and crypto.is_sealed(allergy["sealed"])
    assert "peanuts" not in json.dumps(allergy, default=str)
    assert stored["has_preference"]["object"] == "jazz music" and not stored["has_preference"]["sealed"]
    shown = {i["type"]: i["object"] for i in profile(deps, consenting)["items"]}
    assert shown == {"allergic_to": "peanuts", "has_preference": "jazz music"}


def test_the_same_sensitive_fact_again_reinforces_one_edge(deps, consenting):
    say(deps, consenting, "I'm allergic to peanuts.", prefix="a")
    say(deps, consenting, "I'm allergic to peanuts.", prefix="b", session="s2")
    [item] = deps.graph.items(consenting)
    assert item["message_ids"] == ["a-0", "b-0"]



def test_a_sealed_event_is_opened_only_when_a_turn_repeats_it_and_only_its_text(deps, consenting):
    keys = OpeningNoted(deps.keys)
    deps = deps.with_(keys=keys)
    first = say(deps, consenting, "I'm allergic to peanuts.", prefix="a")
    keys.opened.clear()
    say(deps, consenting, "I'm allergic to shellfish and to dust.", prefix="b", session="s2")
    assert not [p for p in keys.opened if p.startswith("episode:")]  # the nearest is no repeat: still sealed
    again = say(deps, consenting, "I'm allergic to peanuts.", prefix="c", session="s3")
    assert again["extracted"][0]["memory_id"] == first["extracted"][0]["memory_id"]  # folded, words compared
    assert {p for p in keys.opened if p.startswith("episode:")} == {"episode:text"}

# -- a long batch: embedded and written group by group -----------------------------------------

_TOPICS = ("The bus was late again", "Quantum dots glow under ultraviolet light", "Grandma knits scarves",
           "Our router keeps dropping wifi", "Penguins huddle against the wind", "I repainted the fence blue",
           "Tax forms are due in April", "The violin needs new strings", "Saturn has dozens of moons",
           "My neighbour grows giant pumpkins", "Chess openings bore me", "The bakery sells rye bread",
           "Volcanic soil is fertile", "Jazz trumpet solos at midnight", "The printer jammed twice",
           "Kites need steady wind", "Sourdough starter smells sour", "The museum reopened on Monday",
           "Glaciers carve deep valleys", "Our cat sleeps on the radiator")


def long_batch(prefix: str, at=T0, **placed: str) -> dict:
    """20 turns, with ``placed`` texts at the given positions (``p9="..."``)."""
    texts = [placed.get(f"p{i}", f"{topic} ({prefix})") for i, topic in enumerate(_TOPICS)]
    return body(*[message(t, f"{prefix}-{i}", at.replace(minute=i)) for i, t in enumerate(texts)], session=prefix)


@pytest.mark.parametrize("group", [8, 32], ids=["in-a-later-group", "all-in-one-group"])
def test_a_repeat_in_a_long_batch_folds_whatever_the_group_size(settings, alice, group):
    deps = fake_deps(settings.model_copy(update={"embed_group": group}))
    first = run_ingest(deps, alice, body(message("Morning, how are you?", "a-0"),
                                         message("I really enjoy long walks by the river.", "a-1"), session="a"))
    greeting, target = (e["memory_id"] for e in first["extracted"])
    result = run_ingest(deps, alice, long_batch("b", at=T0.replace(hour=12), p8="Morning, how are you?",
                                                p9="I really enjoy long walks by the river."))
    # Each turn is embedded alone: the greeting said again is a repeat too, whatever came before it.
    assert [e["memory_id"] for e in result["extracted"][8:10]] == [greeting, target]
    assert len({e["memory_id"] for e in result["extracted"]}) == 20
    stored = {d["event_id"]: d for d in episodes(deps, alice)}
    assert len(stored) == 2 + 18 and not {event_id(alice, "b-8"), event_id(alice, "b-9")} & stored.keys()
    assert stored[target]["message_ids"] == ["a-1", "b-9"] and stored[target]["merged_count"] == 2


class FailingPut:
    """The fake episode store, whose ``put`` fails on its ``nth`` call from now on."""

    def __init__(self, inner, nth: int) -> None:
        self.inner, self.calls, self.nth = inner, 0, nth

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def put(self, *args, **kwargs):
        self.calls += 1
        if self.calls == self.nth:
            raise StoreUnavailable("episode store: injected")
        return self.inner.put(*args, **kwargs)


def test_a_group_that_fails_to_write_leaves_the_episodes_pending_and_the_retry_finishes_them(deps, alice):
    request = long_batch("c")
    broken = deps.with_(episodes=FailingPut(deps.episodes, nth=2))
    assert run_ingest(broken, alice, request)["pending"] == ["episodes"]
    assert len(deps.turns.turns(alice)) == 20  # the turn log kept every turn
    assert 0 < len(episodes(deps, alice)) < 20
    # The client's retry goes behind the pending write (order per user); the catch-up finishes it.
    assert run_ingest(deps, alice, request)["pending"] == ["episodes"]
    assert catch_up(deps, budget_s=5) == {"applied": 1}
    again = run_ingest(deps, alice, request)
    assert sorted(d["event_id"] for d in episodes(deps, alice)) == sorted(e["memory_id"] for e in again["extracted"])
    assert len(episodes(deps, alice)) == 20


def test_each_turn_is_embedded_alone_with_the_turn_before_it_kept_as_its_context(deps, alice):
    run_ingest(deps, alice, body(
        message("Any ideas for dinner?", "m1"),
        message("Try a miso-glazed salmon with rice, or a quick vegetable curry; both take 30 minutes.", "m2",
                role="assistant"),
        message("Our balcony faces south, by the way.", "m3"),
        message("Yes, last week!", "m4")))
    stored = {d["message_ids"][0]: d for d in deps.episodes.docs.values()}
    embed = deps.embedder.embed
    # Its own words only (the neighbours lend relevance at recall); the turn before it is matched
    # lexically, and an answer names the request it answered.
    for mid in ("m1", "m2", "m3", "m4"):
        assert stored[mid]["vector"] == embed([stored[mid]["text"]])[0]
    assert stored["m4"]["context"] == "Our balcony faces south, by the way."
    assert stored["m2"]["reply_to"] == "m1" and "reply_to" not in stored["m3"]
