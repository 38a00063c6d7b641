"""Store logins from secrets (pure parts, and laziness), and the archive's Object Lock mode.

No server: the boto3 clients are stand-ins that record their calls.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from botocore.exceptions import ClientError
from psycopg.conninfo import conninfo_to_dict

from engram.adapters.aws.archive_store import ArchiveStore
from engram.adapters.clients import Clients, postgres_conninfo
from engram.config import Settings
from engram.errors import StoreUnavailable


class SecretsManager:
    def __init__(self, secrets: dict[str, str]) -> None:
        self.secrets, self.calls = secrets, []

    def get_secret_value(self, SecretId: str) -> dict:  # noqa: N803 - boto3's spelling
        self.calls.append(SecretId)
        if SecretId not in self.secrets:
            raise ClientError({"Error": {"Code": "ResourceNotFoundException", "Message": "no"}}, "GetSecretValue")
        return {"SecretString": self.secrets[SecretId]}


class StubClients(Clients):
    """The real Clients with its boto3 clients replaced by stand-ins."""

    def __init__(self, settings: Settings, **services) -> None:
        super().__init__(settings)
        self.services = services

    def aws(self, service: str, **config):
        return self.services[service]


def clients_with(settings: Settings, sm: SecretsManager) -> Clients:
    return StubClients(settings, secretsmanager=sm)


def test_the_secret_replaces_the_login_and_whatever_else_it_names():
    dsn = "postgresql://old:pw@db.internal:5432/engram"
    assert postgres_conninfo(dsn, None) == dsn
    merged = conninfo_to_dict(postgres_conninfo(dsn, {"username": "engram_app", "password": "s3 'cret"}))
    assert (merged["user"], merged["password"], merged["host"], merged["dbname"]) == (
        "engram_app", "s3 'cret", "db.internal", "engram")
    rds = conninfo_to_dict(postgres_conninfo(dsn, {"username": "u", "password": "p", "host": "rds.aws", "port": 6432,
                                                   "dbname": "prod", "engine": "postgres", "host2": None}))
    assert (rds["host"], rds["port"], rds["dbname"]) == ("rds.aws", "6432", "prod") and "engine" not in rds


def test_nothing_is_fetched_at_construction_and_a_secret_once_per_process():
    sm = SecretsManager({"arn:pg": json.dumps({"username": "engram_app", "password": "pw"})})
    clients = clients_with(Settings(postgres_dsn="postgresql://127.0.0.1/engram", postgres_secret_arn="arn:pg"), sm)
    assert sm.calls == []
    for _ in range(3):
        assert conninfo_to_dict(clients.postgres_conninfo())["user"] == "engram_app"
    assert sm.calls == ["arn:pg"]


def test_without_a_secret_the_plain_settings_are_used_and_nothing_is_asked():
    sm = SecretsManager({})
    clients = clients_with(Settings(postgres_dsn="postgresql://a:b@127.0.0.1/engram", neo4j_user="n",
                                    neo4j_password="p"), sm)
    assert clients.postgres_conninfo() == "postgresql://a:b@127.0.0.1/engram"
    assert clients.neo4j_auth() == ("n", "p") and sm.calls == []


@pytest.mark.parametrize("value", ["not json", json.dumps(["a"]), None])
def test_a_bad_or_missing_secret_is_an_outage_that_is_asked_again(value):
    sm = SecretsManager({} if value is None else {"arn:x": value})
    clients = clients_with(Settings(neo4j_secret_arn="arn:x"), sm)
    for _ in range(2):
        with pytest.raises(StoreUnavailable) as down:
            clients.neo4j_auth()
        assert "arn:x" in down.value.message and (value is None or value not in down.value.message)
    assert sm.calls == ["arn:x", "arn:x"]  # a failure is not cached


def test_the_neo4j_secret_needs_a_password():
    sm = SecretsManager({"arn:n": json.dumps({"username": "neo4j"})})
    with pytest.raises(StoreUnavailable):
        clients_with(Settings(neo4j_secret_arn="arn:n"), sm).neo4j_auth()


def test_migrate_connects_as_the_owner_never_as_the_runtime(monkeypatch):
    from engram.migrate import owner_conninfo

    # `local/stack test` exports the local owner's DSN; this test is about what Settings decide.
    monkeypatch.delenv("ENGRAM_POSTGRES_OWNER_DSN", raising=False)

    runtime = "postgresql://engram_app:pw@db.internal:5432/engram"
    local = conninfo_to_dict(owner_conninfo(clients_with(Settings(postgres_dsn=runtime), SecretsManager({}))))
    assert local["user"] == "engram"  # the local owner by default, not the runtime's login
    # An RDS master secret names no host: the owner reaches the runtime's host and database.
    sm = SecretsManager({"arn:master": json.dumps({"username": "admin", "password": "m"})})
    owner = conninfo_to_dict(owner_conninfo(clients_with(
        Settings(postgres_dsn=runtime, postgres_owner_secret_arn="arn:master"), sm)))
    assert (owner["user"], owner["password"], owner["host"], owner["dbname"]) == ("admin", "m", "db.internal", "engram")
    given = conninfo_to_dict(owner_conninfo(clients_with(Settings(
        postgres_dsn=runtime, postgres_owner_dsn="postgresql://o@admin.internal/engram",
        postgres_owner_secret_arn="arn:master"), sm)))
    assert (given["host"], given["user"]) == ("admin.internal", "admin")


class S3:
    def __init__(self) -> None:
        self.puts: list[dict] = []

    def put_object(self, **kwargs) -> dict:
        self.puts.append(kwargs)
        return {"VersionId": "v1"}


@pytest.mark.parametrize("mode", ["GOVERNANCE", "COMPLIANCE"])
def test_each_archived_object_gets_the_configured_lock_mode_and_days(mode):
    settings = Settings(archive_lock_mode=mode, archive_lock_days=7)
    s3 = S3()
    clients = StubClients(settings, s3=s3)
    ArchiveStore(clients, settings).put_locked("archive/x", b"data", content_type="application/json")
    [put] = s3.puts
    assert put["ObjectLockMode"] == mode
    assert (put["ObjectLockRetainUntilDate"] - datetime.now(UTC)).days == 6  # 7 days less the moments since


def test_the_lock_mode_is_one_of_the_two_s3_knows():
    with pytest.raises(ValueError):
        Settings(archive_lock_mode="LEGAL_HOLD")
