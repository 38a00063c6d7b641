"""Where a request's time goes: each store of ``Dependencies`` wrapped in a proxy that adds up
the wall time of its calls, by store and method (benchmarks only)."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engram.bootstrap import Dependencies

# The parts a write request reaches; the key store's own KMS and wrapped-key calls are inside
# ``keys`` (the cache makes them rare after the first request of a user).
TIMED_PARTS = ("sessions", "episodes", "tasks", "graph", "turns", "audit", "idempotency", "users", "fence",
               "tenants", "keys", "embedder")


class Tally:
    """Seconds and calls per ``part.method``; thread-safe (the write step runs stores in parallel)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def add(self, name: str, seconds: float) -> None:
        with self._lock:
            self.seconds[name] += seconds
            self.calls[name] += 1

    def part_seconds(self, part: str) -> float:
        return sum(s for name, s in self.seconds.items() if name.split(".")[0] == part)

    def rows(self) -> list[tuple[str, float, int]]:
        return sorted(((n, s, self.calls[n]) for n, s in self.seconds.items()), key=lambda r: -r[1])


class Timed:
    """``inner`` with every public method call's wall time added to ``tally`` as ``name.method``."""

    def __init__(self, inner: object, name: str, tally: Tally) -> None:
        self._inner, self._name, self._tally = inner, name, tally

    def __getattr__(self, attr: str):
        value = getattr(self._inner, attr)
        if attr.startswith("_") or not callable(value):
            return value

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return value(*args, **kwargs)
            finally:
                self._tally.add(f"{self._name}.{attr}", time.perf_counter() - start)

        return timed


def timed_deps(deps: Dependencies, tally: Tally) -> Dependencies:
    return deps.with_(**{part: Timed(getattr(deps, part), part, tally) for part in TIMED_PARTS})


def print_breakdown(tally: Tally, total_s: float, requests: int, top: int = 25) -> None:
    print(f"per-phase breakdown ({requests} requests; calls overlap when the write step runs them in parallel):")
    for name, seconds, calls in tally.rows()[:top]:
        print(f"  {name:<32} {seconds:7.2f} s {seconds / total_s:5.0%}  {calls:6d} calls "
              f"{seconds / calls * 1000:8.2f} ms/call  {calls / requests:5.1f}/request")
