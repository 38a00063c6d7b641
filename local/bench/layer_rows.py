"""What the product would have written for a generated user, built by the product's own functions
(``local.bench.layers_scale`` loads it): profile facts and the graph rows ``ProfileGraph`` would
create for them (node keys from ``domain.keys``), and ``task_events`` rows walked along the task
lifecycle (task ids from ``routing.task_id_for``). Pure: no store, deterministic for a seeded rng."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

from engram.domain.keys import object_node_key, user_node_key
from engram.domain.model import PREDICATES, Predicate, Scope, TrustSource
from engram.domain.records import Fact
from engram.domain.working.tasks import TERMINAL, TRANSITIONS, TaskStatus
from engram.service.ingest.route import task_id_for

_WORDS = ("jazz sushi hiking tea opera chess tennis ramen poetry cycling yoga curry vinyl surfing climbing "
          "baking film salsa kayaking pottery").split()
_KINDS = ("green spicy old quiet live indie classic street modern wild").split()
_CITIES = [f"city {i}" for i in range(500)]
_JOBS = [f"job {i}" for i in range(300)]
_TITLES = ("book a table", "renew passport", "call the bank", "plan the trip", "fix the bike", "send the report",
           "buy a gift", "pay the rent", "learn the chords", "clean the garage")
_STEP_WEIGHT = {TaskStatus.IN_PROGRESS: 4, TaskStatus.COMPLETED: 4}  # others 1: most tasks progress


def user_id(u: int) -> str:
    """The id of generated user number ``u``."""
    return f"u-{u:06d}"


def event_counts(users: int, rows: int, seed: int = 7) -> list[int]:
    """Task events per user: skewed (log-normal, a few heavy users), summing to exactly ``rows``."""
    rng = random.Random(seed)
    weights = [rng.lognormvariate(0.0, 1.0) for _ in range(users)]
    scale = rows / sum(weights)
    counts = [int(w * scale) for w in weights]
    short = rows - sum(counts)
    by_remainder = sorted(range(users), key=lambda i: weights[i] * scale - counts[i], reverse=True)
    for i in by_remainder[:short]:
        counts[i] += 1
    return counts


def task_rows(scope: Scope, count: int, start: datetime, end: datetime, rng: random.Random) -> list[tuple]:
    """``count`` rows of ``task_events`` (tenant, user_id, task_id, status, metadata JSON,
    duration_ms, ts): tasks walked along ``TRANSITIONS``, some left open, ``duration_ms`` as
    ``TaskStore.record`` computes it (time since the task's previous change)."""
    rows: list[tuple] = []
    span = (end - start).total_seconds()
    while len(rows) < count:
        message_id = f"m-{rng.getrandbits(48):012x}"
        task_id, title = task_id_for(scope, message_id), rng.choice(_TITLES)
        ts = start + timedelta(seconds=rng.random() * span * 0.98)
        status, last = TaskStatus.CREATED, None
        meta = {"title": title, "message_ids": [message_id]}
        while True:
            duration = None if last is None else max(0, int((ts - last).total_seconds() * 1000))
            rows.append((scope.tenant, scope.user_id, task_id, status.value, json.dumps(meta), duration, ts))
            later = ts + timedelta(seconds=1 + rng.expovariate(1 / 21600))  # never a tie: one latest change
            if len(rows) == count or status in TERMINAL or rng.random() < 0.15 or later > end:
                break
            allowed = sorted(TRANSITIONS[status])
            status = rng.choices(allowed, [_STEP_WEIGHT.get(s, 1) for s in allowed])[0]
            last, ts, meta = ts, later, {"title": title}
    return rows


def profile_facts(rng: random.Random, now: datetime, sealed: bool) -> list[Fact]:
    """About ten beliefs: name, home (and the home before it, closed by it), job, age, tastes, a
    skill; a user with ``sealed`` relations and an allergy swaps two tastes for them."""
    def when() -> datetime:
        return now - timedelta(days=rng.uniform(1, 365))

    def fact(predicate: Predicate, obj: str, at: datetime | None = None) -> Fact:
        at = at or when()
        source = rng.choice((TrustSource.RULE, TrustSource.USER))
        return Fact(predicate, obj, round(rng.uniform(0.5, 0.95), 2), source, (f"m-{rng.getrandbits(48):012x}",),
                    valid_from=at, observed_at=at)

    def taste() -> str:
        return f"{rng.choice(_KINDS)} {rng.choice(_WORDS)}"

    moved = when()
    facts = [fact(Predicate.HAS_NAME, f"name {rng.randrange(5000)}"),
             fact(Predicate.LIVES_IN, rng.choice(_CITIES), moved),
             fact(Predicate.LIVES_IN, rng.choice(_CITIES), moved - timedelta(days=rng.uniform(30, 900))),
             fact(Predicate.WORKS_AS, rng.choice(_JOBS)), fact(Predicate.HAS_AGE, str(rng.randrange(18, 80))),
             fact(Predicate.DISLIKES, taste()), fact(rng.choice((Predicate.MASTERS, Predicate.STRUGGLES_WITH)),
                                                   rng.choice(_WORDS))]
    if sealed:
        facts += [fact(Predicate.HAS_CHILD, f"child {rng.randrange(900)}"),
                  fact(Predicate.HAS_SPOUSE, f"spouse {rng.randrange(900)}"),
                  fact(Predicate.ALLERGIC_TO, rng.choice(_WORDS))]
    facts += [fact(Predicate.HAS_PREFERENCE, taste()) for _ in range(1 if sealed else 3)]
    return facts


def graph_rows(scope: Scope, facts: list[Fact], rng: random.Random) -> list[dict]:
    """One row per edge, as ``ProfileGraph._upsert`` creates it: ``rel``/``label`` from the
    predicate, node keys from ``domain.keys``; the older of two homes closed by the newer."""
    rows = []
    newest_home = max((f.valid_from for f in facts if f.predicate is Predicate.LIVES_IN), default=None)
    for fact in facts:
        spec = PREDICATES[fact.predicate]
        props = {"id": f"e-{rng.getrandbits(80):020x}", "confidence": fact.confidence, "source": fact.source.value,
                 "created_at": fact.observed_at, "updated_at": fact.observed_at, "confirmed_at": fact.observed_at,
                 "valid_from": fact.valid_from, "valid_to": None, "message_ids": list(fact.message_ids), "tags": [],
                 "weight": fact.weight, "sensitive": spec.sensitive, "sealed": fact.sealed, "counter_evidence": []}
        rows.append({"rel": fact.predicate.value.upper(), "label": spec.target.value, "uid": user_node_key(scope),
                     "key": object_node_key(scope, spec.target, fact.object), "name": fact.object, "props": props})
    homes = [r for r in rows if r["rel"] == "LIVES_IN"]
    for older in (r for r in homes if r["props"]["valid_from"] != newest_home):
        newer = next(r for r in homes if r["props"]["valid_from"] == newest_home)
        older["props"].update(valid_to=newest_home, closed_by=newer["props"]["id"], updated_at=newest_home)
    return rows
