"""The HTTP edge over the fakes: idempotent writes and strict validation, every refusal naming
its field. ``create_app(deps)`` takes the fakes; no server of any kind is involved."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from engram.domain.model import Scope
from engram.errors import StoreUnavailable
from tests.unit.support import body, client_for, failing, message

USER = "/v1/users/alice"


@pytest.fixture
def api(deps) -> TestClient:
    return client_for(deps)


def error_of(response) -> tuple[int, str | None]:
    return response.status_code, response.json()["error"].get("field")


def raw_post(api, path, text: str, **headers):
    return api.post(path, content=text.encode(), headers={"Content-Type": "application/json", **headers})


# -- idempotency -------------------------------------------------------------------------------

def test_a_replay_returns_the_first_result_and_writes_nothing(api, deps, alice):
    request = body(message("I love jazz music.", "m1"))
    first = api.post(f"{USER}/messages", json=request, headers={"Idempotency-Key": "k1"})
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    audit = deps.audit.entries(alice)
    again = api.post(f"{USER}/messages", json=request, headers={"Idempotency-Key": "k1"})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert deps.audit.entries(alice) == audit and len(deps.turns.turns(alice)) == 1


def test_a_stored_result_holds_no_plaintext_and_an_erasure_takes_it(api, deps, alice):
    request = body(message("I have diabetes and I am allergic to penicillin.", "m1"))
    first = api.post(f"{USER}/messages", json=request, headers={"Idempotency-Key": "k1"})
    assert first.status_code == 200
    [record] = [r for (scope, _), r in deps.idempotency.keys.items() if scope == alice]
    assert "penicillin" not in json.dumps(record, default=str) and record["response"]["sealed"].startswith("eg1:")
    deps.erasure_jobs.mark_erasing(alice)  # the saga's mark: rows are deleted only for a user being erased
    assert deps.erasure_jobs.delete_rows(alice)["idempotency_records"] == 1
    deps.keys.shred(alice)
    deps.erasure_jobs.drop_user(alice)  # the saga's record step: writes are accepted again
    again = api.post(f"{USER}/messages", json=request, headers={"Idempotency-Key": "k1"})
    assert again.status_code == 200 and "Idempotent-Replayed" not in again.headers  # processed anew


def test_keys_are_per_user(api, deps, alice):
    one = api.post(f"{USER}/messages", json=body(message("I love tea.", "m1")), headers={"Idempotency-Key": "k1"})
    other = api.post("/v1/users/bob/messages", json=body(message("I love tea.", "m1")),
                     headers={"Idempotency-Key": "k1"})
    assert one.status_code == other.status_code == 200 and "Idempotent-Replayed" not in other.headers
    assert [t["message_id"] for t in deps.turns.turns(Scope("t1", "bob"))] == ["m1"]


def test_the_same_key_with_another_body_is_422(api, deps, alice):
    api.post(f"{USER}/messages", json=body(message("one", "m1")), headers={"Idempotency-Key": "k1"})
    other = api.post(f"{USER}/messages", json=body(message("two", "m2")), headers={"Idempotency-Key": "k1"})
    assert error_of(other) == (422, "Idempotency-Key")
    assert [t["message_id"] for t in deps.turns.turns(alice)] == ["m1"]


def test_keys_belong_to_their_tenant(api, deps):
    api.post(f"{USER}/messages", json=body(message("one", "m1")), headers={"Idempotency-Key": "k1"})
    theirs = client_for(deps, "t2").post(f"{USER}/messages", json=body(message("two", "m2")),
                                         headers={"Idempotency-Key": "k1"})
    assert theirs.status_code == 200 and "Idempotent-Replayed" not in theirs.headers
    assert [t["message_id"] for t in deps.turns.turns(Scope("t2", "alice"))] == ["m2"]


def test_a_failed_attempt_releases_the_key_so_a_retry_runs(deps, alice):
    # The audit log shares the turn log's database: a failure there, after the turn log took the
    # turn, fails the request (a derived store's would not: its write would be pending).
    client = client_for(deps.with_(audit=failing(deps.audit, "append", times=1)))
    headers = {"Idempotency-Key": "k1"}
    request = body(message("I love jazz music.", "m1"))
    failed = client.post(f"{USER}/messages", json=request, headers=headers)
    assert failed.status_code == 503 and failed.json()["error"]["code"] == "store_unavailable"
    retried = client.post(f"{USER}/messages", json=request, headers=headers)
    assert retried.status_code == 200 and "Idempotent-Replayed" not in retried.headers
    assert [d["type"] for d in deps.episodes.all_for_user(alice)] == ["preference"]
    assert len(deps.turns.turns(alice)) == 1  # the turn log kept the first attempt's turn once


def test_a_refusal_is_a_result_and_is_replayed(api, deps, alice):
    path = f"{USER}/tasks/t-1/events"
    assert api.post(path, json={"status": "CREATED"}).status_code == 201
    first = api.post(path, json={"status": "CREATED"}, headers={"Idempotency-Key": "k1"})
    assert error_of(first) == (409, "status")  # CREATED -> CREATED is no transition
    api.post(path, json={"status": "CANCELLED"})
    again = api.post(path, json={"status": "CREATED"}, headers={"Idempotency-Key": "k1"})
    assert error_of(again) == (409, "status") and again.headers["Idempotent-Replayed"] == "true"


def test_a_user_under_erasure_leaves_no_idempotency_record(api, deps, alice):
    deps.erasure_jobs.mark_erasing(alice)
    request = body(message("I love jazz music.", "m1"))
    for _ in range(2):
        refused = api.post(f"{USER}/messages", json=request, headers={"Idempotency-Key": "k1"})
        assert error_of(refused) == (409, "user_id") and "Idempotent-Replayed" not in refused.headers
    assert deps.idempotency.user_rows(alice) == {"idempotency_records": 0}


def test_an_overlong_idempotency_key_is_refused(api):
    r = api.post(f"{USER}/messages", json=body(message("one", "m1")), headers={"Idempotency-Key": "k" * 256})
    assert error_of(r) == (413, "Idempotency-Key")


def test_session_fields_through_the_api_are_idempotent(api, deps):
    path = f"{USER}/sessions/s1/context?device_id=phone"
    first = api.put(path, json={"fields": {"current_item": "jazz"}}, headers={"Idempotency-Key": "f1"})
    again = api.put(path, json={"fields": {"current_item": "jazz"}}, headers={"Idempotency-Key": "f1"})
    assert first.json() == again.json() == {"version": 1}
    assert api.get(path).json()["fields"] == {"current_item": "jazz"}


# -- strict validation at the edge -------------------------------------------------------------

def test_no_api_key_is_401(api):
    r = api.post(f"{USER}/messages", json=body(message("x", "m1")), headers={"Authorization": ""})
    assert error_of(r) == (401, "Authorization")


def test_an_unknown_api_key_is_401(api):
    r = api.post(f"{USER}/messages", json=body(message("x", "m1")), headers={"Authorization": "Bearer nope"})
    assert error_of(r) == (401, "Authorization")


@pytest.mark.parametrize(("request_body", "status", "field"), [
    ({**body(message("x", "m1")), "extra": 1}, 400, "extra"),
    ({**body(message("x", "m1")), "session_id": 5}, 400, "session_id"),
    (body({**message("x", "m1"), "mood": "happy"}), 400, "messages[0].mood"),
    (body({**message("x", "m1"), "content": 7}), 400, "messages[0].content"),
    (body(message("nul \x00 inside", "m1")), 400, "messages[0].content"),
    (body(message("x" * 8001, "m1")), 413, "messages[0].content"),
    (body(*[message(f"x{i}", f"m{i}") for i in range(101)]), 413, "messages"),
    (body({"role": "user", "content": "no clock", "message_id": "m1"}), 400, "messages[0].client_ts"),
    (body(message("x", "m1", role="system")), 400, "messages[0].role"),
    (body(message("x", "bad id!")), 400, "messages[0].message_id"),
    ({"session_id": "s1", "device_id": "d", "messages": []}, 400, "messages"),
])
def test_bad_messages_are_refused_naming_the_field(api, deps, alice, request_body, status, field):
    r = api.post(f"{USER}/messages", json=request_body)
    assert error_of(r) == (status, field)
    assert deps.turns.turns(alice) == []


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_in_session_fields_are_refused(api, deps, number):
    r = api.put(f"{USER}/sessions/s1/context?device_id=phone", content=f'{{"fields": {{"score": {number}}}}}',
                headers={"Content-Type": "application/json"})
    assert error_of(r) == (400, "fields")
    assert deps.sessions.sessions_of(Scope("t1", "alice")) == []


@pytest.mark.parametrize("number", ["NaN", "Infinity"])
def test_non_finite_numbers_in_task_metadata_are_refused(api, deps, alice, number):
    r = raw_post(api, f"{USER}/tasks/t-1/events", f'{{"status": "CREATED", "metadata": {{"eta": {number}}}}}')
    assert error_of(r) == (400, "metadata")
    assert deps.tasks.history(alice) == []


def test_a_nul_in_a_field_name_is_refused(api):
    r = api.put(f"{USER}/sessions/s1/context?device_id=phone", json={"fields": {"a\x00b": 1}})
    assert r.status_code == 400 and r.json()["error"]["field"].startswith("fields")


def test_too_many_session_fields_is_413(api):
    r = api.put(f"{USER}/sessions/s1/context?device_id=phone", json={"fields": {f"f{i}": i for i in range(65)}})
    assert error_of(r) == (413, "fields")


def test_wrong_types_are_not_coerced(api):
    assert error_of(api.put(f"{USER}/consent", json={"long_term": "yes"})) == (400, "long_term")
    assert error_of(api.put(f"{USER}/consent", json={"long_term": True, "age": "12"})) == (400, "age")
    assert error_of(api.post(f"{USER}/recall", json={"query": "x", "k": 2.0})) == (400, "k")
    assert error_of(api.post(f"{USER}/recall", json={"query": "x", "k": 51})) == (400, "k")


def test_a_malformed_json_body_is_400(api):
    r = raw_post(api, f"{USER}/messages", '{"session_id": ')
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"


def test_a_bad_user_id_in_the_path_is_400(api):
    r = api.post("/v1/users/bad%20id/messages", json=body(message("x", "m1")))
    assert error_of(r) == (400, "user_id")


def test_an_accepted_ingest_answers_in_the_published_shape(api):
    r = api.post(f"{USER}/messages", json=body(message("Remind me to call the dentist", "m1")))
    assert r.status_code == 200
    out = r.json()
    assert out["accepted"] == 1 and out["message_ids"] == ["m1"]
    assert sorted(e["kind"] for e in out["extracted"]) == ["episode", "task"]


def test_recall_through_the_api(api):
    api.put(f"{USER}/consent", json={"long_term": True})
    api.post(f"{USER}/messages", json=body(message("I'm allergic to peanuts.", "m1")))
    r = api.post(f"{USER}/recall", json={"query": "What am I allergic to?", "now": "2026-11-21T00:00:00Z"})
    assert r.status_code == 200, r.text
    assert "allergic to: peanuts" in [i["text"] for i in r.json()["items"]]


def test_an_unexpected_error_is_a_500_without_details(deps):
    client = client_for(deps.with_(turns=failing(deps.turns, "append", exc=RuntimeError("secret detail"))))
    r = client.post(f"{USER}/messages", json=body(message("x", "m1")))
    assert r.status_code == 500 and "secret" not in json.dumps(r.json())


def test_health_reports_every_fake_store_up(api):
    r = api.get("/v1/health")
    assert r.status_code == 200 and r.json()["status"] == "ok"


def test_health_names_a_store_that_is_down(deps):
    def down():
        raise StoreUnavailable("redis: down")

    r = client_for(deps.with_(probes={**deps.probes, "redis": down})).get("/v1/health")
    assert r.json()["status"] == "degraded" and r.json()["stores"]["redis"] == "down"
