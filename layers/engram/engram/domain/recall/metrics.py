"""What the service reports to monitoring: the metric names, the datapoints of one recall, and
those of one catch-up run (the writes a derived layer missed, ``backlog``).

These names are the contract between the code and ``template.yaml``'s alarms and dashboard
(``tests/unit/test_alarm_metrics.py`` checks that every alarm watches one of them, in this
namespace and with this service dimension). The functions emit them as CloudWatch EMF through
the Powertools Metrics of ``engram.handlers`` (``adapters/aws/emf_metrics.py``), whose namespace and
service come from ``POWERTOOLS_METRICS_NAMESPACE`` and ``POWERTOOLS_SERVICE_NAME`` (Globals).

Rates are 0/1 datapoints, so a CloudWatch ``Average`` over a period is the rate itself and an
alarm on it needs no metric math (LocalStack evaluates such alarms; see docs/operations.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NAMESPACE = "Engram"
SERVICE = "engram"  # EMF's "service" dimension: every datapoint carries it, so every alarm names it

ANSWERED = "RecallAnswered"          # 1 per recall that gave an answer (degraded or not)
FAILED = "RecallFailed"              # 1 per recall that gave none (a server error, never a 4xx)
DEGRADED = "RecallDegraded"          # per answer: 1 when a step was skipped or late, else 0
NO_RECORD = "RecallNoRecord"         # per answer: 1 when the guard said "no record found"
SESSION_HIT = "SessionContextHit"    # per answer that named a session: 1 when its context had items

# Writes a derived layer missed (``domain.ingest.pending.Layer``), per layer, sent by every catch-up run:
# how many wait, the age of the oldest, and how many were set aside for an operator.
PENDING_LAYERS = ("working_memory", "episodes", "profile")


def pending_writes(layer: str) -> str:
    return f"PendingWrites_{layer}"


def pending_oldest(layer: str) -> str:
    return f"PendingOldestSeconds_{layer}"


def dead_letters(layer: str) -> str:
    return f"PendingDeadLetters_{layer}"


LATENCY_STEPS = ("session", "tasks", "profile", "episodes", "archive")


def latency(step: str) -> str:
    """Milliseconds a step took (its deadline when it was late); ``total`` is the whole recall."""
    return f"RecallLatency_{step}"


TOTAL_LATENCY = latency("total")
ALL = frozenset({ANSWERED, FAILED, DEGRADED, NO_RECORD, SESSION_HIT, TOTAL_LATENCY,
                 *(name(layer) for layer in PENDING_LAYERS for name in (pending_writes, pending_oldest, dead_letters)),
                 *(latency(step) for step in LATENCY_STEPS)})

Unit = Literal["Count", "Milliseconds", "Seconds"]


@dataclass(frozen=True)
class Metric:
    name: str
    unit: Unit
    value: float


def answered(step_ms: dict[str, float], degraded: bool, no_record: bool, session_hit: bool | None,
             total_ms: float) -> list[Metric]:
    """The datapoints of one answer. ``step_ms`` holds only the steps that ran: a step that did
    not run (no session named, no verbatim detail asked) is not a 0 ms datapoint, which would
    pull its p95 down. ``session_hit`` is None when the request named no session: such a recall
    had no session context to hit, and counting it as a miss would sink the hit rate."""
    out = [Metric(ANSWERED, "Count", 1), Metric(DEGRADED, "Count", int(degraded)),
           Metric(NO_RECORD, "Count", int(no_record)), Metric(TOTAL_LATENCY, "Milliseconds", total_ms)]
    if session_hit is not None:
        out.append(Metric(SESSION_HIT, "Count", int(session_hit)))
    out += [Metric(latency(step), "Milliseconds", ms) for step, ms in step_ms.items() if step in LATENCY_STEPS]
    return out


def failed() -> list[Metric]:
    return [Metric(FAILED, "Count", 1)]


def backlog(per_layer: dict[str, dict]) -> list[Metric]:
    """The datapoints of one catch-up run: every derived layer's, zero when nothing waits (an
    alarm on the oldest age needs a datapoint to go back to OK)."""
    out = []
    for layer in PENDING_LAYERS:
        stats = per_layer.get(layer) or {}
        out += [Metric(pending_writes(layer), "Count", stats.get("pending", 0)),
                Metric(pending_oldest(layer), "Seconds", stats.get("oldest_s", 0.0)),
                Metric(dead_letters(layer), "Count", stats.get("dead", 0))]
    return out
