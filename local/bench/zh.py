"""Chinese retrieval benchmark: recall@5 and @10 on ``local/bench/zh_dev.json``, for each embedder.

    python -m local.bench.zh [--data FILE] [--models minilm e5] [--json OUT]

For each model: a fresh tenant, each conversation ingested as a fresh user through the HTTP API
in-process (``locomo.Client``/``locomo.ingest``, the stores of the local stack, the app built over
``Dependencies.with_(embedder=...)``), then, once its events are searchable, every question asked
through ``POST /recall`` with k 10. Recall at k is the share of a question's evidence ids among
the distinct provenance message ids of the top k items (``locomo.distinct_ids``/``locomo.score``);
never-said questions (no evidence) are scored by whether the answer said ``no_record``. Beside
it, the plain dense top-k: each turn's own text and the question embedded by the same model,
exact cosine. The embedding cost is the embedder's own: passages per second over the set's turns
in one call, and one question at a time (p50/p95 ms).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from engram.bootstrap import Dependencies, bootstrap
from engram.domain.model import Scope
from engram.errors import StoreUnavailable

from . import use_local_stack
from .locomo import Client, distinct_ids, ingest, percentiles, score

DATA = Path(__file__).with_name("zh_dev.json")
CATEGORIES = ("single", "multi", "temporal", "update", "english")
NEVER_SAID = "never_said"
KS = [5, 10]


def _minilm():
    from engram.adapters.embedder import SentenceEmbedder

    return SentenceEmbedder()


def _e5():
    from engram.adapters.e5_embedder import E5Embedder

    return E5Embedder()


MODELS = {"minilm": _minilm, "e5": _e5}


def conversation_messages(conv: dict) -> list[dict]:
    """A conversation's turns in the form ``locomo.ingest`` sends (one batch per session)."""
    return [{"role": "user", "content": t["content"], "message_id": t["message_id"], "client_ts": t["client_ts"],
             "session": t["session_id"]} for t in conv["turns"]]


def _rate(flags: list[bool]) -> float:
    return round(statistics.fmean(flags), 4) if flags else 0.0


