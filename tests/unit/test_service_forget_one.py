"""Forgetting one memory by its id, and clearing a session, on the fakes: the service layer and
the HTTP edge (hostile ids included)."""

from __future__ import annotations

import json

import pytest

from engram.domain.records import SessionRef
from engram.errors import Conflict, NotFound
from engram.service.memories import forget_memory
from engram.service.profile import profile
from engram.service.recall import RecallRequest, recall
from engram.service.tasks import list_tasks, record_task_event
from engram.service.working_memory import clear_session, session_context, set_session_fields
from tests.unit.support import client_for, say

SECRET = "I went hiking in the Alps with my sister Maria."


def recalled_text(deps, scope, query: str) -> str:
    answer = recall(deps, RecallRequest.parse(scope, query, 10, None, None, None))
    return json.dumps(answer, ensure_ascii=False)


def episode_of(result: dict) -> str:
    return next(e["memory_id"] for e in result["extracted"] if e["kind"] == "episode")


# -- forgetting one memory -----------------------------------------------------------------------

def test_forgetting_an_episode_removes_it_from_recall_and_leaves_the_rest(deps, alice, bob):
    said = say(deps, alice, SECRET, "I bought a red bicycle.")
    say(deps, bob, SECRET)
    hiking = episode_of(said)
    assert "Alps" in recalled_text(deps, alice, "Where did I go hiking?")
    result = forget_memory(deps, alice, hiking)
    assert result["memory_id"] == hiking and result["layer"] == "episode" and result["episodes"] == 1
    assert deps.episodes.get(alice, hiking) is None
    assert "Alps" not in recalled_text(deps, alice, "Where did I go hiking in the Alps?")
    assert "bicycle" in recalled_text(deps, alice, "What did I buy? a bicycle")
    assert "Alps" in recalled_text(deps, bob, "Where did I go hiking?")  # bob's own copy stays


def test_a_second_forget_of_the_same_id_is_404_and_writes_nothing(deps, alice):
    hiking = episode_of(say(deps, alice, SECRET))
    forget_memory(deps, alice, hiking)
    entries = deps.audit.entries(alice)
    with pytest.raises(NotFound) as caught:
        forget_memory(deps, alice, hiking)
    assert caught.value.field == "memory_id" and deps.audit.entries(alice) == entries


def test_another_users_id_is_not_found_and_their_memory_stays(deps, alice, bob):
    hiking = episode_of(say(deps, alice, SECRET))
    with pytest.raises(NotFound):
        forget_memory(deps, bob, hiking)
    assert deps.episodes.get(alice, hiking) is not None


def test_profile_items_learned_only_from_the_forgotten_turn_go_with_it(deps, consenting):
    allergy = say(deps, consenting, "I am allergic to peanuts.", prefix="a")
    say(deps, consenting, "I love jazz music.", prefix="j")
    predicates = {i["type"] for i in profile(deps, consenting)["items"]}
    assert {"allergic_to", "has_preference"} <= predicates
    result = forget_memory(deps, consenting, episode_of(allergy))
    assert result["profile_items"] == 1
    left = profile(deps, consenting)["items"]
    assert [i["type"] for i in left] == ["has_preference"]
    assert "peanut" not in recalled_text(deps, consenting, "What am I allergic to? peanuts")


def test_a_neighbours_search_context_no_longer_holds_the_forgotten_turn(deps, alice):
    # Not SECRET: a sensitive (sealed) turn never becomes its neighbour's context in the first place.
    said = say(deps, alice, "I went hiking in the Alps last summer.", "I bought a red bicycle.")
    hiking, bicycle = said["extracted"][0]["memory_id"], said["extracted"][1]["memory_id"]
    assert deps.episodes.get(alice, bicycle)["context"].startswith("I went hiking")
    assert forget_memory(deps, alice, hiking)["contexts_cleared"] == 1
    assert deps.episodes.get(alice, bicycle)["context"] == ""


def test_forgetting_a_profile_item_by_its_id(deps, consenting):
    say(deps, consenting, "I love jazz music.")
    item = next(i for i in profile(deps, consenting)["items"] if i["type"] == "has_preference")
    result = forget_memory(deps, consenting, item["memory_id"])
    assert (result["layer"], result["deleted"], result["profile_items"]) == ("profile", 1, 1)
    assert all(i["memory_id"] != item["memory_id"] for i in profile(deps, consenting)["items"])


def test_forgetting_a_task_forgets_its_history(deps, alice, bob):
    record_task_event(deps, alice, "trip-1", "CREATED", {"title": "book flights"}, None)
    record_task_event(deps, alice, "trip-1", "IN_PROGRESS", None, None)
    record_task_event(deps, bob, "trip-1", "CREATED", None, None)
    result = forget_memory(deps, alice, "trip-1")
    assert (result["layer"], result["task_changes"], result["deleted"]) == ("task", 2, 2)
    assert list_tasks(deps, alice, "all", 10)["tasks"] == []
    assert len(list_tasks(deps, bob, "all", 10)["tasks"]) == 1


def test_forgetting_is_audited_without_what_was_said(deps, alice):
    hiking = episode_of(say(deps, alice, SECRET))
    forget_memory(deps, alice, hiking)
    [entry] = [e for e in deps.audit.entries(alice) if e["action"] == "forget_memory"]
    assert entry["item_id"] == hiking and entry["store"] == "episodes"
    assert "Alps" not in json.dumps(entry, default=str)


