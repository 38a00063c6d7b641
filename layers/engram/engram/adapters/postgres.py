"""PostgreSQL/TimescaleDB connection pool and schema; the stores built on it import ``pool()``."""

from __future__ import annotations

from functools import cache

from psycopg_pool import ConnectionPool

from ..config import get_settings

# Idempotent DDL, applied once per process before the first query that needs it.
SCHEMA = [
    "CREATE EXTENSION IF NOT EXISTS timescaledb",
    "CREATE EXTENSION IF NOT EXISTS vector",
    """CREATE TABLE IF NOT EXISTS tenant_keys (
        key_hash   text PRIMARY KEY,
        tenant_id  text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
    )""",
]


@cache
def pool() -> ConnectionPool:
    settings = get_settings()
    # min_size=0: a cold Lambda pays for one connection only when it needs one.
    p = ConnectionPool(settings.postgres_dsn, min_size=0, max_size=settings.postgres_pool_max,
                       kwargs={"autocommit": True, "connect_timeout": 3}, open=False)
    p.open(wait=False)
    return p


@cache
def ensure_schema() -> None:
    with pool().connection() as conn:
        for statement in SCHEMA:
            conn.execute(statement)


def ping() -> None:
    with pool().connection(timeout=get_settings().health_timeout_s) as conn:
        conn.execute("SELECT 1")
