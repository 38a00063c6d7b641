"""Active forgetting, the pure rules. Input: one user's events as stored (dicts with ``event_id``,
``type``, ``ts`` ISO string, ``tags``, ``weight``, optionally ``vector``); output: what to change.
The job (service.forgetting) applies the changes; nothing here touches a store."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

CHATTER = frozenset({"small_talk", "greeting"})
# Tags that make a daily re-run a no-op: a repeat is down-weighted once, a merge happens once.
REPEATED_TAG, MERGED_TAG = "repeated", "merged"


def _ts(doc: dict) -> datetime:
    return datetime.fromisoformat(doc["ts"].replace("Z", "+00:00"))


def stale_chatter(events: list[dict], now: datetime, days: int) -> list[str]:
    """Small talk and greetings older than ``days``: they leave retrieval (the archive keeps them)."""
    cutoff = now - timedelta(days=days)
    return [e["event_id"] for e in events if e["type"] in CHATTER and not e.get("archived") and _ts(e) < cutoff]


def repeated_types(events: list[dict], now: datetime, threshold: int, window_days: int) -> dict[str, list[str]]:
    """Types seen ``threshold``+ times within the last ``window_days``: the ids to down-weight
    (those not down-weighted already, so the factor applies once per event)."""
    start = now - timedelta(days=window_days)
    recent = [e for e in events if start <= _ts(e) <= now and not e.get("archived")]
    counts = Counter(e["type"] for e in recent)
    return {t: [e["event_id"] for e in recent if e["type"] == t and REPEATED_TAG not in (e.get("tags") or [])]
            for t, n in counts.items() if n >= threshold}


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


@dataclass
class Merge:
    keep: str                      # the older event: it absorbs the others' message ids
    absorbed: list[str] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)


def near_duplicates(events: list[dict], min_cosine: float) -> list[Merge]:
    """Same-type events at least ``min_cosine`` similar fold into the oldest of them. Greedy in
    time order: each event joins the first earlier representative it is close enough to."""
    reps: dict[str, list[tuple[dict, Merge]]] = {}
    merges: dict[str, Merge] = {}
    for event in sorted(events, key=lambda e: (_ts(e), e["event_id"])):
        if not event.get("vector") or event.get("archived"):
            continue
        same_type = reps.setdefault(event["type"], [])
        target = next((m for rep, m in same_type if cosine(rep["vector"], event["vector"]) >= min_cosine), None)
        if target is None:
            merge = Merge(event["event_id"], [], list(event.get("message_ids") or []))
            same_type.append((event, merge))
            merges[event["event_id"]] = merge
            continue
        target.absorbed.append(event["event_id"])
        target.message_ids = sorted(set(target.message_ids) | set(event.get("message_ids") or []))
    return [m for m in merges.values() if m.absorbed]


def behaviour_patterns(events: list[dict]) -> dict[tuple[str, int, int], int]:
    """How often each event type happened per weekday (0 = Monday) and UTC hour: counts only."""
    return dict(Counter((e["type"], _ts(e).weekday(), _ts(e).hour) for e in events))
