"""Ingestion throughput through the HTTP API, and the share of it spent embedding.

    python -m local.bench.ingest --turns 2000 [--batch 20] [--users 10]

Runs the API in-process (ASGI) over the configured stores, with the embedder wrapped in a timer
(``TimedEmbedder``, handed to the app as its ``deps.embedder``); the target is that everything
apart from embedding costs no more than embedding.
"""

from __future__ import annotations

import argparse
import sys
import time

from engram.ports import Embedder

from . import bench_tenant, corpus, use_local_stack


class TimedEmbedder:
    """An embedder that adds the time spent in, and the texts given to, ``embed``."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.texts = 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        start = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.texts += len(texts)

    def warm_up(self) -> None:
        self.inner.warm_up()  # not counted: loading the model is no part of ingestion


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.bench.ingest", description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=20, help="turns per request")
    parser.add_argument("--users", type=int, default=10)
    args = parser.parse_args(argv)
    use_local_stack()

    from fastapi.testclient import TestClient

    from engram.api.app import create_app
    from engram.bootstrap import bootstrap

    deps = bootstrap()
    deps.embedder.warm_up()
    timed = TimedEmbedder(deps.embedder)  # the route step's only embedding call goes through it
    _, key = bench_tenant(deps)
    client = TestClient(create_app(deps.with_(embedder=timed)))
    headers = {"Authorization": f"Bearer {key}"}

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
    rest = total - timed.seconds
    print(f"turns: {args.turns} in {total:.1f} s through the API ({args.batch} per request, {args.users} users)")
    print(f"throughput: {args.turns / total:.1f} turns/s")
    rate = timed.texts / timed.seconds
    print(f"embedding: {timed.seconds:.1f} s ({timed.seconds / total:.0%}), {rate:.0f} texts/s")
    print(f"everything else: {rest:.1f} s ({rest / total:.0%}); ratio rest/embedding = {rest / timed.seconds:.2f} "
          f"(target <= 1.0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
