"""Health of every store, probed concurrently so one slow store costs one timeout, not five."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, wait

from .. import __version__
from ..adapters import aws, neo4j_graph, opensearch_index, postgres, redis_store
from ..config import get_settings

PROBES = {
    "redis": redis_store.ping,
    "postgres": postgres.ping,
    "neo4j": neo4j_graph.ping,
    "opensearch": opensearch_index.ping,
    "s3": aws.ping_archive,
}


def check_stores() -> dict:
    timeout = get_settings().health_timeout_s
    pool = ThreadPoolExecutor(max_workers=len(PROBES))
    futures = {name: pool.submit(probe) for name, probe in PROBES.items()}
    wait(futures.values(), timeout=timeout + 1)
    pool.shutdown(wait=False, cancel_futures=True)
    stores = {
        name: "ok" if fut.done() and fut.exception() is None else "down" for name, fut in futures.items()
    }
    status = "ok" if all(s == "ok" for s in stores.values()) else "degraded"
    return {"status": status, "stores": stores, "version": __version__}
