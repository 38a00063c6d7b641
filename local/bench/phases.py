"""Where a request's time goes: each store of ``Dependencies`` wrapped in a proxy that adds up
the wall time of its calls, by store and method (benchmarks only)."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engram.dependencies import Dependencies

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


# How each local server's processes are told apart (the start of the command line, or a class).
_SERVERS = (("opensearch", "org.opensearch.bootstrap.OpenSearch"), ("neo4j", "engram.local.EngramNeo4j"),
            ("postgres", "postgres"), ("redis", "redis-server"), ("localstack", "localstack.runtime.main"),
            ("lambda functions", "engram_lambda_executor/worker.py"))


def server_pids() -> dict[int, str]:
    """The local servers' processes, each with the server it belongs to."""
    pids = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        words = command.split()
        name = next((n for n, marker in _SERVERS if command.startswith(marker)
                     or any(w == marker or w.endswith("/" + marker) for w in words)), None)
        if name is not None:
            pids[int(pid)] = name
    return pids


def server_cpu_seconds() -> dict[str, float]:
    """CPU seconds (user + system) each local server has used so far, children reaped included
    (a closed PostgreSQL backend's time is its postmaster's). On a shared machine the stores'
    CPU is taken from the embedder's: this says how much a run left it."""
    tick = os.sysconf("SC_CLK_TCK")
    used: dict[str, float] = defaultdict(float)
    for pid, name in server_pids().items():
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used[name] += sum(int(x) for x in fields[11:15]) / tick
    return dict(used)


@contextlib.contextmanager
def stores_pinned(cpus: set[int]):
    """Every local server's threads on ``cpus`` and this process on the others, until the block
    ends (then all of them back on every CPU): a machine split as a deployment splits it, the
    stores on hosts of their own and the function on its vCPUs."""
    every = os.sched_getaffinity(0)
    ours = every - cpus
    if not cpus or not ours:
        raise SystemExit(f"cannot pin the stores to {sorted(cpus)} of CPUs {sorted(every)}")

    def pin(pid: int, where: set[int]) -> None:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(int(tid), where)

    servers = [pid for pid, name in server_pids().items() if name != "lambda functions"]
    try:
        for pid in servers:
            pin(pid, cpus)
        pin(os.getpid(), ours)
        yield sorted(ours)
    finally:
        for pid in [*servers, os.getpid()]:
            with contextlib.suppress(OSError):
                pin(pid, every)


def print_cpu(before: dict[str, float], after: dict[str, float], ours_s: float, wall_s: float, units: int,
              unit: str) -> dict[str, float]:
    """The CPU a run used, by process, per ``unit`` (ms), and as cores busy over its wall time."""
    spent = {name: after.get(name, 0.0) - before.get(name, 0.0) for name in after}
    spent = {"bench process": ours_s, **{n: s for n, s in sorted(spent.items(), key=lambda kv: -kv[1]) if s > 0}}
    total = sum(spent.values())
    print(f"CPU over the run ({wall_s:.1f} s wall, {os.cpu_count()} cores): {total:.1f} s, "
          f"{total / wall_s:.2f} cores busy on average")
    for name, seconds in spent.items():
        print(f"  {name:<16} {seconds:7.2f} s  {seconds / units * 1000:7.2f} ms/{unit}")
    return {name: round(seconds, 3) for name, seconds in spent.items()}
