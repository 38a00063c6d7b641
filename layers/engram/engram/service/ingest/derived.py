"""The layers derived from the turn log (``domain.ingest.pending.Layer``): each is written at ingest when
its store answers, and otherwise recorded as pending, to be written later by ``catch_up`` with the
same writer. A layer that already has writes pending for the user takes the new one behind them,
so the catch-up applies a user's batches in the order they were said ("we moved to Lyon" never
before "I live in Paris")."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass

from ...dependencies import Dependencies
from ...domain.codec import from_jsonable, to_jsonable
from ...domain.ingest.pending import Layer
from ...domain.keys import digest_parts
from ...domain.model import Scope
from ...domain.records import AuditEntry, UserState
from ...errors import StoreUnavailable
from .steps import ExtractedBatch

logger = logging.getLogger(__name__)
PAYLOAD = "pending-write"  # the sealing purpose of a pending batch (bound into its ciphertext)

Writer = Callable[[Dependencies, "Derivation"], tuple[list[dict], list[AuditEntry]]]


@dataclass(frozen=True)
class Derivation:
    """One batch as the derived writes take it: the user's state when they run (consent and child
    mode apply as they are then), the messages new to the turn log (a retry's others may have been
    written already), and the layers already behind."""

    batch: ExtractedBatch
    state: UserState
    new_ids: frozenset[str] = frozenset()
    behind: frozenset[str] = frozenset()


def has_work(layer: Layer, batch: ExtractedBatch) -> bool:
    if layer is Layer.WORKING_MEMORY:
        return bool(batch.items)
    if layer is Layer.EPISODES:
        return any(item.event is not None for item in batch.items)
    return any(f.is_fact for item in batch.items if item.event is not None for f in item.facts)


def derive(deps: Dependencies, layer: Layer, derivation: Derivation,
           write: Writer) -> tuple[list[dict], list[AuditEntry], list[str]]:
    """Write ``layer`` now, or record it as pending: ``(extracted, audit, [layer] if pending)``."""
    if not has_work(layer, derivation.batch):
        return [], [], []
    if layer.value not in derivation.behind:
        try:
            return *write(deps, derivation), []
        except StoreUnavailable as exc:
            logger.warning("ingest: %s unavailable, write recorded as pending: %s", layer.value, exc)
    defer(deps, layer, derivation.batch)
    return [], [], [layer.value]


def batch_key(batch: ExtractedBatch) -> str:
    """The same batch (a retried request) is one pending write, never two."""
    return digest_parts(batch.session_id, batch.device_id, *sorted(i.turn.message_id for i in batch.items))[:32]


def defer(deps: Dependencies, layer: Layer, batch: ExtractedBatch) -> None:
    # Sealed under the user's data key: the erasure's shredding covers any copy the saga misses.
    payload = deps.keys.seal_bytes(batch.scope, json.dumps(to_jsonable(batch)).encode(), PAYLOAD)
    deps.pending.add(batch.scope, layer.value, batch_key(batch), [i.turn.message_id for i in batch.items],
                     min(i.turn.client_ts for i in batch.items), payload)


def pending_batch(deps: Dependencies, row: dict) -> ExtractedBatch:
    scope = Scope(row["tenant"], row["user_id"])
    batch = from_jsonable(ExtractedBatch, json.loads(deps.keys.open_bytes(scope, row["payload"], PAYLOAD)))
    if batch.scope != scope:
        raise ValueError("a pending write's batch names another owner than its row")
    return batch
