"""Schema migrations, run as a deploy step (``local/stack deploy`` calls it; on AWS run
``python -m engram.migrate`` with the functions' settings plus the owner's credentials once per
release, before traffic).

PostgreSQL: ``adapters/postgres/schema.sql`` (idempotent DDL and privileges) under an advisory lock, so
concurrent runs do not race, applied as the schema owner (``ENGRAM_POSTGRES_OWNER_DSN`` /
``ENGRAM_POSTGRES_OWNER_SECRET_ARN``); then the runtime's login (the user of
``ENGRAM_POSTGRES_DSN`` / ``ENGRAM_POSTGRES_SECRET_ARN``) is created or given its current password
and made a member of ``engram_runtime``, the role schema.sql grants to. OpenSearch: the episodes
index (fields added since it was made are put into its mapping). Neo4j: uniqueness constraints and
edge-id indexes. Nothing of this runs on a request.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from .adapters.clients import Clients, postgres_conninfo
from .bootstrap import bootstrap
from .dependencies import Dependencies

_SCHEMA_LOCK = 0x656E6772  # any constant: serialises concurrent migrations
RUNTIME_GROUP = "engram_runtime"  # schema.sql grants to it; the runtime logs in as a member
log = logging.getLogger(__name__)


def owner_conninfo(clients: Clients) -> str:
    """The schema owner's conninfo: ENGRAM_POSTGRES_OWNER_DSN, its login from the owner's secret
    when there is one; with a secret and no owner DSN given, the runtime DSN's host and database."""
    settings = clients.settings
    arn = settings.postgres_owner_secret_arn
    given = "postgres_owner_dsn" in settings.model_fields_set
    base = settings.postgres_owner_dsn if given or not arn else settings.postgres_dsn
    return postgres_conninfo(base, clients.secret(arn) if arn else None)


@contextmanager
def owner_connection(clients: Clients) -> Iterator[psycopg.Connection]:
    """One autocommit connection as the schema owner (not pooled: a deploy step's)."""
    with psycopg.connect(owner_conninfo(clients), autocommit=True, connect_timeout=5) as conn:
        yield conn


def ensure_runtime_login(conn: psycopg.Connection, runtime_conninfo: str) -> str | None:
    """Create the runtime's login role (or set its password) and put it in ``engram_runtime``.
    Returns its name; None when the runtime connects as the owner itself, which no privilege binds."""
    params = conninfo_to_dict(runtime_conninfo)
    user, password = params.get("user"), params.get("password")
    owner = conn.execute("SELECT current_user").fetchone()[0]
    if not user or user == owner:
        log.warning("the runtime connects as the schema owner %s: audit_log is not append-only for it", owner)
        return None
    row = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", (user,)).fetchone()
    if row and row[0]:
        raise RuntimeError(f"the runtime role {user} is a superuser: no privilege would bind it")
    role = sql.Identifier(user)
    if row is None:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(role))
    if password:
        # The server gets the SCRAM verifier, never the password (so no log line can hold it).
        verifier = conn.pgconn.encrypt_password(password.encode(), user.encode()).decode()
        conn.execute(sql.SQL("ALTER ROLE {} LOGIN PASSWORD {}").format(role, sql.Literal(verifier)))
    conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(RUNTIME_GROUP), role))
    return user


def migrate_postgres(deps: Dependencies) -> str | None:
    """Apply the schema as the owner and set up the runtime's login; returns the login's name."""
    ddl = resources.files("engram.adapters.postgres").joinpath("schema.sql").read_text()
    with owner_connection(deps.clients) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
        try:
            conn.execute(ddl)
            return ensure_runtime_login(conn, deps.clients.postgres_conninfo())
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))


def migrate(deps: Dependencies | None = None) -> dict[str, str]:
    deps = deps or bootstrap()
    runtime = migrate_postgres(deps)
    deps.episodes.ensure_index()
    deps.graph.ensure_constraints()
    return {"postgres": "ok", "postgres_runtime_role": runtime or "(the owner)",
            "opensearch": deps.settings.episode_index, "neo4j": "ok"}


if __name__ == "__main__":
    print(json.dumps(migrate()))
    sys.exit(0)
