"""Issue 10 on the real stores (PostgreSQL/TimescaleDB, OpenSearch, S3 on LocalStack): retention by
row identity, background jobs leaving users being erased alone, and pseudonymous archive rows.

Each test takes a day of the last century that has no rows when it starts, under fresh tenants,
and asserts only on its own tenant's rows (retention itself runs over the whole stack, as it does
at night, and may drop other verified days: it only ever drops what a verified archive holds).
"""

from __future__ import annotations

import contextlib
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest

from engram.domain.lifecycle.archive import shard_of
from engram.domain.model import Scope
from engram.domain.working.tasks import TaskStatus
from engram.service.archival import archive_day, archived_turns
from engram.service.forgetting import run_forgetting
from engram.service.retention import apply_retention
from tests.contract._base import far_day, turn, wipe

pytestmark = pytest.mark.stack


def at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)


@pytest.fixture
def day(deps):
    """A day of the last century with no hot rows (re-drawn until one is found)."""
    source = deps.archive_source
    chosen = next(d for d in iter(far_day, None) if d not in source.days_with_data(d + timedelta(days=1)))
    yield chosen
    source.unmark(chosen)
    source.drop_day(chosen)


@pytest.fixture
def people(deps):
    tenant = f"tenant-id-{uuid.uuid4().hex[:10]}"
    made = [Scope(tenant, name) for name in ("ann", "ben")]
    yield made
    for scope in made:
        with contextlib.suppress(Exception):
            deps.erasure_jobs.mark_erasing(scope)  # delete_rows takes a user being erased only
        wipe(deps, scope)


def archived(deps, kind: str, day: date, tenant: str) -> list[dict]:
    return deps.archive.read(kind, [day], where={"tenant": [tenant]}).to_pylist()


def event_doc(scope: Scope, when: datetime, name: str) -> dict:
    ts = when.isoformat().replace("+00:00", "Z")
    return {"event_id": f"ev-{name}-{uuid.uuid4().hex[:8]}", "type": "small_talk", "summary": name, "text": name,
            "context": "", "keywords": [], "raw_sha256": "x", "message_ids": [f"m-{name}"], "session_id": "s",
            "device_id": "d", "ts": ts, "occurred_at": ts, "confidence": 0.8, "trust_source": "rule",
            "weight": 1.0, "tags": [], "sensitive": False, "evicted": False, "archived": False,
            "merged_count": 1, "updated_at": ts}


def test_an_erasure_and_a_late_row_that_keep_the_count_do_not_drop_the_late_row(deps, day, people):
    ann, ben = people
    deps.turns.append(ann, "s1", "phone", [turn(f"a{i}", at(day, 9, i), f"ann says {i}") for i in range(3)])
    deps.turns.append(ben, "s1", "phone", [turn("b0", at(day, 10), "ben says hi")])
    deps.tasks.record(ann, "t1", TaskStatus.CREATED, {"title": "x"}, at(day, 11))
    first = archive_day(deps, day)
    assert first["verified"] and first["rows"]["turns"] >= 4

    # Ben is erased (his rows and their records go), a back-dated turn of ann's arrives.
    deps.erasure_jobs.mark_erasing(ben)
    deps.erasure_jobs.delete_rows(ben)
    deps.erasure_jobs.drop_user(ben)
    deps.turns.append(ann, "s1", "phone", [turn("late", at(day, 23), "ann, late")])
    assert deps.archive_source.day_counts(day) == {"turns": first["rows"]["turns"], "tasks": first["rows"]["tasks"]}

    report = apply_retention(deps)
    assert day.isoformat() not in report["chunks"]["dropped"]
    assert "late" in [t["message_id"] for t in deps.turns.turns(ann)], "a row in no archive survives"

    again = archive_day(deps, day)
    assert again["rows_written"] == 1  # the late turn, and only it
    report = apply_retention(deps)
    assert report["chunks"]["dropped"][day.isoformat()] == {"turn_log": 1, "task_events": 1}
    assert deps.turns.turns(ann) == [] and deps.tasks.history(ann) == []
    assert [t["content"] for t in archived_turns(deps, ann, days=[day])] == [
        "ann says 0", "ann says 1", "ann says 2", "ann, late"]


def test_jobs_leave_a_user_being_erased_alone_and_make_no_key_for_them(deps, day, people):
    ann, ben = people  # ben is being erased
    for i, scope in enumerate(people):  # ids that do not spell the user: the message id stays in clear
        deps.turns.append(scope, "s1", "phone", [turn(f"m{i}", at(day, 9), f"{scope.user_id} here")])
        deps.tasks.record(scope, "t1", TaskStatus.CREATED, {"title": "x"}, at(day, 11))
        deps.episodes.put(scope, [event_doc(scope, at(day, 9), f"chat{i}")])
    deps.erasure_jobs.mark_erasing(ben)
    assert not deps.keys.has_key(ben)
    ben_docs = deps.episodes.all_for_user(ben)

    result = archive_day(deps, day)
    assert result["verified"]
    for kind in ("turns", "events", "tasks"):
        rows = archived(deps, kind, day, ann.tenant)
        assert len(rows) == 1 and rows[0]["user_id"].startswith("#u:") and rows[0]["row_key"].startswith("#r:")
        assert not any(name in str(v) for row in rows for v in row.values() for name in ("ann", "ben"))
    assert [t["content"] for t in archived_turns(deps, ann, days=[day])] == ["ann here"]
    assert deps.erasure_jobs.count_rows(ben)["user_keys"] == 0, "no key row was made for ben"
    assert deps.erasure_jobs.count_rows(ben)["archive_rows"] == 0
    assert deps.erasure_jobs.count_rows(ann)["archive_rows"] == 3

    totals = run_forgetting(deps, now=at(day, 12) + timedelta(days=60), users=[ann, ben])
    assert (totals["users"], totals["skipped"], totals["archived"]) == (1, 1, 1)
    assert deps.episodes.all_for_user(ben) == ben_docs
    assert deps.patterns.patterns(ben) == [] and deps.audit.entries(ben) == []
    assert [d["archived"] for d in deps.episodes.all_for_user(ann)] == [True] and deps.patterns.patterns(ann)

    # The erasure still finds ann's pseudonymous objects, each holding her rows only.
    found = deps.archive_eraser.objects_of(ann, shard_of(ann.tenant, ann.user_id, deps.settings.archive_shards))
    keys = {o["key"] for o in found if f"/year={day.year:04d}/month={day.month:02d}/day={day.day:02d}/" in o["key"]}
    assert len(keys) == 3
