"""Neo4j driver (it owns the Bolt connection pool)."""

from __future__ import annotations

from functools import cache

import neo4j

from ..config import get_settings


@cache
def driver() -> neo4j.Driver:
    settings = get_settings()
    return neo4j.GraphDatabase.driver(
        settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password),
        max_connection_pool_size=settings.neo4j_pool_max, connection_timeout=3,
        # Optional properties (sealed, counter_evidence) are absent on most edges by design.
        notifications_min_severity="OFF",
        # Retrying a dead server for the default 30 s would hold a request thread hostage; the
        # caller (recall's breaker, the client's retry of an ingest) decides what happens next.
        max_transaction_retry_time=2.0,
    )


def ping() -> None:
    driver().verify_connectivity()
