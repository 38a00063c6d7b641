"""Nightly archival: plan -> archive each shard -> manifest -> verify (-> retention).

Each step is one function called by one Lambda (functions/archive/app.py) and chained by
statemachines/archive.asl.json; ``archive_day`` runs them in-process (CLI fallback, benchmark).

Idempotency: a row is archived once. Each shard's existing parts are read back and only rows
whose ``row_key`` no part holds are written, as the next part. A re-run of a finished day
therefore writes nothing; a crashed run resumes; late rows of an archived day land in a new part
and the manifest lists it. Object keys depend on (kind, day, shard, part) only. Every run records
which part version holds each live row (``archive_rows``): that, not a count, is what retention
checks before it drops a day's chunks.

Rows are sealed and pseudonymised under the user's data key (``service.archive_rows``), so
crypto-shredding a user makes their WORM-locked archive copies unreadable and unlinkable. Users
being erased are left out of every run.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

from ..adapters.aws import parquet
from ..dependencies import Dependencies
from ..domain.lifecycle.archive import (
    KINDS,
    Held,
    build_manifest,
    manifest_bytes,
    manifest_key,
    next_part_key,
    parse_day,
    sha256_hex,
    shard_of,
    verification_failures,
)
from ..domain.model import Scope
from ..domain.privacy import crypto
from ..errors import ArchiveVerificationFailed, EngramError
from .archive_rows import PURPOSE, Protected, archive_owner_ids, parse_time, protected_rows

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


def _existing_parts(deps: Dependencies, kind: str, day: date, shard: int) -> tuple[list[dict], dict]:
    """The shard's parts of the day (manifest entries), and which part version holds each
    ``row_key`` they contain."""
    entries, holder = [], {}
    for key in deps.archive.parts(kind, day, shard):
        data = deps.archive.get(key)
        if data is None:
            continue
        try:
            table = parquet.read_parquet(data)
        except Exception as exc:  # noqa: BLE001 - a part we cannot read is a corrupt archive
            deps.archive_source.unmark(day)
            raise ArchiveVerificationFailed(f"{key}: existing part unreadable ({str(exc)[:120]})") from exc
        entry = {"key": key, "sha256": sha256_hex(data), "rows": table.num_rows, "kind": kind, "shard": shard}
        holder.update(dict.fromkeys(table.column("row_key").to_pylist(), (key, entry["sha256"])))
        entries.append(entry)
    return entries, holder


def _held_by(holder: dict, row: Protected) -> tuple[str, str] | None:
    # A part written before pseudonyms (or with sealing off) holds the row's own key.
    return holder.get(row.row["row_key"]) or holder.get(row.identity)


def archive_shard(deps: Dependencies, day: str | date, shard: int, shards: int) -> dict:
    """Write the shard's rows of the day that no earlier part holds; list every part; record in
    ``archive_rows`` which part holds each live row. Users being erased are left out: their rows are
    not sealed, no key is made for them, and none of their rows reaches an object after their mark."""
    day, store = parse_day(day), deps.archive
    skip = deps.users.erasing_users()  # the first look: no key is asked for them
    objects, written, left_out = [], 0, set()
    for kind in KINDS:
        entries, holder = _existing_parts(deps, kind, day, shard)
        objects += entries
        rows, skipped = protected_rows(deps, kind, day, shard, shards, skip)
        left_out |= skipped
        # The second look, under the fence: a user marked since the first is left out, and a mark
        # from now on waits until the part and its records are written, before the saga deletes.
        with deps.users.erasure_fence({r.owner for r in rows}) as erasing:
            left_out |= erasing
            rows = [r for r in rows if r.owner not in erasing]
            fresh = [r for r in rows if _held_by(holder, r) is None]
            if fresh:
                data = parquet.parquet_bytes(parquet.to_table(kind, [r.row for r in fresh]))
                key = next_part_key(kind, day, shard, [e["key"] for e in entries])
                store.put_locked(key, data, rows=len(fresh), content_type="application/vnd.apache.parquet")
                objects.append({"key": key, "sha256": sha256_hex(data), "rows": len(fresh), "kind": kind,
                                "shard": shard})
                holder.update(dict.fromkeys((r.row["row_key"] for r in fresh), (key, objects[-1]["sha256"])))
                written += len(fresh)
            deps.archive_source.record_held(day, kind, [Held(r.owner.tenant, r.owner.user_id, r.identity,
                                                             *_held_by(holder, r)) for r in rows])
        skip |= left_out
    return {"day": day.isoformat(), "shard": shard, "objects": objects, "rows_written": written,
            "users_left_out": len(left_out)}


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
                table = parquet.read_parquet(data)
                observed["rows"] = table.num_rows
                if not table.schema.equals(parquet.SCHEMAS[entry["kind"]], check_metadata=False):
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
    where = {"tenant": [scope.tenant], "user_id": sorted(archive_owner_ids(deps.keys, scope))}
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
        when = parse_time(ts) if isinstance(ts, str) else None
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
