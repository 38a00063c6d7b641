"""Nightly archival: plan -> archive each shard -> manifest -> verify (-> retention).

Each step is one function called by one Lambda (functions/archive/app.py) and chained by
statemachines/archive.asl.json; ``archive_day`` runs them in-process (CLI fallback, benchmark).

Idempotency: a row is archived once. Each shard's existing parts are read back (the ``row_key``
column only) and only rows not yet there are written, as the next part. A re-run of a finished
day therefore writes nothing; a crashed run resumes; late rows of an archived day land in a new
part and the manifest lists it. Object keys depend on (kind, day, shard, part) only.

Sensitive columns are sealed with the user's data key (adapters.key_store) when it is available,
so crypto-shredding a user makes their WORM-locked archive copies unreadable.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

from ..adapters.parquet import SCHEMAS, parquet_bytes, read_parquet, to_table
from ..bootstrap import Dependencies
from ..domain import crypto
from ..domain.archive import (
    KINDS,
    build_manifest,
    day_bounds,
    event_row_key,
    manifest_bytes,
    manifest_key,
    next_part_key,
    parse_day,
    sha256_hex,
    shard_of,
    task_row_key,
    turn_row_key,
    verification_failures,
)
from ..domain.model import Scope
from ..errors import ArchiveVerificationFailed, EngramError
from ..ports import KeyStore

# What a sealed value is bound to besides its owner (crypto.associated_data's purpose).
# Turn content uses the turn log's own purpose: a turn the ingestion already sealed (sensitive) is
# copied as it is, and one reader opens both.
PURPOSE = {"content": "turn", "summary": "archive:event.summary", "text": "archive:event.text",
           "context": "archive:event.context", "keywords": "archive:event.keywords",
           "metadata": "archive:task.metadata"}


def sealer(deps: Dependencies) -> KeyStore | None:
    """The per-user key store (privacy layer); ENGRAM_ARCHIVE_SEAL=false leaves the archive in
    plaintext (and says so in its ``sealed`` column)."""
    return deps.keys if deps.settings.archive_seal else None


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value else None


# -- rows ------------------------------------------------------------------------------------------

def _seal(keys: KeyStore | None, scope: Scope, column: str, value: str | None) -> str | None:
    if keys is None or value is None or value == "" or crypto.is_sealed(value):
        return value
    return keys.seal(scope, value, PURPOSE[column])


def turn_rows(deps: Dependencies, day: date, shard: int, shards: int) -> list[dict]:
    keys = sealer(deps)
    out = []
    for row in deps.archive_source.turns(day, shard, shards):
        scope = Scope(row["tenant"], row["user_id"])
        out.append({**row, "row_key": turn_row_key(row), "content": _seal(keys, scope, "content", row["content"]),
                    "sealed": keys is not None})
    return out


def task_rows(deps: Dependencies, day: date, shard: int, shards: int) -> list[dict]:
    keys = sealer(deps)
    out = []
    for row in deps.archive_source.task_changes(day, shard, shards):
        scope = Scope(row["tenant"], row["user_id"])
        metadata = json.dumps(row["metadata"], sort_keys=True, ensure_ascii=False)
        out.append({**row, "row_key": task_row_key(row), "metadata": _seal(keys, scope, "metadata", metadata),
                    "sealed": keys is not None})
    return out


def event_rows(deps: Dependencies, day: date, shard: int, shards: int) -> list[dict]:
    keys = sealer(deps)
    start, end = day_bounds(day)
    docs = [d for d in deps.episodes.events_between(_iso(start), _iso(end))
            if shard_of(d["tenant"], d["user_id"], shards) == shard]
    out = []
    for doc in sorted(docs, key=lambda d: (d["tenant"], d["user_id"], d["ts"], d["event_id"])):
        scope = Scope(doc["tenant"], doc["user_id"])
        out.append({
            "tenant": doc["tenant"], "user_id": doc["user_id"], "event_id": doc["event_id"], "type": doc["type"],
            "summary": _seal(keys, scope, "summary", doc.get("summary")),
            "text": _seal(keys, scope, "text", doc.get("text")),
            "context": _seal(keys, scope, "context", doc.get("context")),
            "keywords": [_seal(keys, scope, "keywords", k) for k in doc.get("keywords") or []],
            "raw_sha256": doc.get("raw_sha256"), "message_ids": list(doc.get("message_ids") or []),
            "session_id": doc.get("session_id"), "device_id": doc.get("device_id"),
            "ts": _parse(doc["ts"]), "occurred_at": _parse(doc.get("occurred_at")),
            "confidence": float(doc.get("confidence", 0.0)), "trust_source": doc.get("trust_source") or "rule",
            "weight": float(doc.get("weight", 1.0)), "tags": list(doc.get("tags") or []),
            "sensitive": bool(doc.get("sensitive")), "evicted": bool(doc.get("evicted")),
            "archived": bool(doc.get("archived")), "merged_count": int(doc.get("merged_count") or 1),
            "sealed": keys is not None, "row_key": event_row_key(doc)})
    return out


def _parse(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


_ROWS = {"turns": turn_rows, "events": event_rows, "tasks": task_rows}


# -- steps -----------------------------------------------------------------------------------------

def plan_execution(deps: Dependencies, event: dict) -> dict:
    """The Plan step: the day given in the input, else the day before the execution started
    (the 02:00 UTC schedule archives yesterday)."""
    given = (event.get("input") or {}).get("day")
    if given:
        return plan(deps, given, (event.get("input") or {}).get("shards"))
    started = datetime.fromisoformat(str(event.get("started_at") or datetime.now(UTC).isoformat()).replace(
        "Z", "+00:00"))
    return plan(deps, started.astimezone(UTC).date() - timedelta(days=1))


def plan(deps: Dependencies, day: str | date, shards: int | None = None) -> dict:
    day = parse_day(day)
    n = shards or deps.settings.archive_shards
    return {"day": day.isoformat(), "shards": n,
            "work": [{"day": day.isoformat(), "shard": s, "shards": n} for s in range(n)]}


def archive_shard(deps: Dependencies, day: str | date, shard: int, shards: int) -> dict:
    """Write the shard's rows of the day that no earlier part holds; list every part."""
    day, store = parse_day(day), deps.archive
    objects, written = [], 0
    for kind in KINDS:
        existing = store.parts(kind, day, shard)
        done: set[str] = set()
        for key in existing:
            data = store.get(key)
            if data is None:
                continue
            try:
                table = read_parquet(data)
            except Exception as exc:  # noqa: BLE001 - a part we cannot read is a corrupt archive
                deps.archive_source.unmark(day)
                raise ArchiveVerificationFailed(f"{key}: existing part unreadable ({str(exc)[:120]})") from exc
            done.update(table.column("row_key").to_pylist())
            objects.append({"key": key, "sha256": sha256_hex(data), "rows": table.num_rows, "kind": kind,
                            "shard": shard})
        fresh = [r for r in _ROWS[kind](deps, day, shard, shards) if r["row_key"] not in done]
        if not fresh:
            continue
        data = parquet_bytes(to_table(kind, fresh))
        key = next_part_key(kind, day, shard, existing)
        store.put_locked(key, data, rows=len(fresh), content_type="application/vnd.apache.parquet")
        objects.append({"key": key, "sha256": sha256_hex(data), "rows": len(fresh), "kind": kind, "shard": shard})
        written += len(fresh)
    return {"day": day.isoformat(), "shard": shard, "objects": objects, "rows_written": written}


