"""UserRegistry: consent, child mode, erasure state and linked devices of each user."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from psycopg.rows import dict_row

from ..domain.model import Scope
from . import postgres

CHILD_AGE = 13


@dataclass(frozen=True)
class UserState:
    long_term_consent: bool = False
    consent_version: int = 0
    consent_at: datetime | None = None
    age: int | None = None
    child_mode: bool = False
    erasing: bool = False
    known: bool = False


class UserRegistry:
    def state(self, scope: Scope) -> UserState:
        with postgres.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT long_term_consent, consent_version, consent_at, age, child_mode, erasing "
                        "FROM users WHERE tenant = %s AND user_id = %s", (scope.tenant, scope.user_id))
            row = cur.fetchone()
        return UserState(**row, known=True) if row else UserState()

    def ensure(self, scope: Scope) -> None:
        with postgres.connection() as conn:
            conn.execute("INSERT INTO users (tenant, user_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                         (scope.tenant, scope.user_id))

    def set_consent(self, scope: Scope, long_term: bool, age: int | None) -> UserState:
        """Record a consent decision as a new version; under 13 turns child mode on (and no graph)."""
        child = age is not None and age < CHILD_AGE
        with postgres.connection() as conn, conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
            cur.execute(
                "INSERT INTO users AS u (tenant, user_id, long_term_consent, consent_version, consent_at, age, "
                "child_mode) VALUES (%(t)s, %(u)s, %(lt)s, 1, now(), %(age)s, %(child)s) "
                "ON CONFLICT (tenant, user_id) DO UPDATE SET long_term_consent = %(lt)s, "
                "consent_version = u.consent_version + 1, consent_at = now(), "
                "age = COALESCE(%(age)s, u.age), child_mode = CASE WHEN %(age)s IS NULL THEN u.child_mode "
                "ELSE %(child)s END "
                "RETURNING long_term_consent, consent_version, consent_at, age, child_mode, erasing",
                {"t": scope.tenant, "u": scope.user_id, "lt": long_term and not child, "age": age, "child": child},
            )
            row = cur.fetchone()
            cur.execute("INSERT INTO consent_events (tenant, user_id, long_term, age, version) "
                        "VALUES (%s, %s, %s, %s, %s)",
                        (scope.tenant, scope.user_id, row["long_term_consent"], row["age"], row["consent_version"]))
        return UserState(**row, known=True)

    def link_device(self, scope: Scope, device_id: str, kind: str) -> dict:
        with postgres.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            self.ensure(scope)
            cur.execute("INSERT INTO devices (tenant, user_id, device_id, kind) VALUES (%s, %s, %s, %s) "
                        "ON CONFLICT (tenant, user_id, device_id) DO UPDATE SET kind = EXCLUDED.kind "
                        "RETURNING device_id, kind, linked_at", (scope.tenant, scope.user_id, device_id, kind))
            return cur.fetchone()

    def devices(self, scope: Scope) -> list[dict]:
        with postgres.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT device_id, kind, linked_at FROM devices WHERE tenant = %s AND user_id = %s "
                        "ORDER BY linked_at", (scope.tenant, scope.user_id))
            return cur.fetchall()

    def consent_history(self, scope: Scope) -> list[dict]:
        with postgres.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT long_term, age, version, at FROM consent_events WHERE tenant = %s AND user_id = %s "
                        "ORDER BY id", (scope.tenant, scope.user_id))
            return cur.fetchall()
