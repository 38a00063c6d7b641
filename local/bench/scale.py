"""Recall at scale: many users with a full episodic memory each, several concurrent clients.

    python -m local.bench.scale --users 1000 --events 200 --clients 4 --queries 400 [--json OUT]
                                [--keep-index] [--peer mem0 | --peer PEER.json] [--api-url URL]

Events are generated (``local.bench.corpus``) and bulk-loaded with real embeddings of their text
(a pool of distinct texts is embedded once and reused) into an index of their own, made by the
migration's code with the configured layout (``<alias>-bench-<run>``, deleted afterwards unless
``--keep-index``), so the bytes per event are this run's alone. Recall then runs through the
service as the API does; the floor is the same questions, as many clients at once, each one query
embedding plus one filtered k-NN query (what no recall can go below): the issue's floor is the
embedding's p95 plus the k-NN query's p95; the p95 of their sum per question is printed beside. Both are measured twice:
right after the load, and once the index has settled (merged to one segment, as ``sizes`` leaves
it); within a pass ours and the floor take turns, ``INTERLEAVE`` questions per client at a time, so
both meet the same background work. CPU seconds by process are printed for our share of each pass
(``local.bench.phases.print_cpu``).
``--api-url`` asks through the API Gateway instead (target p95 <= 2x the floor): the events then
go into the deployed alias under a fresh tenant (deleted afterwards), "settled" means no merge is
running, and no bytes per event are printed (the index is shared).
``--peer mem0`` loads the same users' texts into mem0 open source (``local.bench.peer``: ``infer=False``,
local Qdrant, the same model; it embeds one text at a time, about 80 a second here, so keep the
size small) and asks it the same questions with as many concurrent clients.
``--graph-users 100000 --task-rows 10000000`` also loads the profile graph and ``task_events`` at the
seed's scale and measures the profile and tasks steps beside their stores' raw queries
(``local.bench.layers_scale``, also runnable alone; its figures go under "layers").
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import uuid
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from opensearchpy import helpers

from engram.adapters.opensearch.episode_index import concrete_indices
from engram.bootstrap import build
from engram.config import get_settings
from engram.dependencies import Dependencies
from engram.domain.keys import episode_doc_id, episode_routing
from engram.domain.model import Scope
from engram.service.ingest.route import event_id
from engram.service.recall import RecallRequest, recall

from . import bench_tenant, corpus, layers_scale, peer, use_local_stack
from .locomo import knn_floor
from .phases import print_cpu, server_cpu_seconds

INTERLEAVE = 8  # questions per client in each turn of ours and the floor's


def assignments(users: int, events: int, pool_size: int):
    """(user number, event number, pool index) of every event loaded: the same for ours and the peer."""
    rng = random.Random(3)
    for u in range(users):
        for e in range(events):
            yield u, e, rng.randrange(pool_size)


def load(deps: Dependencies, tenant: str, users: int, events: int, pool_size: int) -> float:
    deps.episodes.ensure_index()
    search, index = deps.clients.opensearch, deps.settings.episode_index
    pool = corpus.turns(pool_size, seed=11)
    vectors = deps.embedder.embed([t["content"] for t in pool])
    started = time.perf_counter()

    def actions():
        for u, e, i in assignments(users, events, pool_size):
            scope = Scope(tenant, f"scale-{u}")
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


def sizes(deps: Dependencies, events: int) -> dict:
    """Store sizes; the episode index's after a flush and a merge to one segment per shard (what
    it settles to), per event loaded."""
    clients, index = deps.clients, deps.settings.episode_index
    clients.opensearch.indices.flush(index=index)
    clients.opensearch.indices.forcemerge(index=index, max_num_segments=1, request_timeout=1800)
    # The merged-away segments' files stay on disk while a reader holds them: a refresh opens the
    # merged one alone (without it, 1,000 x 200 events measured 3.7 KB an event, 1.9 KB settled).
    clients.opensearch.indices.refresh(index=index)
    primaries = clients.opensearch.indices.stats(index=index)["_all"]["primaries"]
    with clients.pg() as conn:
        pg = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    redis_bytes = clients.redis.info("memory")["used_memory"]
    return {"events": primaries["docs"]["count"], "opensearch_bytes": primaries["store"]["size_in_bytes"],
            "opensearch_bytes_per_event": round(primaries["store"]["size_in_bytes"] / max(events, 1)),
            "postgres_mb": round(pg / 2**20, 1), "redis_mb": round(redis_bytes / 2**20, 1)}


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
    parser.add_argument("--json", metavar="OUT", help="write the figures as JSON here")
    parser.add_argument("--keep-index", action="store_true", help="keep this run's episode index")
    layers_scale.add_arguments(parser, default_users=0, default_rows=0)
    parser.add_argument("--peer", metavar="mem0|FILE",
                        help="mem0: measure mem0 on the same events and questions in this run; FILE: a peer's figures")
    parser.add_argument("--api-url", help="ask through this API (API Gateway on LocalStack): the events then go "
                                          "into the deployed alias under a fresh tenant, deleted afterwards")
    args = parser.parse_args(argv)
    use_local_stack()
    run = uuid.uuid4().hex[:6]
    settings = get_settings()
    if args.api_url:
        import httpx

        deps = build(settings)
        tenant, key = bench_tenant(deps)
        deps.embedder.warm_up()
        http = httpx.Client(base_url=args.api_url.rstrip("/"), timeout=60, headers={"Authorization": f"Bearer {key}"},
                            limits=httpx.Limits(max_connections=args.clients))
        try:
            return _run(deps, tenant, args, http)
        finally:
            for u in range(args.users):
                deps.episodes.delete_user(Scope(tenant, f"scale-{u}"))
    deps = build(settings.model_copy(update={"episode_index": f"{settings.episode_index}-bench-{run}"}))
    tenant = f"scale-{run}"
    deps.embedder.warm_up()
    try:
        return _run(deps, tenant, args)
    finally:
        if not args.keep_index:
            for name in concrete_indices(deps.clients.opensearch, deps.settings.episode_index):
                deps.clients.opensearch.indices.delete(index=name)


def run_mem0(args: argparse.Namespace, questions: list[str], p50: float, p95: float) -> dict:
    """mem0 on the same texts per user and the same questions as ours, each asked of a user drawn
    as ours are, by as many concurrent clients; printed beside ours (p50, p95)."""
    pool = corpus.turns(args.pool, seed=11)
    users: dict[str, list[str]] = {}
    for u, _, i in assignments(args.users, args.events, args.pool):
        users.setdefault(f"scale-{u}", []).append(pool[i]["content"])
    rng = random.Random(5)
    asked = [{"user": f"scale-{rng.randrange(args.users)}", "query": q} for q in questions]
    with peer.Mem0() as mem0:
        load_s = sum(mem0.add(user, texts[i:i + 100]) for user, texts in users.items()
                     for i in range(0, len(texts), 100))
        mem0.search(asked[0]["user"], "warm-up", 10)
        answer = mem0.search_many(asked, 10, args.clients)
    events, ms = args.users * args.events, answer["ms"]
    figures = {**mem0.info, "load": {"events": events, "seconds": round(load_s, 1),
                                     "events_per_s": round(events / load_s, 1)},
               "recall": {"clients": args.clients, "queries": len(ms), "p50_ms": percentile(ms, 0.5),
                          "p95_ms": percentile(ms, 0.95), "recalls_per_s": round(len(ms) / answer["wall_s"], 1)}}
    print(f"peer {mem0.describe()}: the same {events} events added in {load_s:.1f} s ({events / load_s:.1f} events/s, "
          f"embedded one by one by add); {len(ms)} searches with {args.clients} concurrent clients: "
          f"p50 {figures['recall']['p50_ms']}  p95 {figures['recall']['p95_ms']}; ours p50 {p50}  p95 {p95}")
    return figures


def _concurrently(clients: int, work, items: list) -> tuple[list, float]:
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        results = list(pool.map(work, items))
    return results, time.perf_counter() - started


def _asker(deps: Dependencies, tenant: str, args: argparse.Namespace, http):
    """One recall, in-process as the API runs it or through ``http`` (the API Gateway): its
    milliseconds and its answer. Users are drawn from a seeded stream."""
    rng = random.Random(5)

    def ask(question: str) -> tuple[float, dict]:
        user = f"scale-{rng.randrange(args.users)}"
        start = time.perf_counter()
        if http is None:
            answer = recall(deps, RecallRequest.parse(Scope(tenant, user), question, 10))
        else:
            response = http.post(f"/v1/users/{user}/recall", json={"query": question, "k": 10})
            if response.status_code != 200:
                raise SystemExit(f"recall failed: {response.status_code} {response.text[:300]}")
            answer = response.json()
        return (time.perf_counter() - start) * 1000, answer

    return ask


def _refused(http, args: argparse.Namespace):
    """A recall the function refuses before any work (a wrong key, 401): what the API Gateway and
    the Lambda invoke cost by themselves, in ms."""
    def refused(question: str) -> float:
        start = time.perf_counter()
        response = http.post("/v1/users/scale-0/recall", json={"query": question, "k": 10},
                             headers={"Authorization": "Bearer wrong-key"})
        if response.status_code != 401:
            raise SystemExit(f"expected 401 for a wrong key, got {response.status_code}")
        return (time.perf_counter() - start) * 1000

    return refused


def measure_recall(deps: Dependencies, tenant: str, args: argparse.Namespace, questions: list[str], when: str,
                   http=None) -> dict:
    """Every question with ``args.clients`` concurrent clients, then the floor's the same way."""
    ask = _asker(deps, tenant, args, http)
    rng = random.Random(7)

    def floor(question: str) -> tuple[float, float]:
        """The question's embedding and one k-NN query, in ms each."""
        start = time.perf_counter()
        vector = deps.embedder.embed_query([question])[0]
        embedded = time.perf_counter()
        knn_floor(deps, Scope(tenant, f"scale-{rng.randrange(args.users)}"), vector, 10)
        return (embedded - start) * 1000, (time.perf_counter() - embedded) * 1000

    _concurrently(args.clients, ask, ["warm-up"] * 2 * args.clients)  # every client's function instance warm
    floor("warm-up")
    # Ours and the floor take turns, a few questions per client at a time: an index still merging
    # after a load, or a store warming up, weighs on both alike (one pass after the other handed
    # whichever came second a quieter machine).
    results, floors, wall, spent = [], [], 0.0, defaultdict(float)
    ours_s = 0.0
    for start in range(0, len(questions), INTERLEAVE * args.clients):
        chunk = questions[start:start + INTERLEAVE * args.clients]
        cpu_before, ours_before = server_cpu_seconds(), time.process_time()
        answers, seconds = _concurrently(args.clients, ask, chunk)
        cpu_after, ours_s = server_cpu_seconds(), ours_s + time.process_time() - ours_before
        results += answers
        wall += seconds
        for name, used in cpu_after.items():
            spent[name] += used - cpu_before.get(name, 0.0)
        floors += _concurrently(args.clients, floor, chunk)[0]
    gateway = _concurrently(args.clients, _refused(http, args), questions)[0] if http is not None else None
    e2e = [r[0] for r in results]
    via = f"through {args.api_url}" if http is not None else "in-process"
    print(f"{when}: {len(questions)} recalls {via} with {args.clients} concurrent clients in {wall:.1f} s "
          f"({len(questions) / wall:.1f} recalls/s)")
    p50, p95 = percentile(e2e, 0.5), percentile(e2e, 0.95)
    embed_p95, knn_p95 = percentile([f[0] for f in floors], 0.95), percentile([f[1] for f in floors], 0.95)
    # The floor: query embedding p95 + k-NN p95, both from the same concurrent pass. The
    # p95 of each question's own sum is lower (a slow embedding rarely meets a slow search): its
    # ratio is printed beside, the stricter reading.
    floor_p95, joint_p95 = round(embed_p95 + knn_p95, 2), percentile([sum(f) for f in floors], 0.95)
    target = 2.0 if http is not None else 1.5
    print(f"  end to end ms: p50 {p50}  p95 {p95}; floor: query embedding p95 {embed_p95} + k-NN p95 {knn_p95} "
          f"= {floor_p95}; p95 ratio to floor {p95 / floor_p95:.2f} (target <= {target}); to the p95 of "
          f"embedding + k-NN per question ({joint_p95}): {p95 / joint_p95:.2f}")
    if gateway:
        print(f"  the gateway's own round trip (the same requests with a wrong key: refused by the function at "
              f"once): p50 {percentile(gateway, 0.5)}  p95 {percentile(gateway, 0.95)}")
    for step in ("session", "tasks", "profile", "episodes", "fuse"):
        values = [r[1]["timings_ms"][step] for r in results if step in r[1].get("timings_ms", {})]
        if values:
            print(f"  {step:<9} p50 {percentile(values, 0.5):>8}  p95 {percentile(values, 0.95):>8}")
    degraded = statistics.fmean([bool(r[1]["degraded"]) for r in results])
    print(f"  degraded answers: {degraded:.1%} (target <= 1 %)")
    cpu = print_cpu({}, spent, ours_s, wall, len(questions), "recall")
    return {"clients": args.clients, "queries": len(questions), "p50_ms": p50, "p95_ms": p95,
            "floor_p95_ms": floor_p95, "ratio_to_floor": round(p95 / floor_p95, 3),
            "floor_embed_p95_ms": embed_p95, "floor_knn_p95_ms": knn_p95, "floor_joint_p95_ms": joint_p95,
            "ratio_to_joint_floor": round(p95 / joint_p95, 3),
            "degraded_fraction": round(degraded, 4), "via": args.api_url or "in-process", "cpu_s": cpu,
            **({"gateway_p50_ms": percentile(gateway, 0.5), "gateway_p95_ms": percentile(gateway, 0.95)}
               if gateway else {})}


