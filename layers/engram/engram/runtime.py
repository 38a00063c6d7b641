"""What a process learns and holds while it serves: thread pools, the recall breaker, measured step
latencies, the recall admission gate, warm-up state and the API key cache.

One ``Runtime`` per process, built by the composition root (``bootstrap.build``) beside the stores
and handed over as ``Dependencies.runtime``; a copy of the dependencies (``Dependencies.with_``)
shares it, as a swapped store shares the process it runs in. ``tests.fakes.fake_deps`` builds a
fresh one per call, so no test inherits another's open breaker or measured latencies. The
connection pools are not here: they belong to the ``Clients`` behind the adapters, one per
``Dependencies`` already.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

# Only a store error opens the breaker: while open the step is skipped, so a dead store costs one
# failure, not a thread per request stuck on a connect. A missed deadline never opens it: under
# load "slower" must not become "empty" for every other request (the late step degrades only the
# answer it was late for).
BREAKER_OPEN_S = 5.0


class CircuitBreaker:
    def __init__(self) -> None:
        self._open_until: dict[str, float] = {}
        self._lock = threading.Lock()

    def is_open(self, step: str) -> bool:
        return self._open_until.get(step, 0.0) > time.monotonic()

    def record(self, step: str, outcome: str) -> None:
        if outcome != "error":
            return
        with self._lock:
            self._open_until[step] = time.monotonic() + BREAKER_OPEN_S

    def reset(self) -> None:
        with self._lock:
            self._open_until.clear()


class StepLatency:
    """What each step has recently taken in this process (an exponentially weighted mean), so a
    configured deadline can stretch with measured load instead of cutting layers off.

    A step that has not run yet in this process gets the cold allowance: its first run opens
    pools and warms caches on a possibly busy machine, and failing the user's first question for
    it would tell them nothing was ever said. Past that, the deadline is twice the recent mean,
    never below the configured one and never above ``stretch`` times it."""

    WEIGHT = 0.2

    def __init__(self) -> None:
        self._mean: dict[str, float] = {}
        self._lock = threading.Lock()

    def observe(self, step: str, ms: float) -> None:
        with self._lock:
            mean = self._mean.get(step)
            self._mean[step] = ms if mean is None else (1 - self.WEIGHT) * mean + self.WEIGHT * ms

    def deadline(self, step: str, configured: float, stretch: float, cold_ms: float) -> float:
        mean = self._mean.get(step)
        if mean is None:
            return max(configured, cold_ms)
        return min(max(configured, 2 * mean), configured * stretch)

    def reset(self) -> None:
        with self._lock:
            self._mean.clear()


class FairAdmission:
    """At most ``size`` holders at once; the others get in first come, first served. A plain
    semaphore lets a thread that has just released take its slot straight back (barging): with 4
    clients over 2 slots, two clients kept both slots for a whole run of their questions while the
    other two waited half a second, which was the recall p95 under load. Here a release hands the
    slot to the oldest waiter."""

    def __init__(self, size: int) -> None:
        self._free = size
        self._waiting: deque[threading.Event] = deque()
        self._lock = threading.Lock()

    def __enter__(self) -> FairAdmission:
        with self._lock:
            if self._free and not self._waiting:
                self._free -= 1
                return self
            turn = threading.Event()
            self._waiting.append(turn)
        turn.wait()  # the releasing thread has passed its slot on to this one
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            if self._waiting:
                self._waiting.popleft().set()
            else:
                self._free += 1


# eq=False: two runtimes are two processes' worth of state; identity is what matters.
@dataclass(eq=False)
class Runtime:
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)
    latency: StepLatency = field(default_factory=StepLatency)
    # Monotonic time from which a warm-up may be tried again (inf once done), per warm-up key
    # (a model, or a store and the probe that reaches it).
    warmed: dict[Hashable, float] = field(default_factory=dict)
    # The tenant behind each API key, and until when that answer holds (``api.deps.tenant``).
    tenant_keys: dict[str, tuple[str, float]] = field(default_factory=dict)
    _pools: dict[str, ThreadPoolExecutor] = field(default_factory=dict, repr=False)
    _gates: dict[int, FairAdmission] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def pool(self, name: str, workers: int) -> ThreadPoolExecutor:
        """The thread pool called ``name`` (its threads' prefix), made on first use: a process
        that never runs a chain starts no threads for it."""
        return self._once(self._pools, name, lambda: ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name))

    def submit(self, pool: tuple[str, int], fn: Callable, *args: object) -> Future:
        """``fn(*args)`` on ``pool`` (its name and size), in a copy of the caller's context (one
        copy per task: a context cannot be entered by two threads at once)."""
        return self.pool(*pool).submit(contextvars.copy_context().run, fn, *args)

    def admission(self, size: int) -> FairAdmission:
        """The gate of ``size`` slots: every caller asking for the same size queues at the same gate."""
        return self._once(self._gates, size, lambda: FairAdmission(size))

    def _once(self, made: dict, key: Hashable, make: Callable[[], object]):
        found = made.get(key)
        if found is None:
            with self._lock:  # two first callers must not make two pools or two gates
                found = made.get(key)
                if found is None:
                    found = made[key] = make()
        return found