def wait_searchable(deps: Dependencies, scope: Scope, expected: int, timeout_s: float = 120.0) -> float:
    """Wait until the user's events can be searched; the seconds waited. The index refreshes by
    itself, but on a loaded node a refresh took seconds (a forced one timed out), and questions
    asked at once found nothing: what is measured here is retrieval, not that lag."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        try:
            if deps.episodes.count(scope, tier="all") >= expected:
                return time.perf_counter() - started
        except StoreUnavailable:
            pass  # the count timed out on the loaded node: ask again
        time.sleep(0.5)
    print(f"warning: {scope.user_id}: fewer than {expected} events searchable after {timeout_s:.0f}s", file=sys.stderr)
    return time.perf_counter() - started


def run_model(deps: Dependencies, name: str, data: list[dict]) -> dict:
    embedder = MODELS[name]()
    embedder.warm_up()
    model_deps = deps.with_(embedder=embedder)
    texts = [t["content"] for conv in data for t in conv["turns"]]
    started = time.perf_counter()
    passages = np.asarray(embedder.embed(texts))
    embed_seconds = time.perf_counter() - started
    client = Client(model_deps, None, None)  # a fresh tenant for this model
    per_question, query_ms, recall_ms, ingest_seconds, offset, users, searchable_s = [], [], [], 0.0, 0, {}, 0.0
    for conv in data:
        messages = conversation_messages(conv)
        user = users[conv["user"]] = f"zh-{name}-{conv['user']}-{uuid.uuid4().hex[:6]}"
        started = time.perf_counter()
        ingest(client, user, messages)
        ingest_seconds += time.perf_counter() - started
        searchable_s += wait_searchable(model_deps, Scope(client.tenant, user), len(messages))
        now = max(datetime.fromisoformat(m["client_ts"]) for m in messages) + timedelta(days=1)
        turn_ids = [m["message_id"] for m in messages]
        vectors, offset = passages[offset:offset + len(messages)], offset + len(messages)
        for qa in conv["questions"]:
            t0 = time.perf_counter()
            answer = client.post(f"/v1/users/{user}/recall", {"query": qa["question"], "k": max(KS),
                                                              "now": now.isoformat()})
            t1 = time.perf_counter()
            vector = np.asarray(embedder.embed_query([qa["question"]])[0])
            t2 = time.perf_counter()
            recall_ms.append((t1 - t0) * 1000)
            query_ms.append((t2 - t1) * 1000)
            per_question.append({
                "user": conv["user"], "id": qa["id"], "category": qa["category"], "question": qa["question"],
                "evidence": qa["evidence"], "retrieved_message_ids": distinct_ids(answer["items"]),
                "dense_message_ids": [turn_ids[i] for i in np.argsort(-(vectors @ vector))[:max(KS)]],
                "no_record": answer["no_record"], "degraded": answer["degraded"],
                "memory_unavailable": answer.get("memory_unavailable", []), "timings_ms": answer["timings_ms"]})
    answerable = [q for q in per_question if q["category"] != NEVER_SAID]
    never_said = [q for q in per_question if q["category"] == NEVER_SAID]
    embed_query_p, recall_p = percentiles(query_ms), percentiles(recall_ms)
    return {
        "model": name, "model_name": getattr(embedder, "model_name", name), "tenant": client.tenant, "users": users,
        "methods": {"engram": score(answerable, "retrieved_message_ids", KS, CATEGORIES),
                    "dense": score(answerable, "dense_message_ids", KS, CATEGORIES)},
        "never_said_no_record": _rate([q["no_record"] for q in never_said]),
        "false_no_record": _rate([q["no_record"] for q in answerable]),
        "degraded_answers": sum(bool(q["degraded"] or q["memory_unavailable"]) for q in per_question),
        "embedding": {"passages": len(texts), "passages_per_s": round(len(texts) / max(embed_seconds, 1e-9), 1),
                      "query_ms": embed_query_p},
        "recall_ms": recall_p,
        "ingest": {"turns": len(texts), "seconds": round(ingest_seconds, 1),
                   "turns_per_s": round(len(texts) / max(ingest_seconds, 1e-9), 1),
                   "wait_searchable_s": round(searchable_s, 1)},
        "questions": {"answerable": len(answerable), "never_said": len(never_said)},
        "per_question": per_question,
    }


def print_table(results: list[dict]) -> None:
    head = f"{'model':<7} {'method':<7} {'k':>3}  {'overall':>7}  " + "  ".join(f"{c:>8}" for c in CATEGORIES)
    print(head)
    for result in results:
        for method, scores in result["methods"].items():
            for k in KS:
                row = scores["recall"][str(k)]
                cats = "  ".join(f"{row['by_category'][c]:>8.3f}" for c in CATEGORIES)
                print(f"{result['model']:<7} {method:<7} {k:>3}  {row['overall']:>7.3f}  {cats}")
    print()
    print(f"{'model':<7} {'never_said->no_record':>21} {'false_no_record':>15} {'passages/s':>10} "
          f"{'query p50 ms':>12} {'query p95 ms':>12} {'recall p50 ms':>13} {'recall p95 ms':>13} {'degraded':>8}")
    for r in results:
        e = r["embedding"]
        print(f"{r['model']:<7} {r['never_said_no_record']:>21.3f} {r['false_no_record']:>15.3f} "
              f"{e['passages_per_s']:>10.1f} {e['query_ms']['p50']:>12.2f} {e['query_ms']['p95']:>12.2f} "
              f"{r['recall_ms']['p50']:>13.2f} {r['recall_ms']['p95']:>13.2f} {r['degraded_answers']:>8}")
    for r in results:
        i = r["ingest"]
        print(f"{r['model']}: ingest {i['turns_per_s']} turns/s through the API; waited {i['wait_searchable_s']}s "
              f"in all for the events to be searchable")
    if results:
        q = results[0]["questions"]
        print(f"questions: {q['answerable']} answerable, {q['never_said']} never said; "
              f"turns: {results[0]['embedding']['passages']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.bench.zh", description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--models", nargs="+", choices=sorted(MODELS), default=["minilm", "e5"])
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args(argv)
    use_local_stack()
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))["conversations"]
    deps = bootstrap()
    results = [run_model(deps, name, data) for name in args.models]
    print_table(results)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"generated_at": datetime.now(UTC).isoformat(), "data": args.data,
                                                   "results": results}, ensure_ascii=False, indent=1),
                                       encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
