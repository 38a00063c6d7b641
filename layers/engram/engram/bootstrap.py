"""The composition root: every store, client, cache, gateway and the runtime, built once per process.

``bootstrap()`` is what Lambda handlers, the FastAPI app, jobs and benchmarks call; it builds the
real adapters over one ``Clients`` (so one pool per server and exactly one key cache per process)
and one ``Runtime`` (thread pools, breaker, latencies, admission), and caches the result for the
life of the process (a warm Lambda reuses it). Nothing else constructs a store. Unit tests call
``build(...)`` with in-memory fakes instead.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache

from .config import Settings, get_settings
from .dependencies import DataHolders, Dependencies


def user_data_holders(deps: Dependencies) -> DataHolders:
    """Every holder of a user's data (``service.holders``): what erasure and its verify step,
    retroactive consent, export and the contract tests' wipe go through. A part that keeps anything
    per user is answered for here or ``tests/unit/test_data_holders.py`` fails; a new holder gets
    its branch in ``statemachines/erasure.asl.json``, where the same test holds the branches to
    this list, in its order. The erasure deletes in parallel; the order is the export document's
    (the user's state and rows first) and the take-back's (the archive, which rotates the key, last)."""
    from .service.holders import ArchiveHolder, EpisodeHolder, GraphHolder, RowHolder, SessionHolder

    return DataHolders(tuple(holder(deps) for holder in (RowHolder, SessionHolder, EpisodeHolder, GraphHolder,
                                                         ArchiveHolder)))


def build(settings: Settings | None = None, **overrides) -> Dependencies:
    """The real adapters for ``settings``; any part given in ``overrides`` is used instead."""
    from .adapters.aws.archive_erasure import ArchiveEraser
    from .adapters.aws.archive_store import ArchiveStore
    from .adapters.aws.emf_metrics import metrics_sink
    from .adapters.aws.export_store import S3ExportStore
    from .adapters.aws.link_secret import ConfiguredLinkSecret
    from .adapters.aws.workflows import EventBridgeAlerts, StepFunctionsGateway
    from .adapters.clients import Clients
    from .adapters.embedders.sentence_transformers import embedder_for
    from .adapters.llm import configured_extractor
    from .adapters.neo4j.profile_graph import ProfileGraph
    from .adapters.opensearch.episode_store import EpisodeStore
    from .adapters.postgres.archive_source import ArchiveSource
    from .adapters.postgres.audit_log import AuditLog
    from .adapters.postgres.erasure_store import ErasureStore
    from .adapters.postgres.idempotency import IdempotencyStore
    from .adapters.postgres.key_store import EnvelopeKeyStore, KmsKeyWrapper, PgWrappedKeys
    from .adapters.postgres.pattern_store import PatternStore
    from .adapters.postgres.pending_writes import PgPendingWrites
    from .adapters.postgres.task_store import TaskStore
    from .adapters.postgres.tenant_directory import TenantDirectory
    from .adapters.postgres.turn_log import TurnLog
    from .adapters.postgres.user_registry import UserRegistry
    from .adapters.postgres.write_fence import PgWriteFence
    from .adapters.redis.session_store import SessionStore
    from .runtime import Runtime
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
        "pending": lambda: PgPendingWrites(clients),
        "embedder": lambda: embedder_for(settings.embed_model, settings.embed_backend, settings.embed_onnx_dir),
        "workflows": lambda: StepFunctionsGateway(clients),
        "alerts": lambda: EventBridgeAlerts(clients, settings.alert_event_bus),
        "metrics": metrics_sink,
        "llm": lambda: configured_extractor(settings),
        "probes": clients.probes,
        "runtime": Runtime,
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
