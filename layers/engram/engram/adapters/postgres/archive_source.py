"""The Postgres side of archival: a day's turns and task changes per shard, the ledger of
verified days (``archive_days``), which archived object holds which live row (``archive_rows``),
and dropping hypertable chunks of verified days whose every row an archived object holds."""

from __future__ import annotations

from datetime import date

from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from ...domain.lifecycle.archive import Held, LiveRow, day_bounds, task_row_key, turn_row_key
from ..clients import Clients

# domain.lifecycle.archive.shard_of in SQL: the first 32 bits of md5(tenant:user) modulo N
# (tests/integration/test_archive.py holds the two together). Archival and forgetting both use it.
SHARD_OF_SQL = sql.SQL("(('x' || substr(md5(tenant || ':' || user_id), 1, 8))::bit(32)::bigint %% %(shards)s)")
HYPERTABLES = {"turn_log": "client_ts", "task_events": "ts"}


class ArchiveSource:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def turns(self, day: date, shard: int, shards: int) -> list[dict]:
        start, end = day_bounds(day)
        query = sql.SQL("SELECT tenant, user_id, session_id, device_id, message_id, role, content, content_sha256, "
                        "truncated, client_ts, received_at FROM turn_log WHERE client_ts >= %(start)s AND "
                        "client_ts < %(end)s AND {} = %(shard)s ORDER BY tenant, user_id, client_ts, message_id"
                        ).format(SHARD_OF_SQL)
        return self._fetch(query, {"start": start, "end": end, "shard": shard, "shards": shards})

    def task_changes(self, day: date, shard: int, shards: int) -> list[dict]:
        start, end = day_bounds(day)
        query = sql.SQL("SELECT tenant, user_id, task_id, status, metadata, duration_ms, ts, recorded_at FROM "
                        "task_events WHERE ts >= %(start)s AND ts < %(end)s AND {} = %(shard)s "
                        "ORDER BY tenant, user_id, ts, task_id, status").format(SHARD_OF_SQL)
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
        with self._clients.pg() as conn:
            return _drop_chunks(conn, day)

    # -- retention by identity ----------------------------------------------------------------

    def record_held(self, day: date, kind: str, held: list[Held]) -> int:
        if not held:
            return 0
        columns = [list(c) for c in zip(*held, strict=True)]
        with self._clients.pg() as conn:
            return conn.execute(
                "INSERT INTO archive_rows (day, kind, tenant, user_id, row_key, object_key, object_sha256) "
                "SELECT %s, %s, * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[]) "
                "ON CONFLICT DO NOTHING", (day, kind, *columns)).rowcount

    def held_row_keys(self, day: date, kind: str, objects: list[tuple[str, str]]) -> set[str]:
        with self._clients.pg() as conn:
            return _held(conn, day, kind, objects)

    def drop_day_if_held(self, day: date, objects: list[tuple[str, str]]) -> dict:
        with self._clients.pg() as conn:
            unheld = _unheld(conn, day, objects)  # the usual answer for a day with late rows: no lock
            if unheld:
                return {"dropped": {}, "unheld": unheld}
            with conn.transaction():
                # SHARE waits for the writes in flight and holds off new ones (of every day, for as
                # long as one day's rows take to read): no row slips in between the check and the
                # drop. The erasure's order (task_events, then turn_log) keeps the two from deadlocking.
                conn.execute("LOCK TABLE task_events, turn_log IN SHARE MODE")
                unheld = _unheld(conn, day, objects)
                if unheld:
                    return {"dropped": {}, "unheld": unheld}
                dropped = _drop_chunks(conn, day)
                conn.execute("DELETE FROM archive_rows WHERE day = %s AND kind = ANY(%s)", (day, ["turns", "tasks"]))
        return {"dropped": dropped, "unheld": []}

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


def _drop_chunks(conn, day: date) -> dict[str, int]:
    start, end = day_bounds(day)
    # drop_chunks wants the hypertable's owner, which the runtime is not: schema.sql's definer
    # function does it, for these two hypertables only.
    return {table: conn.execute("SELECT engram_drop_chunks(%s, %s, %s)", (table, end, start)).fetchone()[0]
            for table in HYPERTABLES}


def _held(conn, day: date, kind: str, objects: list[tuple[str, str]]) -> set[str]:
    keys, shas = [k for k, _ in objects], [s for _, s in objects]
    rows = conn.execute("SELECT a.row_key FROM archive_rows a JOIN unnest(%s::text[], %s::text[]) AS o(k, s) "
                        "ON a.object_key = o.k AND a.object_sha256 = o.s WHERE a.day = %s AND a.kind = %s",
                        (keys, shas, day, kind)).fetchall()
    return {r[0] for r in rows}


def _unheld(conn, day: date, objects: list[tuple[str, str]]) -> list[LiveRow]:
    """The day's hot rows no object of ``objects`` holds; row keys are computed here, by the
    functions the shard writer uses, so "the same row" means one thing on both sides."""
    start, end = day_bounds(day)
    live = [LiveRow("turns", t, u, turn_row_key({"tenant": t, "user_id": u, "message_id": m, "client_ts": ts}))
            for t, u, m, ts in conn.execute("SELECT tenant, user_id, message_id, client_ts FROM turn_log "
                                            "WHERE client_ts >= %s AND client_ts < %s", (start, end))]
    live += [LiveRow("tasks", t, u, task_row_key({"tenant": t, "user_id": u, "task_id": i, "status": st, "ts": ts}))
             for t, u, i, st, ts in conn.execute("SELECT tenant, user_id, task_id, status, ts FROM task_events "
                                                 "WHERE ts >= %s AND ts < %s", (start, end))]
    held = {kind: _held(conn, day, kind, objects) for kind in ("turns", "tasks")}
    return [row for row in live if row.row_key not in held[row.kind]]
