import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from engram.domain.model import Scope
from engram.domain.records import AuditEntry
from engram.domain.working.tasks import TaskStatus
from engram.errors import Conflict, Unprocessable

pytestmark = pytest.mark.stack
T0 = datetime(2026, 5, 1, 9, tzinfo=UTC)


@pytest.fixture
def scope():
    return Scope(f"t-{uuid.uuid4().hex[:8]}", "u1")


def test_task_lifecycle_durations_and_open_tasks(deps, scope):
    tasks = deps.tasks
    tasks.record(scope, "a", TaskStatus.CREATED, {"title": "book flight"}, T0)
    tasks.record(scope, "a", TaskStatus.IN_PROGRESS, {}, T0 + timedelta(minutes=5))
    done = tasks.record(scope, "a", TaskStatus.COMPLETED, {}, T0 + timedelta(minutes=35))
    assert done.duration_ms == 30 * 60 * 1000
    tasks.record(scope, "b", TaskStatus.CREATED, {}, T0 + timedelta(hours=1))
    with pytest.raises(Conflict):
        tasks.record(scope, "a", TaskStatus.IN_PROGRESS, {}, T0 + timedelta(hours=2))
    assert [t.task_id for t in tasks.latest(scope, open_only=True)] == ["b"]
    assert [t.task_id for t in tasks.latest(scope)] == ["b", "a"]
    assert tasks.latest(Scope(scope.tenant, "someone-else")) == []
    with deps.clients.pg() as conn:
        hypertables = conn.execute("SELECT hypertable_name FROM timescaledb_information.hypertables").fetchall()
    assert ("task_events",) in hypertables


def test_audit_log_is_append_only(deps, scope):
    audit = deps.audit
    audit.append(scope, [AuditEntry("ingest", "create", "graph", "e1", "rule", 0.7, None, {"x": 1})])
    [entry] = audit.entries(scope)
    assert entry["actor"] == "ingest" and entry["after"] == {"x": 1}
    # By privilege: the runtime's role holds INSERT and SELECT only (test_least_privilege.py).
    with deps.clients.pg() as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("UPDATE audit_log SET actor = 'mallory' WHERE tenant = %s", (scope.tenant,))
    with deps.clients.pg() as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("DELETE FROM audit_log WHERE tenant = %s", (scope.tenant,))


def test_idempotency_key_replays_first_result(deps, scope):
    idem = deps.idempotency
    assert idem.claim(scope, "k1", "h1") is None
    with pytest.raises(Conflict):  # still running
        idem.claim(scope, "k1", "h1")
    idem.complete(scope, "k1", 200, {"ok": 1})
    assert idem.claim(scope, "k1", "h1") == (200, {"ok": 1})
    with pytest.raises(Unprocessable):
        idem.claim(scope, "k1", "other request")
    assert idem.claim(Scope(f"{scope.tenant}-b", scope.user_id), "k1", "h1") is None  # keys are per tenant
    assert idem.claim(Scope(scope.tenant, "u2"), "k1", "h1") is None  # and per user


def test_consent_is_versioned_and_child_mode_forbids_long_term(deps, scope):
    users = deps.users
    assert users.state(scope).long_term_consent is False
    assert users.set_consent(scope, True, None).consent_version == 1
    child = users.set_consent(scope, True, 9)
    assert child.child_mode and not child.long_term_consent and child.consent_version == 2
    assert [h["version"] for h in users.consent_history(scope)] == [1, 2]
