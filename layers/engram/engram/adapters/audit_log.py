"""AuditLog: an append-only record of every write to long-term memory."""

from __future__ import annotations

from dataclasses import dataclass

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from ..domain.model import Scope
from . import postgres


@dataclass(frozen=True)
class AuditEntry:
    actor: str
    action: str
    store: str
    item_id: str | None = None
    source: str | None = None
    confidence: float | None = None
    before: dict | None = None
    after: dict | None = None


class AuditLog:
    def append(self, scope: Scope, entries: list[AuditEntry], conn=None) -> None:
        if not entries:
            return
        rows = [(scope.tenant, scope.user_id, e.actor, e.action, e.store, e.item_id, e.source, e.confidence,
                 Jsonb(e.before) if e.before is not None else None,
                 Jsonb(e.after) if e.after is not None else None) for e in entries]
        sql = ("INSERT INTO audit_log (tenant, user_id, actor, action, store, item_id, source, confidence, "
               "before, after) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")
        if conn is not None:
            conn.cursor().executemany(sql, rows)
            return
        with postgres.connection() as own, own.cursor() as cur:
            cur.executemany(sql, rows)

    def entries(self, scope: Scope) -> list[dict]:
        with postgres.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT at, actor, action, store, item_id, source, confidence, before, after "
                        "FROM audit_log WHERE tenant = %s AND user_id = %s ORDER BY id", (scope.tenant, scope.user_id))
            return cur.fetchall()
