"""The archive's pure rules: which shard a user is in, where a day's objects live, what a row's
identity is, and whether what was read back matches the manifest.

Layout (Hive partitions, so pyarrow datasets prune by directory):
  ``archive/{kind}/year=YYYY/month=MM/day=DD/shard=S/part-N.parquet``
  ``archive/manifests/manifest-YYYY-MM-DD.json``
Keys are a function of (kind, day, shard, part) only, never of the run: a re-run finds what an
earlier run wrote instead of writing beside it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import NamedTuple

from ..keys import encode_parts
from ..privacy.crypto import DataKey

KINDS = ("turns", "events", "tasks")
ROOT = "archive"
_PART = re.compile(r"/part-(\d+)\.parquet$")
_ANY_PART = re.compile(r"/part-[^/]+\.parquet$")


def shard_of(tenant: str, user_id: str, shards: int) -> int:
    """A stable shard (Python's ``hash`` is salted per process, so it is not used). Postgres
    computes the same value in SQL (see ``adapters.postgres.archive_source``).

    Many users share a shard by design, so ``tenant:user`` being ambiguous costs nothing here:
    every read of a shard (archived turns, the erasure's object scan) filters on the exact
    ``tenant`` and ``user_id`` columns. It is kept as it is because objects already archived
    under Object Lock are found by it."""
    digest = hashlib.md5(f"{tenant}:{user_id}".encode(), usedforsecurity=False).hexdigest()
    return int(digest[:8], 16) % shards


def parse_day(value: str | date) -> date:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        from ...errors import ValidationFailed
        raise ValidationFailed(f"day must be YYYY-MM-DD, got {value!r}", field="day") from None


def day_bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time(0), tzinfo=UTC)
    return start, start + timedelta(days=1)


def days_between(first: date, last: date) -> list[date]:
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def partition_dir(kind: str, day: date, shard: int) -> str:
    return f"{ROOT}/{kind}/year={day.year:04d}/month={day.month:02d}/day={day.day:02d}/shard={shard}"


def object_key(kind: str, day: date, shard: int, part: int) -> str:
    return f"{partition_dir(kind, day, shard)}/part-{part}.parquet"


def is_part(key: str, shard: int | None = None) -> bool:
    """Whether ``key`` is an archived part (of ``shard``, when given), by the layout above."""
    return (key.startswith(f"{ROOT}/") and _ANY_PART.search(key) is not None
            and (shard is None or f"/shard={shard}/" in key))


def part_number(key: str) -> int:
    found = _PART.search(key)
    return int(found.group(1)) if found else -1


def next_part_key(kind: str, day: date, shard: int, existing: list[str]) -> str:
    """The key of the part after ``existing`` (a shard's parts of the day)."""
    return object_key(kind, day, shard, max((part_number(k) for k in existing), default=-1) + 1)


def manifest_key(day: date) -> str:
    return f"{ROOT}/manifests/manifest-{day.isoformat()}.json"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- row identity: what "already archived" means per kind ----------------------------------------
# Turns and task changes are immutable rows. An event is a document that changes (merges fold in
# message ids, raise confidence); its identity is its id plus a hash of its content, so a changed
# event is archived again as a new snapshot while flags (evicted, archived), weights and
# bookkeeping times, which the forgetting job changes daily, do not make a new snapshot.
_EVENT_VOLATILE = {"evicted", "archived", "weight", "updated_at", "row_key", "vector", "_score"}


def event_row_key(doc: dict) -> str:
    stable = {k: v for k, v in doc.items() if k not in _EVENT_VOLATILE}
    return f"{doc['event_id']}:{sha256_hex(json.dumps(stable, sort_keys=True, default=str).encode())[:16]}"


def turn_row_key(row: dict) -> str:
    # Encoded parts (domain.keys): ids may contain ':', and a row key one user's row shared with
    # another's would keep the second from ever being archived.
    return encode_parts(row["tenant"], row["user_id"], row["message_id"], _ts(row["client_ts"]))


def task_row_key(row: dict) -> str:
    return encode_parts(row["tenant"], row["user_id"], row["task_id"], row["status"], _ts(row["ts"]))


def _ts(value) -> str:
    return value.astimezone(UTC).isoformat() if isinstance(value, datetime) else str(value)


class Held(NamedTuple):
    """A live row (owner and row key) and the archived object version (key, SHA-256) holding it."""

    tenant: str
    user_id: str
    row_key: str
    key: str
    sha256: str


class LiveRow(NamedTuple):
    kind: str
    tenant: str
    user_id: str
    row_key: str


# -- pseudonyms: what a sealed archive holds instead of the ids that name a user -------------------
# HMAC-SHA-256 under the user's data key: stable for as long as the key lives (the shard writer
# recognises its own rows, the reader and the eraser find the user's), meaningless without it, and
# unlinkable for good once it is shredded. Event and task ids are pseudonymised too: both are
# SHA-256 of (tenant, user, message id), and message ids stay in clear, so trying candidate user
# ids against them would name the user. '#' is outside every valid id (domain.ingest.sanitise.ID_PATTERN):
# no user id, archived in clear before pseudonyms or with sealing off, can equal a pseudonym.
_PSEUDONYM = {"user": "#u:", "row": "#r:", "event": "#e:", "task": "#t:"}


def pseudonym(key: DataKey, what: str, value: str) -> str:
    digest = hmac.new(key.key, f"archive:{what}\x1f{value}".encode(), hashlib.sha256).hexdigest()[:32]
    return _PSEUDONYM[what] + digest


def user_pseudonym(key: DataKey, tenant: str, user_id: str) -> str:
    return pseudonym(key, "user", encode_parts(tenant, user_id))


# Sealed event types are padded to one width: AES-GCM keeps the plaintext's length, and "health" is
# the only six-letter type.
TYPE_WIDTH = 16


def pad_type(value: str) -> str:
    return value.ljust(TYPE_WIDTH)


def unpad_type(value: str) -> str:
    return value.rstrip(" ")


# -- manifests and verification ------------------------------------------------------------------

@dataclass(frozen=True)
class ArchivedObject:
    key: str
    sha256: str
    rows: int
    kind: str
    shard: int

    def as_dict(self) -> dict:
        return {"key": self.key, "sha256": self.sha256, "rows": self.rows, "kind": self.kind, "shard": self.shard}


def build_manifest(day: date, shards: int, objects: list[dict]) -> dict:
    """The day's manifest. Deterministic (sorted, no run timestamps): the same archive gives the
    same bytes, so a re-run recognises the manifest it would write as the one already there."""
    ordered = sorted(objects, key=lambda o: o["key"])
    totals = {kind: sum(o["rows"] for o in ordered if o["kind"] == kind) for kind in KINDS}
    return {"day": day.isoformat(), "shards": shards, "format": "parquet+zstd", "objects": ordered,
            "rows": totals}


def manifest_bytes(manifest: dict) -> bytes:
    return json.dumps(manifest, sort_keys=True, indent=1).encode()


def verification_failures(expected: dict, observed: dict | None) -> list[str]:
    """What is wrong with one object as read back (empty when it matches its manifest entry)."""
    if observed is None:
        return [f"{expected['key']}: missing"]
    problems = []
    if observed.get("error"):
        problems.append(f"{expected['key']}: unreadable ({observed['error']})")
    if observed.get("sha256") != expected["sha256"]:
        problems.append(f"{expected['key']}: sha256 {observed.get('sha256')} != manifest {expected['sha256']}")
    if observed.get("rows") is not None and observed["rows"] != expected["rows"]:
        problems.append(f"{expected['key']}: {observed['rows']} rows != manifest {expected['rows']}")
    return problems
