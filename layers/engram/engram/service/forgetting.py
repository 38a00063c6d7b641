"""The daily forgetting job, per user: apply domain.lifecycle.forgetting's rules to the user's events.

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

The nightly run is a fan-out (``statemachines/forget.asl.json``): ``plan_forgetting`` splits the
users into ``forget_shards`` shards, and each shard is walked in key order (``UserRegistry.
users_in_shard``, every user who ever wrote) by invocations of ``forget_shard``, each stopping
after ``forget_budget_s`` and handing the next one its cursor. A user is forgotten once per run,
and a retried invocation repeats only users whose second pass changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from ..dependencies import Dependencies
from ..domain.lifecycle import forgetting as rules
from ..domain.model import Scope
from ..domain.records import AuditEntry
from ..errors import ValidationFailed
from .privacy import reveal_episode

# Users of the shard per registry read of its walk (the read takes PAGE x shards of them all).
PAGE = 100


def _now(now: str | datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    return datetime.fromisoformat(now.replace("Z", "+00:00")) if isinstance(now, str) else now


_NOTHING = {"archived": 0, "restored": 0, "downweighted": 0, "merged": 0, "pattern_rows": 0}


def _no_totals() -> dict:
    return {"users": 0, **_NOTHING, "skipped": 0}


def forget_user(deps: Dependencies, scope: Scope, now: datetime) -> dict:
    settings = deps.settings
    # A sealed event's words are compared in clear, never written back: its text alone is opened
    # (its summary where it has no text), not its context or keywords, which no rule reads.
    def opened(e: dict) -> dict:
        return reveal_episode(deps.keys, scope, e, fields=("text",) if e.get("text") else ("summary",), keywords=False)

    events = [opened(e) for e in deps.episodes.for_forgetting(scope)]
    by_id = {e["event_id"]: e for e in events}
    stamp = now.astimezone(UTC).isoformat().replace("+00:00", "Z")
    updates: dict[str, dict] = {}
    audit: list[AuditEntry] = []

    for event_id, type_ in rules.mistyped_greetings(events).items():
        updates.setdefault(event_id, {})["type"] = type_
        audit.append(AuditEntry("system", "retype", "episodes", event_id, "system", None,
                                {"type": "greeting"}, {"type": type_}))
    # Archived as chatter before a greeting had to say nothing else: what they say is back in retrieval.
    everything = deps.episodes.all_for_user(scope)
    archived = [opened(e) for e in everything if e.get("archived") and e["type"] == "greeting"]
    for event_id, type_ in rules.archived_as_chatter(archived).items():
        updates[event_id] = {"type": type_, "archived": False}
        audit.append(AuditEntry("system", "restore", "episodes", event_id, "system", None,
                                {"type": "greeting", "archived": True}, {"type": type_, "archived": False}))
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
    habits = rules.behaviour_patterns(everything)
    with deps.users.erasure_fence([scope]) as erasing:
        if erasing:
            return {**_NOTHING, "skipped": 1}
        deps.episodes.bulk_update([(scope, i, {**doc, "updated_at": stamp}) for i, doc in updates.items()])
        if audit:
            deps.audit.append(scope, audit)
        patterns = deps.patterns.replace(scope, habits)
    return {"archived": sum(1 for u in updates.values() if u.get("archived")),
            "restored": sum(1 for u in updates.values() if u.get("archived") is False),
            "downweighted": sum(1 for u in updates.values() if "weight" in u),
            "merged": sum(len(m.absorbed) for m in merges), "pattern_rows": patterns, "skipped": 0}


@dataclass(frozen=True)
class ForgetShard:
    """One shard's part of a run, as each invocation hands it to the next: the run's clock, the
    shard, the last user done (``None``: none yet), whether the walk is over, and its totals. A
    run may be for one tenant, and may ask for a shorter budget than the function's."""

    now: str
    shard: int
    shards: int
    tenant: str | None = None
    budget_s: float | None = None
    after: Scope | None = None
    done: bool = False
    totals: dict = field(default_factory=_no_totals)

    @classmethod
    def from_event(cls, event: dict) -> ForgetShard:
        try:
            shard, shards, after = int(event["shard"]), int(event["shards"]), event.get("after")
            budget = None if event.get("budget_s") is None else float(event["budget_s"])
            command = cls(now=_now(event["now"]).isoformat(), shard=shard, shards=shards, tenant=event.get("tenant"),
                          budget_s=budget, after=Scope(str(after[0]), str(after[1])) if after else None,
                          done=bool(event.get("done")),
                          totals={**_no_totals(), **(event.get("totals") or {})})
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValidationFailed(f"not a forgetting shard: {exc}", field="shard") from exc
        if not 0 <= shard < shards:
            raise ValidationFailed(f"shard {shard} of {shards}", field="shard")
        if budget is not None and not budget > 0:
            raise ValidationFailed(f"a budget of {budget} s", field="budget_s")
        return command

    def to_event(self) -> dict:
        return {"now": self.now, "shard": self.shard, "shards": self.shards, "tenant": self.tenant,
                "budget_s": self.budget_s, "done": self.done, "totals": self.totals,
                "after": [self.after.tenant, self.after.user_id] if self.after else None}


def plan_forgetting(deps: Dependencies, now: str | datetime | None = None, tenant: str | None = None,
                    budget_s: float | None = None) -> dict:
    """The run's clock (one for every shard) and a work item per shard."""
    when = _now(now).astimezone(UTC).isoformat()
    shards = deps.settings.forget_shards
    return {"now": when, "work": [ForgetShard(when, i, shards, tenant, budget_s).to_event() for i in range(shards)]}


def forget_shard(deps: Dependencies, command: ForgetShard, budget_s: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> ForgetShard:
    """Forget the shard's users after the cursor until the walk ends or the budget is spent (the
    user begun is always finished); where it stands, for the next invocation."""
    if command.done:
        return command
    budget = min(b for b in (deps.settings.forget_budget_s, command.budget_s, budget_s) if b is not None)
    started, when, totals, after = clock(), _now(command.now), dict(command.totals), command.after
    while True:
        # About PAGE users of this shard a read: the read takes every shard's users in key order.
        users, read_to = deps.users.users_in_shard(command.shard, command.shards, after, PAGE * command.shards,
                                                   tenant=command.tenant)
        for scope in users:
            _add(totals, forget_user(deps, scope, when))
            after = scope
            if clock() - started >= budget:
                return replace(command, after=after, totals=totals)
        if read_to is None:
            return replace(command, after=after, done=True, totals=totals)
        after = read_to
        if clock() - started >= budget:  # a long stretch of other shards' users counts too
            return replace(command, after=after, totals=totals)


def run_forgetting(deps: Dependencies, now: str | datetime | None = None, users: list[Scope] | None = None) -> dict:
    """A whole run in this process: ``users``, or every user (one shard, no budget)."""
    when = _now(now)
    if users is None:
        command = ForgetShard(when.isoformat(), 0, 1)
        while not command.done:
            command = forget_shard(deps, command)
        return command.totals
    erasing = deps.users.erasing_users()
    totals = _no_totals()
    for scope in users:
        _add(totals, {**_NOTHING, "skipped": 1} if scope in erasing else forget_user(deps, scope, when))
    return totals


def _add(totals: dict, report: dict) -> None:
    totals["users"] += 1 - report["skipped"]
    for key in (*_NOTHING, "skipped"):
        totals[key] += report[key]
