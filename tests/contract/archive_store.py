"""ArchiveStore: locked objects, a shard's parts in order, and pruned, projected, filtered reads."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pyarrow as pa
import pyarrow.parquet as pq

from engram.adapters.aws.parquet import parquet_bytes, to_table
from engram.domain.lifecycle.archive import manifest_key, object_key, partition_dir, sha256_hex

from ._base import Contract, at, far_day, new_tenant

PARQUET = "application/vnd.apache.parquet"


def turn_rows(tenant: str, user_id: str, day, ids: list[str]) -> list[dict]:
    when = at(day, 12)
    return [{"tenant": tenant, "user_id": user_id, "session_id": "s1", "device_id": "phone", "message_id": mid,
             "role": "user", "content": f"text of {mid}", "content_sha256": "0" * 64, "truncated": False,
             "client_ts": when + timedelta(seconds=i), "received_at": when, "sealed": False,
             "row_key": f"{tenant}:{user_id}:{mid}"} for i, mid in enumerate(ids)]


def turns_parquet(tenant: str, user_id: str, day, ids: list[str]) -> bytes:
    return parquet_bytes(to_table("turns", turn_rows(tenant, user_id, day, ids)))


class ArchiveStoreContract(Contract):
    def test_put_locked_stores_the_bytes_and_says_their_checksum(self, store):
        key, data = manifest_key(far_day()), json.dumps({"day": "x"}).encode()
        put = store.put_locked(key, data, content_type="application/json")
        assert put["key"] == key and put["sha256"] == sha256_hex(data) and put["version_id"]
        assert store.get(key) == data

    def test_a_missing_object_is_none(self, store):
        assert store.get(manifest_key(far_day()) + ".missing") is None

    def test_writing_a_key_again_makes_a_new_current_version(self, store):
        key = manifest_key(far_day())
        first = store.put_locked(key, b"one", content_type="application/json")
        second = store.put_locked(key, b"two", content_type="application/json")
        assert second["version_id"] != first["version_id"] and store.get(key) == b"two"

    def test_parts_are_the_shards_parquet_objects_in_part_order(self, store):
        day, tenant = far_day(), new_tenant()
        data = turns_parquet(tenant, "u", day, ["m1"])
        for part in (2, 10, 0, 1):
            store.put_locked(object_key("turns", day, 1, part), data, rows=1, content_type=PARQUET)
        store.put_locked(partition_dir("turns", day, 1) + "/notes.json", b"{}", content_type="application/json")
        store.put_locked(object_key("turns", day, 2, 0), data, rows=1, content_type=PARQUET)
        assert store.parts("turns", day, 1) == [object_key("turns", day, 1, p) for p in (0, 1, 2, 10)]
        assert store.parts("tasks", day, 1) == [] and store.parts("turns", day + timedelta(days=1), 1) == []

    def test_read_gives_the_rows_with_their_partition_columns(self, store):
        day, tenant = far_day(), new_tenant()
        store.put_locked(object_key("turns", day, 3, 0), turns_parquet(tenant, "u", day, ["m1", "m2"]),
                         rows=2, content_type=PARQUET)
        table = store.read("turns", [day], shards=[3])
        assert table.num_rows == 2 and table.column_names[-4:] == ["year", "month", "day", "shard"]
        row = table.to_pylist()[0]
        assert (row["message_id"], row["tenant"], row["content"], row["client_ts"]) == (
            "m1", tenant, "text of m1", at(day, 12))
        assert (row["year"], row["month"], row["day"], row["shard"]) == (day.year, day.month, day.day, 3)

    def test_read_filters_with_where_and_projects_columns(self, store):
        day, tenant = far_day(), new_tenant()
        store.put_locked(object_key("turns", day, 0, 0), turns_parquet(tenant, "alice", day, ["a1", "a2", "a3"]),
                         rows=3, content_type=PARQUET)
        store.put_locked(object_key("turns", day, 0, 1), turns_parquet(tenant, "bob", day, ["b1"]),
                         rows=1, content_type=PARQUET)
        table = store.read("turns", [day], shards=[0], columns=["message_id", "user_id"],
                           where={"user_id": ["alice"], "message_id": ["a3", "a1", "zz"]})
        assert table.column_names == ["message_id", "user_id"]
        assert sorted(table.to_pylist(), key=lambda r: r["message_id"]) == [
            {"message_id": "a1", "user_id": "alice"}, {"message_id": "a3", "user_id": "alice"}]
        assert store.read("turns", [day], shards=[0], columns=["message_id"], where={"user_id": ["eve"]}).num_rows == 0

    def test_read_covers_the_days_and_shards_asked_for_only(self, store):
        day, tenant = far_day(), new_tenant()
        nxt = day + timedelta(days=1)
        for d, shard, mid in ((day, 0, "d0s0"), (day, 1, "d0s1"), (nxt, 1, "d1s1"), (day + timedelta(days=2), 0,
                                                                                       "later")):
            store.put_locked(object_key("turns", d, shard, 0), turns_parquet(tenant, "u", d, [mid]), rows=1,
                             content_type=PARQUET)

        def read(days, shards=None):
            return sorted(store.read("turns", days, shards=shards, columns=["message_id"]).column(
                "message_id").to_pylist())

        assert read([day]) == ["d0s0", "d0s1"]
        assert read([day, nxt], [1]) == ["d0s1", "d1s1"]
        assert read([nxt, day, nxt], [0]) == ["d0s0"]

    def test_reading_where_nothing_was_archived_is_an_empty_table_of_those_columns(self, store):
        table = store.read("turns", [far_day()], shards=[0], columns=["message_id", "content"])
        assert table.num_rows == 0 and table.column_names == ["message_id", "content"]
        assert store.read("events", [far_day()]).num_rows == 0

    def test_a_column_an_object_lacks_reads_as_null(self, store):
        day, tenant = far_day(), new_tenant()
        buf = io.BytesIO()
        pq.write_table(pa.table({"tenant": [tenant], "user_id": ["alice"], "content": ["eg1:sealed"]}), buf)
        store.put_locked(object_key("turns", day, 2, 0), buf.getvalue(), content_type=PARQUET)
        [row] = store.read("turns", [day], shards=[2], columns=["user_id", "content", "message_id"]).to_pylist()
        assert row == {"user_id": "alice", "content": "eg1:sealed", "message_id": None}
