"""Recall with a store stopped for real: it answers from the other layers and names the gap."""


import pytest

from engram.domain.model import Scope
from engram.service.recall import RecallRequest, run_in_process
from local.stackctl.services.opensearch import OpenSearch
from local.stackctl.services.redis import Redis
from tests.integration.outage import stopped
from tests.unit.support import failing

pytestmark = pytest.mark.stack


@pytest.fixture
def mia(deps, app_client, tenant_key):
    _, headers = tenant_key
    app_client.put("/v1/users/mia/consent", headers=headers, json={"long_term": True})
    r = app_client.post("/v1/users/mia/messages", headers=headers, json={
        "session_id": "s1", "device_id": "phone",
        "messages": [{"role": "user", "content": "I'm allergic to shellfish.", "client_ts": "2026-05-01T10:00:00Z",
                      "message_id": "x1"}]})
    assert r.status_code == 200
    app_client.put("/v1/users/mia/sessions/s1/context?device_id=phone", headers=headers,
                   json={"fields": {"current_item": "shrimp pasta"}})
    yield headers
    deps.runtime.breaker.reset()


def ask(client, headers):
    r = client.post("/v1/users/mia/recall", headers=headers, json={
        "query": "Am I allergic to anything?", "session_id": "s1", "device_id": "phone",
        "now": "2026-05-02T10:00:00Z"})
    assert r.status_code == 200, r.text
    return r.json()


def test_redis_down_degrades_session_only(deps, app_client, mia):
    redis = Redis()
    with stopped(deps, redis):
        answer = ask(app_client, mia)
        assert "session" in answer["degraded"] and "episodes" not in answer["degraded"]
        assert any("shellfish" in i["text"] for i in answer["items"])
    assert "session" not in ask(app_client, mia)["degraded"]


def test_opensearch_down_degrades_episodes_only(deps, app_client, mia):
    with stopped(deps, OpenSearch()):
        answer = ask(app_client, mia)
        assert "episodes" in answer["degraded"] and "profile" not in answer["degraded"]
        assert any(i["layer"] == "profile" and "shellfish" in i["text"] for i in answer["items"])


def test_a_step_past_its_deadline_is_skipped_and_named(deps, app_client, mia, tenant_key):
    request = RecallRequest.parse(Scope(tenant_key[0], "mia"), "Am I allergic to anything?")
    answer = run_in_process(deps, request, deadlines_ms={"episodes": 0.001})
    assert "episodes" in answer["degraded"] and answer["timings_ms"]["episodes"] == pytest.approx(0.001)
    assert any(i["layer"] == "profile" for i in answer["items"])


def test_a_failing_episodes_step_is_never_no_record(deps, app_client, tenant_key):
    """Nothing is stopped (others share the stack): the episode store is swapped for one whose
    search fails, over the real stores. Nico said it; the episodes could not be read; the answer
    must not be "no record"."""
    _, headers = tenant_key
    app_client.put("/v1/users/nico/consent", headers=headers, json={"long_term": True})
    r = app_client.post("/v1/users/nico/messages", headers=headers, json={
        "session_id": "s1", "device_id": "phone",
        "messages": [{"role": "user", "content": "I booked a flight to Lisbon for next week.",
                      "client_ts": "2026-05-01T10:05:00Z", "message_id": "n1"}]})
    assert r.status_code == 200
    request = RecallRequest.parse(Scope(tenant_key[0], "nico"), "Do you remember the flight I booked?",
                                  now="2026-05-02T10:00:00Z")
    try:
        working = run_in_process(deps, request)
        assert working["no_record"] is False and working["memory_unavailable"] == []
        for half in ("lexical", "nearest"):  # either search of the step failing
            deps.runtime.breaker.reset()
            answer = run_in_process(deps.with_(episodes=failing(deps.episodes, half)), request)
            assert answer["memory_dependent"] is True and answer["no_record"] is False
            assert answer["degraded"] == ["episodes"] and answer["memory_unavailable"] == ["episodes"]
            assert "Memory partly unavailable (episodes)" in answer["context_block"]
            assert "No record found" not in answer["context_block"]
    finally:
        deps.runtime.breaker.reset()  # the failure opened this process's breaker for the episodes step
