"""The other use cases on the fakes: working memory, tasks, profile corrections, feedback,
forgetting on request, devices, and the export document."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engram.domain.records import SessionRef
from engram.errors import Conflict, NotFound, ValidationFailed
from engram.service.export import FORMAT_VERSION, export_chunks, export_document
from engram.service.memories import feedback, forget
from engram.service.profile import correct_profile_item, delete_profile_item, profile
from engram.service.tasks import list_tasks, record_task_event
from engram.service.users import link_device, set_consent
from engram.service.working_memory import rollback_session, session_context, set_session_fields
from tests.unit.support import T0, say


@pytest.fixture
def ref(alice) -> SessionRef:
    return SessionRef(alice, "phone", "s1")


def graph_item(deps, scope, predicate):
    return next(i for i in deps.graph.items(scope) if i["predicate"] == predicate)


# -- working memory ----------------------------------------------------------------------------

def test_session_fields_merge_version_and_none_removes(deps, ref):
    assert set_session_fields(deps, ref, {"current_item": "jazz", "mood": "calm"}) == {"version": 1}
    assert set_session_fields(deps, ref, {"mood": None, "step": 2}) == {"version": 2}
    assert session_context(deps, ref) == {"turns": [], "fields": {"current_item": "jazz", "step": 2}, "version": 2}


def test_rollback_by_steps_or_version_is_a_new_version(deps, ref):
    for value in ("a", "b", "c"):
        set_session_fields(deps, ref, {"item": value})
    assert rollback_session(deps, ref, None, 2) == {"version": 4}
    assert session_context(deps, ref)["fields"] == {"item": "a"}
    assert rollback_session(deps, ref, 3, None) == {"version": 5}
    assert session_context(deps, ref)["fields"] == {"item": "c"}


@pytest.mark.parametrize(("version", "steps"), [(None, None), (1, 1)])
def test_rollback_needs_exactly_one_of_version_or_steps(deps, ref, version, steps):
    with pytest.raises(ValidationFailed) as caught:
        rollback_session(deps, ref, version, steps)
    assert caught.value.field == "version"


def test_rollback_to_a_version_not_kept_is_404(deps, ref):
    set_session_fields(deps, ref, {"item": "a"})
    with pytest.raises(NotFound):
        rollback_session(deps, ref, 99, None)


def test_ingested_turns_are_in_working_memory_in_client_order(deps, alice, ref):
    say(deps, alice, "first", "second")
    assert [t["content"] for t in session_context(deps, ref)["turns"]] == ["first", "second"]


def test_sessions_of_one_user_on_two_devices_are_apart(deps, alice, ref):
    set_session_fields(deps, ref, {"item": "phone"})
    set_session_fields(deps, SessionRef(alice, "laptop", "s1"), {"item": "laptop"})
    assert session_context(deps, ref)["fields"] == {"item": "phone"}


def test_working_memory_writes_are_refused_while_erasing(deps, alice, ref):
    deps.erasure_jobs.mark_erasing(alice)
    with pytest.raises(Conflict):
        set_session_fields(deps, ref, {"item": "x"})
    with pytest.raises(Conflict):
        rollback_session(deps, ref, None, 1)


# -- tasks -------------------------------------------------------------------------------------

def test_a_task_moves_through_its_lifecycle_with_durations(deps, alice):
    record_task_event(deps, alice, "t-1", "CREATED", {"title": "report"}, "2026-11-20T09:00:00Z")
    record_task_event(deps, alice, "t-1", "IN_PROGRESS", None, "2026-11-20T09:00:30Z")
    done = record_task_event(deps, alice, "t-1", "COMPLETED", {"title": "report"}, 1795165290000)
    assert done == {"task_id": "t-1", "status": "COMPLETED", "metadata": {"title": "report"},
                    "ts": "2026-11-20T09:01:30Z", "duration_ms": 60000}
    assert [t.status for t in deps.tasks.history(alice)] == ["CREATED", "IN_PROGRESS", "COMPLETED"]


def test_an_invalid_transition_is_409_naming_status(deps, alice):
    record_task_event(deps, alice, "t-1", "CREATED", None, "2026-11-20T09:00:00Z")
    with pytest.raises(Conflict) as caught:
        record_task_event(deps, alice, "t-1", "PAUSED", None, "2026-11-20T09:01:00Z")
    assert caught.value.field == "status" and len(deps.tasks.history(alice)) == 1


@pytest.mark.parametrize(("task_id", "status", "ts", "field"), [
    ("t-1", "DONE", None, "status"), ("bad id!", "CREATED", None, "task_id"), ("t-1", "CREATED", "soon", "ts")])
def test_bad_task_events_are_refused(deps, alice, task_id, status, ts, field):
    with pytest.raises(ValidationFailed) as caught:
        record_task_event(deps, alice, task_id, status, None, ts)
    assert caught.value.field == field and deps.tasks.history(alice) == []


def test_open_tasks_and_all_tasks(deps, alice):
    record_task_event(deps, alice, "t-open", "CREATED", None, "2026-11-20T09:00:00Z")
    record_task_event(deps, alice, "t-gone", "CREATED", None, "2026-11-20T09:01:00Z")
    record_task_event(deps, alice, "t-gone", "CANCELLED", None, "2026-11-20T09:02:00Z")
    assert [t["task_id"] for t in list_tasks(deps, alice, "open", 10)["tasks"]] == ["t-open"]
    assert [t["task_id"] for t in list_tasks(deps, alice, "all", 10)["tasks"]] == ["t-gone", "t-open"]
    assert len(list_tasks(deps, alice, "all", 1)["tasks"]) == 1


@pytest.mark.parametrize(("status", "limit", "field"), [("done", 10, "status"), ("all", 0, "limit"),
                                                        ("all", 101, "limit")])
def test_bad_task_listings_are_refused(deps, alice, status, limit, field):
    with pytest.raises(ValidationFailed) as caught:
        list_tasks(deps, alice, status, limit)
    assert caught.value.field == field


def test_a_task_from_a_message_is_listed(deps, alice):
    say(deps, alice, "Remind me to call the dentist")
    [task] = list_tasks(deps, alice, "open", 10)["tasks"]
    assert task["status"] == "CREATED" and task["metadata"]["title"] == "Remind me to call the dentist"
    assert task["metadata"]["message_ids"] == ["s1-202611200900-0"]


# -- profile corrections -----------------------------------------------------------------------

def test_a_corrected_object_closes_the_old_edge_and_opens_a_human_one(deps, consenting):
    say(deps, consenting, "I live in Paris.")
    old = graph_item(deps, consenting, "lives_in")
    corrected = correct_profile_item(deps, consenting, old["id"], "Lyon", None)
    assert (corrected["object"], corrected["trust_source"], corrected["confidence"]) == ("Lyon", "human", 1.0)
    assert corrected["memory_id"] != old["id"] and corrected["provenance"]["message_ids"] == old["message_ids"]
    history = {i["object"]: i for i in deps.graph.items(consenting, include_history=True)}
    assert history["Paris"]["valid_to"] is not None and history["Lyon"]["valid_to"] is None
    [audit] = [e for e in deps.audit.entries(consenting) if e["action"] == "correct"]
    assert audit["before"]["object"] == "Paris" and audit["after"]["object"] == "Lyon"


def test_a_confidence_only_correction_keeps_the_edge(deps, consenting):
    say(deps, consenting, "I love jazz music.")
    item = graph_item(deps, consenting, "has_preference")
    corrected = correct_profile_item(deps, consenting, item["id"], None, 0.4)
    assert (corrected["memory_id"], corrected["confidence"], corrected["trust_source"]) == (item["id"], 0.4, "human")
    assert len(deps.graph.items(consenting, include_history=True)) == 1


def test_correcting_a_sensitive_item_keeps_it_sealed(deps, consenting):
    say(deps, consenting, "I'm allergic to peanuts.")
    item = graph_item(deps, consenting, "allergic_to")
    corrected = correct_profile_item(deps, consenting, item["id"], "tree nuts", None)
    assert corrected["object"] == "tree nuts"
    stored = graph_item(deps, consenting, "allergic_to")
    assert stored["object"].startswith("sealed:") and "nuts" not in str(stored)
    [audit] = [e for e in deps.audit.entries(consenting) if e["action"] == "correct"]
    assert "peanuts" not in str(audit) and "tree nuts" not in str(audit)


@pytest.mark.parametrize(("obj", "confidence", "field"), [(None, 0.05, "confidence"), (None, 1.5, "confidence"),
                                                          ("  ", None, "object"), ("x" * 201, None, "object")])
def test_bad_corrections_are_refused(deps, consenting, obj, confidence, field):
    say(deps, consenting, "I love jazz music.")
    item = graph_item(deps, consenting, "has_preference")
    with pytest.raises(ValidationFailed) as caught:
        correct_profile_item(deps, consenting, item["id"], obj, confidence)
    assert caught.value.field == field and deps.graph.items(consenting) == [item]


def test_deleting_a_profile_item(deps, consenting):
    say(deps, consenting, "I love jazz music.")
    item = graph_item(deps, consenting, "has_preference")
    assert delete_profile_item(deps, consenting, item["id"]) == {"deleted": item["id"]}
    assert profile(deps, consenting) == {"items": []}
    with pytest.raises(NotFound):
        delete_profile_item(deps, consenting, item["id"])


def test_another_users_item_is_not_found(deps, consenting, bob):
    say(deps, consenting, "I love jazz music.")
    with pytest.raises(NotFound):
        correct_profile_item(deps, bob, graph_item(deps, consenting, "has_preference")["id"], "blues", None)


# -- feedback and forgetting on request --------------------------------------------------------

def test_feedback_on_an_episode_moves_its_weight_a_little(deps, alice):
    memory_id = say(deps, alice, "I went hiking in the Alps.")["extracted"][0]["memory_id"]
    assert feedback(deps, alice, memory_id, False) == {"memory_id": memory_id, "weight": round(5 / 6, 4)}
    assert deps.episodes.get(alice, memory_id)["weight"] == pytest.approx(5 / 6)
    feedback(deps, alice, memory_id, True)
    assert deps.episodes.get(alice, memory_id)["weight"] == pytest.approx((5 / 6 * 5 + 1) / 6)


def test_feedback_on_a_profile_item(deps, consenting):
    say(deps, consenting, "I love jazz music.")
    item = graph_item(deps, consenting, "has_preference")
    assert feedback(deps, consenting, item["id"], False)["weight"] == round(5 / 6, 4)
    assert graph_item(deps, consenting, "has_preference")["weight"] == pytest.approx(5 / 6)


def test_feedback_on_an_unknown_memory_is_404(deps, alice):
    with pytest.raises(NotFound) as caught:
        feedback(deps, alice, "ev-nothing", True)
    assert caught.value.field == "memory_id"


def test_forget_a_type_or_what_came_before(deps, alice):
    say(deps, alice, "I went hiking in the Alps.", "Remind me to call the dentist", "I'm so happy today")
    assert forget(deps, alice, "task", None) == {"deleted": 1}
    assert sorted(d["type"] for d in deps.episodes.all_for_user(alice)) == ["emotion", "fact"]
    assert forget(deps, alice, None, "2026-11-20T09:02:00Z") == {"deleted": 1}
    assert [d["type"] for d in deps.episodes.all_for_user(alice)] == ["emotion"]


@pytest.mark.parametrize(("type_", "before", "field"), [(None, None, "type"), ("gossip", None, "type"),
                                                        (None, "last week", "before")])
def test_bad_forget_requests_are_refused(deps, alice, type_, before, field):
    say(deps, alice, "I went hiking in the Alps.")
    with pytest.raises(ValidationFailed) as caught:
        forget(deps, alice, type_, before)
    assert caught.value.field == field and len(deps.episodes.all_for_user(alice)) == 1


# -- users and export --------------------------------------------------------------------------

def test_devices_link_once_and_update_their_kind(deps, alice):
    link_device(deps, alice, "phone", "ios")
    again = link_device(deps, alice, "phone", "android")
    assert again["kind"] == "android" and [d.kind for d in deps.users.devices(alice)] == ["android"]
    with pytest.raises(ValidationFailed):
        link_device(deps, alice, "bad id!", "ios")


def test_consent_is_versioned_and_child_mode_follows_the_age(deps, alice):
    assert set_consent(deps, alice, True, 30)["child_mode"] is False
    assert set_consent(deps, alice, True, 9)["child_mode"] is True
    later = set_consent(deps, alice, True, None)  # no age: child mode stays
    assert (later["child_mode"], later["long_term"], later["version"]) == (True, False, 3)
    assert deps.users.state(alice).long_term_consent is False
    assert [e["version"] for e in deps.users.consent_history(alice)] == [1, 2, 3]


def test_the_export_holds_every_layer_revealed_and_nobody_else(deps, consenting, bob):
    link_device(deps, consenting, "phone", "ios")
    say(deps, consenting, "I'm allergic to peanuts.", "Remind me to call the dentist")
    set_session_fields(deps, SessionRef(consenting, "phone", "s1"), {"current_item": "jazz"})
    say(deps, bob, "I love the opera.")
    document = export_document(deps, consenting, now=datetime(2026, 11, 21, tzinfo=UTC))
    assert document["format"] == FORMAT_VERSION and document["user_id"] == "alice"
    assert document["exported_at"] == "2026-11-21T00:00:00Z" and document["user"]["long_term_consent"] is True
    assert [d["device_id"] for d in document["devices"]] == ["phone"]
    assert document["sessions"][0]["fields"] == {"current_item": "jazz"}
    assert [p["object"] for p in document["profile"]] == ["peanuts"]
    assert [t["status"] for t in document["tasks"]] == ["CREATED"]
    assert sorted(e["type"] for e in document["episodes"]) == ["health", "task"]
    assert [t["content"] for t in document["turns"]] == ["I'm allergic to peanuts.", "Remind me to call the dentist"]
    created = next(e for e in document["audit"] if e["store"] == "graph")
    assert created["after"]["object"] == "peanuts"  # the placeholder is named for the user
    assert "opera" not in str(document)


def test_the_export_streams_as_one_json_document(deps, alice):
    say(deps, alice, "I went hiking in the Alps.", at=T0)
    chunks = list(export_chunks(deps, alice))
    assert len(chunks) > 10 and chunks[-1] == "}"
    assert export_document(deps, alice)["episodes"][0]["text"] == "I went hiking in the Alps."


def test_the_export_of_an_unknown_user_is_empty_not_an_error(deps, bob):
    document = export_document(deps, bob)
    assert document["user"]["known"] is False
    assert all(document[k] == [] for k in ("devices", "sessions", "profile", "tasks", "episodes", "turns", "audit"))
