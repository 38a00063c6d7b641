"""In-memory fakes of every port in ``engram.ports``, and ``fake_deps`` to compose them.

Each fake answers as its real adapter does in every way the service layer can observe;
``tests/contract`` runs the same tests over both (``tests/unit/test_fake_contracts.py`` over these,
``tests/integration/test_adapter_contracts.py`` over the real stores), so a fake cannot drift.
No fake opens a connection: ``fake_deps()`` works with no server at all.
"""

from __future__ import annotations

from dataclasses import fields

from engram.bootstrap import user_data_holders
from engram.config import Settings
from engram.dependencies import Dependencies
from engram.runtime import Runtime
from engram.service.archive_rows import archive_owner_ids

from .archive import InMemoryArchiveEraser, InMemoryArchiveSource, InMemoryArchiveStore
from .episodes import InMemoryEpisodeStore
from .erasure import InMemoryErasureJobs
from .exports import InMemoryExportStore
from .fence import InMemoryWriteFence
from .gateways import HashingEmbedder, RecordingAlerts, RecordingLlm, RecordingMetrics, RecordingWorkflows
from .graph import InMemoryProfileGraph
from .keys import FakeKms, InMemoryWrappedKeys, StaticLinkSecret, fake_keys
from .relational import (
    InMemoryAuditLog,
    InMemoryIdempotencyStore,
    InMemoryPatternStore,
    InMemoryPendingWrites,
    InMemoryTenantDirectory,
    InMemoryTurnLog,
    InMemoryUserRegistry,
)
from .sessions import InMemorySessionStore
from .tasks import InMemoryTaskStore

PROBED = ("redis", "postgres", "neo4j", "opensearch", "s3")


def _no_op() -> None:
    return None


def fake_deps(settings: Settings | None = None, **overrides) -> Dependencies:
    """A complete ``Dependencies`` of fakes; any part given in ``overrides`` is used instead.

    The stores that read other stores' data (erasure jobs, archive source and eraser, the key
    store) are built over the final parts, so an overridden turn log is the one erasure deletes
    from. ``wrapped_keys`` and ``kms`` may be given too (they are not parts of Dependencies)."""
    settings = settings or Settings()
    wrapped, kms = overrides.pop("wrapped_keys", None) or InMemoryWrappedKeys(), overrides.pop("kms", None) or FakeKms()
    unknown = set(overrides) - {f.name for f in fields(Dependencies)}
    if unknown:
        raise TypeError(f"unknown dependencies: {', '.join(sorted(unknown))}")
    base = {
        "sessions": lambda: InMemorySessionStore(settings), "episodes": InMemoryEpisodeStore,
        "tasks": InMemoryTaskStore, "graph": InMemoryProfileGraph, "turns": InMemoryTurnLog,
        "audit": InMemoryAuditLog, "idempotency": InMemoryIdempotencyStore, "users": InMemoryUserRegistry,
        "tenants": InMemoryTenantDirectory, "link_secret": StaticLinkSecret,
        "archive": lambda: InMemoryArchiveStore(settings),
        "exports": lambda: InMemoryExportStore(settings),
        "patterns": InMemoryPatternStore, "pending": InMemoryPendingWrites, "embedder": HashingEmbedder,
        "workflows": RecordingWorkflows,
        "alerts": RecordingAlerts, "metrics": RecordingMetrics,
    }
    parts = {name: overrides[name] if name in overrides else make() for name, make in base.items()}
    # The fence reads the registry's erasing flag; the stores below read the parts above.
    parts["fence"] = overrides["fence"] if "fence" in overrides else InMemoryWriteFence(parts["users"])
    wrapped.erasing = lambda scope: parts["users"].state(scope).erasing
    parts["archive_source"] = (overrides["archive_source"] if "archive_source" in overrides
                               else InMemoryArchiveSource(parts["turns"], parts["tasks"]))
    derived = {
        "keys": lambda: fake_keys(settings, wrapped, kms),
        "erasure_jobs": lambda: InMemoryErasureJobs(turns=parts["turns"], tasks=parts["tasks"], audit=parts["audit"],
                                                    users=parts["users"], patterns=parts["patterns"],
                                                    idempotency=parts["idempotency"], fence=parts["fence"],
                                                    pending=parts["pending"],
                                                    archive_rows=parts["archive_source"],
                                                    wrapped_keys=wrapped),
        # The key store is looked up when the saga asks: the final one, as in bootstrap.build.
        "archive_eraser": lambda: InMemoryArchiveEraser(parts["archive"],
                                                        lambda scope: archive_owner_ids(parts["keys"], scope)),
        "probes": lambda: dict.fromkeys(PROBED, _no_op),
        # Fresh per call: no test inherits another's open breaker, latencies or queued recalls.
        "runtime": Runtime,
    }
    parts |= {name: overrides[name] if name in overrides else make() for name, make in derived.items()}
    given = {name: overrides[name] for name in ("llm", "clients") if name in overrides}
    # The composition root's own registry of holders, so erasure and export on fakes go through it.
    return Dependencies(settings=settings, holders_of=overrides.get("holders_of", user_data_holders), **given, **parts)


__all__ = [
    "FakeKms", "HashingEmbedder", "InMemoryArchiveEraser", "InMemoryArchiveSource", "InMemoryArchiveStore",
    "InMemoryAuditLog", "InMemoryEpisodeStore", "InMemoryErasureJobs", "InMemoryExportStore",
    "InMemoryIdempotencyStore",
    "InMemoryPatternStore", "InMemoryPendingWrites", "InMemoryProfileGraph", "InMemorySessionStore",
    "InMemoryTaskStore",
    "InMemoryTenantDirectory", "InMemoryTurnLog", "InMemoryUserRegistry", "InMemoryWrappedKeys", "InMemoryWriteFence",
    "RecordingAlerts", "RecordingLlm", "RecordingMetrics", "RecordingWorkflows", "StaticLinkSecret", "fake_deps",
    "fake_keys",
]
