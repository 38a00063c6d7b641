"""TimescaleDB and pgvector on the local stack's PostgreSQL (``local/stack up postgres``).

Each test works in a schema of its own, dropped at the end, so runs never see each other.
"""

from __future__ import annotations

import math
import os
import uuid
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from local.stackctl.common import PORTS

pytestmark = pytest.mark.stack

# The schema owner's login: these tests create schemas and extensions, which the runtime role may not.
DSN = os.environ.get("ENGRAM_POSTGRES_OWNER_DSN",
                     f"postgresql://engram:engram@127.0.0.1:{PORTS['postgres']}/engram")


@pytest.fixture
def conn():
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(DSN, autocommit=True, connect_timeout=5) as c:
        c.execute(f"CREATE SCHEMA {schema}")
        c.execute(f"SET search_path = {schema}, public")  # extension types live in public
        try:
            yield c
        finally:
            c.execute(f"DROP SCHEMA {schema} CASCADE")


def test_extension_versions(conn):
    versions = dict(conn.execute("SELECT extname, extversion FROM pg_extension").fetchall())
    assert "timescaledb" in versions
    major, minor = (int(x) for x in versions["vector"].split(".")[:2])
    assert (major, minor) >= (0, 5), "HNSW needs pgvector >= 0.5"


def test_hypertable_time_bucket_and_drop_chunks(conn):
    conn.execute("CREATE TABLE metrics (ts timestamptz NOT NULL, device text, value bigint)")
    conn.execute("SELECT create_hypertable('metrics', 'ts', chunk_time_interval => interval '1 day')")
    base = datetime(2024, 1, 1, tzinfo=UTC)
    rows = [(base + timedelta(days=d, hours=h, minutes=15 * q), f"dev{q % 2}", 100 * d + 10 * h + q)
            for d in range(2) for h in range(3) for q in range(4)]
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO metrics VALUES (%s, %s, %s)", rows)

    expected: dict[datetime, list[int]] = defaultdict(list)
    for ts, _, value in rows:
        expected[ts.replace(minute=0)].append(value)
    got = conn.execute(
        "SELECT time_bucket('1 hour', ts) AS bucket, count(*), sum(value) FROM metrics "
        "GROUP BY bucket ORDER BY bucket").fetchall()
    assert [(b, n, s) for b, n, s in got] == [
        (b, len(v), sum(v)) for b, v in sorted(expected.items())]

    # One chunk per day; dropping the older one leaves only the second day's rows.
    assert len(conn.execute("SELECT show_chunks('metrics')").fetchall()) == 2
    conn.execute("SELECT drop_chunks('metrics', older_than => %s::timestamptz)",
                 (base + timedelta(days=1),))
    left = conn.execute("SELECT count(*), min(ts) FROM metrics").fetchone()
    assert left == (12, base + timedelta(days=1))


def _vec(values) -> str:
    return "[" + ",".join(f"{v:.6f}" for v in values) + "]"


def test_hnsw_nearest_neighbours(conn):
    conn.execute("CREATE TABLE items (id int PRIMARY KEY, embedding vector(3))")
    # Unit vectors fanning away from the x axis: cosine distance to [1,0,0] grows with id.
    rows = [(i, _vec((math.cos(math.radians(3.5 * i)), math.sin(math.radians(3.5 * i)), 0.0)))
            for i in range(50)]
    rows.reverse()  # insertion order must not be what orders the answer
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO items VALUES (%s, %s::vector)", rows)
    conn.execute("CREATE INDEX items_embedding_hnsw ON items USING hnsw (embedding vector_cosine_ops)")
    conn.execute("ANALYZE items")
    conn.execute("SET enable_seqscan = off")

    query = "SELECT id FROM items ORDER BY embedding <=> %s::vector LIMIT 5"
    target = _vec((1.0, 0.0, 0.0))
    plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + query, (target,)).fetchall())
    assert "Index Scan using items_embedding_hnsw" in plan, plan
    assert [r[0] for r in conn.execute(query, (target,)).fetchall()] == [0, 1, 2, 3, 4]

    # From the other end of the fan the order reverses.
    far = _vec((math.cos(math.radians(171.5)), math.sin(math.radians(171.5)), 0.0))
    assert [r[0] for r in conn.execute(query, (far,)).fetchall()] == [49, 48, 47, 46, 45]
