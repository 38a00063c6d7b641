"""Active forgetting, the pure rules. Input: one user's events as stored (dicts with ``event_id``,
``type``, ``ts`` ISO string, ``tags``, ``weight``, optionally ``vector``); output: what to change.
The job (service.forgetting) applies the changes; nothing here touches a store."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np

from ..extraction import classify, only_greeting
from ..model import EventType
from ..recall.lexical import repeats_wording

CHATTER = frozenset({"small_talk", "greeting"})
# Tags that make a daily re-run a no-op: a repeat is down-weighted once, a merge happens once.
REPEATED_TAG, MERGED_TAG = "repeated", "merged"


def _ts(doc: dict) -> datetime:
    return datetime.fromisoformat(doc["ts"].replace("Z", "+00:00"))


def _said(event: dict) -> str:
    return event.get("text") or event.get("summary") or ""


def _says_more(event: dict) -> bool:
    """A greeting by its type that says more than a greeting ("hi! my mom moved to Tucson yesterday",
    typed so by its first word before ``extraction.only_greeting``). One without words is as typed."""
    return event["type"] == EventType.GREETING and bool(_said(event)) and not only_greeting(_said(event))


def mistyped_greetings(events: list[dict]) -> dict[str, str]:
    """Retrievable greetings that say more (``_says_more``): each one's type as its words are read
    now. Retyped, they rank as what they say and are never archived as chatter."""
    return {e["event_id"]: classify(_said(e)).value for e in events if not e.get("archived") and _says_more(e)}


def archived_as_chatter(events: list[dict]) -> dict[str, str]:
    """Greetings this job archived as chatter that say more (``_says_more``): each one's type as its
    words are read now. Those archived as a repeat (``MERGED_TAG``) stay so."""
    return {e["event_id"]: classify(_said(e)).value for e in events
            if e.get("archived") and MERGED_TAG not in (e.get("tags") or []) and _says_more(e)}


def stale_chatter(events: list[dict], now: datetime, days: int) -> list[str]:
    """Small talk and greetings older than ``days``: they leave retrieval (the archive keeps them).
    A greeting that says more (``_says_more``) is no chatter."""
    cutoff = now - timedelta(days=days)
    return [e["event_id"] for e in events
            if e["type"] in CHATTER and not e.get("archived") and _ts(e) < cutoff and not _says_more(e)]


def repeated_types(events: list[dict], now: datetime, threshold: int, window_days: int) -> dict[str, list[str]]:
    """Types seen ``threshold``+ times within the last ``window_days``: the ids to down-weight
    (those not down-weighted already, so the factor applies once per event)."""
    start = now - timedelta(days=window_days)
    recent = [e for e in events if start <= _ts(e) <= now and not e.get("archived")]
    counts = Counter(e["type"] for e in recent)
    return {t: [e["event_id"] for e in recent if e["type"] == t and REPEATED_TAG not in (e.get("tags") or [])]
            for t, n in counts.items() if n >= threshold}


@dataclass
class Merge:
    keep: str                      # the older event: it absorbs the others' message ids
    absorbed: list[str] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)


def near_duplicates(events: list[dict], min_cosine: float) -> list[Merge]:
    """Same-type events that repeat one another fold into the oldest of them. Greedy in time
    order: each event joins the first earlier representative it repeats, in meaning (cosine >=
    ``min_cosine``) and in words (``lexical.repeats_wording``, as ingestion's check: a turn is
    embedded with the one before it, so a reply can reach 0.95 to the message it answers).

    One matrix product per event against the representatives so far: a user with a few thousand
    events is folded in seconds (a pure-Python cosine per pair took the nightly job hours)."""
    ordered = [e for e in sorted(events, key=lambda e: (_ts(e), e["event_id"]))
               if e.get("vector") and not e.get("archived")]
    position = {e["event_id"]: n for n, e in enumerate(ordered)}
    merges: list[Merge] = []
    by_type: dict[str, list[dict]] = {}
    for event in ordered:
        by_type.setdefault(event["type"], []).append(event)
    for same_type in by_type.values():
        vectors = np.asarray([e["vector"] for e in same_type], dtype=np.float64)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)  # no norm: cosine 0
        reps = np.empty_like(unit)
        rep_merges: list[tuple[str, Merge]] = []  # (its text, its merge), in the order of ``reps``
        for i, event in enumerate(same_type):
            text = event.get("text") or event.get("summary") or ""
            close = np.flatnonzero(reps[:len(rep_merges)] @ unit[i] >= min_cosine)
            target = next((rep_merges[j][1] for j in close if repeats_wording(text, rep_merges[j][0])), None)
            if target is None:
                merge = Merge(event["event_id"], [], list(event.get("message_ids") or []))
                reps[len(rep_merges)] = unit[i]
                rep_merges.append((text, merge))
                merges.append(merge)
                continue
            target.absorbed.append(event["event_id"])
            target.message_ids = sorted(set(target.message_ids) | set(event.get("message_ids") or []))
    return sorted((m for m in merges if m.absorbed), key=lambda m: position[m.keep])  # in time order


def behaviour_patterns(events: list[dict]) -> dict[tuple[str, int, int], int]:
    """How often each event type happened per weekday (0 = Monday) and UTC hour: counts only."""
    return dict(Counter((e["type"], _ts(e).weekday(), _ts(e).hour) for e in events))