def test_forgetting_is_fenced(deps, alice):
    hiking = episode_of(say(deps, alice, SECRET))
    deps.erasure_jobs.mark_erasing(alice)
    with pytest.raises(Conflict):
        forget_memory(deps, alice, hiking)
    assert deps.episodes.get(alice, hiking) is not None


# -- clearing a session --------------------------------------------------------------------------

def test_clearing_a_session_forgets_its_working_memory_not_its_long_term_memory(deps, alice):
    ref = SessionRef(alice, "phone", "s1")
    hiking = episode_of(say(deps, alice, SECRET))
    set_session_fields(deps, ref, {"topic": "travel"})
    set_session_fields(deps, SessionRef(alice, "phone", "s2"), {"topic": "food"})
    result = clear_session(deps, alice, "s1", "phone")
    assert result["session_id"] == "s1" and result["device_ids"] == ["phone"] and result["deleted"] > 0
    assert session_context(deps, ref) == {"turns": [], "fields": {}, "version": 0}
    assert session_context(deps, SessionRef(alice, "phone", "s2"))["fields"] == {"topic": "food"}
    assert deps.episodes.get(alice, hiking) is not None  # long-term memory stays
    assert any(e["action"] == "clear_session" for e in deps.audit.entries(alice))


def test_clearing_without_a_device_clears_the_session_on_every_device(deps, alice, bob):
    for owner, device in ((alice, "phone"), (alice, "laptop"), (bob, "phone")):
        set_session_fields(deps, SessionRef(owner, device, "s1"), {"topic": "travel"})
    assert clear_session(deps, alice, "s1", None)["device_ids"] == ["laptop", "phone"]
    assert deps.sessions.sessions_of(alice) == []
    assert session_context(deps, SessionRef(bob, "phone", "s1"))["fields"] == {"topic": "travel"}


def test_clearing_an_empty_session_is_not_an_error(deps, alice):
    assert clear_session(deps, alice, "never", "phone") == {"session_id": "never", "device_ids": [], "deleted": 0}
    deps.erasure_jobs.mark_erasing(alice)
    with pytest.raises(Conflict):
        clear_session(deps, alice, "never", "phone")


# -- the HTTP edge -------------------------------------------------------------------------------

@pytest.fixture
def api(deps):
    return client_for(deps)


def test_delete_memory_over_http_answers_the_declared_model_then_404(api, deps, alice):
    hiking = episode_of(say(deps, alice, SECRET))
    first = api.delete(f"/v1/users/alice/memories/{hiking}")
    assert first.status_code == 200 and first.json()["layer"] == "episode" and first.json()["deleted"] == 1
    again = api.delete(f"/v1/users/alice/memories/{hiking}")
    assert again.status_code == 404 and again.json()["error"]["field"] == "memory_id"


@pytest.mark.parametrize(("memory_id", "status", "field"), [
    ("ev-unknown", 404, "memory_id"),
    ("e-unknown", 404, "memory_id"),
    ("no-such-task", 404, "memory_id"),
    ("bad id!", 400, "memory_id"),
    ("ev-%00", 400, "memory_id"),
    ("x" * 129, 413, "memory_id"),
    ("é" * 10, 400, "memory_id"),
])
def test_hostile_memory_ids_are_refused_naming_the_field(api, deps, alice, memory_id, status, field):
    say(deps, alice, SECRET)
    response = api.delete(f"/v1/users/alice/memories/{memory_id}")
    assert (response.status_code, response.json()["error"].get("field")) == (status, field)
    assert len(deps.episodes.all_for_user(alice)) == 1


def test_another_users_id_over_http_is_404(api, deps, alice):
    hiking = episode_of(say(deps, alice, SECRET))
    assert api.delete(f"/v1/users/bob/memories/{hiking}").status_code == 404
    other_tenant = client_for(deps, tenant="t2")
    assert other_tenant.delete(f"/v1/users/alice/memories/{hiking}").status_code == 404
    assert deps.episodes.get(alice, hiking) is not None


def test_delete_session_over_http(api, deps, alice):
    set_session_fields(deps, SessionRef(alice, "phone", "s1"), {"topic": "travel"})
    response = api.delete("/v1/users/alice/sessions/s1", params={"device_id": "phone"})
    assert response.status_code == 200 and response.json()["device_ids"] == ["phone"]
    assert api.delete("/v1/users/alice/sessions/s1").json() == {"session_id": "s1", "device_ids": [], "deleted": 0}


@pytest.mark.parametrize(("path", "params", "status", "field"), [
    ("/v1/users/alice/sessions/bad%20id", {}, 400, "session_id"),
    ("/v1/users/alice/sessions/" + "s" * 129, {}, 413, "session_id"),
    ("/v1/users/alice/sessions/s1", {"device_id": "bad id"}, 400, "device_id"),
    ("/v1/users/alice/sessions/s1", {"device_id": "d" * 129}, 413, "device_id"),
    ("/v1/users/al%20ice/sessions/s1", {}, 400, "user_id"),
])
def test_hostile_session_ids_are_refused_naming_the_field(api, path, params, status, field):
    response = api.delete(path, params=params)
    assert (response.status_code, response.json()["error"].get("field")) == (status, field)
