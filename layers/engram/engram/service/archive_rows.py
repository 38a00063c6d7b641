"""What the archive holds of a live row, and how the two are known to be the same row.

A sealed archive (``ENGRAM_ARCHIVE_SEAL``, the default) keeps, under the user's data key:

* sealed (``eg1:``): turn content, event summary/text/context/keywords, task metadata, the content
  hashes (``content_sha256``, ``raw_sha256``: in clear, a hash confirms a guessed sentence even after
  the shred) and the event type (padded to one width: in clear, or by its length, it says "health");
* keyed pseudonyms (``domain.lifecycle.archive.pseudonym``): ``user_id``, ``event_id`` and ``task_id`` (both
  digests of the user id and a message id, which stays in clear) and ``row_key``;
* ``sensitive`` is true on every row: the flag would single out the health and relation rows, and
  in a sealed archive every row's content is sealed anyway.

With sealing off the archive is in clear and says so (``sealed`` false). Either way a row's identity
(``Protected.identity``, the live row's ``*_row_key``) is what ``archive_rows`` records, so
retention compares hot rows with the archive without any user's key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime

from ..dependencies import Dependencies
from ..domain.ingest.sanitise import format_timestamp
from ..domain.lifecycle.archive import (
    day_bounds,
    event_row_key,
    pad_type,
    pseudonym,
    shard_of,
    task_row_key,
    turn_row_key,
    user_pseudonym,
)
from ..domain.model import Scope
from ..domain.privacy import crypto
from ..domain.privacy.crypto import DataKey
from ..errors import Conflict
from ..ports import KeyStore
from .privacy import EPISODE_FIELDS, TURN

# What a sealed value is bound to besides its owner (crypto.associated_data's purpose). Values
# already sealed at ingestion are copied as they are, so their purposes are the ingestion's own:
# turn content the turn log's, a sensitive event's text, summary and context the episode's
# (privacy.EPISODE_FIELDS; its keywords arrive as one sealed token), and one reader opens both.
PURPOSE = {"content": TURN, "content_sha256": "archive:turn.content_sha256", **EPISODE_FIELDS,
           "keywords": "archive:event.keywords", "type": "archive:event.type", "raw_sha256": "archive:event.raw_sha256",
           "metadata": "archive:task.metadata"}


@dataclass(frozen=True)
class Protected:
    owner: Scope
    identity: str   # the live row's key: what archive_rows records and retention compares
    row: dict       # the archive's form of the row (adapters.aws.parquet.SCHEMAS[kind])


def archive_owner_ids(keys: KeyStore, scope: Scope) -> set[str]:
    """What the archive's ``user_id`` column holds for the user: their pseudonym while they have a
    data key (no key is made here: a user without one has no sealed rows), and their id itself,
    for rows archived with sealing off or before pseudonyms."""
    ids = {scope.user_id}
    if (key := keys.existing_key(scope)) is not None:
        ids.add(user_pseudonym(key, scope.tenant, scope.user_id))
    return ids


def _sealer(key: DataKey, row: dict):
    def seal(column: str, value: str | None) -> str | None:
        if value is None or value == "" or crypto.is_sealed(value):
            return value
        return crypto.seal_text(key, value, crypto.associated_data(row["tenant"], row["user_id"], PURPOSE[column]))
    return seal


def _owner(key: DataKey, row: dict, identity: str) -> dict:
    return {"user_id": user_pseudonym(key, row["tenant"], row["user_id"]), "row_key": pseudonym(key, "row", identity),
            "sealed": True}


def _turn(row: dict, key: DataKey | None) -> dict:
    identity = turn_row_key(row)
    if key is None:
        return {**row, "row_key": identity, "sealed": False}
    seal = _sealer(key, row)
    return {**row, "content": seal("content", row["content"]),
            "content_sha256": seal("content_sha256", row["content_sha256"]), **_owner(key, row, identity)}


def _task(row: dict, key: DataKey | None) -> dict:
    identity, metadata = task_row_key(row), json.dumps(row["metadata"], sort_keys=True, ensure_ascii=False)
    if key is None:
        return {**row, "metadata": metadata, "row_key": identity, "sealed": False}
    return {**row, "task_id": pseudonym(key, "task", row["task_id"]),
            "metadata": _sealer(key, row)("metadata", metadata), **_owner(key, row, identity)}


def parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def _event(doc: dict, key: DataKey | None) -> dict:
    identity = event_row_key(doc)
    row = {"tenant": doc["tenant"], "user_id": doc["user_id"], "event_id": doc["event_id"], "type": doc["type"],
           "summary": doc.get("summary"), "text": doc.get("text"), "context": doc.get("context"),
           "keywords": list(doc.get("keywords") or []), "raw_sha256": doc.get("raw_sha256"),
           "message_ids": list(doc.get("message_ids") or []), "session_id": doc.get("session_id"),
           "device_id": doc.get("device_id"), "ts": parse_time(doc["ts"]),
           "occurred_at": parse_time(doc.get("occurred_at")),
           "confidence": float(doc.get("confidence", 0.0)), "trust_source": doc.get("trust_source") or "rule",
           "weight": float(doc.get("weight", 1.0)), "tags": list(doc.get("tags") or []),
           "sensitive": bool(doc.get("sensitive")), "evicted": bool(doc.get("evicted")),
           "archived": bool(doc.get("archived")), "merged_count": int(doc.get("merged_count") or 1)}
    if key is None:
        return {**row, "row_key": identity, "sealed": False}
    seal = _sealer(key, row)
    return {**row, "event_id": pseudonym(key, "event", doc["event_id"]), "type": seal("type", pad_type(doc["type"])),
            **{c: seal(c, row[c]) for c in ("summary", "text", "context", "raw_sha256")},
            "keywords": [seal("keywords", k) for k in row["keywords"]], "sensitive": True,
            **_owner(key, row, identity)}


def _events(deps: Dependencies, day: date, shard: int, shards: int) -> list[dict]:
    start, end = (format_timestamp(t) for t in day_bounds(day))
    docs = [d for d in deps.episodes.events_between(start, end) if shard_of(d["tenant"], d["user_id"], shards) == shard]
    return sorted(docs, key=lambda d: (d["tenant"], d["user_id"], d["ts"], d["event_id"]))


_LIVE = {"turns": lambda deps, *at: deps.archive_source.turns(*at),
         "tasks": lambda deps, *at: deps.archive_source.task_changes(*at), "events": _events}
_FORM = {"turns": (_turn, turn_row_key), "tasks": (_task, task_row_key), "events": (_event, event_row_key)}


def protected_rows(deps: Dependencies, kind: str, day: date, shard: int, shards: int,
                   skip: set[Scope]) -> tuple[list[Protected], set[Scope]]:
    """The shard's live rows of ``kind`` of the day in the archive's form, and whose rows were
    left out: the users in ``skip`` (being erased), whose keys are never asked for, and those whose
    key the key store refused (their erasure began during the run: it raises Conflict)."""
    keys = deps.keys if deps.settings.archive_seal else None
    build, identity = _FORM[kind]
    made: dict[Scope, DataKey | None] = {}
    out, left_out = [], set()
    for row in _LIVE[kind](deps, day, shard, shards):
        scope = Scope(row["tenant"], row["user_id"])
        if scope in skip or scope in left_out:
            left_out.add(scope)
            continue
        if scope not in made:
            try:
                made[scope] = keys.data_key(scope) if keys is not None else None
            except Conflict:  # the key store makes no key for a user being erased
                left_out.add(scope)
                continue
        out.append(Protected(scope, identity(row), build(row, made[scope])))
    return out, left_out
