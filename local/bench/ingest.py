"""Ingestion throughput, against batched embedding of the same texts in the same run.

    python -m local.bench.ingest --turns 2000 [--batch 20] [--users 10] [--json OUT]
                                 [--api-url URL --api-key KEY] [--peer mem0 | --peer PEER.json]

The floor is the embedder alone on the same texts in batches of the request size, each batch
embedded just before its request (the two see the same load); the target is ingestion at >= 0.8x
its throughput. Without ``--api-url`` the API runs in-process (ASGI) over the
configured stores with every store timed (``local.bench.phases``: a per-phase breakdown of where
a request's time goes); with it, requests go to that API (API Gateway on LocalStack, say).
``first_request_s`` is a new process's first ingest request, from its start (imports, model,
pools) to the answer: what the first request after a deploy pays. Through ``--api-url`` it is
the first request's latency, a cold start only if the functions were just deployed.
``--peer mem0`` then runs mem0 open source (``local.bench.peer``: ``infer=False``, local Qdrant,
the same embedding model) on the same turns, users and batches, one ``add`` per request, and
prints its throughput beside ours; the target is ours >= 2x mem0's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import time

from engram.ports import Embedder

from . import bench_tenant, corpus, peer, use_local_stack
from .phases import Tally, print_breakdown, print_cpu, server_cpu_seconds, stores_pinned, timed_deps

# A fresh interpreter's first request: imports, bootstrap, model load, pools, one ingest.
_FIRST_REQUEST = """
import sys, time
from local.bench import use_local_stack
use_local_stack()
from fastapi.testclient import TestClient
from engram.api.app import create_app
from engram.bootstrap import bootstrap
answer = TestClient(create_app(bootstrap())).post("/v1/users/first-request/messages",
    headers={"Authorization": "Bearer " + sys.argv[1]},
    json={"session_id": "s0", "device_id": "bench", "messages": [{"role": "user",
          "content": "I adopted a grey cat called Pixel.", "message_id": "m0", "client_ts": "2026-01-05T09:00:00Z"}]})
print(answer.status_code, time.time(), flush=True)
"""


def embedding_seconds(embedder: Embedder, texts: list[str]) -> float:
    """The embedder alone on one request's texts: the floor, measured just before each request
    so that both see the same load on a shared machine."""
    started = time.perf_counter()
    embedder.embed(texts)
    return time.perf_counter() - started


def as_embedded(batch: list[dict]) -> list[str]:
    """The texts ingestion embeds for a batch: each turn after the one before it (the first turn
    of a batch alone: its predecessor is in an earlier request, or none)."""
    return [batch[0]["content"]] + [f"{a['content']}\n{b['content']}" for a, b in zip(batch, batch[1:], strict=False)]


def first_request_seconds(api_key: str) -> float:
    started = time.time()
    out = subprocess.run([sys.executable, "-c", _FIRST_REQUEST, api_key], capture_output=True, text=True, timeout=300)
    fields = out.stdout.split()
    if out.returncode != 0 or len(fields) != 2 or fields[0] != "200":
        raise RuntimeError(f"first request failed: {out.stdout[-300:]} {out.stderr[-600:]}")
    return float(fields[1]) - started


def ingest_all(client, headers: dict, embedder: Embedder, turns: list[dict], args: argparse.Namespace,
               mem0: peer.Mem0 | None) -> tuple[float, float, float, float]:
    """Every request, each after the floor's embedding of its texts and before mem0's ``add`` of
    the same turns (when measured): the three see the same load. Seconds: the first request,
    the floor, all requests, mem0's adds."""
    first_s, floor_s, total, peer_s = None, 0.0, 0.0, 0.0
    for i in range(0, len(turns), args.batch):
        user, batch = user_of(i, args), turns[i:i + args.batch]
        cpu = time.process_time()
        floor_s += embedding_seconds(embedder, as_embedded(batch))
        FLOOR_CPU[0] += time.process_time() - cpu
        sent = time.perf_counter()
        response = client.post(f"/v1/users/{user}/messages", headers=headers, json={
            "session_id": f"s{i // (args.batch * args.users)}", "device_id": "bench", "messages": batch})
        total += time.perf_counter() - sent
        first_s = first_s if first_s is not None else time.perf_counter() - sent
        if response.status_code != 200:
            raise SystemExit(f"ingest failed: {response.status_code} {response.text[:500]}")
        if mem0 is not None:
            peer_s += mem0.add(user, [t["content"] for t in batch])
    return first_s, floor_s, total, peer_s


FLOOR_CPU = [0.0]  # this process's CPU seconds in the floor's embedding (subtracted from its total)


