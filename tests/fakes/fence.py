"""WriteFence over the fake user registry: leases refused once the user is marked erasing."""

from __future__ import annotations

import threading
import time
import uuid

from engram.domain.model import Scope
from engram.domain.records import UserState
from engram.errors import Conflict

from .relational import InMemoryUserRegistry


class InMemoryWriteFence:
    def __init__(self, users: InMemoryUserRegistry) -> None:
        self._users = users
        self._leases: dict[tuple[Scope, str], float] = {}
        self._lock = threading.Lock()

    def begin(self, scope: Scope, hold_s: float) -> tuple[str, UserState]:
        with self._lock:
            self._users.ensure(scope)
            state = self._users.state(scope)
            if state.erasing:
                raise Conflict("this user is being erased; writes are refused", field="user_id")
            lease = uuid.uuid4().hex
            self._leases[(scope, lease)] = time.monotonic() + hold_s
            return lease, state

    def end(self, scope: Scope, lease_id: str) -> None:
        with self._lock:
            self._leases.pop((scope, lease_id), None)

    def in_flight(self, scope: Scope) -> int:
        now = time.monotonic()
        with self._lock:
            return sum(1 for (s, _), until in self._leases.items() if s == scope and until > now)

    # -- what the erasure store touches ------------------------------------------------------

    def user_rows(self, scope: Scope) -> dict[str, int]:
        return {"write_leases": sum(1 for s, _ in self._leases if s == scope)}

    def erase_user_rows(self, scope: Scope) -> dict[str, int]:
        with self._lock:
            gone = [k for k in self._leases if k[0] == scope]
            for k in gone:
                del self._leases[k]
            return {"write_leases": len(gone)}
