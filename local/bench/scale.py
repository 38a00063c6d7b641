"""Recall at scale: many users with a full episodic memory each, several concurrent clients.

    python -m local.bench.scale --users 1000 --events 200 --clients 4 --queries 400

Events are generated (``local.bench.corpus``) and bulk-loaded into the episode store with real
embeddings of their text (a pool of distinct texts is embedded once and reused), so the index
has the size and shape of production; recall then runs through the service as the API does.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from opensearchpy import helpers

from engram.bootstrap import Dependencies, bootstrap
from engram.domain.keys import episode_doc_id, episode_routing
from engram.domain.model import Scope
from engram.service.recall import RecallRequest, recall
from engram.service.routing import event_id

from . import corpus, use_local_stack


def load(deps: Dependencies, tenant: str, users: int, events: int, pool_size: int) -> float:
    deps.episodes.ensure_index()
    search, index = deps.clients.opensearch, deps.settings.episode_index
    pool = corpus.turns(pool_size, seed=11)
    vectors = deps.embedder.embed([t["content"] for t in pool])
    rng = random.Random(3)
    started = time.perf_counter()

    def actions():
        for u in range(users):
            scope = Scope(tenant, f"scale-{u}")
            for e in range(events):
                i = rng.randrange(pool_size)
                turn = pool[i]
                mid = f"u{u}-m{e}"
                yield {"_op_type": "index", "_index": index, "_id": episode_doc_id(scope, event_id(scope, mid)),
                       "_routing": episode_routing(scope), "_source": {
                           "tenant": tenant, "user_id": scope.user_id, "event_id": event_id(scope, mid),
                           "type": "fact", "summary": turn["content"], "text": turn["content"], "context": "",
                           "keywords": [], "raw_sha256": "", "message_ids": [mid], "session_id": "s",
                           "device_id": "d", "ts": turn["client_ts"], "occurred_at": turn["client_ts"],
                           "confidence": 0.7, "trust_source": "rule", "weight": 1.0, "tags": [],
                           "sensitive": False, "evicted": False, "archived": False, "merged_count": 1,
                           "updated_at": datetime.now(UTC).isoformat(), "vector": vectors[i]}}

    helpers.bulk(search, actions(), chunk_size=2000, request_timeout=300, refresh=False)
    search.indices.refresh(index=index)
    return time.perf_counter() - started


def sizes(deps: Dependencies) -> dict:
    clients = deps.clients
    index = clients.opensearch.indices.stats(index=deps.settings.episode_index)["_all"]["primaries"]
    with clients.pg() as conn:
        pg = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    graph = clients.neo4j.execute_query("MATCH (n) RETURN count(n) AS n").records[0]["n"]
    redis_bytes = clients.redis.info("memory")["used_memory"]
    return {"opensearch_docs": index["docs"]["count"],
            "opensearch_mb": round(index["store"]["size_in_bytes"] / 2**20, 1),
            "postgres_mb": round(pg / 2**20, 1), "redis_mb": round(redis_bytes / 2**20, 1), "neo4j_nodes": graph}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))], 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.bench.scale", description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--pool", type=int, default=2000, help="distinct generated texts")
    args = parser.parse_args(argv)
    use_local_stack()
    deps = bootstrap()
    tenant = f"scale-{uuid.uuid4().hex[:6]}"
    deps.embedder.warm_up()
    load_s = load(deps, tenant, args.users, args.events, args.pool)
    print(f"loaded {args.users * args.events} events for {args.users} users in {load_s:.1f} s")
    questions = [t["content"] for t in corpus.turns(args.queries, seed=29)]
    rng = random.Random(5)

    def ask(question: str) -> tuple[float, dict]:
        start = time.perf_counter()
        request = RecallRequest.parse(Scope(tenant, f"scale-{rng.randrange(args.users)}"), question, 10)
        answer = recall(deps, request)
        return (time.perf_counter() - start) * 1000, answer

    ask("warm-up")
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.clients) as pool:
        results = list(pool.map(ask, questions))
    wall = time.perf_counter() - started
    e2e = [r[0] for r in results]
    print(f"{args.queries} recalls with {args.clients} concurrent clients in {wall:.1f} s "
          f"({args.queries / wall:.1f} recalls/s)")
    print(f"end to end ms: p50 {percentile(e2e, 0.5)}  p95 {percentile(e2e, 0.95)}")
    for step in ("session", "tasks", "profile", "episodes", "fuse"):
        values = [r[1]["timings_ms"][step] for r in results]
        print(f"  {step:<9} p50 {percentile(values, 0.5):>8}  p95 {percentile(values, 0.95):>8}")
    degraded = sum(1 for r in results if r[1]["degraded"])
    print(f"degraded answers: {degraded} ({statistics.fmean([bool(r[1]['degraded']) for r in results]):.1%})")
    print(f"store sizes: {sizes(deps)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
