"""AuditLog: an append-only record of every write to long-term memory."""

from __future__ import annotations

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from ...domain.model import Scope
from ...domain.records import AuditEntry
from ..clients import Clients

_INSERT = ("INSERT INTO audit_log (tenant, user_id, actor, action, store, item_id, source, confidence, "
           "before, after) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")


class AuditLog:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def append(self, scope: Scope, entries: list[AuditEntry]) -> None:
        if not entries:
            return
        rows = [(scope.tenant, scope.user_id, e.actor, e.action, e.store, e.item_id, e.source, e.confidence,
                 Jsonb(e.before) if e.before is not None else None,
                 Jsonb(e.after) if e.after is not None else None) for e in entries]
        with self._clients.pg() as conn, conn.cursor() as cur:
            cur.executemany(_INSERT, rows)

    def entries(self, scope: Scope) -> list[dict]:
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT at, actor, action, store, item_id, source, confidence, before, after "
                        "FROM audit_log WHERE tenant = %s AND user_id = %s ORDER BY id", (scope.tenant, scope.user_id))
            return cur.fetchall()

    def redact(self, scope: Scope, store: str, keys: tuple[str, ...]) -> int:
        # The runtime may not UPDATE audit_log: the redaction is schema.sql's definer function,
        # whose shape (only before/after lose keys, and say so) the append-only trigger checks.
        with self._clients.pg() as conn:
            return conn.execute("SELECT engram_redact_user_audit(%s, %s, %s, %s)",
                                (scope.tenant, scope.user_id, store, list(keys))).fetchone()[0]
