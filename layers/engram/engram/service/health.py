"""Health of every store, probed concurrently so one slow store costs one timeout, not five."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, wait

from .. import __version__
from ..dependencies import Dependencies
from ..domain.ingest.pending import Layer
from ..errors import StoreUnavailable


def check_stores(deps: Dependencies) -> dict:
    probes = deps.probes
    pool = ThreadPoolExecutor(max_workers=max(len(probes), 1))
    futures = {name: pool.submit(probe) for name, probe in probes.items()}
    wait(futures.values(), timeout=deps.settings.health_timeout_s + 1)
    pool.shutdown(wait=False, cancel_futures=True)
    stores = {name: "ok" if fut.done() and fut.exception() is None else "down" for name, fut in futures.items()}
    status = "ok" if all(s == "ok" for s in stores.values()) else "degraded"
    return {"status": status, "stores": stores, "version": __version__, "embedder": deps.embedder.name,
            "pending": _pending(deps) if stores.get("postgres") == "ok" else {}}


def _pending(deps: Dependencies) -> dict[str, dict]:
    """Per derived layer: writes waiting for the catch-up, dead letters, and the oldest's age in
    seconds (every layer listed, zero when nothing waits)."""
    try:
        stats = deps.pending.stats()
    except StoreUnavailable:
        return {}
    return {layer.value: {"pending": 0, "dead": 0, "oldest_s": 0.0} | stats.get(layer.value, {}) for layer in Layer}
