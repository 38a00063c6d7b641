"""Consent is retroactive (over the fakes): withdrawing long-term consent or turning on child
mode takes back what is already stored, idempotently and completed by a retry; and the optional
LLM extractor is never sent what consent or child mode forbids it to read, whichever runner."""

from __future__ import annotations

import json
import uuid

import pytest
from fastapi.testclient import TestClient

from engram.api.app import create_app
from engram.domain.model import Scope
from engram.domain.privacy import crypto
from engram.domain.privacy.consent import Permissions
from engram.service.ingest import plan as ingestion
from engram.service.tasks import record_task_event
from engram.service.users import set_consent
from tests.consent_scenario import (
    LATER,
    PROFILE_WORDS,
    SAID_WORDS,
    User,
    assert_only_what_child_mode_keeps,
    assert_remembered,
    remember,
    shown,
    stored,
    taken_back,
    words_in,
)
from tests.fakes import RecordingLlm
from tests.unit.support import Wrapped, body, failing, message, run_ingest, say, through_lambdas


def user_over(deps, scope: Scope) -> User:
    key = f"key-{uuid.uuid4().hex}"
    deps.tenants.register(scope.tenant, key)
    return User(TestClient(create_app(deps), raise_server_exceptions=False), {"Authorization": f"Bearer {key}"},
                scope)


@pytest.fixture
def user(deps, alice) -> User:
    return user_over(deps, alice)


# -- withdrawing long-term consent ---------------------------------------------------------------

def test_revoking_long_term_consent_takes_back_the_profile_wherever_it_was_kept(deps, user):
    remember(user)
    assert_remembered(deps, user)
    graph_entries = sum(1 for e in deps.audit.entries(user.scope) if e["store"] == "graph")
    assert user.consent(False)["long_term"] is False
    held, seen = stored(deps, user.scope), shown(user)
    assert held["graph"] == [] and seen["profile"]["items"] == [] and seen["export"]["profile"] == []
    # The audit still says an edge was written, by whom and how sure; no longer what it said.
    graph_audit = [e for e in held["audit"] if e["store"] == "graph"]
    assert len(graph_audit) == graph_entries and all(e["after"]["redacted"] for e in graph_audit)
    assert words_in(held["audit"], PROFILE_WORDS) == [] and words_in(seen["export"]["audit"], PROFILE_WORDS) == []
    # Episodic memory is not what long-term consent covers: it stays (the allergy sealed at rest).
    assert words_in(held["episodes"]) == [w for w in SAID_WORDS if w not in ("lisbon", "hazelnut")]
    assert words_in(seen["export"]["episodes"]) == [w for w in SAID_WORDS if w != "lisbon"]
    [entry] = taken_back(deps, user.scope)
    assert entry["graph_nodes"] > 0 and entry["audit_entries"] == graph_entries and "episodes" not in entry
    user.say(LATER, start=10)
    assert deps.graph.items(user.scope, include_history=True) == []
    user.consent(False)  # idempotent: a second withdrawal finds nothing left to take
    assert taken_back(deps, user.scope)[-1] == {"child_mode": False, "consent_version": 3, "graph_nodes": 0,
                                                "audit_entries": 0, "exports": 0}


# -- turning on child mode -------------------------------------------------------------------------

@pytest.mark.parametrize(("long_term", "age"), [(True, 9), (False, 12)])
def test_child_mode_takes_back_everything_it_forbids(deps, user, long_term, age):
    remember(user)
    assert_remembered(deps, user)
    answer = user.consent(long_term, age)
    assert (answer["child_mode"], answer["long_term"]) == (True, False)
    assert_only_what_child_mode_keeps(deps, user)
    [entry] = taken_back(deps, user.scope)
    assert entry == {**entry, "child_mode": True, "episodes": 5, "turns": 5, "session_turns": 5, "task_changes": 2,
                     "data_keys_rotated": 1} and entry["graph_nodes"] > 0 and entry["audit_entries"] > 0
    assert words_in(deps.audit.entries(user.scope)) == []


def test_after_child_mode_a_new_write_is_stored_as_a_childs(deps, user):
    remember(user)
    user.consent(True, 10)
    user.say(LATER, start=10)
    assert words_in(stored(deps, user.scope), ("pottery",)) == []
    assert_only_what_child_mode_keeps(deps, user)


def test_child_mode_applied_again_changes_nothing_more(deps, user):
    remember(user)
    user.consent(True, 9)
    user.consent(True, None)  # the age on record still makes them a child
    assert taken_back(deps, user.scope)[-1] == {
        "child_mode": True, "consent_version": 3, "graph_nodes": 0, "audit_entries": 0, "exports": 0, "episodes": 0,
        "turns": 0,
        "session_turns": 0, "task_changes": 0, "data_keys_rotated": 0}
    assert_only_what_child_mode_keeps(deps, user)


def test_old_sealed_copies_are_unreadable_after_child_mode(deps, user):
    """What the archive keeps under the user's key (sealed before child mode) can no longer be opened."""
    remember(user)
    archived_copy = deps.keys.seal(user.scope, "I'm allergic to hazelnuts.", "turn")
    user.consent(True, 9)
    with pytest.raises(Exception, match="destroyed"):
        deps.keys.open(user.scope, archived_copy, "turn")


