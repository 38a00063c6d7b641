"""Retention after archival: drop hot data only where a verified archive holds it, row by row.

* Hypertable chunks (turn_log, task_events) older than ``hot_days`` are dropped day by day, and
  only if every row in them is held by an object of the day's verified manifest: ``archive_rows``
  says which object version (key and SHA-256) holds which row, by the row's identity. Counts are no
  evidence: an erasure deleting one user's rows and a back-dated row arriving for another leave
  the day's count equal to the manifest's while that row is in no archive. A day with such rows
  keeps its chunks and is reported for a re-run (which archives only what no part holds); rows of
  users being erased are not archived (the saga deletes them) and only keep the day meanwhile.
* Episodes evicted by the per-user cap are deleted once a verified object of their day holds
  exactly this snapshot of them (same row key); those of users being erased are left to the saga.

Retention only deletes, and only what an archive holds, so it needs no user's key.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta

from ..dependencies import Dependencies
from ..domain.lifecycle.archive import event_row_key, parse_day, sha256_hex
from ..domain.model import Scope

_SAMPLE = 5  # the report travels through Step Functions: counts and a sample, not years of days


def _now(now: str | datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    if isinstance(now, str):
        return datetime.fromisoformat(now.replace("Z", "+00:00"))
    return now


def verified_objects(deps: Dependencies, day: date) -> list[tuple[str, str]] | None:
    """(key, sha256) of every object of the day's verified manifest; None if the day is not
    verified, or its manifest is no longer the one that was (a re-run rewrote it: verify again)."""
    ledger = deps.archive_source.verified(day)
    if ledger is None:
        return None
    raw = deps.archive.get(ledger["manifest_key"])
    if raw is None or sha256_hex(raw) != ledger["manifest_sha256"]:
        return None
    return [(o["key"], o["sha256"]) for o in json.loads(raw)["objects"]]


def drop_archived_chunks(deps: Dependencies, now: datetime) -> dict:
    source = deps.archive_source
    cutoff = (now - timedelta(days=deps.settings.hot_days)).date()
    candidates = source.days_with_data(before=cutoff)
    verified = source.verified_days(candidates)
    erasing = deps.users.erasing_users()
    dropped, kept, rerun = {}, {}, []
    # A turn whose derived writes are still pending keeps its day (and every later one) hot: the
    # catch-up and its operator read it there, whatever the archive holds.
    oldest_pending = deps.pending.oldest_said_at()
    for day in candidates:
        if oldest_pending is not None and day >= oldest_pending.astimezone(UTC).date():
            kept[day.isoformat()] = "writes of a derived layer still pending"
            continue
        objects = verified_objects(deps, day) if day in verified else None
        if objects is None:
            kept[day.isoformat()] = "not archived and verified"
            continue
        result = source.drop_day_if_held(day, objects)
        unheld = result["unheld"]
        if not unheld:
            dropped[day.isoformat()] = result["dropped"]
            continue
        waiting = sum(1 for r in unheld if Scope(r.tenant, r.user_id) in erasing)
        kept[day.isoformat()] = (f"{len(unheld)} rows in no verified archive object"
                                 + (f", {waiting} of them of users being erased" if waiting else ""))
        if waiting < len(unheld):
            rerun.append(day.isoformat())
    return {"cutoff": cutoff.isoformat(), "dropped": dropped, "kept_days": len(kept),
            "kept_sample": dict(list(kept.items())[-_SAMPLE:]), "rerun_days": len(rerun),
            "rerun_sample": rerun[-_SAMPLE:]}


def delete_archived_evictions(deps: Dependencies) -> dict:
    episodes, source = deps.episodes, deps.archive_source
    evicted = episodes.evicted()
    erasing = deps.users.erasing_users()
    by_day: dict[date, list[dict]] = defaultdict(list)
    for doc in evicted:
        if Scope(doc["tenant"], doc["user_id"]) not in erasing:
            by_day[parse_day(doc["ts"][:10])].append(doc)
    verified = source.verified_days(list(by_day))
    targets: list[tuple[Scope, str]] = []
    for day, docs in by_day.items():
        objects = verified_objects(deps, day) if day in verified else None
        if objects is None:
            continue
        held = source.held_row_keys(day, "events", objects)
        targets += [(Scope(d["tenant"], d["user_id"]), d["event_id"]) for d in docs if event_row_key(d) in held]
    deleted = episodes.delete_ids(targets)
    return {"evicted": len(evicted), "deleted": deleted, "kept": len(evicted) - deleted,
            "of_users_being_erased": len(evicted) - sum(len(d) for d in by_day.values())}


def apply_retention(deps: Dependencies, now: str | datetime | None = None) -> dict:
    when = _now(now)
    return {"chunks": drop_archived_chunks(deps, when), "evicted_episodes": delete_archived_evictions(deps)}
