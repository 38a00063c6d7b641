"""The erasure saga's steps on the fakes, run in the state machine's order: nothing of the user
is left, nobody else is touched, every step may run twice, failures are named and alerted."""

from __future__ import annotations

import pytest

from engram.domain.keys import erasure_audit_subject
from engram.domain.model import Scope
from engram.domain.records import SessionRef
from engram.errors import Conflict, StoreUnavailable, ValidationFailed
from engram.service import erasure
from engram.service.archival import archive_day
from engram.service.tasks import record_task_event
from engram.service.users import link_device, set_consent
from tests.fakes import fake_deps
from tests.unit.support import T0, failing, run_saga, say
from tests.unit.support import start_erasure as start

ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:erasure"


@pytest.fixture
def deps(settings):
    return fake_deps(settings.model_copy(update={"erasure_state_machine_arn": ARN}))


def remember(deps, scope):
    """Something of the user in every store: session, episodes, turns, tasks, graph, key, archive."""
    set_consent(deps, scope, True, None)
    link_device(deps, scope, "phone", "ios")
    say(deps, scope, "I'm allergic to peanuts.", "I love jazz music.", "Remind me to call the dentist")
    deps.sessions.set_fields(SessionRef(scope, "phone", "s1"), {"current_item": "jazz"})
    record_task_event(deps, scope, "t-own", "CREATED", {"title": "own"}, "2026-11-20T10:00:00Z")


def footprint(deps, scope) -> dict:
    rows = deps.erasure_jobs.count_rows(scope)
    return {"sessions": deps.sessions.count_user(scope), "episodes": deps.episodes.count(scope, tier="all"),
            "graph": deps.graph.count_user(scope), "key": deps.keys.has_key(scope),
            **{table: n for table, n in rows.items()}}


@pytest.fixture
def both(deps, alice, bob):
    remember(deps, alice)
    remember(deps, bob)
    archive_day(deps, T0.date())
    return alice, bob


# -- the request -------------------------------------------------------------------------------

def test_a_request_starts_the_saga_and_fences_writes_at_once(deps, alice):
    remember(deps, alice)
    job = erasure.request_erasure(deps, alice)
    [started] = deps.workflows.started
    assert started["state_machine_arn"] == ARN and started["name"] == job["job_id"]
    assert started["payload"] == {"job_id": job["job_id"], "tenant": "t1", "user_id": "alice"}
    assert job["status"] == "RUNNING" and deps.users.state(alice).erasing
    with pytest.raises(Conflict):
        say(deps, alice, "I love tea.", prefix="late")


def test_a_second_request_gets_the_running_job(deps, alice):
    first = erasure.request_erasure(deps, alice)
    assert erasure.request_erasure(deps, alice) == first and len(deps.workflows.started) == 1


def test_without_a_state_machine_nothing_is_fenced(settings, alice):
    deps = fake_deps(settings)
    with pytest.raises(StoreUnavailable):
        erasure.request_erasure(deps, alice)
    assert not deps.users.state(alice).erasing and deps.erasure_jobs.jobs == {}


def test_a_saga_that_cannot_start_fails_the_job(deps, alice):
    deps.workflows.fail_with = StoreUnavailable("step functions: throttled")
    with pytest.raises(StoreUnavailable):
        erasure.request_erasure(deps, alice)
    [job] = deps.erasure_jobs.jobs.values()
    assert job["status"] == "FAILED" and job["error"]["step"] == "start"


def test_the_job_view_shows_each_step(deps, both):
    event = start(deps, both[0])
    run_saga(deps, event)
    view = erasure.job_view(deps, "t1", event["job_id"])
    assert view["status"] == "SUCCEEDED" and view["finished_at"]
    steps = ("validate", "mark", *deps.holders.names, "verify", "record")
    assert {s: view["steps"][s] for s in steps} == dict.fromkeys(steps, "SUCCEEDED")


# -- the saga ----------------------------------------------------------------------------------

def test_the_saga_leaves_zero_residue_and_the_other_user_untouched(deps, both):
    alice, bob = both
    bobs = footprint(deps, bob)
    assert all(footprint(deps, alice)[k] for k in ("sessions", "episodes", "graph", "turn_log", "task_events"))
    verified = run_saga(deps, start(deps, alice))
    assert verified == {"ok": True, "residue": dict.fromkeys(deps.holders.names, 0), "failed_steps": []}
    left = footprint(deps, alice)
    assert not any(left.values()), left
    assert deps.audit.entries(alice) == [] and deps.sessions.sessions_of(alice) == []
    assert footprint(deps, bob) == bobs
    assert not deps.users.state(bob).erasing


def test_the_user_may_come_back_and_starts_from_nothing(deps, both):
    alice = both[0]
    run_saga(deps, start(deps, alice))
    assert deps.users.state(alice).known is False
    say(deps, alice, "Hello again", prefix="back")
    assert [t["message_id"] for t in deps.turns.turns(alice)] == ["back-0"]


def test_every_step_may_run_twice(deps, both):
    alice = both[0]
    event = start(deps, alice)
    assert erasure.validate(deps, event) == erasure.validate(deps, event) == {"known": True}
    assert erasure.mark(deps, event) == erasure.mark(deps, event)
    for store in deps.holders.names:
        first = erasure.delete_from(deps, event, store)
        again = erasure.delete_from(deps, event, store)
        assert first["status"] == again["status"] == "SUCCEEDED" and again["deleted"] == 0, store
    once, twice = erasure.verify(deps, event), erasure.verify(deps, event)
    assert once == twice and once["ok"]
    assert erasure.record(deps, event) == erasure.record(deps, event) == {"status": "SUCCEEDED"}


