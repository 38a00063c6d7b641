"""PendingWrites on PostgreSQL: the writes a derived store missed, in the turn log's database.

Kept there, not in a queue service, for three reasons: the row is written by the store that just
committed the turns (nothing else needs to be up to record it); the erasure saga deletes it in the
same transaction as the user's turns (``adapters.erasure_store.USER_TABLES``), so no catch-up can
write for a user erased; and order per user and layer, the dead letters, the health figures and
retention's check are each one query.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from psycopg.rows import dict_row

from ...domain.model import Scope
from ..clients import Clients


class PgPendingWrites:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def layers(self, scope: Scope) -> set[str]:
        with self._clients.pg() as conn:
            return {r[0] for r in conn.execute("SELECT DISTINCT layer FROM pending_writes WHERE tenant = %s "
                                               "AND user_id = %s", (scope.tenant, scope.user_id))}

    def add(self, scope: Scope, layer: str, batch_key: str, message_ids: list[str], said_at: datetime,
            payload: bytes) -> bool:
        with self._clients.pg() as conn:
            return conn.execute(
                "INSERT INTO pending_writes (tenant, user_id, layer, batch_key, message_ids, said_at, payload) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (scope.tenant, scope.user_id, layer, batch_key, message_ids, said_at, payload)).rowcount == 1

    def due(self, now: datetime, limit: int, layers: Collection[str]) -> list[dict]:
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            # Each (user, layer)'s oldest write, if its time has come: one head per user and layer.
            cur.execute(
                "SELECT * FROM (SELECT DISTINCT ON (tenant, user_id, layer) seq, tenant, user_id, layer, batch_key, "
                "message_ids, said_at, payload, attempts, next_at FROM pending_writes WHERE NOT dead AND "
                "layer = ANY(%s) ORDER BY tenant, user_id, layer, seq) AS head WHERE next_at <= %s ORDER BY seq "
                "LIMIT %s", (list(layers), now, limit))
            return [{**row, "payload": bytes(row["payload"])} for row in cur.fetchall()]

    def claim(self, seq: int, hold_s: float) -> bool:
        with self._clients.pg() as conn:
            return conn.execute(
                "UPDATE pending_writes SET claimed_until = now() + make_interval(secs => %s) WHERE seq = %s "
                "AND (claimed_until IS NULL OR claimed_until < now())", (hold_s, seq)).rowcount == 1

    def done(self, seq: int) -> None:
        with self._clients.pg() as conn:
            conn.execute("DELETE FROM pending_writes WHERE seq = %s", (seq,))

    def postpone(self, seq: int, next_at: datetime, error: str | None, *, attempted: bool, dead: bool) -> None:
        with self._clients.pg() as conn:
            conn.execute("UPDATE pending_writes SET next_at = %s, last_error = coalesce(%s, last_error), "
                         "claimed_until = NULL, attempts = attempts + %s, dead = %s WHERE seq = %s",
                         (next_at, error and error[:500], int(attempted), dead, seq))

    def dead_letters(self, limit: int) -> list[dict]:
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT seq, tenant, user_id, layer, batch_key, message_ids, said_at, attempts, "
                        "last_error, created_at FROM pending_writes WHERE dead ORDER BY seq LIMIT %s", (limit,))
            return cur.fetchall()

    def replay(self, seqs: list[int]) -> int:
        with self._clients.pg() as conn:
            return conn.execute("UPDATE pending_writes SET dead = false, attempts = 0, next_at = now() "
                                "WHERE dead AND seq = ANY(%s)", (seqs,)).rowcount

    def oldest_said_at(self) -> datetime | None:
        with self._clients.pg() as conn:
            return conn.execute("SELECT min(said_at) FROM pending_writes").fetchone()[0]

    def stats(self) -> dict[str, dict]:
        with self._clients.pg() as conn:
            rows = conn.execute(
                "SELECT layer, count(*) FILTER (WHERE NOT dead), count(*) FILTER (WHERE dead), "
                "coalesce(extract(epoch FROM now() - min(created_at) FILTER (WHERE NOT dead)), 0) "
                "FROM pending_writes GROUP BY layer").fetchall()
        return {layer: {"pending": pending, "dead": dead, "oldest_s": float(oldest)}
                for layer, pending, dead, oldest in rows}
