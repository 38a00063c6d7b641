"""Writes that survive a derived store's outage (issue 25), on fakes: the turn log commits, a
layer whose store is away is pending, recall says so, and the catch-up applies it later, in order,
once, under the user's current consent, never for a user erased."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.ingest.pending import MAX_ATTEMPTS, retry_after
from engram.domain.model import Scope
from engram.service.ingest.catch_up import catch_up, record_backlog, replay
from engram.service.profile import profile
from engram.service.recall import RecallRequest, recall
from engram.service.users import set_consent
from tests.fakes import fake_deps
from tests.unit.support import body, failing, message, run_ingest, run_saga, start_erasure

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def scope() -> Scope:
    return Scope(f"t-{uuid.uuid4().hex[:8]}", "alice")


def said(deps, scope, text, message_id, at, session="s1"):
    return run_ingest(deps, scope, body(message(text, message_id, at), session=session))


def lives_in(deps, scope) -> list[tuple[str, bool]]:
    items = profile(deps, scope, include_history=True)["items"]
    return sorted((i["object"], i["valid_to"] is None) for i in items if i["type"] == "lives_in")


def test_profile_down_accepts_and_catches_up_in_turn_order(deps, scope):
    set_consent(deps, scope, True, 30)
    down = deps.with_(graph=failing(deps.graph, "upsert_fact"))
    first = said(down, scope, "I live in Paris.", "m1", NOW - timedelta(minutes=5))
    assert first["accepted"] == 1 and first["pending"] == ["profile"]
    # The graph is back, but Paris still waits: Lyon queues behind it, never lands first.
    second = said(deps, scope, "We moved to Lyon last month.", "m2", NOW - timedelta(minutes=1))
    assert second["pending"] == ["profile"] and lives_in(deps, scope) == []
    assert catch_up(deps, budget_s=5) == {"applied": 2}
    assert lives_in(deps, scope) == [("Lyon", True), ("Paris", False)]
    assert deps.pending.layers(scope) == set()
    assert catch_up(deps, budget_s=5) == {}
    assert lives_in(deps, scope) == [("Lyon", True), ("Paris", False)]  # nothing applied twice


def test_episodes_down_recall_says_incomplete_then_finds_the_event_once(deps, scope):
    down = deps.with_(episodes=failing(deps.episodes, "put"))
    answer = said(down, scope, "I'm flying to Tokyo for the marathon next week.", "m1", NOW)
    assert answer["pending"] == ["episodes"] and answer["message_ids"] == ["m1"]
    question = "when am I flying to Tokyo for the marathon?"
    before = recall(deps, RecallRequest.parse(scope, question, now=NOW.isoformat()))
    assert before["no_record"] is False and before["memory_pending"] == ["episodes"]
    assert "still being written" in before["context_block"]
    # The client retries the same request meanwhile: still one pending write, still one event.
    said(down, scope, "I'm flying to Tokyo for the marathon next week.", "m1", NOW)
    assert catch_up(deps, budget_s=5) == {"applied": 1}
    assert len(deps.episodes.all_for_user(scope)) == 1
    after = recall(deps, RecallRequest.parse(scope, question, now=NOW.isoformat()))
    assert after["memory_pending"] == [] and "Tokyo" in after["context_block"]


def test_working_memory_down_is_pending_and_an_expired_turn_is_dropped_not_replayed(deps, scope):
    down = deps.with_(sessions=failing(deps.sessions, "append_turns"))
    old = NOW - timedelta(seconds=deps.settings.session_ttl_s + 60)
    assert said(down, scope, "ok let's plan the week", "m1", old, session="s-old")["pending"] == ["working_memory"]
    assert said(down, scope, "and book the dentist", "m2", NOW, session="s-new")["pending"] == ["working_memory"]
    assert catch_up(deps, budget_s=5) == {"expired": 1, "applied": 1}
    assert [ref.session_id for ref in deps.sessions.sessions_of(scope)] == ["s-new"]


def test_a_store_still_down_costs_no_attempt_and_the_catch_up_sleeps_between_tries(deps, scope):
    down = deps.with_(episodes=failing(deps.episodes, "put"))
    said(down, scope, "Remind me that my passport expires in March.", "m1", NOW)
    settings = deps.settings.model_copy(update={"catch_up_poll_s": 0.2})
    still_down = failing(deps.episodes, "put")
    outcomes = catch_up(deps.with_(episodes=still_down, settings=settings), budget_s=1.0)
    assert outcomes["store_down"] == still_down.calls and 2 <= still_down.calls <= 7  # about 1 s / 0.2 s
    [row] = [r for r in deps.pending.due(datetime.now(UTC), 100, ("episodes",)) if r["tenant"] == scope.tenant]
    assert row["attempts"] == 0


def test_a_write_that_keeps_failing_becomes_a_dead_letter_and_can_be_replayed(deps, scope):
    said(deps.with_(episodes=failing(deps.episodes, "put")), scope, "I adopted a cat named Miso.", "m1", NOW)
    broken = deps.with_(episodes=failing(deps.episodes, "put", exc=ValueError("mapping rejected")))
    for attempt in range(1, MAX_ATTEMPTS + 1):
        due = deps.pending.due(datetime.now(UTC) + timedelta(days=1), 100, ("episodes",))
        [row] = [r for r in due if r["tenant"] == scope.tenant]
        assert row["attempts"] == attempt - 1
        catch_up(broken.with_(settings=broken.settings.model_copy(update={"catch_up_poll_s": 0.01})), budget_s=0.05)
        # A failure while the store answers waits longer each time (no hammering).
        deps.pending.postpone(row["seq"], datetime.now(UTC), None, attempted=False,
                              dead=attempt >= MAX_ATTEMPTS)
    [dead] = [r for r in deps.pending.dead_letters(100) if r["tenant"] == scope.tenant]
    assert dead["attempts"] == MAX_ATTEMPTS and "mapping rejected" in dead["last_error"]
    assert record_backlog(deps)["episodes"]["dead"] >= 1
    assert deps.metrics.recorded  # the backlog goes to monitoring
    assert replay(deps, [dead["seq"]]) == 1
    assert catch_up(deps, budget_s=5) == {"applied": 1}
    assert len(deps.episodes.all_for_user(scope)) == 1


def test_retry_waits_grow_and_are_capped():
    waits = [retry_after(n).total_seconds() for n in range(1, 12)]
    assert waits == sorted(waits) and waits[0] >= 1 and waits[-1] <= 300


def test_consent_withdrawn_before_the_catch_up_keeps_the_fact_out_of_the_profile(deps, scope):
    set_consent(deps, scope, True, 30)
    said(deps.with_(graph=failing(deps.graph, "upsert_fact")), scope, "I'm allergic to peanuts.", "m1", NOW)
    set_consent(deps, scope, False, 30)
    assert catch_up(deps, budget_s=5) == {"applied": 1}
    assert profile(deps, scope)["items"] == [] and deps.pending.layers(scope) == set()


def test_an_erasure_deletes_pending_writes_and_no_catch_up_writes_for_the_user(scope):
    deps = fake_deps(fake_deps().settings.model_copy(update={"erasure_state_machine_arn": "arn:aws:states:x"}))
    set_consent(deps, scope, True, 30)
    down = deps.with_(graph=failing(deps.graph, "upsert_fact"), episodes=failing(deps.episodes, "put"),
                      sessions=failing(deps.sessions, "append_turns"))
    answer = said(down, scope, "My daughter Ada starts school in Leeds on Monday.", "m1", NOW)
    assert answer["pending"] == ["episodes", "profile", "working_memory"]
    verified = run_saga(deps, start_erasure(deps, scope))
    assert verified["residue"] == {name: 0 for name in deps.holders.names} or not any(verified["residue"].values())
    assert deps.pending.layers(scope) == set()
    catch_up(deps, budget_s=1)
    assert deps.episodes.all_for_user(scope) == [] and deps.graph.items(scope, include_history=True) == []
    assert deps.sessions.sessions_of(scope) == []


def test_a_user_with_nothing_pending_recalls_as_before(deps, scope):
    said(deps, scope, "I play the cello on Sundays.", "m1", NOW)
    answer = recall(deps, RecallRequest.parse(scope, "what instrument do I play?", now=NOW.isoformat()))
    assert answer["memory_pending"] == [] and "cello" in answer["context_block"]


def test_child_mode_switched_on_before_the_catch_up_leaves_nothing_of_what_the_child_said(deps, scope):
    set_consent(deps, scope, True, 30)
    down = deps.with_(graph=failing(deps.graph, "upsert_fact"), episodes=failing(deps.episodes, "put"))
    said(down, scope, "I'm allergic to peanuts and my school is Hillside.", "m1", NOW)
    set_consent(deps, scope, True, 9)  # a child after all: child mode from now on (the data key rotates)
    assert deps.users.state(scope).child_mode
    # The pending batches were sealed under the key child mode destroyed: unreadable, dropped.
    assert catch_up(deps, budget_s=5) == {"unreadable": 2}
    assert profile(deps, scope)["items"] == [] and deps.episodes.all_for_user(scope) == []
    assert deps.pending.layers(scope) == set()


def test_child_mode_at_ingest_time_is_applied_by_the_catch_up(deps, scope):
    set_consent(deps, scope, True, 9)
    said(deps.with_(episodes=failing(deps.episodes, "put")), scope, "I'm allergic to peanuts.", "m1", NOW)
    assert catch_up(deps, budget_s=5) == {"applied": 1}
    [event] = deps.episodes.all_for_user(scope)
    assert event["text"] == "" and event["summary"] == ""  # a child's event: its type and time only


def test_the_export_shows_turns_whose_layers_are_pending(deps, scope):
    from engram.service.export import export_document

    said(deps.with_(episodes=failing(deps.episodes, "put")), scope, "I collect vintage stamps.", "m1", NOW)
    document = export_document(deps, scope)
    assert [t["content"] for t in document["turns"]] == ["I collect vintage stamps."]


def test_both_recall_runners_say_what_is_pending(deps, scope):
    from tests.unit.support import recall_through_lambdas

    said(deps.with_(episodes=failing(deps.episodes, "put")), scope, "I'm training for the Berlin marathon.", "m1", NOW)
    request = RecallRequest.parse(scope, "which marathon am I training for?", now=NOW.isoformat())
    in_process, per_step = recall(deps, request), recall_through_lambdas(deps, request)
    assert in_process["memory_pending"] == per_step["memory_pending"] == ["episodes"]
    assert in_process["no_record"] is per_step["no_record"] is False
