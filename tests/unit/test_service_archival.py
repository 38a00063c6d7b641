"""The nightly archive chain and retention on the fakes: idempotent parts, late rows, a corrupt
object caught by verification, and hot data dropped only where a verified archive holds it."""

from __future__ import annotations

import json
from datetime import date, timedelta
from types import SimpleNamespace

import pytest

from engram.domain.lifecycle.archive import manifest_key, object_key, shard_of, user_pseudonym
from engram.domain.privacy import crypto
from engram.errors import ArchiveVerificationFailed, KeyDestroyed, ValidationFailed
from engram.service.archival import (
    archive_day,
    archive_shard,
    archived_turns,
    original_turns,
    plan,
    plan_execution,
    verify,
    write_manifest,
)
from engram.service.ingest.catch_up import catch_up
from engram.service.retention import apply_retention
from tests.fakes import fake_deps
from tests.unit.support import T0, failing, say

DAY = T0.date()


@pytest.fixture
def day_of_talk(deps, consenting, bob):
    say(deps, consenting, "I'm allergic to peanuts.", "I love jazz music.", "Remind me to call the dentist")
    say(deps, bob, "I bought a red bicycle.")
    return consenting


def parquet_keys(deps) -> list[str]:
    return sorted(k for k in deps.archive.objects if k.endswith(".parquet"))


def after_hot_window(deps, day: date, days: int = 1) -> str:
    return f"{day + timedelta(days=deps.settings.hot_days + days)}T03:00:00Z"


# -- planning ----------------------------------------------------------------------------------

def test_plan_spreads_the_day_over_the_shards(deps):
    out = plan(deps, "2026-11-20")
    assert out["day"] == "2026-11-20" and out["shards"] == deps.settings.archive_shards
    assert [w["shard"] for w in out["work"]] == list(range(deps.settings.archive_shards))
    assert plan(deps, DAY, 2)["work"] == [{"day": "2026-11-20", "shard": 0, "shards": 2},
                                          {"day": "2026-11-20", "shard": 1, "shards": 2}]


def test_the_scheduled_run_archives_yesterday(deps):
    assert plan_execution(deps, {"started_at": "2026-11-21T02:00:00Z"})["day"] == "2026-11-20"
    assert plan_execution(deps, {"input": {"day": "2026-01-02", "shards": 3}})["shards"] == 3


def test_a_bad_day_is_refused(deps):
    with pytest.raises(ValidationFailed) as caught:
        plan(deps, "20-11-2026")
    assert caught.value.field == "day"


# -- the chain ---------------------------------------------------------------------------------

def test_archive_day_writes_verifies_and_records_the_day(deps, day_of_talk):
    out = archive_day(deps, DAY)
    assert out["verified"] is True and out["manifest_written"] is True
    assert out["rows"] == {"turns": 4, "events": 4, "tasks": 1} and out["rows_written"] == 9
    ledger = deps.archive_source.verified(DAY)
    assert ledger["manifest_key"] == manifest_key(DAY) and ledger["rows"] == out["rows"]
    assert all(f"shard={shard_of('t1', 'alice', 4)}" in k for k in parquet_keys(deps) if "alice" in k)


def test_a_rerun_writes_nothing(deps, day_of_talk):
    archive_day(deps, DAY)
    objects = dict(deps.archive.objects)
    again = archive_day(deps, DAY)
    assert again["rows_written"] == 0 and again["manifest_written"] is False
    assert deps.archive.objects == objects


def test_late_rows_become_the_next_part(deps, day_of_talk):
    archive_day(deps, DAY)
    say(deps, day_of_talk, "We painted the kitchen green.", at=T0 + timedelta(hours=5), prefix="late")
    again = archive_day(deps, DAY)
    assert again["rows_written"] == 2 and again["rows"]["turns"] == 5
    shard = shard_of("t1", "alice", deps.settings.archive_shards)
    assert object_key("turns", DAY, shard, 1) in deps.archive.objects
    manifest = json.loads(deps.archive.get(manifest_key(DAY)))
    assert object_key("turns", DAY, shard, 1) in [o["key"] for o in manifest["objects"]]


