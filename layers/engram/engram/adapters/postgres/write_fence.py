"""WriteFence on PostgreSQL: a lease per write request, taken under the user's row lock.

``begin`` runs one transaction: make sure the ``users`` row exists, lock it ``FOR SHARE``,
refuse if ``erasing``, insert a lease that expires after ``hold_s``. ``mark_erasing`` (the
erasure store) updates that same row, so it waits for every ``begin`` in progress and, once it
has committed, every later ``begin`` sees the flag. The saga then waits until no unexpired lease
is left (``in_flight``) before it deletes anything: a write that began before the mark has
finished, or its lease (longer than the function timeout that would kill it) has run out.
Writers share the lock (``FOR SHARE``), so they do not queue behind each other.
"""

from __future__ import annotations

import uuid

from psycopg.rows import dict_row

from ...domain.model import Scope
from ...domain.records import UserState
from ...errors import Conflict
from ..clients import Clients


class PgWriteFence:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def begin(self, scope: Scope, hold_s: float) -> tuple[str, UserState]:
        lease = uuid.uuid4().hex
        with self._clients.pg() as conn, conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
            # A missing row would lock nothing: a mark inserting the user's marker row meanwhile
            # would not wait for this lease. Inserting it first makes the two meet on one key.
            cur.execute("INSERT INTO users (tenant, user_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                        (scope.tenant, scope.user_id))
            cur.execute("SELECT long_term_consent, consent_version, consent_at, age, child_mode, erasing "
                        "FROM users WHERE tenant = %s AND user_id = %s FOR SHARE",
                        (scope.tenant, scope.user_id))
            state = UserState(**cur.fetchone(), known=True)
            if state.erasing:
                raise Conflict("this user is being erased; writes are refused", field="user_id")
            cur.execute("INSERT INTO write_leases (tenant, user_id, lease_id, expires_at) "
                        "VALUES (%s, %s, %s, now() + make_interval(secs => %s))",
                        (scope.tenant, scope.user_id, lease, hold_s))
        return lease, state

    def end(self, scope: Scope, lease_id: str) -> None:
        with self._clients.pg() as conn:
            conn.execute("DELETE FROM write_leases WHERE tenant = %s AND user_id = %s AND lease_id = %s",
                         (scope.tenant, scope.user_id, lease_id))

    def in_flight(self, scope: Scope) -> int:
        with self._clients.pg() as conn:
            return conn.execute("SELECT count(*) FROM write_leases WHERE tenant = %s AND user_id = %s "
                                "AND expires_at > now()", (scope.tenant, scope.user_id)).fetchone()[0]
