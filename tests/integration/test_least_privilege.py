"""Least privilege on the real stores: the runtime's PostgreSQL role, the migration that makes it,
and store logins read from Secrets Manager (LocalStack).

The ``deps`` fixture connects as the functions do, with the runtime's login (``engram_app``
locally, a member of ``engram_runtime``); the schema owner is used only where a test says so.
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import UTC, datetime

import boto3
import psycopg
import pytest
from psycopg import sql

from engram.adapters.clients import Clients
from engram.bootstrap import build
from engram.config import Settings
from engram.domain.model import Scope
from engram.domain.records import AuditEntry
from engram.errors import Conflict, StoreUnavailable
from engram.migrate import ensure_runtime_login, migrate_postgres
from local.stackctl.common import HOST, PORTS
from local.stackctl.deploy import postgres_owner_dsn

pytestmark = pytest.mark.stack

OWNER_DSN = os.environ.get("ENGRAM_POSTGRES_OWNER_DSN") or postgres_owner_dsn()
BARE_DSN = f"postgresql://{HOST}:{PORTS['postgres']}/engram"  # no login: the secret gives it


@pytest.fixture
def scope():
    return Scope(f"t-lp-{uuid.uuid4().hex[:8]}", "alice")


def _audit(deps, scope: Scope, n: int) -> None:
    deps.audit.append(scope, [AuditEntry("ingest", "create", "graph", f"e{i}", "rule", 0.7, None, {"object": "tea"})
                              for i in range(n)])


# -- the runtime's role ------------------------------------------------------------------------

def test_the_runtime_connects_as_a_non_owner_member_of_engram_runtime(deps):
    with deps.clients.pg() as conn:
        user, is_super, member, owner = conn.execute(
            "SELECT current_user, rolsuper, pg_has_role(current_user, 'engram_runtime', 'MEMBER'), "
            "(SELECT tableowner FROM pg_tables WHERE tablename = 'audit_log') FROM pg_roles "
            "WHERE rolname = current_user").fetchone()
    assert not is_super and member and user != owner


@pytest.mark.parametrize("statement", [
    "UPDATE audit_log SET actor = 'mallory' WHERE tenant = %(t)s",
    "DELETE FROM audit_log WHERE tenant = %(t)s",
    "TRUNCATE audit_log",
])
def test_the_runtime_cannot_change_or_remove_audit_rows_even_with_the_trigger_flags(deps, scope, statement):
    _audit(deps, scope, 1)
    with deps.clients.pg() as conn:
        for flag in ("engram.erasure", "engram.redaction"):  # any session may set these: no barrier
            conn.execute(sql.SQL("SET {} = 'on'").format(sql.Identifier(*flag.split("."))))
        try:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement, {"t": scope.tenant})
        finally:
            conn.execute("RESET ALL")
    assert len(deps.audit.entries(scope)) == 1


def test_the_runtime_drops_chunks_and_creates_objects_only_through_the_owners_functions(deps):
    with deps.clients.pg() as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT drop_chunks('turn_log'::regclass, older_than => '1971-01-02'::timestamptz)")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(f"CREATE TABLE lp_{uuid.uuid4().hex[:8]} (a int)")
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            conn.execute("SELECT engram_drop_chunks('users', now(), now() - interval '1 day')")
        assert conn.execute("SELECT engram_drop_chunks('turn_log', '1971-01-02', '1971-01-01')").fetchone() == (0,)


def test_the_erasure_deletes_that_users_audit_rows_and_only_theirs(deps, scope):
    bob = Scope(scope.tenant, "bob")
    _audit(deps, scope, 3)
    _audit(deps, bob, 2)
    jobs = deps.erasure_jobs
    with pytest.raises(Conflict):  # not being erased: nothing goes, not even the other tables' rows
        jobs.delete_rows(scope)
    assert len(deps.audit.entries(scope)) == 3
    jobs.mark_erasing(scope)
    assert jobs.delete_rows(scope)["audit_log"] == 3
    assert deps.audit.entries(scope) == [] and len(deps.audit.entries(bob)) == 2
    with deps.clients.pg() as conn:  # and not through the function either, for a user not being erased
        with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState):
            conn.execute("SELECT engram_erase_user_audit(%s, %s)", (bob.tenant, bob.user_id))
    assert len(deps.audit.entries(bob)) == 2


# -- the migration -------------------------------------------------------------------------------

@pytest.fixture
def scratch():
    """A database of its own and a login name for its runtime, both dropped afterwards."""
    name = f"engram_lp_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(OWNER_DSN, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            yield name, f"{name}_app"
        finally:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
            for role in (f"{name}_app", f"{name}_su"):
                admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def _dsn(base: str, db: str, user: str | None = None, password: str | None = None) -> str:
    return psycopg.conninfo.make_conninfo(base, dbname=db, **({"user": user, "password": password} if user else {}))


def test_migrate_makes_the_runtime_login_and_is_idempotent(scratch):
    db, login = scratch
    settings = Settings(postgres_dsn=_dsn(BARE_DSN, db, login, "first-pw"), postgres_owner_dsn=_dsn(OWNER_DSN, db))
    assert migrate_postgres(build(settings)) == login
    with psycopg.connect(settings.postgres_dsn, autocommit=True) as app:
        app.execute("INSERT INTO audit_log (tenant, user_id, actor, action, store) VALUES ('t', 'u', 'a', 'x', 'g')")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app.execute("DELETE FROM audit_log")

    # A rerun (a later release, a rotated password) changes the password and nothing else.
    rotated = settings.model_copy(update={"postgres_dsn": _dsn(BARE_DSN, db, login, "second-pw")})
    assert migrate_postgres(build(rotated)) == login
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(settings.postgres_dsn, connect_timeout=5).close()
    with psycopg.connect(_dsn(OWNER_DSN, db), autocommit=True) as owner:
        owner.execute("CREATE TABLE added_later (a int)")  # a table a later feature adds
    with psycopg.connect(rotated.postgres_dsn, autocommit=True) as app:
        assert app.execute("SELECT count(*) FROM audit_log").fetchone() == (1,)
        app.execute("INSERT INTO added_later VALUES (1)")  # default privileges reach it
        assert app.execute("DELETE FROM added_later").rowcount == 1
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app.execute("UPDATE audit_log SET actor = 'm'")


def test_migrate_refuses_a_superuser_runtime_and_leaves_an_owner_runtime_alone(scratch):
    db, login = scratch
    with psycopg.connect(_dsn(OWNER_DSN, db), autocommit=True) as owner:
        owner.execute(sql.SQL("CREATE ROLE {} SUPERUSER NOLOGIN").format(sql.Identifier(f"{db}_su")))
        with pytest.raises(RuntimeError, match="superuser"):
            ensure_runtime_login(owner, _dsn(BARE_DSN, db, f"{db}_su", "x"))
        assert ensure_runtime_login(owner, _dsn(OWNER_DSN, db)) is None  # the owner itself: nothing to make


# -- logins from Secrets Manager ----------------------------------------------------------------

@pytest.fixture
def secrets():
    sm = boto3.client("secretsmanager", region_name="us-east-1")
    made: list[str] = []

    def make(value: dict) -> str:
        arn = sm.create_secret(Name=f"engram-test/{uuid.uuid4().hex}", SecretString=json.dumps(value))["ARN"]
        made.append(arn)
        return arn

    yield sm, make
    for arn in made:
        try:
            sm.delete_secret(SecretId=arn, ForceDeleteWithoutRecovery=True)
        except sm.exceptions.ResourceNotFoundException:
            pass


def test_the_postgres_login_comes_from_the_secret_once_per_process(deps, secrets):
    sm, make = secrets
    runtime = psycopg.conninfo.conninfo_to_dict(deps.clients.postgres_conninfo())
    # An RDS-style secret: its host, port and dbname win over the DSN's (here a database that does not exist).
    arn = make({"username": runtime["user"], "password": runtime["password"], "host": runtime["host"],
                "port": int(runtime["port"]), "dbname": runtime["dbname"], "engine": "postgres"})
    clients = Clients(Settings(postgres_dsn=BARE_DSN.rsplit("/", 1)[0] + "/no_such_db", postgres_secret_arn=arn))
    assert "password" not in clients.settings.postgres_dsn
    with clients.pg(timeout=10) as conn:
        assert conn.execute("SELECT current_user, current_database()").fetchone() == (
            runtime["user"], runtime["dbname"])
    sm.delete_secret(SecretId=arn, ForceDeleteWithoutRecovery=True)
    # Fetched once: the process keeps what it read (a rotation reaches new processes).
    assert psycopg.conninfo.conninfo_to_dict(clients.postgres_conninfo())["user"] == runtime["user"]
    clients.pg_pool.close()


def test_a_missing_secret_is_a_store_outage_naming_the_secret_not_a_login(secrets):
    _, make = secrets
    arn = make({"username": "x", "password": "y"}).rsplit("-", 1)[0] + "-gone00"
    clients = Clients(Settings(postgres_dsn=BARE_DSN, postgres_secret_arn=arn))
    with pytest.raises(StoreUnavailable) as down, clients.pg(timeout=5):
        pass
    assert arn in down.value.message


def test_the_neo4j_login_comes_from_the_secret(deps, secrets):
    _, make = secrets
    settings = deps.settings
    arn = make({"username": settings.neo4j_user, "password": settings.neo4j_password})
    clients = Clients(Settings(neo4j_uri=settings.neo4j_uri, neo4j_password="not-the-password", neo4j_secret_arn=arn))
    try:
        clients.neo4j.verify_connectivity()
        assert clients.neo4j.execute_query("RETURN 1 AS one").records[0]["one"] == 1
    finally:
        clients.neo4j.close()


def test_archived_objects_carry_the_configured_lock_mode(deps):
    from engram.adapters.aws.archive_store import ArchiveStore

    store = ArchiveStore(deps.clients, deps.settings.model_copy(update={"archive_lock_mode": "GOVERNANCE",
                                                                        "archive_lock_days": 2}))
    key = f"tests/lock-mode/{uuid.uuid4().hex}"
    put = store.put_locked(key, b"x", content_type="application/octet-stream")
    try:
        head = store.s3.head_object(Bucket=store.bucket, Key=key, VersionId=put["version_id"])
        assert head["ObjectLockMode"] == "GOVERNANCE"
        assert (head["ObjectLockRetainUntilDate"] - datetime.now(UTC)).days in (1, 2)
    finally:
        store.s3.delete_object(Bucket=store.bucket, Key=key, VersionId=put["version_id"],
                               BypassGovernanceRetention=True)
