"""Ingestion, defined once: clean -> extract -> cleanse -> route (``INGEST_CHAIN``).

Either runner executes it (``service.chain``): in-process, the API's default, or one Lambda per step
under the Express ``IngestStateMachine`` (statemachines/ingest.asl.json), each step's JSON output
the next one's input. The first step takes the ``IngestCommand``; every later one a batch that
names its owner, which is checked again when it arrives from JSON as the command's was.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from ...dependencies import Dependencies
from ...domain.codec import from_jsonable
from ...domain.ingest.sanitise import validate_id
from ...domain.privacy.consent import Permissions
from ...errors import Conflict
from ..chain import Chain, Step
from ..retroactive import take_back
from ..users import write_lease
from .command import IngestCommand
from .route import route
from .steps import ExtractedBatch, TurnBatch, clean, cleanse, extract


def _owned(batch_type: type) -> Callable[[dict], TurnBatch | ExtractedBatch]:
    def decode(event: dict) -> TurnBatch | ExtractedBatch:
        batch = from_jsonable(batch_type, event)
        validate_id(batch.scope.tenant, "tenant")
        validate_id(batch.scope.user_id, "user_id")
        return batch

    return decode


def _extract(deps: Dependencies, batch: TurnBatch) -> ExtractedBatch:
    return extract(batch, deps.llm, Permissions.of(deps.users.state(batch.scope)))


def _route(deps: Dependencies, batch: ExtractedBatch) -> dict:
    try:
        return route(batch, deps)
    finally:  # a write cut short may have written too: it is checked as well
        _take_back_if_withdrawn(deps, batch)


def _take_back_if_withdrawn(deps: Dependencies, batch: ExtractedBatch) -> None:
    """A consent withdrawn while this batch was written (the write step read the state before
    the change, and the change's own take_back ran before these writes landed) is applied now."""
    current = Permissions.of(deps.users.state(batch.scope))
    if not batch.permissions.withdrawn_in(current):
        return
    # Under a write lease, as any write: a user being erased (409) loses everything anyway. (The
    # lease may be the request's own, held since before this read: the state read here decides.)
    with contextlib.suppress(Conflict), write_lease(deps, batch.scope):
        take_back(deps, batch.scope, current, actor="ingest")


INGEST_CHAIN = Chain("ingest", (
    Step("clean", lambda _deps, command: clean(command), IngestCommand.from_json),
    Step("extract", _extract, _owned(TurnBatch)),
    Step("cleanse", lambda _deps, batch: cleanse(batch), _owned(ExtractedBatch)),
    Step("route", _route, _owned(ExtractedBatch)),
))
