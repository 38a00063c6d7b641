"""TurnLog: every accepted turn, written first, so nothing accepted is ever lost."""

from __future__ import annotations

from psycopg import sql
from psycopg.rows import dict_row

from ..domain.model import Scope, Turn
from .clients import Clients


class TurnLog:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def append(self, scope: Scope, session_id: str, device_id: str, turns: list[Turn], *,
               keep_content: bool = True) -> set[str]:
        """Insert turns; returns the ids that were new (a retried message is not written twice)."""
        if not turns:
            return set()
        rows = [(scope.tenant, scope.user_id, session_id, device_id, t.message_id, t.role.value,
                 t.content if keep_content else None, t.raw_sha256, t.truncated, t.client_ts) for t in turns]
        # One statement for the batch: one round trip however many turns a request brings.
        values = sql.SQL(", ").join([sql.SQL("(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")] * len(rows))
        with self._clients.pg() as conn, conn.cursor() as cur:
            cur.execute(sql.SQL(
                "INSERT INTO turn_log (tenant, user_id, session_id, device_id, message_id, role, content, "
                "content_sha256, truncated, client_ts) VALUES {} ON CONFLICT DO NOTHING RETURNING message_id"
            ).format(values), [v for row in rows for v in row])
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
