"""What several fakes share: the clock, JSON round trips (what a JSON column gives back), and
timestamps as the stores parse them."""

from __future__ import annotations

import copy
import functools
import json
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

_last = datetime.min.replace(tzinfo=UTC)


def utcnow() -> datetime:
    """Now, strictly later than the previous call (as two statements' ``now()`` are)."""
    global _last
    _last = max(datetime.now(UTC), _last + timedelta(microseconds=1))
    return _last


def as_json(value: Any) -> Any:
    """``value`` as a JSON column returns it (tuples become lists; a datetime is refused, as
    psycopg's ``Jsonb`` refuses it)."""
    return json.loads(json.dumps(value))


def parse_ts(value: str | datetime) -> datetime:
    """An ISO-8601 timestamp (``Z`` or an offset) as an aware datetime; naive means UTC."""
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def clone(value: Any) -> Any:
    """A deep copy: a fake never hands out its own rows, as no real store does."""
    return copy.deepcopy(value)


def serialized(cls: type) -> type:
    """Each public method of ``cls`` runs whole under the instance's lock, as a server applies a
    request at once: the service reads and writes one store from several threads (ingestion
    writes each group of episodes beside the request's thread, recall runs its layers side by
    side), and a fake iterating its dict while another thread adds to it would fail where no
    real store does. The lock is re-entrant: a method may call another."""
    for name, method in list(vars(cls).items()):
        if not name.startswith("_") and callable(method) and not isinstance(method, (staticmethod, classmethod)):
            setattr(cls, name, _locked(method))
    return cls


def _locked(method):
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        # dict.setdefault is atomic: two first calls get the same lock.
        with self.__dict__.setdefault("_serial", threading.RLock()):
            return method(self, *args, **kwargs)
    return run


@serialized
class UserRows:
    """Rows keyed by (tenant, user_id), for the fakes of PostgreSQL tables.

    ``erase_user_rows`` and ``user_rows`` are what the fake erasure store reads: the table
    names are the real ones (``adapters.postgres.erasure_store.USER_TABLES``)."""

    table = ""
    time_column: str | None = None   # a hypertable's time column: its rows fill one-day chunks

    def __init__(self) -> None:
        self.rows: list[dict] = []
        # Days that have a chunk (a chunk outlives its rows until it is dropped, as in TimescaleDB).
        self.chunks: set = set()

    def _insert(self, row: dict) -> dict:
        self.rows.append(row)
        if self.time_column:
            self.chunks.add(row[self.time_column].astimezone(UTC).date())
        return row

    def drop_chunk(self, day) -> int:
        """Drop the day's chunk with its rows; 1 if there was one."""
        if day not in self.chunks:
            return 0
        self.chunks.discard(day)
        self.rows = [r for r in self.rows if r[self.time_column].astimezone(UTC).date() != day]
        return 1

    def _of(self, scope) -> list[dict]:
        return [r for r in self.rows if r["tenant"] == scope.tenant and r["user_id"] == scope.user_id]

    def delete_user(self, scope) -> int:
        before = len(self.rows)
        self.rows = [r for r in self.rows if not (r["tenant"] == scope.tenant and r["user_id"] == scope.user_id)]
        return before - len(self.rows)

    def user_rows(self, scope) -> dict[str, int]:
        return {self.table: len(self._of(scope))}

    def erase_user_rows(self, scope) -> dict[str, int]:
        return {self.table: self.delete_user(scope)}