def test_steps_one_by_one_through_json_verify(settings, alice):
    deps = fake_deps(settings)
    say(deps, alice, "I'm allergic to peanuts.", "I love jazz music.")
    results = [archive_shard(deps, w["day"], w["shard"], w["shards"]) for w in plan(deps, DAY)["work"]]
    written = write_manifest(deps, DAY, deps.settings.archive_shards, json.loads(json.dumps(results)))
    assert written["written"] is True and written["rows"]["turns"] == 2
    assert verify(deps, DAY)["rows"] == written["rows"]


def test_an_empty_day_verifies_with_no_objects(deps):
    out = archive_day(deps, date(2026, 1, 1))
    assert out["verified"] is True and out["objects"] == 0 and parquet_keys(deps) == []


def test_a_corrupted_object_fails_verification_and_unmarks_the_day(deps, day_of_talk):
    archive_day(deps, DAY)
    key = parquet_keys(deps)[0]
    deps.archive.objects[key] = deps.archive.objects[key][:-10] + b"0123456789"
    with pytest.raises(ArchiveVerificationFailed) as caught:
        verify(deps, DAY)
    assert key in caught.value.message and deps.archive_source.verified(DAY) is None


def test_a_missing_manifest_fails_verification(deps, day_of_talk):
    archive_day(deps, DAY)
    del deps.archive.objects[manifest_key(DAY)]
    with pytest.raises(ArchiveVerificationFailed):
        verify(deps, DAY)
    assert deps.archive_source.verified(DAY) is None


def test_an_unreadable_existing_part_stops_the_shard(deps, day_of_talk):
    archive_day(deps, DAY)
    key = next(k for k in parquet_keys(deps) if "/turns/" in k)
    deps.archive.objects[key] = b"not parquet"
    shard = int(key.split("shard=")[1].split("/")[0])
    with pytest.raises(ArchiveVerificationFailed):
        archive_shard(deps, DAY, shard, deps.settings.archive_shards)
    assert deps.archive_source.verified(DAY) is None


# -- what the archive holds --------------------------------------------------------------------

def test_archived_content_is_sealed_and_opens_for_the_user(deps, day_of_talk):
    archive_day(deps, DAY)
    raw = deps.archive.read("turns", [DAY], columns=["user_id", "content", "sealed"]).to_pylist()
    assert raw and all(crypto.is_sealed(r["content"]) and r["sealed"] for r in raw)
    turns = archived_turns(deps, day_of_talk, days=[DAY])
    assert [t["content"] for t in turns] == ["I'm allergic to peanuts.", "I love jazz music.",
                                             "Remind me to call the dentist"]
    assert [t["message_id"] for t in archived_turns(deps, day_of_talk, days=[DAY],
                                                    message_ids=["s1-202611200900-1"])] == ["s1-202611200900-1"]


def test_without_sealing_the_archive_is_plaintext(settings, alice):
    deps = fake_deps(settings.model_copy(update={"archive_seal": False}))
    say(deps, alice, "I love jazz music.")
    archive_day(deps, DAY)
    [row] = deps.archive.read("turns", [DAY], columns=["content", "sealed"]).to_pylist()
    assert row == {"content": "I love jazz music.", "sealed": False}


def test_after_the_shred_archived_rows_are_unreadable_and_no_longer_the_users(deps, day_of_talk):
    archive_day(deps, DAY)
    pseudonym = user_pseudonym(deps.keys.data_key(day_of_talk), "t1", "alice")
    deps.keys.shred(day_of_talk)
    # Nothing left names alice: her rows carry a pseudonym only her (destroyed) key computes.
    assert archived_turns(deps, day_of_talk, days=[DAY]) == []
    raw = deps.archive.read("turns", [DAY], where={"user_id": [pseudonym]}).to_pylist()
    assert len(raw) == 3 and all(crypto.is_sealed(r["content"]) for r in raw)
    with pytest.raises(KeyDestroyed):
        deps.keys.open(day_of_talk, raw[0]["content"], "turn")


