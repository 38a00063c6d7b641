"""The episode index's layout against the one before it, on the same events: what OpenSearch pays.

    python -m local.bench.episode_layout [--users 100] [--events 200] [--queries 300] [--json OUT]

Each layout gets an index of its own (``bench-layout-*``, deleted afterwards), the same generated
events (``local.bench.corpus``, real embeddings of a pool of distinct texts plus a fixed jitter,
so the vectors are identical in both) in bulk requests of 20 as ingestion sends them, routed by
user. Printed per layout: OpenSearch's CPU per event to load them (refreshes included), the
seconds and CPU of a merge into one segment, and the CPU and wall time of filtered k-NN queries
as a recall sends them (``EpisodeStore.knn_body``); then how many queries returned the same top 10
with the same scores. The previous layout is layout 3 (a Lucene HNSW graph, m 16,
ef_construction 32); the current one is ``episode_index.index_body``.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
import uuid

import numpy as np

from . import corpus, use_local_stack
from .phases import server_cpu_seconds


def layouts(dimension: int) -> dict[str, dict]:
    from engram.adapters.opensearch import episode_index

    current = episode_index.index_body(dimension)
    previous = copy.deepcopy(current)
    previous["settings"]["index"].pop("knn.advanced.approximate_threshold", None)
    previous["mappings"]["properties"]["vector"]["method"]["engine"] = "lucene"
    return {"layout 3 (lucene graph)": previous, f"layout {episode_index.LAYOUT} (current)": current}


def opensearch_cpu() -> float:
    return server_cpu_seconds().get("opensearch", 0.0)


def events(args: argparse.Namespace, vectors: dict[str, np.ndarray]):
    """Each user's events as bulk actions (without ``_index``): the same jitter for every layout."""
    rng = np.random.default_rng(1)
    turns = corpus.turns(args.users * args.events)
    for i, turn in enumerate(turns):
        user = f"u{i // args.events}"
        v = vectors[turn["content"]] + rng.normal(0, 0.02, len(vectors[turn["content"]]))
        yield {"_id": f"{user}-{i}", "_routing": user, "_source": {
            "tenant": "bench", "user_id": user, "event_id": str(i), "type": "fact", "text": turn["content"],
            "summary": turn["content"], "ts": turn["client_ts"], "confidence": 0.8, "weight": 1.0,
            "evicted": False, "archived": False, "vector": (v / np.linalg.norm(v)).tolist()}}


def measure(client, name: str, body: dict, args: argparse.Namespace, vectors: dict, queries: list) -> dict:
    from opensearchpy import helpers

    from engram.adapters.opensearch.episode_store import EpisodeStore
    from engram.domain.model import Scope

    index = f"bench-layout-{uuid.uuid4().hex[:8]}"
    client.indices.create(index=index, body=body)
    try:
        n = args.users * args.events
        cpu, started = opensearch_cpu(), time.perf_counter()
        batch: list[dict] = []
        for action in events(args, vectors):
            batch.append({**action, "_index": index})
            if len(batch) == 20:
                helpers.bulk(client, batch)
                batch = []
        helpers.bulk(client, batch)
        client.indices.refresh(index=index)
        load_cpu, load_s = opensearch_cpu() - cpu, time.perf_counter() - started
        cpu, started = opensearch_cpu(), time.perf_counter()
        client.indices.forcemerge(index=index, max_num_segments=1, request_timeout=3600)
        merge_cpu, merge_s = opensearch_cpu() - cpu, time.perf_counter() - started
        results: list[list[tuple[str, float]]] = []
        for _ in range(2):  # the first pass warms the new index up; the second is measured
            results, cpu, started = [], opensearch_cpu(), time.perf_counter()
            for user, vector in queries:
                knn = EpisodeStore.knn_body(Scope("bench", user), vector, 10)
                hits = client.search(index=index, routing=user, body=knn)["hits"]["hits"]
                results.append([(h["_id"], round(h["_score"], 5)) for h in hits])
            query_cpu, query_s = opensearch_cpu() - cpu, time.perf_counter() - started
        size = client.indices.stats(index=index)["_all"]["primaries"]["store"]["size_in_bytes"]
    finally:
        client.indices.delete(index=index)
    figures = {"load_s": round(load_s, 1), "load_cpu_ms_per_event": round(1000 * load_cpu / n, 3),
               "merge_s": round(merge_s, 1), "merge_cpu_s": round(merge_cpu, 1),
               "query_cpu_ms": round(1000 * query_cpu / len(queries), 3),
               "query_wall_ms": round(1000 * query_s / len(queries), 3), "bytes_per_event": round(size / n)}
    print(f"{name}: load {figures['load_s']} s, OpenSearch {figures['load_cpu_ms_per_event']} ms CPU per event; "
          f"merge to one segment {figures['merge_s']} s ({figures['merge_cpu_s']} s CPU); k-NN query "
          f"{figures['query_cpu_ms']} ms CPU, {figures['query_wall_ms']} ms wall; {figures['bytes_per_event']} B/event",
          flush=True)
    return {"figures": figures, "results": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.bench.episode_layout", description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    use_local_stack()
    from engram.bootstrap import bootstrap

    deps = bootstrap()
    texts = sorted({t["content"] for t in corpus.turns(args.users * args.events)})
    vectors = {t: np.asarray(v) for t, v in zip(texts, deps.embedder.embed(texts), strict=True)}
    rng = random.Random(3)
    queries = [(f"u{rng.randrange(args.users)}", vectors[rng.choice(texts)].tolist()) for _ in range(args.queries)]
    measured = {name: measure(deps.clients.opensearch, name, body, args, vectors, queries)
                for name, body in layouts(len(next(iter(vectors.values())))).items()}
    (_, a), (_, b) = measured.items()
    same = sum(x == y for x, y in zip(a["results"], b["results"], strict=True))
    print(f"same top 10 with the same scores: {same} of {len(queries)} queries")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"layouts": {n: m["figures"] for n, m in measured.items()}, "same_top10": same,
                       "queries": len(queries), "events": args.users * args.events}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
