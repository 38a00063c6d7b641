"""Ingestion throughput through the HTTP API, and the share of it spent embedding.

    python -m engram.bench.ingest --turns 2000 [--batch 20] [--users 10]

Runs the API in-process (ASGI) over the configured stores so the embedder can be timed from
inside; the target is that everything apart from embedding costs no more than embedding.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid

from ..adapters import embedder
from ..service import routing
from . import corpus, use_local_stack


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engram.bench.ingest", description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=20, help="turns per request")
    parser.add_argument("--users", type=int, default=10)
    args = parser.parse_args(argv)
    use_local_stack()

    from fastapi.testclient import TestClient

    from ..api.app import create_app
    from ..service.tenants import ensure_tenant_key

    tenant, key = f"bench-{uuid.uuid4().hex[:8]}", f"bench-{uuid.uuid4().hex}"
    ensure_tenant_key(tenant, key)
    client = TestClient(create_app())
    headers = {"Authorization": f"Bearer {key}"}
    embedder.embed(["warm-up"])

    spent = {"embed": 0.0, "texts": 0}
    real_embed = embedder.embed

    def timed_embed(texts, *a, **kw):
        start = time.perf_counter()
        try:
            return real_embed(texts, *a, **kw)
        finally:
            spent["embed"] += time.perf_counter() - start
            spent["texts"] += len(texts)

    routing.embedder.embed = timed_embed  # the route step's only embedding call
    turns = corpus.turns(args.turns)
    started = time.perf_counter()
    for i in range(0, len(turns), args.batch):
        user = f"ingest-{i // args.batch % args.users}"
        response = client.post(f"/v1/users/{user}/messages", headers=headers, json={
            "session_id": f"s{i // (args.batch * args.users)}", "device_id": "bench",
            "messages": turns[i:i + args.batch]})
        if response.status_code != 200:
            print(response.text, file=sys.stderr)
            return 1
    total = time.perf_counter() - started
    routing.embedder.embed = real_embed
    rest = total - spent["embed"]
    print(f"turns: {args.turns} in {total:.1f} s through the API ({args.batch} per request, {args.users} users)")
    print(f"throughput: {args.turns / total:.1f} turns/s")
    rate = spent["texts"] / spent["embed"]
    print(f"embedding: {spent['embed']:.1f} s ({spent['embed'] / total:.0%}), {rate:.0f} texts/s")
    print(f"everything else: {rest:.1f} s ({rest / total:.0%}); ratio rest/embedding = {rest / spent['embed']:.2f} "
          f"(target <= 1.0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