def write_manifest(deps: Dependencies, day: str | date, shards: int, results: list[dict]) -> dict:
    """The day's manifest from the shards' results; unchanged bytes are not written again."""
    day, store = parse_day(day), deps.archive
    objects = [o for result in results for o in result["objects"]]
    manifest = build_manifest(day, shards, objects)
    data, key = manifest_bytes(manifest), manifest_key(day)
    existing = store.get(key)
    written = existing != data
    if written:
        store.put_locked(key, data, content_type="application/json")
    return {"day": day.isoformat(), "manifest_key": key, "sha256": sha256_hex(data),
            "objects": len(objects), "rows": manifest["rows"], "written": written}


def verify(deps: Dependencies, day: str | date) -> dict:
    """Re-read the manifest and every object it lists: checksum, row count, schema. Anything off
    raises ArchiveVerificationFailed (and the day stops counting as verified)."""
    day, store, source = parse_day(day), deps.archive, deps.archive_source
    key = manifest_key(day)
    raw = store.get(key)
    if raw is None:
        source.unmark(day)
        raise ArchiveVerificationFailed(f"{key}: manifest missing")
    manifest = json.loads(raw)
    problems = []
    for entry in manifest["objects"]:
        data = store.get(entry["key"])
        observed = None
        if data is not None:
            observed = {"sha256": sha256_hex(data)}
            try:
                table = read_parquet(data)
                observed["rows"] = table.num_rows
                if not table.schema.equals(SCHEMAS[entry["kind"]], check_metadata=False):
                    problems.append(f"{entry['key']}: schema differs from the {entry['kind']} schema")
            except Exception as exc:  # noqa: BLE001 - any parse error is a verification failure
                observed["error"] = str(exc)[:200]
        problems += verification_failures(entry, observed)
    if problems:
        source.unmark(day)
        raise ArchiveVerificationFailed(f"archive of {day} failed verification: " + "; ".join(problems[:20]))
    source.mark_verified(day, key, sha256_hex(raw), len(manifest["objects"]), manifest["rows"])
    return {"day": day.isoformat(), "verified": True, "objects": len(manifest["objects"]), "rows": manifest["rows"],
            "manifest_key": key}


