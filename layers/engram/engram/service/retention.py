"""Retention after archival: drop hot data only where a verified archive holds it.

* Hypertable chunks (turn_log, task_events) older than ``hot_days`` are dropped day by day, and
  only for days in ``archive_days`` (manifest written, every object re-read and checked) whose
  row counts still equal the manifest's: a late row that reached an archived day after its run
  keeps the day's chunk until a re-run has archived it too.
* Episodes evicted by the per-user cap are deleted once the archived events of their day (a
  verified day) contain exactly this snapshot of them (same ``row_key``).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, timedelta

from ..bootstrap import Dependencies
from ..domain.archive import event_row_key, parse_day
from ..domain.model import Scope


def _now(now: str | datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    if isinstance(now, str):
        return datetime.fromisoformat(now.replace("Z", "+00:00"))
    return now


def drop_archived_chunks(deps: Dependencies, now: datetime) -> dict:
    source = deps.archive_source
    cutoff = (now - timedelta(days=deps.settings.hot_days)).date()
    candidates = source.days_with_data(before=cutoff)
    verified = source.verified_days(candidates)
    dropped, kept = {}, {}
    for day in candidates:
        if day not in verified:
            kept[day.isoformat()] = "not archived and verified"
            continue
        archived = source.verified(day)["rows"]
        live = source.day_counts(day)
        if live["turns"] != archived.get("turns", 0) or live["tasks"] != archived.get("tasks", 0):
            kept[day.isoformat()] = f"rows changed since the archive (live {live}, archived {archived})"
            continue
        dropped[day.isoformat()] = source.drop_day(day)
    # The report travels through Step Functions: a count and a sample, not years of days.
    return {"cutoff": cutoff.isoformat(), "dropped": dropped, "kept_days": len(kept),
            "kept_sample": dict(list(kept.items())[-5:])}


def delete_archived_evictions(deps: Dependencies) -> dict:
    episodes, source = deps.episodes, deps.archive_source
    evicted = episodes.evicted()
    by_day: dict[date, list[dict]] = defaultdict(list)
    for doc in evicted:
        by_day[parse_day(doc["ts"][:10])].append(doc)
    verified = source.verified_days(list(by_day))
    targets: list[tuple[Scope, str]] = []
    for day, docs in by_day.items():
        if day not in verified:
            continue
        table = deps.archive.read("events", [day], columns=["row_key"],
                                  where={"event_id": [d["event_id"] for d in docs]})
        archived = set(table.column("row_key").to_pylist())
        targets += [(Scope(d["tenant"], d["user_id"]), d["event_id"]) for d in docs if event_row_key(d) in archived]
    deleted = episodes.delete_ids(targets)
    return {"evicted": len(evicted), "deleted": deleted, "kept": len(evicted) - deleted}


def apply_retention(deps: Dependencies, now: str | datetime | None = None) -> dict:
    when = _now(now)
    return {"chunks": drop_archived_chunks(deps, when), "evicted_episodes": delete_archived_evictions(deps)}
