"""TurnLog: every accepted turn, written first, so nothing accepted is ever lost."""

from __future__ import annotations

from psycopg.rows import dict_row

from ...domain.model import Scope, Turn
from ..clients import Clients

_APPEND = (
    "INSERT INTO turn_log (tenant, user_id, session_id, device_id, message_id, role, content, content_sha256, "
    "truncated, client_ts) SELECT %s, %s, %s, %s, m, r, c, h, t, ts FROM unnest(%s::text[], %s::text[], "
    "%s::text[], %s::text[], %s::boolean[], %s::timestamptz[]) AS batch(m, r, c, h, t, ts) "
    "ON CONFLICT DO NOTHING RETURNING message_id")


class TurnLog:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def append(self, scope: Scope, session_id: str, device_id: str, turns: list[Turn], *,
               keep_content: bool = True) -> set[str]:
        """Insert turns; returns the ids that were new (a retried message is not written twice)."""
        if not turns:
            return set()
        # One statement for the batch, its text the same whatever the batch's size (one column
        # array each): one round trip, and a query psycopg has converted before.
        columns = ([t.message_id for t in turns], [t.role.value for t in turns],
                   [t.content if keep_content else None for t in turns], [t.raw_sha256 for t in turns],
                   [t.truncated for t in turns], [t.client_ts for t in turns])
        with self._clients.pg() as conn, conn.cursor() as cur:
            cur.execute(_APPEND, [scope.tenant, scope.user_id, session_id, device_id, *columns])
            return {row[0] for row in cur.fetchall()}

    def turns(self, scope: Scope, message_ids: list[str] | None = None) -> list[dict]:
        query = ("SELECT session_id, device_id, message_id, role, content, truncated, client_ts, received_at "
                 "FROM turn_log WHERE tenant = %s AND user_id = %s")
        params: list = [scope.tenant, scope.user_id]
        if message_ids is not None:
            query += " AND message_id = ANY(%s)"
            params.append(message_ids)
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute(query + " ORDER BY client_ts, message_id", params)
            return cur.fetchall()

    def delete_user(self, scope: Scope) -> int:
        with self._clients.pg() as conn:
            return conn.execute("DELETE FROM turn_log WHERE tenant = %s AND user_id = %s",
                                (scope.tenant, scope.user_id)).rowcount

    def redact_content(self, scope: Scope) -> int:
        """Child mode, applied to what was said before it was on: the rows keep their ids, role,
        times and hash, as a child's new turns are written."""
        with self._clients.pg() as conn:
            return conn.execute("UPDATE turn_log SET content = NULL WHERE tenant = %s AND user_id = %s "
                                "AND content IS NOT NULL", (scope.tenant, scope.user_id)).rowcount