def archive_day(deps: Dependencies, day: str | date, shards: int | None = None) -> dict:
    """All steps in-process, in the state machine's order."""
    p = plan(deps, day, shards)
    results = [archive_shard(deps, w["day"], w["shard"], w["shards"]) for w in p["work"]]
    manifest = write_manifest(deps, p["day"], p["shards"], results)
    return {**verify(deps, p["day"]), "manifest_written": manifest["written"],
            "rows_written": sum(r["rows_written"] for r in results)}


# -- read path -------------------------------------------------------------------------------------

def archived_turns(deps: Dependencies, scope: Scope, *, message_ids: list[str] | None = None, days: list[date],
                   open_sealed: bool = True) -> list[dict]:
    """The user's original turns from the archive for ``days`` (only those day partitions and the
    user's shard are read), optionally only ``message_ids``; sealed content is opened with the
    user's key, and shows as None once the key was shredded."""
    where = {"tenant": [scope.tenant], "user_id": [scope.user_id]}
    if message_ids is not None:
        where["message_id"] = message_ids
    table = deps.archive.read("turns", days, shards=[shard_of(scope.tenant, scope.user_id,
                                                              deps.settings.archive_shards)],
                              columns=["session_id", "device_id", "message_id", "role", "content", "truncated",
                                       "client_ts", "received_at", "sealed"], where=where)
    rows, seen = [], set()
    for row in sorted(table.to_pylist(), key=lambda r: (r["client_ts"], r["message_id"])):
        if row["message_id"] in seen:
            continue
        seen.add(row["message_id"])
        row.pop("sealed")
        if open_sealed and crypto.is_sealed(row["content"]):
            row["content"] = _open(deps, scope, row["content"])
        rows.append(row)
    return rows


def _open(deps: Dependencies, scope: Scope, token: str) -> str | None:
    try:
        return deps.keys.open(scope, token, PURPOSE["content"])
    except EngramError:  # the key was shredded (erasure): the copy is unreadable by design
        return None


def original_turns(deps: Dependencies, scope: Scope, hits: list, message_ids: list[str],
                   now: datetime | None = None) -> list[dict]:
    """The turns behind recalled items: from the archive for items older than the hot window
    (only their days' partitions), from the turn log for the rest and for whatever the archive
    did not have or could not be read (an unavailable archive degrades to the turn log)."""
    cutoff = (now or datetime.now(UTC)) - timedelta(days=deps.settings.hot_days)
    old_days = set()
    for item in hits:
        ts = item.provenance.get("ts") if hasattr(item, "provenance") else None
        when = _parse(ts) if isinstance(ts, str) else None
        if when is not None and when < cutoff:
            old_days.add(when.date())
    found: list[dict] = []
    if old_days:
        try:
            found = archived_turns(deps, scope, message_ids=message_ids, days=sorted(old_days), open_sealed=False)
        except (EngramError, OSError):
            found = []
    have = {r["message_id"] for r in found}
    missing = [m for m in message_ids if m not in have]
    if missing:
        found += deps.turns.turns(scope, missing)
    return sorted(found, key=lambda r: (r["client_ts"], r["message_id"]))
