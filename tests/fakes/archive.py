"""The archive fakes: ``InMemoryArchiveStore`` (an Object-Lock bucket of Parquet objects, read
back like ``adapters.aws.archive_store``'s pruned dataset scan), ``InMemoryArchiveSource`` (the
Postgres side of archival over the fake turn log and task store) and ``InMemoryArchiveEraser``
(the erasure saga's view of the bucket)."""

from __future__ import annotations

import re
import uuid
from datetime import date

import pyarrow as pa
import pyarrow.parquet as pq

from engram.adapters.aws.archive_store import _matching
from engram.adapters.aws.parquet import PARTITIONS, SCHEMAS, read_parquet
from engram.config import Settings
from engram.domain.lifecycle.archive import (
    ROOT,
    Held,
    LiveRow,
    day_bounds,
    part_number,
    partition_dir,
    sha256_hex,
    shard_of,
    task_row_key,
    turn_row_key,
)
from engram.domain.model import Scope

from ._common import as_json, clone, serialized, utcnow

_PARTITION = re.compile(r"/year=(\d+)/month=(\d+)/day=(\d+)/shard=(\d+)/")


@serialized
class InMemoryArchiveStore:
    """``objects``: key -> the current version's bytes; ``versions``: every version id of a key;
    ``locked``: keys under retention (every ``put_locked`` object, as the bucket's default
    retention makes every object in the real one)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.lock_days = (settings or Settings()).archive_lock_days
        self.objects: dict[str, bytes] = {}
        self.metadata: dict[str, dict] = {}
        self.versions: dict[str, list[str]] = {}
        self.locked: set[str] = set()

    def put_locked(self, key: str, data: bytes, *, rows: int | None = None, content_type: str) -> dict:
        sha, version = sha256_hex(data), uuid.uuid4().hex
        self.objects[key] = bytes(data)
        self.metadata[key] = {"sha256": sha, "content_type": content_type, **({"rows": str(rows)} if rows is not None
                                                                              else {})}
        self.versions.setdefault(key, []).append(version)
        self.locked.add(key)
        return {"key": key, "sha256": sha, "version_id": version}

    def get(self, key: str) -> bytes | None:
        return self.objects.get(key)

    def parts(self, kind: str, day: date, shard: int) -> list[str]:
        prefix = partition_dir(kind, day, shard) + "/"
        return sorted((k for k in self.objects if k.startswith(prefix) and k.endswith(".parquet")), key=part_number)

    def remove(self, key: str) -> None:
        """Every version of ``key`` gone (what the eraser does once retention allows)."""
        for store in (self.objects, self.metadata, self.versions):
            store.pop(key, None)
        self.locked.discard(key)

    # -- the dataset read -------------------------------------------------------------------

    def _files(self, kind: str, days: list[date], shards: list[int] | None) -> list[str]:
        files: list[str] = []
        for day in sorted(set(days)):
            dirs = ([partition_dir(kind, day, s) for s in sorted(set(shards))] if shards is not None
                    else [partition_dir(kind, day, 0).rsplit("/", 1)[0]])
            for directory in dirs:
                files += sorted(k for k in self.objects if k.startswith(directory + "/") and k.endswith(".parquet"))
        return files

    def _file_table(self, key: str, schema: pa.Schema) -> pa.Table:
        """One object as the dataset sees it: the unified schema, missing columns null, and the
        Hive partition values of its path as columns."""
        table = read_parquet(self.objects[key])
        n, found = table.num_rows, _PARTITION.search("/" + key)
        values = dict(zip(PARTITIONS.names, (int(g) for g in found.groups()), strict=True)) if found else {}
        columns = []
        for f in schema:
            if f.name in PARTITIONS.names:
                columns.append(pa.array([values.get(f.name)] * n, f.type))
            elif f.name in table.column_names:
                columns.append(table.column(f.name).cast(f.type))
            else:
                columns.append(pa.nulls(n, f.type))
        return pa.Table.from_arrays(columns, schema=pa.schema([f.with_nullable(True) for f in schema]))

    def read(self, kind: str, days: list[date], *, shards: list[int] | None = None,
             columns: list[str] | None = None, where: dict[str, list[str]] | None = None) -> pa.Table:
        schema = SCHEMAS[kind]
        files = self._files(kind, days, shards)
        if not files:
            names = columns or schema.names
            return pa.Table.from_pylist([], schema=pa.schema([schema.field(n) for n in names if n in schema.names]))
        unified = pa.unify_schemas([schema, PARTITIONS])
        table = pa.concat_tables([self._file_table(k, unified) for k in files])
        expr = _matching(where)
        if expr is not None:
            table = table.filter(expr)
        return table.select(columns) if columns is not None else table


@serialized
class InMemoryArchiveSource:
    """A day's rows per shard from the fake turn log and task store, day counts, the one-day
    chunks that exist, and the ledger of verified days."""

    table = "archive_rows"

    def __init__(self, turns, tasks) -> None:
        self._turns, self._tasks = turns, tasks
        self.ledger: dict[date, dict] = {}
        # archive_rows: (day, kind, row_key, object key, object sha256) -> (tenant, user_id)
        self.held: dict[tuple[date, str, str, str, str], tuple[str, str]] = {}

    @staticmethod
    def _of_day(rows: list[dict], column: str, day: date) -> list[dict]:
        start, end = day_bounds(day)
        return [r for r in rows if start <= r[column] < end]

    def turns(self, day: date, shard: int, shards: int) -> list[dict]:
        rows = [r for r in self._of_day(self._turns.rows, "client_ts", day)
                if shard_of(r["tenant"], r["user_id"], shards) == shard]
        rows.sort(key=lambda r: (r["tenant"], r["user_id"], r["client_ts"], r["message_id"]))
        return clone(rows)

    def task_changes(self, day: date, shard: int, shards: int) -> list[dict]:
        rows = [r for r in self._of_day(self._tasks.rows, "ts", day)
                if shard_of(r["tenant"], r["user_id"], shards) == shard]
        rows.sort(key=lambda r: (r["tenant"], r["user_id"], r["ts"], r["task_id"], r["status"]))
        return clone(rows)

    def day_counts(self, day: date) -> dict[str, int]:
        return {"turns": len(self._of_day(self._turns.rows, "client_ts", day)),
                "tasks": len(self._of_day(self._tasks.rows, "ts", day))}

    def days_with_data(self, before: date) -> list[date]:
        return sorted(d for d in self._turns.chunks | self._tasks.chunks if d < before)

    def drop_day(self, day: date) -> dict[str, int]:
        return {"turn_log": self._turns.drop_chunk(day), "task_events": self._tasks.drop_chunk(day)}

    def mark_verified(self, day: date, manifest_key: str, manifest_sha256: str, objects: int, rows: dict) -> None:
        self.ledger[day] = {"day": day, "manifest_key": manifest_key, "manifest_sha256": manifest_sha256,
                            "objects": objects, "rows": as_json(rows), "verified_at": utcnow()}

    def unmark(self, day: date) -> None:
        self.ledger.pop(day, None)

    def verified(self, day: date) -> dict | None:
        return clone(self.ledger.get(day))

    def verified_days(self, days: list[date]) -> set[date]:
        return {d for d in days if d in self.ledger}

    # -- retention by identity ----------------------------------------------------------------

    def record_held(self, day: date, kind: str, held: list[Held]) -> int:
        new = {(day, kind, h.row_key, h.key, h.sha256): (h.tenant, h.user_id) for h in held}
        fresh = {k: v for k, v in new.items() if k not in self.held}
        self.held.update(fresh)
        return len(fresh)

    def held_row_keys(self, day: date, kind: str, objects: list[tuple[str, str]]) -> set[str]:
        wanted = set(objects)
        return {row_key for d, k, row_key, key, sha in self.held if (d, k) == (day, kind) and (key, sha) in wanted}

    def _live(self, day: date) -> list[LiveRow]:
        return ([LiveRow("turns", r["tenant"], r["user_id"], turn_row_key(r))
                 for r in self._of_day(self._turns.rows, "client_ts", day)]
                + [LiveRow("tasks", r["tenant"], r["user_id"], task_row_key(r))
                   for r in self._of_day(self._tasks.rows, "ts", day)])

    def drop_day_if_held(self, day: date, objects: list[tuple[str, str]]) -> dict:
        held = {kind: self.held_row_keys(day, kind, objects) for kind in ("turns", "tasks")}
        unheld = [row for row in self._live(day) if row.row_key not in held[row.kind]]
        if unheld:
            return {"dropped": {}, "unheld": unheld}
        self.held = {k: v for k, v in self.held.items() if not (k[0] == day and k[1] in ("turns", "tasks"))}
        return {"dropped": self.drop_day(day), "unheld": []}

    # -- what the erasure store touches ------------------------------------------------------

    def user_rows(self, scope: Scope) -> dict[str, int]:
        return {self.table: sum(1 for owner in self.held.values() if owner == (scope.tenant, scope.user_id))}

    def erase_user_rows(self, scope: Scope) -> dict[str, int]:
        counts = self.user_rows(scope)
        self.held = {k: v for k, v in self.held.items() if v != (scope.tenant, scope.user_id)}
        return counts


@serialized
class InMemoryArchiveEraser:
    """Objects holding a user's rows (owners from their ``tenant``/``user_id`` columns, matched
    against ``owner_ids`` as the adapter does); deleting one is refused while its key is in
    ``locked`` (the store's retention set; discard a key to let its retention lapse)."""

    def __init__(self, store: InMemoryArchiveStore, owner_ids) -> None:
        self.store = store
        self._owner_ids = owner_ids

    @property
    def locked(self) -> set[str]:
        return self.store.locked

    def _owners(self, key: str) -> set[tuple[str, str]]:
        try:
            table = pq.read_table(pa.BufferReader(self.store.objects[key]), columns=["tenant", "user_id"])
        except (KeyError, ValueError, OSError):
            return set()
        return set(zip(table.column("tenant").to_pylist(), table.column("user_id").to_pylist(), strict=True))

    def objects_of(self, scope: Scope, shard: int | None) -> list[dict]:
        found, mine = [], {(scope.tenant, v) for v in self._owner_ids(scope)}
        for key in sorted(self.store.objects):
            if key.startswith(ROOT + "/") and key.endswith(".parquet") and (shard is None or f"/shard={shard}/" in key):
                owners = self._owners(key)
                if owners & mine:
                    found.append({"key": key, "only_user": owners <= mine})
        return found

    def delete_all_versions(self, key: str) -> bool:
        if key in self.locked:
            return False
        self.store.remove(key)
        return True

