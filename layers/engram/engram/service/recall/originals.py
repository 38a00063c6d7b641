"""The recall chain's last read: the verbatim turns behind the episodes found, when a question asks
for the exact words ("exactly", "原话"), from the turn log or, for days past the hot window, the
S3 archive."""

from __future__ import annotations

from ...dependencies import Dependencies
from ...domain.ingest.sanitise import format_timestamp as _iso
from ...domain.model import Scope
from ...domain.recall.fusion import RecallItem
from ..archival import original_turns
from ..privacy import reveal_turn


def read_originals(deps: Dependencies, scope: Scope, hits: list[RecallItem]) -> list[RecallItem]:
    """Verbatim originals behind the episodes found (asked for with "exactly", "原话", ...)."""
    wanted = [m for item in hits for m in item.provenance.get("message_ids", [])][:20]
    items = []
    # Turns older than the hot window come from the S3 archive (their chunks may be dropped),
    # the rest, and anything the archive cannot give, from the turn log.
    for turn in original_turns(deps, scope, hits, wanted) if wanted else []:
        turn = reveal_turn(deps.keys, scope, turn)
        if turn["content"] is None:
            continue
        items.append(RecallItem(
            memory_id=f"turn:{turn['message_id']}", layer="archive", type="original_turn",
            text=f"{turn['role']} said: {turn['content']}", confidence=1.0, decayed_confidence=1.0,
            trust_source="user", needs_confirmation=False, valid_from=_iso(turn["client_ts"]), valid_to=None,
            score=0.0, relevance=0.0,
            provenance={"message_ids": [turn["message_id"]], "session_id": turn["session_id"],
                        "device_id": turn["device_id"], "ts": _iso(turn["client_ts"])}))
    return items
