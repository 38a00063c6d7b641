"""Writes a derived store missed: which layers are derived from the turn log, when a missed
write is tried again, and when it is no longer worth writing.

The turn log (PostgreSQL) is the commit point of ingestion. Working memory (Redis), episodes
(OpenSearch) and the profile (Neo4j) are derived from it: a write one of them could not take is
recorded as pending for that layer and applied later, in turn order per user, by the catch-up.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum


class Layer(StrEnum):
    """A layer derived from the turn log, named as the ingest response and recall name it."""

    WORKING_MEMORY = "working_memory"
    EPISODES = "episodes"
    PROFILE = "profile"


# A write that fails while its store answers (a poison batch, a bug) is tried this many times,
# then set aside as a dead letter for an operator; a store that does not answer costs no attempt.
MAX_ATTEMPTS = 5
_FIRST_RETRY_S, _LONGEST_RETRY_S = 2.0, 300.0


def retry_after(attempts: int) -> timedelta:
    """How long a write that has failed ``attempts`` times waits before its next try: doubling,
    so a failure that persists is not hammered, and capped, so a store back after an hour is
    caught up within minutes."""
    return timedelta(seconds=min(_FIRST_RETRY_S * 2 ** max(attempts - 1, 0), _LONGEST_RETRY_S))


def is_dead(attempts: int) -> bool:
    return attempts >= MAX_ATTEMPTS


def outlived(layer: Layer, said_at: datetime, now: datetime, session_ttl_s: int) -> bool:
    """A turn working memory would already have let go is not written there late: a session's
    context lives ``session_ttl_s`` after its last turn, and replaying an old turn would revive a
    session the user left. The other layers keep what was said however late it arrives."""
    return layer is Layer.WORKING_MEMORY and now - said_at > timedelta(seconds=session_ttl_s)
