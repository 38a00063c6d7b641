"""The catch-up: the writes a derived store missed (``derived``), applied once it answers again.

Per user and layer in the order they were said, each under the user's write lease (a user being
erased is skipped: the saga deletes their pending writes with their turns), each idempotent (the
writers are the ingest's own, which a retried request already relies on). A store that still does
not answer costs no attempt and is not tried again for the rest of the pass; the loop then sleeps
(``catch_up_poll_s``) instead of spinning. A write that fails while its store answers is retried
with growing waits and, after ``MAX_ATTEMPTS``, set aside as a dead letter (``replay`` puts it back).

On AWS the ``CatchUpFunction`` runs this every minute (EventBridge schedule, one at a time), for up
to ``catch_up_budget_s``; locally the same Lambda runs on LocalStack.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime

from ...dependencies import Dependencies
from ...domain.ingest.pending import Layer, is_dead, outlived, retry_after
from ...domain.model import Scope
from ...domain.recall import metrics
from ...errors import Conflict, KeyDestroyed, StoreUnavailable
from ..users import write_lease
from .derived import Derivation, pending_batch
from .route import WRITERS

logger = logging.getLogger(__name__)
_DUE_PER_READ = 200
_HOLD_S = 120.0  # a claim outlives any one batch's writes; a run that died lets go when it ends
_LAYERS = tuple(layer.value for layer in Layer)


def catch_up(deps: Dependencies, budget_s: float | None = None) -> dict:
    """Apply what is due until nothing is pending or ``budget_s`` has passed; the counts by outcome."""
    settings = deps.settings
    stop_at = time.monotonic() + (settings.catch_up_budget_s if budget_s is None else budget_s)
    outcomes: Counter[str] = Counter()
    while True:
        now = datetime.now(UTC)
        down: set[str] = set()
        progressed = False
        for row in deps.pending.due(now, _DUE_PER_READ, _LAYERS):
            if time.monotonic() >= stop_at:
                break
            if row["layer"] in down or not deps.pending.claim(row["seq"], _HOLD_S):
                continue  # its store is away, or another run is applying this user's layer
            outcome = _apply(deps, row, now)
            outcomes[outcome] += 1
            if outcome == "store_down":
                down.add(row["layer"])
            progressed |= outcome in ("applied", "expired")
        if time.monotonic() >= stop_at or not _anything_pending(deps):
            break
        if not progressed:  # waiting for a store, or for a retry's time: sleep, never spin
            time.sleep(min(settings.catch_up_poll_s, max(stop_at - time.monotonic(), 0)))
    record_backlog(deps)
    return dict(outcomes)


def _anything_pending(deps: Dependencies) -> bool:
    return any(stats["pending"] for layer, stats in deps.pending.stats().items() if layer in _LAYERS)


def _apply(deps: Dependencies, row: dict, now: datetime) -> str:
    layer, scope = Layer(row["layer"]), Scope(row["tenant"], row["user_id"])
    try:
        with write_lease(deps, scope) as state:
            batch = pending_batch(deps, row)
            # What the layer would already have let go is not written late (``outlived``).
            kept = tuple(i for i in batch.items if not outlived(layer, i.turn.client_ts, now,
                                                                deps.settings.session_ttl_s))
            if not kept:
                deps.pending.done(row["seq"])
                return "expired"
            batch = replace(batch, items=kept)
            _, audit = WRITERS[layer](deps, Derivation(batch, state))
            if audit:
                deps.audit.append(scope, audit)
            deps.pending.done(row["seq"])
            return "applied"
    except Conflict:
        return "erasing"  # the saga deletes this write with the rest of the user
    except KeyDestroyed:
        # Its batch was sealed under a data key since destroyed (child mode switched on, which
        # rotates the key: what the child said before is unreadable by design). Nothing can be
        # written from it, and nothing should be.
        deps.pending.done(row["seq"])
        return "unreadable"
    except StoreUnavailable as exc:
        # Its store (or the lease's) is still away: no attempt spent, tried again next pass.
        with contextlib.suppress(StoreUnavailable):
            deps.pending.postpone(row["seq"], now, str(exc), attempted=False, dead=False)
        return "store_down"
    except Exception as exc:  # noqa: BLE001 - any other failure is this write's own: counted, then set aside
        attempts = row["attempts"] + 1
        logger.exception("catch-up: %s write %s failed (attempt %d)", layer.value, row["seq"], attempts)
        deps.pending.postpone(row["seq"], now + retry_after(attempts), f"{type(exc).__name__}: {exc}",
                              attempted=True, dead=is_dead(attempts))
        return "dead" if is_dead(attempts) else "failed"


def record_backlog(deps: Dependencies) -> dict[str, dict]:
    """Pending count, dead letters and oldest age per layer, as metrics (the alarm's input)."""
    stats = deps.pending.stats()
    deps.metrics.record(metrics.backlog(stats))
    return stats


def replay(deps: Dependencies, seqs: list[int] | None = None) -> int:
    """Put dead letters back in line (all of them when ``seqs`` is None)."""
    if seqs is None:
        seqs = [row["seq"] for row in deps.pending.dead_letters(10_000)]
    return deps.pending.replay(seqs)
