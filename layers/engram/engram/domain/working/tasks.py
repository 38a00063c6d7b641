"""The task lifecycle as a transition table."""

from __future__ import annotations

from enum import StrEnum

from ...errors import Conflict


class TaskStatus(StrEnum):
    CREATED = "CREATED"
    ASSIGNED = "ASSIGNED"
    IN_PROGRESS = "IN_PROGRESS"
    PAUSED = "PAUSED"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


TERMINAL = frozenset({TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED})
OPEN = frozenset(TaskStatus) - TERMINAL

TRANSITIONS: dict[TaskStatus | None, frozenset[TaskStatus]] = {
    None: frozenset({TaskStatus.CREATED}),
    TaskStatus.CREATED: frozenset({TaskStatus.ASSIGNED, TaskStatus.IN_PROGRESS, TaskStatus.CANCELLED}),
    TaskStatus.ASSIGNED: frozenset({TaskStatus.IN_PROGRESS, TaskStatus.CANCELLED}),
    TaskStatus.IN_PROGRESS: frozenset({TaskStatus.PAUSED, TaskStatus.COMPLETED, TaskStatus.FAILED,
                                       TaskStatus.CANCELLED}),
    TaskStatus.PAUSED: frozenset({TaskStatus.IN_PROGRESS, TaskStatus.CANCELLED, TaskStatus.FAILED}),
    **{status: frozenset() for status in TERMINAL},
}


def check_transition(current: TaskStatus | None, new: TaskStatus) -> None:
    if new not in TRANSITIONS[current]:
        origin = current.value if current else "(no task yet)"
        raise Conflict(f"invalid task transition {origin} -> {new.value}", field="status")