def user_of(first_turn: int, args: argparse.Namespace) -> str:
    """The user a request starting at ``first_turn`` ingests for: the users take turns."""
    return f"ingest-{first_turn // args.batch % args.users}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.bench.ingest", description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=20, help="turns per request")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--api-url", help="an API to ingest through (default: in-process)")
    parser.add_argument("--api-key", help="its API key (with --api-url)")
    parser.add_argument("--json", metavar="OUT", help="write the figures as JSON here")
    parser.add_argument("--peer", metavar="mem0|FILE",
                        help="mem0: measure mem0 on the same turns in this run; FILE: a peer's figures (same shape)")
    parser.add_argument("--pin-stores", metavar="CPUS", type=lambda v: {int(c) for c in v.split(",")},
                        help="run the local servers on these CPUs (e.g. 0) and this process on the others, as a "
                             "deployment has the stores on their own hosts (floor and ingestion alike)")
    args = parser.parse_args(argv)
    use_local_stack()
    with stores_pinned(args.pin_stores) if args.pin_stores else contextlib.nullcontext() as ours:
        if ours:
            print(f"stores pinned to CPUs {sorted(args.pin_stores)}; this process (embedder and floor) on {ours}")
        return measure(args)


def measure(args: argparse.Namespace) -> int:

    from fastapi.testclient import TestClient

    from engram.api.app import create_app
    from engram.bootstrap import bootstrap

    deps = bootstrap()
    deps.embedder.warm_up()  # not counted: loading the model is no part of ingestion
    turns = corpus.turns(args.turns)
    tally = Tally()
    if args.api_url:
        import httpx

        client, key = httpx.Client(base_url=args.api_url.rstrip("/"), timeout=120), args.api_key
    else:
        _, key = bench_tenant(deps)
        client = TestClient(create_app(timed_deps(deps, tally)))
    headers = {"Authorization": f"Bearer {key}"}

    cpu_before, ours_before = server_cpu_seconds(), time.process_time()
    with peer.Mem0() if peer.measured(args.peer) else contextlib.nullcontext() as mem0:
        first_s, floor_s, total, peer_s = ingest_all(client, headers, deps.embedder, turns, args, mem0)
    cpu_after, ours_s = server_cpu_seconds(), time.process_time() - ours_before - FLOOR_CPU[0]
    floor = args.turns / floor_s
    if not args.api_url:
        first_s = first_request_seconds(key)
    requests = -(-len(turns) // args.batch)
    rate = args.turns / total
    where = f"through {args.api_url}" if args.api_url else "through the in-process API"
    print(f"turns: {args.turns} in {total:.1f} s {where} ({args.batch} per request, {args.users} users)")
    print(f"throughput: {rate:.1f} turns/s; batched embedding of the same texts: {floor:.0f} texts/s; "
          f"ratio {rate / floor:.2f} (target >= 0.8)")
    print(f"first request of a new process (imports, model, pools, one ingest): {first_s:.2f} s (target <= 3 s)")
    ingest = {"turns": args.turns, "batch": args.batch, "turns_per_s": round(rate, 2),
              "embedding_texts_per_s": round(floor, 1), "ratio_to_embedding": round(rate / floor, 3),
              "first_request_s": round(first_s, 2), "via": args.api_url or "in-process",
              "stores_pinned_to_cpus": sorted(args.pin_stores) if args.pin_stores else None}
    if not args.api_url:
        embed_s = tally.part_seconds("embedder")
        print(f"embedding inside ingestion: {embed_s:.1f} s ({embed_s / total:.0%} of the wall time)")
        print_breakdown(tally, total, requests)
        if mem0 is None:  # mem0's own CPU would be counted as ours
            ingest["cpu_s"] = print_cpu(cpu_before, cpu_after, ours_s, total, args.turns, "turn")
            print(f"  (the floor's embedding: {FLOOR_CPU[0]:.2f} s, {FLOOR_CPU[0] / args.turns * 1000:.2f} ms/turn, "
                  "not in the bench process's figure)")
        ingest["phases_s"] = {name: round(seconds, 3) for name, seconds, _ in tally.rows()}
    peer_figures = peer.from_file(args.peer)
    if mem0 is not None:
        theirs = args.turns / peer_s
        peer_figures = {**mem0.info, "ingest": {"turns": args.turns, "batch": args.batch, "seconds": round(peer_s, 2),
                                                "turns_per_s": round(theirs, 2), "via": "in-process, Memory.add"}}
        ingest["ratio_to_peer"] = round(rate / theirs, 3)
        if not args.api_url:
            import torch  # loaded by our embedder already

            ingest["torch_threads"] = torch.get_num_threads()
            print(f"ours: torch threads {ingest['torch_threads']}")
        print(f"peer {mem0.describe()}: {args.turns} turns in {peer_s:.1f} s, {theirs:.1f} turns/s (the same turns, "
              f"users and batches, one add per request, interleaved with ours); ours / mem0 = {rate / theirs:.2f}x "
              "(target >= 2)")
    if args.json:
        out = {"ingest": ingest, "peer": peer_figures}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
