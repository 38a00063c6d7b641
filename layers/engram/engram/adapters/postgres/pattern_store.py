"""PatternStore: behaviour habits as aggregate counts (``behaviour_patterns``), never events."""

from __future__ import annotations

from ...domain.model import Scope
from ..clients import Clients


class PatternStore:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def replace(self, scope: Scope, counts: dict[tuple[str, int, int], int]) -> int:
        """The user's statistics, recomputed: the old rows go, the new counts come, atomically."""
        rows = [(scope.tenant, scope.user_id, t, weekday, hour, n) for (t, weekday, hour), n in sorted(counts.items())]
        with self._clients.pg() as conn, conn.transaction(), conn.cursor() as cur:
            cur.execute("DELETE FROM behaviour_patterns WHERE tenant = %s AND user_id = %s",
                        (scope.tenant, scope.user_id))
            if rows:
                cur.executemany("INSERT INTO behaviour_patterns (tenant, user_id, event_type, weekday, hour, count) "
                                "VALUES (%s, %s, %s, %s, %s, %s)", rows)
        return len(rows)

    def patterns(self, scope: Scope) -> list[dict]:
        with self._clients.pg() as conn:
            rows = conn.execute("SELECT event_type, weekday, hour, count FROM behaviour_patterns "
                                "WHERE tenant = %s AND user_id = %s ORDER BY count DESC, event_type, weekday, hour",
                                (scope.tenant, scope.user_id)).fetchall()
        return [{"type": r[0], "weekday": r[1], "hour": r[2], "count": r[3]} for r in rows]

    def delete_user(self, scope: Scope) -> int:
        with self._clients.pg() as conn:
            return conn.execute("DELETE FROM behaviour_patterns WHERE tenant = %s AND user_id = %s",
                                (scope.tenant, scope.user_id)).rowcount
