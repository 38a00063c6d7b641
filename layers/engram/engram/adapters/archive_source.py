"""The Postgres side of archival: a day's turns and task changes per shard, the ledger of
verified days (``archive_days``), and dropping hypertable chunks of verified days."""

from __future__ import annotations

from datetime import date

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from ..domain.archive import day_bounds
from .clients import Clients

# The shard expression in the queries below is domain.archive.shard_of in SQL: the first 32 bits
# of md5(tenant:user) modulo N (tests/unit/test_archive_rules.py holds the two together).
HYPERTABLES = {"turn_log": "client_ts", "task_events": "ts"}


class ArchiveSource:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def turns(self, day: date, shard: int, shards: int) -> list[dict]:
        start, end = day_bounds(day)
        query = ("SELECT tenant, user_id, session_id, device_id, message_id, role, content, content_sha256, "
                 "truncated, client_ts, received_at FROM turn_log WHERE client_ts >= %(start)s AND "
                 "client_ts < %(end)s AND "
                 "(('x' || substr(md5(tenant || ':' || user_id), 1, 8))::bit(32)::bigint %% %(shards)s) = %(shard)s "
                 "ORDER BY tenant, user_id, client_ts, message_id")
        return self._fetch(query, {"start": start, "end": end, "shard": shard, "shards": shards})

    def task_changes(self, day: date, shard: int, shards: int) -> list[dict]:
        start, end = day_bounds(day)
        query = ("SELECT tenant, user_id, task_id, status, metadata, duration_ms, ts, recorded_at FROM task_events "
                 "WHERE ts >= %(start)s AND ts < %(end)s AND "
                 "(('x' || substr(md5(tenant || ':' || user_id), 1, 8))::bit(32)::bigint %% %(shards)s) = %(shard)s "
                 "ORDER BY tenant, user_id, ts, task_id, status")
        return self._fetch(query, {"start": start, "end": end, "shard": shard, "shards": shards})

    def day_counts(self, day: date) -> dict[str, int]:
        """Rows of the day still in the hypertables (retention compares them with the manifest)."""
        start, end = day_bounds(day)
        with self._clients.pg() as conn:
            return {"turns": conn.execute("SELECT count(*) FROM turn_log WHERE client_ts >= %s AND client_ts < %s",
                                          (start, end)).fetchone()[0],
                    "tasks": conn.execute("SELECT count(*) FROM task_events WHERE ts >= %s AND ts < %s",
                                          (start, end)).fetchone()[0]}

    def days_with_data(self, before: date) -> list[date]:
        """Days older than ``before`` that still have rows in a hypertable (from chunk ranges:
        cheap, no scan)."""
        with self._clients.pg() as conn:
            rows = conn.execute(
                "SELECT DISTINCT d::date FROM timescaledb_information.chunks c, "
                "generate_series(date_trunc('day', c.range_start), c.range_end - interval '1 microsecond', "
                "interval '1 day') d WHERE c.hypertable_name = ANY(%s) AND c.range_end <= %s ORDER BY 1",
                (list(HYPERTABLES), day_bounds(before)[0])).fetchall()
        return [r[0] for r in rows]

    def drop_day(self, day: date) -> dict[str, int]:
        """Drop the chunks lying entirely inside ``day`` (chunks are one day wide, aligned to UTC
        midnight): whatever straddles another day is left alone."""
        start, end = day_bounds(day)
        dropped = {}
        with self._clients.pg() as conn:
            for table in HYPERTABLES:
                rows = conn.execute("SELECT drop_chunks(%s::regclass, older_than => %s, newer_than => %s)",
                                    (table, end, start)).fetchall()
                dropped[table] = len(rows)
        return dropped

    # -- the ledger of verified days ---------------------------------------------------------

    def mark_verified(self, day: date, manifest_key: str, manifest_sha256: str, objects: int, rows: dict) -> None:
        with self._clients.pg() as conn:
            conn.execute(
                "INSERT INTO archive_days (day, manifest_key, manifest_sha256, objects, rows) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (day) DO UPDATE SET manifest_key = EXCLUDED.manifest_key, "
                "manifest_sha256 = EXCLUDED.manifest_sha256, objects = EXCLUDED.objects, rows = EXCLUDED.rows, "
                "verified_at = now()", (day, manifest_key, manifest_sha256, objects, Jsonb(rows)))

    def unmark(self, day: date) -> None:
        """A day whose archive failed verification is no longer a basis for dropping anything."""
        with self._clients.pg() as conn:
            conn.execute("DELETE FROM archive_days WHERE day = %s", (day,))

    def verified(self, day: date) -> dict | None:
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT day, manifest_key, manifest_sha256, objects, rows, verified_at FROM archive_days "
                        "WHERE day = %s", (day,))
            return cur.fetchone()

    def verified_days(self, days: list[date]) -> set[date]:
        with self._clients.pg() as conn:
            return {r[0] for r in conn.execute("SELECT day FROM archive_days WHERE day = ANY(%s)",
                                               (days,)).fetchall()}

    def _fetch(self, query: str, params: dict) -> list[dict]:
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute(query, params)
            return cur.fetchall()