def test_validate_takes_known_from_the_request(deps, alice):
    event = start(deps, alice)  # alice never wrote anything
    assert erasure.validate(deps, event) == {"known": False}


def test_a_step_without_a_job_id_is_refused(deps, alice):
    with pytest.raises(ValidationFailed) as caught:
        erasure.validate(deps, {"tenant": "t1", "user_id": "alice"})
    assert caught.value.field == "job_id"


def test_the_archive_step_deletes_what_it_may_and_shreds_the_key(deps, both):
    alice, _ = both
    event = start(deps, alice)
    objects = deps.archive_eraser.objects_of(alice, None)
    assert objects, "the archive holds alice's rows"
    deps.archive_eraser.locked.difference_update(o["key"] for o in objects if o["only_user"])
    out = erasure.delete_from(deps, event, "archive")
    assert out["key_shredded"] is True and not deps.keys.has_key(alice)
    assert out["deleted"] == sum(o["only_user"] for o in objects)
    assert sorted(out["retained_unreadable"]) == sorted(o["key"] for o in objects if not o["only_user"])


def test_postgres_rows_go_table_by_table(deps, both):
    alice, _ = both
    out = erasure.delete_from(deps, start(deps, alice), "postgres")
    assert out["tables"]["turn_log"] == 3 and out["tables"]["task_events"] == 2
    assert out["tables"]["consent_events"] == 1 and out["tables"]["devices"] == 1
    assert out["deleted"] == sum(out["tables"].values())


def test_an_unknown_store_is_refused(deps, alice):
    with pytest.raises(ValidationFailed):
        erasure.delete_from(deps, start(deps, alice), "mongodb")


# -- failures ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("store", "part", "method"), [
    ("redis", "sessions", "delete_user"), ("opensearch", "episodes", "delete_user"),
    ("postgres", "erasure_jobs", "delete_rows"), ("neo4j", "graph", "delete_user"),
    ("archive", "archive_eraser", "objects_of"),
])
def test_a_store_that_is_down_raises_store_unavailable(deps, both, store, part, method):
    event = start(deps, both[0])
    down = deps.with_(**{part: failing(getattr(deps, part), method, exc=ConnectionError("refused"))})
    with pytest.raises(StoreUnavailable) as caught:
        erasure.delete_from(down, event, store)
    assert store in caught.value.message
    assert store not in deps.erasure_jobs.job("t1", event["job_id"])["steps"]


def test_a_failed_store_is_recorded_and_the_saga_goes_on(deps, both):
    alice, _ = both
    event = start(deps, alice)
    erasure.validate(deps, event)
    erasure.mark(deps, event)
    for store in ("redis", "opensearch", "postgres", "archive"):
        erasure.delete_from(deps, event, store)
    failed = erasure.record_failure(deps, {**event, "step": "neo4j",
                                           "error": {"Error": "StoreUnavailable", "Cause": "bolt refused"}})
    assert failed == {"store": "neo4j", "status": "FAILED", "error": "StoreUnavailable"}
    verified = erasure.verify(deps, event)
    assert verified["ok"] is False and verified["failed_steps"] == ["neo4j"] and verified["residue"]["neo4j"] > 0


def test_the_final_failure_names_the_failed_steps_and_alerts(deps, both):
    alice, _ = both
    event = start(deps, alice)
    erasure.record_failure(deps, {**event, "step": "neo4j", "error": {"Error": "StoreUnavailable"}})
    verified = erasure.verify(deps, event)
    erasure.record_failure(deps, {**event, "step": "verify", "final": True, "verify": verified,
                                  "error": {"Error": "ErasureIncomplete", "Cause": "residue"}})
    job = deps.erasure_jobs.job("t1", event["job_id"])
    assert job["status"] == "FAILED" and job["error"]["failed"] == verified["failed_steps"]
    assert set(job["error"]["failed"]) >= {"neo4j"} and job["residue"] == verified["residue"]
    alerts = deps.alerts.published
    assert [a["detail_type"] for a in alerts] == ["ErasureStepFailed", "ErasureStepFailed"]
    assert alerts[-1]["source"] == "engram.erasure" and alerts[-1]["detail"]["job_id"] == event["job_id"]
    assert (alerts[-1]["detail"]["step"], alerts[-1]["detail"]["error"]) == ("verify", "ErasureIncomplete")


def test_a_final_failure_without_verify_names_the_failing_store(deps, both):
    event = start(deps, both[0])
    erasure.record_failure(deps, {**event, "step": "opensearch", "error": {"Error": "StoreUnavailable"}})
    erasure.record_failure(deps, {**event, "step": "verify", "final": True, "error": {"Error": "StoreUnavailable"}})
    job = deps.erasure_jobs.job("t1", event["job_id"])
    assert job["error"]["failed"] == ["opensearch"]


def test_the_audit_of_an_erasure_names_no_one(deps, both):
    alice, _ = both
    event = start(deps, alice)
    run_saga(deps, event)
    trail = deps.audit.entries(Scope("t1", erasure_audit_subject(event["job_id"])))
    assert [e["action"] for e in trail][:2] == ["erasure_validate", "erasure_mark"]
    assert "alice" not in repr([e for e in trail])
