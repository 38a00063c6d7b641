"""The daily forgetting job, per user: apply domain.forgetting's rules to the user's events.

* stale small talk / greetings -> ``archived=true`` (out of retrieval; the document stays for the
  nightly archive and export, so nothing is lost);
* a type repeated too often in the window -> weight x factor, tagged ``repeated`` (once);
* near-duplicates -> the older event absorbs the newer ones' message ids; the newer ones are
  tagged ``merged`` and leave retrieval (kept, like small talk, for the archive);
* behaviour patterns -> aggregate counts in Postgres, recomputed.
Every change is audited. Re-running on the same day changes nothing more.

Users being erased are left alone: the run skips those erasing when it starts, and each user's
writes happen inside the erasure fence (``UserRegistry.erasure_fence``), which re-checks and holds
a mark off until they are done, so nothing lands after the saga's deletes.
"""

from __future__ import annotations

from datetime import UTC, datetime

from ..bootstrap import Dependencies
from ..domain import forgetting as rules
from ..domain.model import Scope
from ..domain.records import AuditEntry
from .privacy import reveal_episode


def _now(now: str | datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    return datetime.fromisoformat(now.replace("Z", "+00:00")) if isinstance(now, str) else now


_NOTHING = {"archived": 0, "downweighted": 0, "merged": 0, "pattern_rows": 0}


def forget_user(deps: Dependencies, scope: Scope, now: datetime) -> dict:
    settings = deps.settings
    # A sealed event's words are compared in clear, never written back: its text alone is opened
    # (its summary where it has no text), not its context or keywords, which no rule reads.
    events = [reveal_episode(deps.keys, scope, e, fields=("text",) if e.get("text") else ("summary",), keywords=False)
              for e in deps.episodes.for_forgetting(scope)]
    by_id = {e["event_id"]: e for e in events}
    stamp = now.astimezone(UTC).isoformat().replace("+00:00", "Z")
    updates: dict[str, dict] = {}
    audit: list[AuditEntry] = []

    for event_id in rules.stale_chatter(events, now, settings.small_talk_days):
        updates.setdefault(event_id, {})["archived"] = True
        audit.append(AuditEntry("system", "forget_archive", "episodes", event_id, "system", None,
                                {"archived": False}, {"archived": True}))

    for type_, ids in rules.repeated_types(events, now, settings.repeat_threshold, settings.repeat_window_days).items():
        for event_id in ids:
            doc = by_id[event_id]
            new = round(float(doc.get("weight", 1.0)) * settings.repeat_factor, 6)
            updates.setdefault(event_id, {}).update(
                weight=new, tags=sorted(set(doc.get("tags") or []) | {rules.REPEATED_TAG}))
            audit.append(AuditEntry("system", "downweight", "episodes", event_id, "system", None,
                                    {"weight": doc.get("weight", 1.0)}, {"weight": new, "type": type_}))

    merges = rules.near_duplicates([e for e in events if e["event_id"] not in updates or
                                    not updates[e["event_id"]].get("archived")], settings.duplicate_cosine)
    for merge in merges:
        keep = by_id[merge.keep]
        updates.setdefault(merge.keep, {}).update(
            message_ids=merge.message_ids, merged_count=int(keep.get("merged_count") or 1) + len(merge.absorbed))
        for event_id in merge.absorbed:
            tags = sorted(set(updates.get(event_id, {}).get("tags") or by_id[event_id].get("tags") or [])
                          | {rules.MERGED_TAG})
            updates.setdefault(event_id, {}).update(archived=True, tags=tags)
        audit.append(AuditEntry("system", "merge", "episodes", merge.keep, "system", None, None,
                                {"absorbed": merge.absorbed, "message_ids": merge.message_ids}))

    # Type and time, all the habits count, are what the updates above leave alone.
    habits = rules.behaviour_patterns(deps.episodes.all_for_user(scope))
    with deps.users.erasure_fence([scope]) as erasing:
        if erasing:
            return {**_NOTHING, "skipped": 1}
        deps.episodes.bulk_update([(scope, i, {**doc, "updated_at": stamp}) for i, doc in updates.items()])
        if audit:
            deps.audit.append(scope, audit)
        patterns = deps.patterns.replace(scope, habits)
    return {"archived": sum(1 for u in updates.values() if u.get("archived")),
            "downweighted": sum(1 for u in updates.values() if "weight" in u),
            "merged": sum(len(m.absorbed) for m in merges), "pattern_rows": patterns, "skipped": 0}


def run_forgetting(deps: Dependencies, now: str | datetime | None = None, users: list[Scope] | None = None) -> dict:
    when = _now(now)
    scopes = users if users is not None else deps.episodes.users()
    erasing = deps.users.erasing_users()
    totals = {"users": 0, **_NOTHING, "skipped": 0}
    for scope in scopes:
        report = {**_NOTHING, "skipped": 1} if scope in erasing else forget_user(deps, scope, when)
        totals["users"] += 1 - report["skipped"]
        for key in (*_NOTHING, "skipped"):
            totals[key] += report[key]
    return totals
