"""mem0 open source as the benchmarks' peer, on the turns and questions they give it.

    .run/peer-venv/bin/python -m local.bench.peer_mem0 MODEL < REQUESTS > ANSWERS

Runs under the peer's own interpreter (``local/bench/install-peer`` makes it), never under the
project's: a benchmark (``local.bench.peer.Mem0``) keeps it running beside itself and sends it one
JSON request a line, each answered by one JSON line, so that it can interleave mem0's work with
its own (both then see the same load on a shared machine). mem0 is configured as its
documentation's local setup: the same sentence-transformers model as ours (MODEL, the path our
embedder loads), Qdrant in local mode (on disk in a temporary directory: no server) and
``infer=False``, so no LLM is called; its LLM points at a closed local port so that a call would
fail rather than leave the machine, and its telemetry is off. Requests (``op``):

- ``info``: the version, the vector store.
- ``add`` ``{user, texts, dia_ids?}``: one ``add`` of these user messages (or, with ``dia_ids``, one
  ``add`` per text with its dia_id in the metadata); answers ``{ms}``.
- ``search`` ``{user, query, k}``: one ``search`` of the user's memories; ``{ms, dia_ids}``.
- ``search_many`` ``{questions: [{user, query}], k, clients}``: as many concurrent searches; ``{ms: [...], wall_s}``.

This module imports mem0 only inside ``main``: its pure parts are importable (and tested) under
the project's interpreter.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

OFFLINE = {"MEM0_TELEMETRY": "False", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false",
           # Anything that still tried to reach out over HTTP goes to a closed port and fails.
           "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1,localhost"}
VECTOR_STORE = "qdrant (local mode, on disk in a temporary directory, no server)"


def config(model: str, workdir: str, dims: int = 384) -> dict:
    """mem0's configuration: our embedding model, local Qdrant, an LLM that ``infer=False`` never calls."""
    return {
        "embedder": {"provider": "huggingface", "config": {"model": model, "model_kwargs": {"device": "cpu"}}},
        "vector_store": {"provider": "qdrant", "config": {"path": os.path.join(workdir, "qdrant"), "on_disk": True,
                                                          "collection_name": "bench", "embedding_model_dims": dims}},
        "llm": {"provider": "openai", "config": {"api_key": "unused-infer-false",
                                                 "openai_base_url": "http://127.0.0.1:9/v1"}},
        "history_db_path": os.path.join(workdir, "history.db"),
    }


def dia_ids(results: list[dict]) -> list[str]:
    """The distinct dia_ids of search results, in rank order (results without one are skipped)."""
    out: list[str] = []
    for item in results:
        dia_id = (item.get("metadata") or {}).get("dia_id")
        if dia_id and dia_id not in out:
            out.append(dia_id)
    return out


def _timed(call, *args, **kwargs) -> tuple[float, object]:
    """Milliseconds of one call, and its answer."""
    started = time.perf_counter()
    answer = call(*args, **kwargs)
    return (time.perf_counter() - started) * 1000, answer


class Ops:
    """The requests, over one mem0 ``Memory``."""

    def __init__(self, memory) -> None:
        self.memory = memory

    def info(self) -> dict:
        import importlib.metadata

        import torch

        # Torch's thread count matters here: mem0 embeds one text per call, and on a loaded
        # machine two threads per call can be several times slower than one.
        return {"system": "mem0", "version": importlib.metadata.version("mem0ai"), "vector_store": VECTOR_STORE,
                "infer": False, "torch_threads": torch.get_num_threads()}

    def add(self, user: str, texts: list[str], dia_ids: list[str] | None = None) -> dict:
        if dia_ids is None:
            messages = [{"role": "user", "content": text} for text in texts]
            return {"ms": _timed(self.memory.add, messages, user_id=user, infer=False)[0]}
        return {"ms": sum(_timed(self.memory.add, [{"role": "user", "content": text}], user_id=user, infer=False,
                                 metadata={"dia_id": dia_id})[0] for text, dia_id in zip(texts, dia_ids, strict=True))}

    def search(self, user: str, query: str, k: int) -> dict:
        ms, answer = _timed(self.memory.search, query, top_k=k, filters={"user_id": user})
        return {"ms": ms, "dia_ids": dia_ids(answer["results"])}

    def search_many(self, questions: list[dict], k: int, clients: int) -> dict:
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=clients) as pool:
            ms = list(pool.map(lambda q: self.search(q["user"], q["query"], k)["ms"], questions))
        return {"ms": ms, "wall_s": time.perf_counter() - started}


def main(argv: list[str]) -> int:
    answers, sys.stdout = sys.stdout, sys.stderr  # whatever mem0 prints stays off the answers
    with tempfile.TemporaryDirectory(prefix="mem0-bench-") as workdir:
        # MEM0_DIR is read when mem0 is imported (its user id file and migrations live there).
        os.environ.update(OFFLINE, MEM0_DIR=workdir)
        from mem0 import Memory

        memory = Memory.from_config(config(argv[0], workdir))
        memory.embedding_model.embed("warm-up", "add")  # not counted: loading the model, as for ours
        ops = Ops(memory)
        for line in sys.stdin:
            request = json.loads(line)
            answer = getattr(ops, request.pop("op"))(**request)
            answers.write(json.dumps(answer) + "\n")
            answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
