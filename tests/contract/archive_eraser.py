"""ArchiveEraser: which archived objects hold a user's rows, and deleting under Object Lock."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq

from engram.domain.lifecycle.archive import object_key, shard_of, user_pseudonym
from engram.domain.model import Scope

from ._base import Contract, far_day

PARQUET = "application/vnd.apache.parquet"


def owners_parquet(*owners) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"tenant": [s.tenant for s in owners], "user_id": [s.user_id for s in owners],
                             "content": ["eg1:x"] * len(owners)}), buf)
    return buf.getvalue()


class ArchiveEraserContract(Contract):
    def shard(self, deps, scope) -> int:
        return shard_of(scope.tenant, scope.user_id, deps.settings.archive_shards)

    def test_objects_of_finds_the_users_objects_and_whether_they_hold_only_them(self, deps, store, alice, bob):
        archive, day, shard = deps.archive, far_day(), self.shard(deps, alice)
        only, shared = object_key("turns", day, shard, 0), object_key("events", day, shard, 0)
        archive.put_locked(only, owners_parquet(alice, alice), content_type=PARQUET)
        archive.put_locked(shared, owners_parquet(alice, bob), content_type=PARQUET)
        archive.put_locked(object_key("tasks", day, shard, 0), owners_parquet(bob), content_type=PARQUET)
        found = [o for o in store.objects_of(alice, shard) if f"/year={day.year:04d}/" in o["key"]]
        assert sorted(found, key=lambda o: o["key"]) == sorted(
            [{"key": only, "only_user": True}, {"key": shared, "only_user": False}], key=lambda o: o["key"])

    def test_objects_of_looks_in_the_shard_asked_for(self, deps, store, alice):
        shards = deps.settings.archive_shards
        home, elsewhere = self.shard(deps, alice), (self.shard(deps, alice) + 1) % shards
        day = far_day()
        misplaced = object_key("turns", day, elsewhere, 0)
        deps.archive.put_locked(misplaced, owners_parquet(alice), content_type=PARQUET)
        assert misplaced not in [o["key"] for o in store.objects_of(alice, home)]
        assert misplaced in [o["key"] for o in store.objects_of(alice, elsewhere)]

    def test_objects_that_are_not_our_parquet_are_left_alone(self, deps, store, alice):
        shard, day = self.shard(deps, alice), far_day()
        deps.archive.put_locked(object_key("turns", day, shard, 0), b"PAR1 not parquet", content_type=PARQUET)
        deps.archive.put_locked(object_key("turns", day, shard, 1).replace(".parquet", ".json"),
                                owners_parquet(alice), content_type="application/json")
        assert [o for o in store.objects_of(alice, shard) if f"/year={day.year:04d}/" in o["key"]] == []

    def test_another_tenants_namesake_owns_nothing_here(self, deps, store, alice, stranger):
        shard, day = self.shard(deps, alice), far_day()
        key = object_key("turns", day, shard, 0)
        deps.archive.put_locked(key, owners_parquet(alice), content_type=PARQUET)
        assert key not in [o["key"] for o in store.objects_of(stranger, shard)]

    def test_a_locked_object_is_not_deleted(self, deps, store, alice):
        key, data = object_key("turns", far_day(), self.shard(deps, alice), 0), owners_parquet(alice)
        deps.archive.put_locked(key, data, content_type=PARQUET)
        assert store.delete_all_versions(key) is False
        assert deps.archive.get(key) == data
        assert [o["key"] for o in store.objects_of(alice, self.shard(deps, alice))].count(key) == 1

    def test_deleting_what_is_not_there_succeeds(self, store):
        assert store.delete_all_versions(object_key("turns", far_day(), 0, 99)) is True

    def test_rows_under_the_users_pseudonym_are_theirs(self, deps, store, alice, bob):
        def named(scope):  # as a sealed archive names its owner
            return Scope(scope.tenant, user_pseudonym(deps.keys.data_key(scope), scope.tenant, scope.user_id))

        day, shard = far_day(), self.shard(deps, alice)
        only, shared, legacy = (object_key(kind, day, shard, 0) for kind in ("turns", "events", "tasks"))
        deps.archive.put_locked(only, owners_parquet(named(alice), named(alice)), content_type=PARQUET)
        deps.archive.put_locked(shared, owners_parquet(named(alice), named(bob)), content_type=PARQUET)
        deps.archive.put_locked(legacy, owners_parquet(alice, named(alice)), content_type=PARQUET)
        found = {o["key"]: o["only_user"] for o in store.objects_of(alice, shard)
                 if f"/year={day.year:04d}/" in o["key"]}
        assert found == {only: True, shared: False, legacy: True}
        deps.keys.shred(alice)  # once the key is gone, nothing links those rows to her
        assert [o for o in store.objects_of(alice, shard) if f"/year={day.year:04d}/" in o["key"]] == [
            {"key": legacy, "only_user": False}]

    def test_asking_for_a_user_without_a_key_makes_none(self, deps, store, alice):
        store.objects_of(alice, self.shard(deps, alice))
        assert not deps.keys.has_key(alice)
