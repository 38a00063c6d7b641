"""Large exports on the fakes, with a small inline threshold (a setting): a document over it is
streamed into the export store and answered with a short-lived link, one under it is answered
inline as before, nothing is stored for a user being erased, and the erasure saga takes (and
counts) what was stored."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from engram.errors import StoreUnavailable
from engram.service import erasure
from engram.service.export import deliver, export_chunks, export_document
from tests.fakes import fake_deps
from tests.unit.support import Wrapped, client_for, failing, run_saga, say
from tests.unit.support import start_erasure as start

ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:erasure"
LIMIT = 20_000  # a one-turn user's export is ~2 KB as it travels, forty more turns make it ~60 KB
NOW = datetime(2026, 11, 21, tzinfo=UTC)
LINK = {"export_url", "expires_at", "bytes"}


@pytest.fixture
def deps(settings):
    return fake_deps(settings.model_copy(update={"export_inline_max_bytes": LIMIT, "export_url_ttl_s": 600,
                                                 "erasure_state_machine_arn": ARN}))


@pytest.fixture
def api(deps) -> TestClient:
    return client_for(deps)


def heavy(deps, scope, turns: int = 40) -> None:
    say(deps, scope, *[f"I went hiking in the Alps on day {i} with {scope.user_id}'s friends." for i in range(turns)],
        prefix=f"{scope.user_id}-h")


def with_settings(deps, **update):
    return deps.with_(settings=deps.settings.model_copy(update=update))


# -- inline or stored -----------------------------------------------------------------------------

def test_an_export_under_the_threshold_is_answered_inline_and_stores_nothing(api, deps, alice):
    say(deps, alice, "I went hiking in the Alps.")
    response = api.get("/v1/users/alice/export")
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    document = response.json()
    assert document["user_id"] == "alice" and "export_url" not in document
    assert [t["content"] for t in document["turns"]] == ["I went hiking in the Alps."]
    assert deps.exports.objects == {}


def test_an_export_over_the_threshold_is_stored_and_answered_with_a_link(api, deps, alice, bob):
    heavy(deps, alice)
    say(deps, bob, "I love the opera.")
    response = api.get("/v1/users/alice/export")
    assert response.status_code == 200 and response.headers["cache-control"] == "no-store"
    link = response.json()
    assert set(link) == LINK
    stored = deps.exports.fetch(link["export_url"])
    assert stored is not None and len(stored) == link["bytes"] > LIMIT
    document = json.loads(stored)
    expected = export_document(deps, alice)
    assert document["user_id"] == "alice" and document["format"] == expected["format"]
    for section in ("turns", "episodes", "sessions", "devices", "tasks"):
        assert document[section] == expected[section], section
    assert len(document["turns"]) == 40 and "opera" not in stored.decode()
    [(key, chunks)] = deps.exports.chunks.items()
    assert chunks > 100 and "alice" not in key  # streamed chunk by chunk, under a key naming no one


def test_delivery_url_stores_even_a_small_export(api, deps, alice):
    say(deps, alice, "I went hiking in the Alps.")
    link = api.get("/v1/users/alice/export?delivery=url").json()
    assert set(link) == LINK
    assert json.loads(deps.exports.fetch(link["export_url"]))["turns"][0]["content"] == "I went hiking in the Alps."


def test_an_unknown_delivery_is_refused_naming_it(api, deps):
    response = api.get("/v1/users/alice/export?delivery=inline")
    assert response.status_code == 400 and response.json()["error"]["field"] == "delivery"
    assert deps.exports.objects == {}


def test_the_threshold_counts_the_body_as_it_travels_in_lambdas_response(deps, alice):
    # Quotes, backslashes and non-ASCII text grow when the body is put in Lambda's JSON response;
    # the threshold is held to that size, not to the UTF-8 one.
    say(deps, alice, *[f'我们去了阿尔卑斯山 "徒步" \\ day {i}' for i in range(30)], prefix="cjk")
    text = "".join(export_chunks(deps, alice, NOW))
    utf8, travelling = len(text.encode()), len(json.dumps(text)) - 2
    assert travelling > utf8 * 1.2
    assert isinstance(deliver(with_settings(deps, export_inline_max_bytes=travelling), alice, now=NOW), list)
    stored = deliver(with_settings(deps, export_inline_max_bytes=travelling - 1), alice, now=NOW)
    assert isinstance(stored, dict) and stored["bytes"] == utf8
    assert deliver(with_settings(deps, export_inline_max_bytes=(utf8 + travelling) // 2), alice, now=NOW)["bytes"]


def test_the_link_expires_after_the_configured_lifetime(deps, alice):
    heavy(deps, alice)
    before = time.time()
    link = deliver(with_settings(deps, export_url_ttl_s=60), alice)
    expires = datetime.fromisoformat(link["expires_at"].replace("Z", "+00:00")).timestamp()
    assert link["expires_at"].endswith("Z") and before + 60 <= expires <= time.time() + 60
    assert deps.exports.fetch(link["export_url"]) is not None
    assert deps.exports.fetch(link["export_url"], at=time.time() + 61) is None


# -- failures -------------------------------------------------------------------------------------

@pytest.mark.parametrize("limit", [LIMIT, 10**9], ids=["stored", "inline"])
def test_a_store_down_mid_document_is_a_503_and_nothing_is_stored(deps, alice, limit):
    heavy(deps, alice)
    broken = with_settings(deps, export_inline_max_bytes=limit).with_(audit=failing(deps.audit, "entries"))
    response = client_for(broken).get("/v1/users/alice/export")
    assert response.status_code == 503 and response.json()["error"]["code"] == "store_unavailable"
    assert deps.exports.objects == {}


def test_the_export_store_down_is_a_503(deps, alice):
    heavy(deps, alice)
    broken = deps.with_(exports=failing(deps.exports, "put", StoreUnavailable("exports: down")))
    assert client_for(broken).get("/v1/users/alice/export").status_code == 503


def test_no_export_is_even_uploaded_for_a_user_being_erased(deps, alice):
    heavy(deps, alice)
    erasure.request_erasure(deps, alice)
    counted = Wrapped(deps.exports, "put", lambda store, *args: store.put(*args))
    response = client_for(deps.with_(exports=counted)).get("/v1/users/alice/export?delivery=url")
    assert response.status_code == 409 and response.json()["error"]["field"] == "user_id"
    assert counted.calls == 0 and deps.exports.objects == {}


def test_an_erasure_begun_during_the_upload_waits_for_it_and_then_deletes_it(deps, alice):
    heavy(deps, alice)
    seen_by_the_saga = []

    def put_then_erasure_begins(store, scope, chunks):
        stored = store.put(scope, chunks)
        deps.erasure_jobs.mark_erasing(scope)
        seen_by_the_saga.append(deps.fence.in_flight(scope))  # the mark step's drain waits on it
        return stored

    racing = deps.with_(exports=Wrapped(deps.exports, "put", put_then_erasure_begins))
    assert client_for(racing).get("/v1/users/alice/export", params={"delivery": "url"}).status_code == 200
    assert seen_by_the_saga == [1] and deps.fence.in_flight(alice) == 0
    assert deps.exports.count_user(alice) == 1
    erasure.delete_from(deps, {"job_id": deps.erasure_jobs.open_job(alice)[0]["job_id"], "tenant": alice.tenant,
                               "user_id": alice.user_id}, "archive")
    assert deps.exports.count_user(alice) == 0


# -- erasure --------------------------------------------------------------------------------------

def test_a_stored_export_counts_as_residue_until_the_saga_deletes_it(deps, alice, bob):
    heavy(deps, alice)
    heavy(deps, bob)
    before = erasure.residue(alice, deps)["archive"]
    deliver(deps, alice)
    deliver(deps, alice, delivery="url")
    deliver(deps, bob)
    assert erasure.residue(alice, deps)["archive"] == before + 2
    event = start(deps, alice)
    verified = run_saga(deps, event)
    assert verified["ok"] and verified["residue"]["archive"] == 0
    assert deps.erasure_jobs.job("t1", event["job_id"])["steps"]["archive"]["exports_deleted"] == 2
    assert deps.exports.count_user(alice) == 0 and deps.exports.count_user(bob) == 1


# -- the published contract -----------------------------------------------------------------------

def test_the_schema_publishes_both_answers_and_the_delivery_parameter(api):
    operation = api.get("/openapi.json").json()["paths"]["/v1/users/{user_id}/export"]["get"]
    shapes = operation["responses"]["200"]["content"]["application/json"]["schema"]["oneOf"]
    document, link = shapes
    assert {"format", "user_id", "turns"} <= set(document["required"])
    assert set(link["required"]) == LINK and link["additionalProperties"] is False
    [delivery] = [p for p in operation["parameters"] if p["name"] == "delivery"]
    assert delivery["in"] == "query" and delivery["schema"]["pattern"] == "^(auto|url)$"
