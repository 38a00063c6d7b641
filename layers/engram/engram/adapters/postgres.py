"""PostgreSQL/TimescaleDB: the connection pool and the schema every Postgres-backed store uses."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from ..config import get_settings
from ..errors import StoreUnavailable

_SCHEMA_LOCK = 0x656E6772  # any constant: serialises concurrent schema set-up


@cache
def pool() -> ConnectionPool:
    settings = get_settings()
    # min_size=0: a cold Lambda pays for one connection only when it needs one.
    p = ConnectionPool(settings.postgres_dsn, min_size=0, max_size=settings.postgres_pool_max,
                       kwargs={"autocommit": True, "connect_timeout": 3}, open=False, timeout=5)
    p.open(wait=False)
    return p


@contextmanager
def connection(timeout: float | None = None) -> Iterator[psycopg.Connection]:
    """A pooled connection; the schema is in place before the first one is handed out."""
    ensure_schema()
    try:
        with pool().connection(timeout=timeout) as conn:
            yield conn
    except (psycopg.OperationalError, PoolTimeout) as exc:
        raise StoreUnavailable(f"postgres: {exc}") from exc


@cache
def ensure_schema() -> None:
    ddl = resources.files(__package__).joinpath("schema.sql").read_text()
    try:
        with pool().connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
            try:
                conn.execute(ddl)
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))
    except (psycopg.OperationalError, PoolTimeout) as exc:  # not cached: the next call retries
        raise StoreUnavailable(f"postgres: {exc}") from exc


def ping() -> None:
    with pool().connection(timeout=get_settings().health_timeout_s) as conn:
        conn.execute("SELECT 1")