def test_old_originals_come_from_the_archive_once_the_hot_rows_are_gone(deps, day_of_talk):
    archive_day(deps, DAY)
    apply_retention(deps, after_hot_window(deps, DAY))
    assert deps.turns.turns(day_of_talk) == []
    hits = [SimpleNamespace(provenance={"ts": "2026-11-20T09:00:00Z"})]
    now = T0 + timedelta(days=deps.settings.hot_days + 1)
    found = original_turns(deps, day_of_talk, hits, ["s1-202611200900-0", "s1-202611200900-2"], now=now)
    assert [t["message_id"] for t in found] == ["s1-202611200900-0", "s1-202611200900-2"]
    assert crypto.is_sealed(found[0]["content"])  # opened by the reader (reveal_turn), not here


def test_recent_originals_come_from_the_turn_log(deps, day_of_talk):
    hits = [SimpleNamespace(provenance={"ts": "2026-11-20T09:00:00Z"})]
    found = original_turns(deps, day_of_talk, hits, ["s1-202611200900-1"], now=T0 + timedelta(days=1))
    assert [(t["message_id"], t["content"]) for t in found] == [("s1-202611200900-1", "I love jazz music.")]


# -- retention ---------------------------------------------------------------------------------

def test_retention_drops_only_verified_days(deps, day_of_talk):
    other = DAY + timedelta(days=1)
    say(deps, day_of_talk, "I bought a red bicycle.", at=T0 + timedelta(days=1), prefix="next")
    archive_day(deps, DAY)
    report = apply_retention(deps, after_hot_window(deps, other))
    assert list(report["chunks"]["dropped"]) == [DAY.isoformat()]
    assert report["chunks"]["kept_days"] == 1 and other.isoformat() in report["chunks"]["kept_sample"]
    assert [t["message_id"] for t in deps.turns.turns(day_of_talk)] == ["next-0"]


def test_retention_keeps_a_day_with_rows_newer_than_its_archive(deps, day_of_talk):
    archive_day(deps, DAY)
    say(deps, day_of_talk, "We painted the kitchen green.", at=T0 + timedelta(hours=5), prefix="late")
    report = apply_retention(deps, after_hot_window(deps, DAY))
    assert report["chunks"]["dropped"] == {}
    assert report["chunks"]["kept_sample"][DAY.isoformat()] == "1 rows in no verified archive object"
    assert report["chunks"]["rerun_sample"] == [DAY.isoformat()]
    assert len(deps.turns.turns(day_of_talk)) == 4


def test_retention_keeps_a_day_whose_derived_writes_are_still_pending(deps, consenting):
    down = deps.with_(graph=failing(deps.graph, "upsert_fact"))
    assert say(down, consenting, "I'm allergic to peanuts.")["pending"] == ["profile"]
    archive_day(deps, DAY)
    report = apply_retention(deps, after_hot_window(deps, DAY))
    assert report["chunks"]["dropped"] == {}
    assert report["chunks"]["kept_sample"][DAY.isoformat()] == "writes of a derived layer still pending"
    assert catch_up(deps, budget_s=5) == {"applied": 1}
    assert list(apply_retention(deps, after_hot_window(deps, DAY))["chunks"]["dropped"]) == [DAY.isoformat()]


def test_retention_leaves_days_inside_the_hot_window(deps, day_of_talk):
    archive_day(deps, DAY)
    report = apply_retention(deps, f"{DAY + timedelta(days=10)}T03:00:00Z")
    assert report["chunks"]["dropped"] == {} and len(deps.turns.turns(day_of_talk)) == 3


def test_retention_deletes_evicted_events_once_archived(settings, alice):
    deps = fake_deps(settings.model_copy(update={"episodes_per_user": 1}))
    say(deps, alice, "I went to Rome in May.", "I bought a red bicycle.")
    assert len(deps.episodes.evicted()) == 1
    first = apply_retention(deps, after_hot_window(deps, DAY))
    assert first["evicted_episodes"] == {"evicted": 1, "deleted": 0, "kept": 1,  # not archived yet
                                         "of_users_being_erased": 0}
    archive_day(deps, DAY)
    second = apply_retention(deps, after_hot_window(deps, DAY))
    assert second["evicted_episodes"] == {"evicted": 1, "deleted": 1, "kept": 0, "of_users_being_erased": 0}
    assert deps.episodes.count(alice, tier="all") == 1 and deps.episodes.count(alice, tier="hot") == 1
