"""UserRegistry: consent, child mode, erasure state and linked devices of each user.

The erasure fence of the background jobs is a ``FOR SHARE`` lock on the users' rows, the lock the
write fence (``adapters.postgres.write_fence``) takes for one request: ``mark_erasing`` updates the row, so
it waits until the job's block ends, and a job starting after a mark sees the flag.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from psycopg import sql
from psycopg.rows import dict_row

from ...domain.model import Scope
from ...domain.privacy.consent import decide_consent
from ...domain.records import DeviceLink, UserState
from ..clients import Clients
from .archive_source import SHARD_OF_SQL


class UserRegistry:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def state(self, scope: Scope) -> UserState:
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT long_term_consent, consent_version, consent_at, age, child_mode, erasing "
                        "FROM users WHERE tenant = %s AND user_id = %s", (scope.tenant, scope.user_id))
            row = cur.fetchone()
        return UserState(**row, known=True) if row else UserState()

    def erasing_users(self, tenant: str | None = None) -> set[Scope]:
        with self._clients.pg() as conn:
            rows = conn.execute("SELECT tenant, user_id FROM users WHERE erasing AND (%(t)s::text IS NULL "
                                "OR tenant = %(t)s)", {"t": tenant}).fetchall()
        return {Scope(t, u) for t, u in rows}

    def users_in_shard(self, shard: int, shards: int, after: Scope | None, limit: int,
                       tenant: str | None = None) -> tuple[list[Scope], Scope | None]:
        """Of the next ``limit`` users in key order after ``after``, those of the shard
        (``domain.lifecycle.archive.shard_of``) not being erased, and where the next read starts (``None``:
        no user is left). Every user who ever wrote has a row (the write fence makes it). The read
        walks the primary key from the cursor and the shard is picked from what it read: a filter
        on the shard's expression would let the planner sort the whole table for each page."""
        where = [sql.SQL("tenant = %(tenant)s")] if tenant is not None else []
        if after is not None:
            where.append(sql.SQL("(tenant, user_id) > (%(after_t)s, %(after_u)s)"))
        query = sql.SQL("SELECT tenant, user_id, NOT erasing AND {} = %(shard)s FROM users {} "
                        "ORDER BY tenant, user_id LIMIT %(limit)s").format(
            SHARD_OF_SQL, sql.SQL("WHERE ") + sql.SQL(" AND ").join(where) if where else sql.SQL(""))
        with self._clients.pg() as conn:
            rows = conn.execute(query, {"shard": shard, "shards": shards, "tenant": tenant, "limit": limit,
                                        "after_t": after.tenant if after else None,
                                        "after_u": after.user_id if after else None}).fetchall()
        return [Scope(t, u) for t, u, mine in rows if mine], (Scope(*rows[-1][:2]) if len(rows) == limit else None)

    def is_erasing(self, scope: Scope) -> bool:
        with self._clients.pg() as conn:
            row = conn.execute("SELECT erasing FROM users WHERE tenant = %s AND user_id = %s",
                               (scope.tenant, scope.user_id)).fetchone()
        return bool(row and row[0])

    @contextmanager
    def erasure_fence(self, scopes: Iterable[Scope]) -> Iterator[set[Scope]]:
        owners = sorted({(s.tenant, s.user_id) for s in scopes})
        if not owners:
            yield set()
            return
        tenants, users = [t for t, _ in owners], [u for _, u in owners]
        with self._clients.pg() as conn, conn.transaction():
            # A missing row would lock nothing, and a mark inserting the user's marker row would
            # not wait: every user gets a row first (what ``ensure`` would make anyway).
            conn.execute("INSERT INTO users (tenant, user_id) SELECT * FROM unnest(%s::text[], %s::text[]) "
                         "ON CONFLICT DO NOTHING", (tenants, users))
            rows = conn.execute(
                "SELECT u.tenant, u.user_id, u.erasing FROM users u JOIN unnest(%s::text[], %s::text[]) AS o(t, u) "
                "ON u.tenant = o.t AND u.user_id = o.u ORDER BY u.tenant, u.user_id FOR SHARE OF u",
                (tenants, users)).fetchall()
            yield {Scope(t, u) for t, u, erasing in rows if erasing}

    def ensure(self, scope: Scope) -> None:
        with self._clients.pg() as conn:
            conn.execute("INSERT INTO users (tenant, user_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                         (scope.tenant, scope.user_id))

    def set_consent(self, scope: Scope, long_term: bool, age: int | None) -> UserState:
        """Record a consent decision (``domain.privacy.consent``) as a new version."""
        decision = decide_consent(long_term, age)
        with self._clients.pg() as conn, conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
            cur.execute(
                "INSERT INTO users AS u (tenant, user_id, long_term_consent, consent_version, consent_at, age, "
                "child_mode) VALUES (%(t)s, %(u)s, %(lt)s, 1, now(), %(age)s, COALESCE(%(child)s, false)) "
                "ON CONFLICT (tenant, user_id) DO UPDATE SET long_term_consent = %(lt)s, "
                "consent_version = u.consent_version + 1, consent_at = now(), "
                "age = COALESCE(%(age)s, u.age), child_mode = COALESCE(%(child)s, u.child_mode) "
                "RETURNING long_term_consent, consent_version, consent_at, age, child_mode, erasing",
                {"t": scope.tenant, "u": scope.user_id, "lt": decision.long_term, "age": age,
                 "child": decision.child_mode},
            )
            row = cur.fetchone()
            cur.execute("INSERT INTO consent_events (tenant, user_id, long_term, age, version) "
                        "VALUES (%s, %s, %s, %s, %s)",
                        (scope.tenant, scope.user_id, row["long_term_consent"], row["age"], row["consent_version"]))
        return UserState(**row, known=True)

    def link_device(self, scope: Scope, device_id: str, kind: str) -> DeviceLink:
        self.ensure(scope)
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("INSERT INTO devices (tenant, user_id, device_id, kind) VALUES (%s, %s, %s, %s) "
                        "ON CONFLICT (tenant, user_id, device_id) DO UPDATE SET kind = EXCLUDED.kind "
                        "RETURNING device_id, kind, linked_at", (scope.tenant, scope.user_id, device_id, kind))
            return DeviceLink(**cur.fetchone())

    def devices(self, scope: Scope) -> list[DeviceLink]:
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT device_id, kind, linked_at FROM devices WHERE tenant = %s AND user_id = %s "
                        "ORDER BY linked_at, device_id", (scope.tenant, scope.user_id))
            return [DeviceLink(**r) for r in cur.fetchall()]

    def consent_history(self, scope: Scope) -> list[dict]:
        with self._clients.pg() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute("SELECT long_term, age, version, at FROM consent_events WHERE tenant = %s AND user_id = %s "
                        "ORDER BY id", (scope.tenant, scope.user_id))
            return cur.fetchall()