def settle(deps: Dependencies) -> float:
    """Wait until the episode index has no merge running (what a loaded index settles to without
    being forced); seconds waited."""
    started = time.perf_counter()
    client, index = deps.clients.opensearch, deps.settings.episode_index
    client.indices.refresh(index=index)
    while client.indices.stats(index=index, metric="merge")["_all"]["total"]["merges"]["current"]:
        time.sleep(1)
    return time.perf_counter() - started


def _run(deps: Dependencies, tenant: str, args: argparse.Namespace, http=None) -> int:
    load_s = load(deps, tenant, args.users, args.events, args.pool)
    events = args.users * args.events
    print(f"loaded {events} events for {args.users} users in {load_s:.1f} s into {deps.settings.episode_index} "
          f"({deps.settings.episode_shards} shard(s), {deps.settings.episode_replicas} replica(s))")
    questions = [t["content"] for t in corpus.turns(args.queries, seed=29)]
    first = measure_recall(deps, tenant, args, questions, "right after the load", http)
    if http is None:  # this run's own index: its size, merged to what it settles to
        store = sizes(deps, events)
        print(f"store: {store['events']} events, {store['opensearch_bytes'] / 2**20:.1f} MiB in OpenSearch, "
              f"{store['opensearch_bytes_per_event']} bytes per event (target <= 4096 at 384 dimensions); {store}")
        when = "settled (merged to one segment)"
    else:  # the shared index: no bytes of this run's own, and no forced merge of everyone's data
        store = {}
        when = f"settled (no merge running after {settle(deps):.0f} s)"
    settled = measure_recall(deps, tenant, args, questions, when, http)
    peer_figures = run_mem0(args, questions, first["p50_ms"], first["p95_ms"]) if peer.measured(args.peer) \
        else peer.from_file(args.peer)
    layers = layers_scale.run_from_args(deps, args) if args.graph_users or args.drop_layers else None
    if args.json:
        out = {"recall": first, "recall_settled": settled,
               "store": {**store, "users": args.users, "events_per_user": args.events,
                         "shards": deps.settings.episode_shards, "replicas": deps.settings.episode_replicas},
               "peer": peer_figures, "layers": layers}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
