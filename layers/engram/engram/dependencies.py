"""What every use case is given: the ports, the settings, the process's runtime state and the registry
of what holds a user's data.

It sits beside ``ports`` (and below the service layer) so that a use case names its parts without
importing the composition root that builds them: ``bootstrap`` builds the real ones, the unit tests'
``tests.fakes.fake_deps`` the in-memory ones, and both hand over this same type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property

from . import ports
from .config import Settings
from .runtime import Runtime


@dataclass(frozen=True)
class DataHolders:
    """The registry: every holder once, in the erasure state machine's branch order, and every
    part of ``Dependencies`` answered for by one holder only. The holders themselves are the
    service layer's (``service.holders``); the composition root decides which are registered."""

    all: tuple[ports.UserDataHolder, ...]

    def __post_init__(self) -> None:
        names, parts = [h.name for h in self.all], [p for h in self.all for p in h.holds]
        twice = sorted({n for n in names if names.count(n) > 1}) + sorted({p for p in parts if parts.count(p) > 1})
        if twice:
            raise ValueError(f"registered twice: {', '.join(twice)}")

    def __iter__(self) -> Iterator[ports.UserDataHolder]:
        return iter(self.all)

    def __len__(self) -> int:
        return len(self.all)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(h.name for h in self.all)

    def get(self, name: object) -> ports.UserDataHolder | None:
        return next((h for h in self.all if h.name == name), None)

    def plus(self, *holders: ports.UserDataHolder) -> DataHolders:
        return DataHolders(self.all + holders)


# eq=False: two builds are two different sets of pools and caches; identity is what matters
# (and it keeps the object hashable, so per-process caches can key on it).
@dataclass(frozen=True, eq=False)
class Dependencies:
    settings: Settings
    sessions: ports.SessionStore
    episodes: ports.EpisodeStore
    tasks: ports.TaskStore
    graph: ports.ProfileGraph
    turns: ports.TurnLog
    audit: ports.AuditLog
    idempotency: ports.IdempotencyStore
    users: ports.UserRegistry
    fence: ports.WriteFence
    tenants: ports.TenantDirectory
    link_secret: ports.LinkSecret
    keys: ports.KeyStore
    erasure_jobs: ports.ErasureJobs
    archive: ports.ArchiveStore
    archive_source: ports.ArchiveSource
    archive_eraser: ports.ArchiveEraser
    exports: ports.ExportStore
    patterns: ports.PatternStore
    pending: ports.PendingWrites
    embedder: ports.Embedder
    workflows: ports.WorkflowGateway
    alerts: ports.AlertPublisher
    metrics: ports.MetricsSink
    # The process's own state (pools, breaker, latencies, admission, key cache): one per process
    # from the composition root, a fresh one per ``fake_deps``; ``with_`` copies share it.
    runtime: Runtime
    llm: ports.LlmExtractor | None = None
    probes: ports.Probes = field(default_factory=dict)
    # The real clients behind the adapters (None with fakes): migrations and health use them.
    clients: object | None = None
    # Builds ``holders`` over the parts above. The composition root gives its registry
    # (``bootstrap.user_data_holders``); a test may add a holder to it.
    holders_of: Callable[[Dependencies], DataHolders] | None = None

    @cached_property
    def holders(self) -> DataHolders:
        """What holds the user's data, over these very parts: a copy with a part swapped
        (``with_``) erases, exports and takes back through the swapped part."""
        if self.holders_of is None:
            raise TypeError("Dependencies without holders_of: build them with bootstrap.build or fake_deps")
        return self.holders_of(self)

    def with_(self, **overrides) -> Dependencies:
        """A copy with some parts swapped (a test's failing store, a benchmark's other embedder)."""
        return replace(self, **overrides)
