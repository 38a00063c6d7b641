"""The composition root: every store, client, cache and gateway, built once per process.

``bootstrap()`` is what Lambda handlers, the FastAPI app, jobs and benchmarks call; it builds the
real adapters over one ``Clients`` (so one pool per server and exactly one key cache per process)
and caches the result for the life of the process (a warm Lambda reuses it). Nothing else
constructs a store. Unit tests call ``build(...)`` with in-memory fakes instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from functools import cache, cached_property
from typing import TYPE_CHECKING

from . import ports
from .config import Settings, get_settings

if TYPE_CHECKING:
    from .service.holders import DataHolders


def user_data_holders(deps: Dependencies) -> DataHolders:
    """Every holder of a user's data (``service.holders``): what erasure and its verify step,
    retroactive consent, export and the contract tests' wipe go through. A part that keeps anything
    per user is answered for here or ``tests/unit/test_data_holders.py`` fails; a new holder gets
    its branch in ``statemachines/erasure.asl.json``, where the same test holds the branches to
    this list, in its order. The erasure deletes in parallel; the order is the export document's
    (the user's state and rows first) and the take-back's (the archive, which rotates the key, last)."""
    from .service.holders import ArchiveHolder, DataHolders, EpisodeHolder, GraphHolder, RowHolder, SessionHolder

    return DataHolders(tuple(holder(deps) for holder in (RowHolder, SessionHolder, EpisodeHolder, GraphHolder,
                                                         ArchiveHolder)))


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
    embedder: ports.Embedder
    workflows: ports.WorkflowGateway
    alerts: ports.AlertPublisher
    metrics: ports.MetricsSink
    llm: ports.LlmExtractor | None = None
    probes: ports.Probes = field(default_factory=dict)
    # The real clients behind the adapters (None with fakes): migrations and health use them.
    clients: object | None = None
    # Builds ``holders`` over the parts above (a test may add a holder).
    holders_of: Callable[[Dependencies], DataHolders] = user_data_holders

    @cached_property
    def holders(self) -> DataHolders:
        """What holds the user's data, over these very parts: a copy with a part swapped
        (``with_``) erases, exports and takes back through the swapped part."""
        return self.holders_of(self)

    def with_(self, **overrides) -> Dependencies:
        """A copy with some parts swapped (a test's failing store, a benchmark's other embedder)."""
        return replace(self, **overrides)


def build(settings: Settings | None = None, **overrides) -> Dependencies:
    """The real adapters for ``settings``; any part given in ``overrides`` is used instead."""
    from .adapters.archive_erasure import ArchiveEraser
    from .adapters.archive_source import ArchiveSource
    from .adapters.archive_store import ArchiveStore
    from .adapters.audit_log import AuditLog
    from .adapters.clients import Clients
    from .adapters.embedder import embedder_for
    from .adapters.emf_metrics import metrics_sink
    from .adapters.episode_store import EpisodeStore
    from .adapters.erasure_store import ErasureStore
    from .adapters.export_store import S3ExportStore
    from .adapters.idempotency import IdempotencyStore
    from .adapters.key_store import EnvelopeKeyStore, KmsKeyWrapper, PgWrappedKeys
    from .adapters.link_secret import ConfiguredLinkSecret
    from .adapters.llm import configured_extractor
    from .adapters.pattern_store import PatternStore
    from .adapters.profile_graph import ProfileGraph
    from .adapters.session_store import SessionStore
    from .adapters.task_store import TaskStore
    from .adapters.tenant_directory import TenantDirectory
    from .adapters.turn_log import TurnLog
    from .adapters.user_registry import UserRegistry
    from .adapters.workflows import EventBridgeAlerts, StepFunctionsGateway
    from .adapters.write_fence import PgWriteFence
    from .service.archive_rows import archive_owner_ids

    settings = settings or get_settings()
    clients = overrides.pop("clients", None) or Clients(settings)
    makers = {
        "sessions": lambda: SessionStore(clients, settings),
        "episodes": lambda: EpisodeStore(clients, settings),
        "tasks": lambda: TaskStore(clients),
        "graph": lambda: ProfileGraph(clients),
        "turns": lambda: TurnLog(clients),
        "audit": lambda: AuditLog(clients),
        "idempotency": lambda: IdempotencyStore(clients),
        "users": lambda: UserRegistry(clients),
        "fence": lambda: PgWriteFence(clients),
        "tenants": lambda: TenantDirectory(clients),
        "link_secret": lambda: ConfiguredLinkSecret(clients, settings),
        "keys": lambda: EnvelopeKeyStore(PgWrappedKeys(clients), KmsKeyWrapper(clients),
                                         ttl_s=settings.key_cache_ttl_s, max_cached=settings.key_cache_max,
                                         recheck_s=settings.key_recheck_s),
        "erasure_jobs": lambda: ErasureStore(clients),
        "archive": lambda: ArchiveStore(clients, settings),
        "archive_source": lambda: ArchiveSource(clients),
        # ``parts`` is read when the saga asks, once every part is built: the one key store.
        "archive_eraser": lambda: ArchiveEraser(clients, settings,
                                                lambda scope: archive_owner_ids(parts["keys"], scope)),
        "exports": lambda: S3ExportStore(clients, settings),
        "patterns": lambda: PatternStore(clients),
        "embedder": lambda: embedder_for(settings.embed_model, settings.embed_backend, settings.embed_onnx_dir),
        "workflows": lambda: StepFunctionsGateway(clients),
        "alerts": lambda: EventBridgeAlerts(clients, settings.alert_event_bus),
        "metrics": metrics_sink,
        "llm": lambda: configured_extractor(settings),
        "probes": clients.probes,
    }
    unknown = set(overrides) - {f.name for f in fields(Dependencies)}
    if unknown:
        raise TypeError(f"unknown dependencies: {', '.join(sorted(unknown))}")
    parts = {name: overrides[name] if name in overrides else make() for name, make in makers.items()}
    return Dependencies(settings=settings, clients=clients, holders_of=overrides.get("holders_of", user_data_holders),
                        **parts)


@cache
def bootstrap() -> Dependencies:
    """The process's dependencies (built on first call, then shared)."""
    return build()
