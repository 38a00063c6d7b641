"""Issue 10 on the fakes: retention by row identity (not counts), background jobs leaving users
being erased alone (also when the erasure starts mid-run), and an archive that names users only
by pseudonyms under their data key."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from engram.domain.lifecycle.archive import TYPE_WIDTH, manifest_key, unpad_type, user_pseudonym
from engram.domain.model import Scope
from engram.domain.privacy import crypto
from engram.service import erasure
from engram.service.archival import archive_day, archived_turns
from engram.service.archive_rows import PURPOSE
from engram.service.forgetting import forget_user, run_forgetting
from engram.service.retention import apply_retention
from tests.fakes import fake_deps
from tests.unit.support import T0, Wrapped, say, start_erasure
from tests.unit.test_service_forgetting import NOW, event, stored

DAY = T0.date()


def after_hot_window(deps, days: int = 1) -> str:
    return f"{DAY + timedelta(days=deps.settings.hot_days + days)}T03:00:00Z"


@pytest.fixture
def talk(deps, consenting, bob):
    say(deps, consenting, "I'm allergic to peanuts.", "I love jazz music.", "Remind me to call the dentist")
    say(deps, bob, "I bought a red bicycle.")
    return consenting, bob


def archive_values(deps) -> list:
    """Every value of every archived row (all kinds), as text."""
    out = []
    for kind in ("turns", "events", "tasks"):
        for row in deps.archive.read(kind, [DAY]).to_pylist():
            out += [json.dumps(v, default=str) for k, v in row.items() if k not in ("year", "month", "day", "shard")]
    return out


# -- A. retention by identity -------------------------------------------------------------------

def test_an_erasure_and_a_late_row_that_keep_the_count_do_not_drop_the_late_row(deps, talk):
    alice, bob = talk
    archive_day(deps, DAY)
    manifest = json.loads(deps.archive.get(manifest_key(DAY)))
    # Bob's turn goes (his erasure), a back-dated turn of alice's arrives: the count is the manifest's again.
    deps.turns.delete_user(bob)
    say(deps, alice, "We painted the kitchen green.", at=T0 + timedelta(hours=5), prefix="late")
    assert deps.archive_source.day_counts(DAY) == {k: manifest["rows"][k] for k in ("turns", "tasks")}

    report = apply_retention(deps, after_hot_window(deps))
    assert report["chunks"]["dropped"] == {} and report["chunks"]["rerun_sample"] == [DAY.isoformat()]
    assert "late-0" in [t["message_id"] for t in deps.turns.turns(alice)], "the late row survives"

    # A re-run archives the late row (only it), and then the day may go.
    assert archive_day(deps, DAY)["rows_written"] == 2  # its turn and its event
    report = apply_retention(deps, after_hot_window(deps))
    assert list(report["chunks"]["dropped"]) == [DAY.isoformat()] and deps.turns.turns(alice) == []
    assert [t["content"] for t in archived_turns(deps, alice, days=[DAY])][-1] == "We painted the kitchen green."


def test_rows_the_records_lost_are_recorded_again_by_a_rerun(deps, talk):
    archive_day(deps, DAY)
    deps.archive_source.held.clear()  # as if the writer died between its put and its records
    assert apply_retention(deps, after_hot_window(deps))["chunks"]["dropped"] == {}
    again = archive_day(deps, DAY)
    assert again["rows_written"] == 0 and again["manifest_written"] is False
    assert list(apply_retention(deps, after_hot_window(deps))["chunks"]["dropped"]) == [DAY.isoformat()]


def test_a_manifest_rewritten_since_its_verification_is_no_basis_for_dropping(deps, talk):
    archive_day(deps, DAY)
    key = manifest_key(DAY)
    deps.archive.put_locked(key, deps.archive.get(key) + b"\n", content_type="application/json")
    report = apply_retention(deps, after_hot_window(deps))
    assert report["chunks"]["dropped"] == {} and len(deps.turns.turns(talk[0])) == 3


def test_a_part_written_before_pseudonyms_is_recognised_not_written_again(settings, alice):
    deps = fake_deps(settings.model_copy(update={"archive_seal": False}))
    say(deps, alice, "I love jazz music.")
    archive_day(deps, DAY)
    sealed = fake_deps(settings, **{name: getattr(deps, name) for name in (
        "turns", "tasks", "episodes", "archive", "users", "archive_source")})
    assert archive_day(sealed, DAY)["rows_written"] == 0
    assert list(apply_retention(sealed, after_hot_window(sealed))["chunks"]["dropped"]) == [DAY.isoformat()]
    assert [t["content"] for t in archived_turns(sealed, alice, days=[DAY])] == ["I love jazz music."]


# -- B. background jobs leave users being erased alone --------------------------------------------

def test_archival_leaves_a_user_being_erased_out_and_makes_no_key_for_them(deps, talk):
    alice, bob = talk
    deps.erasure_jobs.mark_erasing(bob)
    deps.keys.shred(bob)  # the saga's archive step came first: a key made now would outlive it
    result = archive_day(deps, DAY)
    assert result["rows"] == {"turns": 3, "events": 3, "tasks": 1}
    assert not deps.keys.has_key(bob), "no data key was made for bob"
    assert not any("bicycle" in v or '"bob"' in v for v in archive_values(deps))
    assert {o for o in deps.archive_source.held.values()} == {("t1", "alice")}
    assert [t["content"] for t in archived_turns(deps, alice, days=[DAY])][0] == "I'm allergic to peanuts."


def test_a_user_whose_key_is_refused_mid_run_is_left_out(deps, talk):
    alice, bob = talk

    def mark_then_ask(keys, scope):  # bob's erasure begins just as the writer asks for his key
        if scope == bob:
            deps.erasure_jobs.mark_erasing(bob)
        return keys.data_key(scope)

    deps.keys.shred(bob)  # so sealing his rows would have to make him a key, which the store refuses
    racing = deps.with_(keys=Wrapped(deps.keys, "data_key", mark_then_ask))
    assert archive_day(racing, DAY)["rows"] == {"turns": 3, "events": 3, "tasks": 1}
    assert not any("bicycle" in v for v in archive_values(deps)) and not deps.keys.has_key(bob)


def test_a_mark_after_the_rows_were_sealed_still_keeps_them_out_of_the_object(deps, talk):
    alice, bob = talk
    deps.keys.seal(bob, "bob already has a key")

    def read_then_mark(source, day, shard, shards):  # the erasure starts while the shard is being read
        rows = source.turns(day, shard, shards)
        deps.erasure_jobs.mark_erasing(bob)
        return rows

    racing = deps.with_(archive_source=Wrapped(deps.archive_source, "turns", read_then_mark))
    archive_day(racing, DAY)
    pseudonym = user_pseudonym(deps.keys.data_key(bob), "t1", "bob")
    assert not any(pseudonym in v for v in archive_values(deps))
    assert ("t1", "bob") not in set(deps.archive_source.held.values())


def test_forgetting_and_patterns_leave_a_user_being_erased_untouched(deps, alice, bob):
    for scope in (alice, bob):
        deps.episodes.put(scope, [event("old-chat", "small_talk", 40), event("b-fact", "fact", 1)])
    deps.users.ensure(alice)  # as the write fence does for every user who writes
    deps.erasure_jobs.mark_erasing(bob)
    before = stored(deps, bob)
    totals = run_forgetting(deps, NOW)
    # The walk does not meet a user being erased (one marked after it met them is skipped at the fence).
    assert (totals["users"], totals["skipped"], totals["archived"]) == (1, 0, 1)
    assert stored(deps, bob) == before and deps.patterns.patterns(bob) == [] and deps.audit.entries(bob) == []
    assert stored(deps, alice)["old-chat"]["archived"] and deps.patterns.patterns(alice)


def test_forgetting_writes_nothing_for_a_user_marked_while_it_computed(deps, bob):
    deps.episodes.put(bob, [event("old-chat", "small_talk", 40)])
    before = stored(deps, bob)

    def read_then_mark(episodes, scope):
        docs = episodes.all_for_user(scope)
        deps.erasure_jobs.mark_erasing(scope)
        return docs

    racing = deps.with_(episodes=Wrapped(deps.episodes, "all_for_user", read_then_mark))
    assert forget_user(racing, bob, NOW)["skipped"] == 1
    assert stored(deps, bob) == before and deps.patterns.patterns(bob) == [] and deps.audit.entries(bob) == []


def test_retention_leaves_the_evicted_episodes_of_a_user_being_erased_to_the_saga(settings, alice, bob):
    deps = fake_deps(settings.model_copy(update={"episodes_per_user": 1}))
    for scope in (alice, bob):
        say(deps, scope, "I went to Rome in May.", "I bought a red bicycle.")
    archive_day(deps, DAY)
    deps.erasure_jobs.mark_erasing(bob)
    report = apply_retention(deps, after_hot_window(deps))["evicted_episodes"]
    assert report == {"evicted": 2, "deleted": 1, "kept": 1, "of_users_being_erased": 1}
    assert deps.episodes.count(bob, tier="all") == 2 and deps.episodes.count(alice, tier="all") == 1


# -- C. pseudonyms -------------------------------------------------------------------------------

def test_the_archive_names_no_user_event_or_task_and_hides_types_and_hashes(deps, talk):
    alice, _ = talk
    docs = deps.episodes.all_for_user(alice)
    tasks = deps.tasks.history(alice)
    archive_day(deps, DAY)
    values = archive_values(deps)
    for clear in ("alice", "bob", *(d["event_id"] for d in docs), *(t.task_id for t in tasks),
                  *(r["content_sha256"] for r in deps.archive_source.turns(DAY, 0, 1)),
                  *(d["raw_sha256"] for d in docs), "peanuts", "dentist"):
        assert not any(clear in v for v in values), clear
    events = deps.archive.read("events", [DAY], columns=["user_id", "type", "sensitive"]).to_pylist()
    assert {len(e["type"]) for e in events} == {len(events[0]["type"])} and all(e["sensitive"] for e in events)
    mine = user_pseudonym(deps.keys.data_key(alice), "t1", "alice")
    types = sorted(unpad_type(deps.keys.open(alice, e["type"], PURPOSE["type"]))
                   for e in events if e["user_id"] == mine)
    assert types == sorted(d["type"] for d in docs) and TYPE_WIDTH >= max(map(len, types))
    turns = deps.archive.read("turns", [DAY], columns=["user_id", "content_sha256"]).to_pylist()
    assert all(crypto.is_sealed(t["content_sha256"]) for t in turns)


def test_the_erasure_finds_and_deletes_the_users_pseudonymous_objects(deps, talk):
    alice, bob = talk
    archive_day(deps, DAY)
    found = deps.archive_eraser.objects_of(alice, None)
    assert found and len({o["key"].split("/")[1] for o in found}) == 3  # turns, events and tasks
    deps.archive_eraser.locked.clear()
    event = start_erasure(deps.with_(settings=deps.settings.model_copy(
        update={"erasure_state_machine_arn": "arn:aws:states:us-east-1:000000000000:stateMachine:erasure"})), alice)
    erasure.mark(deps, event)
    out = erasure.delete_from(deps, event, "archive")
    assert out["deleted"] == sum(o["only_user"] for o in found) and out["key_shredded"]
    assert [t["content"] for t in archived_turns(deps, bob, days=[DAY])] == ["I bought a red bicycle."]


def test_reading_the_archive_for_a_user_without_a_key_makes_none(deps, talk):
    archive_day(deps, DAY)
    stranger = Scope("t1", "carol")
    assert archived_turns(deps, stranger, days=[DAY]) == [] and not deps.keys.has_key(stranger)