def test_a_take_back_cut_short_is_completed_by_the_retry(deps, alice):
    flaky = deps.with_(turns=failing(deps.turns, "redact_content", times=1))
    user = user_over(flaky, alice)
    remember(user)
    cut = user.call("PUT", "/consent", json={"long_term": True, "age": 9})
    assert cut.status_code == 503
    # The decision stands and is audited; its application is not, until the client retries.
    assert deps.users.state(alice).child_mode is True and taken_back(deps, alice) == []
    assert [e["after"]["child_mode"] for e in deps.audit.entries(alice) if e["action"] == "consent"] == [False, True]
    user.consent(True, 9)
    assert_only_what_child_mode_keeps(deps, user)


@pytest.mark.parametrize("checked_after_writing", [True, False])
def test_a_withdrawal_while_a_batch_is_written_is_taken_back_after_it(deps, consenting, monkeypatch,
                                                                      checked_after_writing):
    """The write step read the state (adult, consenting) just before child mode went on, and the
    change's own take-back ran before the batch landed: the write step's check catches it."""
    flipped = []

    def begin_then_flip(fence, scope, hold_s):
        lease = fence.begin(scope, hold_s)
        if not flipped:
            flipped.append(True)
            set_consent(racing, scope, True, 9)
        return lease

    racing = deps.with_(fence=Wrapped(deps.fence, "begin", begin_then_flip))
    if not checked_after_writing:  # the race is real: without the check, the batch stays as written
        monkeypatch.setattr(ingestion, "_take_back_if_withdrawn", lambda *_: None)
    say(racing, consenting, "My name is Alice Moreau and I love origami.")
    held = stored(deps, consenting)
    assert flipped and deps.users.state(consenting).child_mode is True
    assert bool(words_in(held)) is not checked_after_writing
    assert (held["graph"] == []) is checked_after_writing


def test_a_childs_task_through_the_api_keeps_no_metadata_content(deps, alice):
    set_consent(deps, alice, False, 8)
    record_task_event(deps, alice, "den-1", "CREATED", {"title": "Secret den", "message_ids": ["m1"], "colour": "red"},
                      None)
    assert [t.metadata for t in deps.tasks.history(alice)] == [{"title": "", "message_ids": ["m1"]}]


# -- the LLM extractor ---------------------------------------------------------------------------

RUNNERS = {"in-process": lambda deps, scope, request: run_ingest(deps, scope, request),
           "one Lambda per step": lambda deps, scope, request: through_lambdas(
               deps, {"tenant": scope.tenant, "user_id": scope.user_id, "body": request})}
CRANES = json.dumps([{"type": "preference", "predicate": "likes", "object": "paper cranes", "summary": "likes cranes"}])
ORDINARY, SENSITIVE = "I adore origami on rainy days.", "I'm allergic to hazelnuts."


def conversation() -> dict:
    return body(message(ORDINARY, "m1"), message(SENSITIVE, "m2"), message("Noted: origami.", "m3", role="assistant"))


@pytest.mark.parametrize("runner", RUNNERS)
def test_with_long_term_consent_the_llm_reads_ordinary_turns_only(deps, consenting, runner):
    llm = RecordingLlm(CRANES, forbidden=("hazelnut", "Noted"))
    RUNNERS[runner](deps.with_(llm=llm), consenting, conversation())
    assert llm.seen == [ORDINARY]
    assert ("has_preference", "paper cranes", "llm") in {(i["predicate"], i["object"], i["source"])
                                                         for i in deps.graph.items(consenting)}


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize(("long_term", "age"), [(False, None), (True, 9), (False, 30)])
def test_without_a_profile_to_keep_the_llm_is_never_called(deps, alice, runner, long_term, age):
    if long_term or age:
        set_consent(deps, alice, long_term, age)
    llm = RecordingLlm(CRANES, forbidden=("origami", "hazelnut"))
    RUNNERS[runner](deps.with_(llm=llm), alice, conversation())
    assert llm.seen == [] and deps.graph.items(alice) == []


def test_the_llm_is_not_called_after_consent_is_withdrawn(deps, consenting):
    llm = RecordingLlm(CRANES, forbidden=("origami",))
    set_consent(deps, consenting, False, None)
    run_ingest(deps.with_(llm=llm), consenting, body(message(ORDINARY, "m1")))
    assert llm.seen == []


def test_a_health_fact_only_the_llm_found_seals_its_turn(deps, consenting):
    penicillin = json.dumps([{"type": "health", "predicate": "allergy", "object": "penicillin",
                              "summary": "allergic to penicillin"}])
    run_ingest(deps.with_(llm=RecordingLlm(penicillin)), consenting,
               body(message("Penicillin and I do not get along.", "m1")))
    [turn] = deps.turns.turns(consenting)
    assert crypto.is_sealed(turn["content"])
    [edge] = deps.graph.items(consenting)
    assert edge["predicate"] == "allergic_to" and "penicillin" not in edge["object"] and edge["sealed"]


# -- the rules themselves ------------------------------------------------------------------------

@pytest.mark.parametrize(("permissions", "sensitive", "may"), [
    (Permissions(long_term=True), False, True), (Permissions(long_term=True), True, False),
    (Permissions(), False, False), (Permissions(long_term=True, child_mode=True), False, False)])
def test_what_the_llm_may_read(permissions, sensitive, may):
    assert permissions.llm_may_read(sensitive) is may


@pytest.mark.parametrize(("before", "after", "withdrawn"), [
    (Permissions(long_term=True), Permissions(), True), (Permissions(), Permissions(child_mode=True), True),
    (Permissions(child_mode=True), Permissions(child_mode=True), False), (Permissions(), Permissions(long_term=True),
                                                                          False),
    (Permissions(child_mode=True), Permissions(), False)])
def test_what_counts_as_a_withdrawal(before, after, withdrawn):
    assert before.withdrawn_in(after) is withdrawn
