"""Archival throughput: one day of turns written to Parquet on S3 by the archive service.

    python -m local.bench.archive --turns 100000 --users 1000 [--no-seal] [--bucket NAME]

Generates the turns straight into ``turn_log`` (COPY; text in the style of ``local.bench.corpus``) on a
day of their own, then runs the archive steps in-process for that day: every shard, the
manifest, and the verification re-read. Prints rows/s and MB/s (of the turn log rows read, and
of the Parquet written) and the compressed bytes per turn. With sealing on (the default, as
deployed) every content is AES-GCM sealed under its user's data key before compression.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
import uuid
from datetime import UTC, date, datetime, timedelta

from engram.bootstrap import build
from engram.config import get_settings
from engram.dependencies import Dependencies
from engram.service import archival
from local.stackctl.common import RUN_DIR

from . import corpus, use_local_stack


def _bucket(given: str | None) -> str:
    if given:
        return given
    if os.environ.get("ENGRAM_ARCHIVE_BUCKET"):
        return os.environ["ENGRAM_ARCHIVE_BUCKET"]
    state = RUN_DIR / "stack.json"
    if state.exists():
        return json.loads(state.read_text())["archive_bucket"]
    raise SystemExit("no archive bucket: pass --bucket or set ENGRAM_ARCHIVE_BUCKET (local/stack status shows it)")


def generate(deps: Dependencies, day: date, turns: int, users: int, tenant: str) -> int:
    """``turns`` rows over ``users`` users on ``day``; returns the bytes of text generated."""
    import hashlib

    texts = [t["content"] for t in corpus.turns(2000, seed=23)]
    rng = random.Random(29)
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    step = 86_399_000_000 // turns  # microseconds: the whole day, in order
    size = 0
    with deps.clients.pg() as conn, conn.cursor() as cur:
        with cur.copy("COPY turn_log (tenant, user_id, session_id, device_id, message_id, role, content, "
                      "content_sha256, truncated, client_ts) FROM STDIN") as copy:
            for i in range(turns):
                user = f"u{rng.randrange(users):04d}"
                text = rng.choice(texts)
                role = "user" if i % 2 == 0 else "assistant"
                size += len(text.encode())
                copy.write_row((tenant, user, f"s-{user}-{i // 20}", "phone", f"m{i:06d}", role, text,
                                hashlib.sha256(text.encode()).hexdigest(), False,
                                start + timedelta(microseconds=i * step)))
    return size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.bench.archive", description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=1_000)
    parser.add_argument("--shards", type=int, default=None, help="default: ENGRAM_ARCHIVE_SHARDS (4)")
    parser.add_argument("--bucket", default=None)
    parser.add_argument("--no-seal", action="store_true", help="plaintext columns (ENGRAM_ARCHIVE_SEAL=false)")
    args = parser.parse_args(argv)

    use_local_stack()
    deps = build(get_settings().model_copy(update={"archive_bucket": _bucket(args.bucket),
                                                   "archive_seal": not args.no_seal}))

    # A day nobody else uses (archived objects are locked, so each run needs a fresh day).
    day = date(2000, 1, 1) + timedelta(days=random.SystemRandom().randrange(5000))
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    t0 = time.perf_counter()
    text_bytes = generate(deps, day, args.turns, args.users, tenant)
    t1 = time.perf_counter()
    plan = archival.plan(deps, day, args.shards)
    results = [archival.archive_shard(deps, w["day"], w["shard"], w["shards"]) for w in plan["work"]]
    t2 = time.perf_counter()
    manifest = archival.write_manifest(deps, plan["day"], plan["shards"], results)
    t3 = time.perf_counter()
    verified = archival.verify(deps, plan["day"])
    t4 = time.perf_counter()

    s3, bucket = deps.clients.aws("s3"), deps.settings.archive_bucket
    objects = [o for r in results for o in r["objects"] if o["kind"] == "turns"]
    parquet = sum(s3.head_object(Bucket=bucket, Key=o["key"])["ContentLength"] for o in objects)
    rows = sum(o["rows"] for o in objects)
    archive_s = t2 - t1
    mb = 1024 * 1024
    print(f"archival of {rows:,} turns across {args.users:,} users, {plan['shards']} shards, day {day} "
          f"({'sealed' if not args.no_seal else 'plaintext'} content)")
    print(f"  generate (COPY into turn_log) {t1 - t0:7.2f} s")
    print(f"  archive shards                {archive_s:7.2f} s   {rows / archive_s:,.0f} rows/s   "
          f"{text_bytes / mb / archive_s:.2f} MB/s of turn text   {parquet / mb / archive_s:.2f} MB/s of Parquet")
    print(f"  manifest                      {t3 - t2:7.2f} s   ({manifest['objects']} objects)")
    print(f"  verify (re-read, sha, rows)   {t4 - t3:7.2f} s   {rows / (t4 - t3):,.0f} rows/s")
    print(f"  end to end                    {t4 - t1:7.2f} s   {rows / (t4 - t1):,.0f} rows/s")
    print(f"  size: text {text_bytes / mb:.2f} MB ({text_bytes / rows:.1f} B/turn), Parquet ZSTD "
          f"{parquet / mb:.2f} MB = {parquet / rows:.1f} bytes per turn (all columns)")
    print(json.dumps({"rows": rows, "rows_per_s": round(rows / archive_s), "text_mb_per_s":
                      round(text_bytes / mb / archive_s, 3), "parquet_mb_per_s": round(parquet / mb / archive_s, 3),
                      "bytes_per_turn": round(parquet / rows, 1), "verified": verified["verified"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
