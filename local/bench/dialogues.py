"""User–assistant dialogues: recall@10 by kind of question, both guard rates and a plain dense
baseline with the same embedder over every turn, in the same run.

    python -m local.bench.dialogues --set zh|en [--models e5 minilm] [--json OUT] [--reuse FILE]

The sets (``local/bench/dialogues/``) were written by hand before any code was tuned on them:
``zh_companion_*.json`` (Chinese, companion / study / money assistants, 10 users over at least 8
days, user and assistant turns, questions asked in Chinese and some in English) and
``en_assistant_*.json`` (English, 10 long conversations with an assistant over many sessions).
Each question names its kind (``single``, ``multi``, ``temporal``, ``update``, ``preference``,
``assistant``: what the assistant said, ``english``: asked in English about Chinese memories,
``never_said``: evidence empty). The answerable questions about the user's own words are asked
again with a memory cue (``guard.memory_phrased``): the guard then applies, and the figures say
what it costs them.

For each model: a fresh tenant, each conversation a fresh user ingested through the HTTP API
in-process (the stores of the local stack), then, once its events are searchable, every question
asked through ``POST /recall`` with k 10 a day after the last turn. ``hit@k`` is the share of
questions with an evidence turn among the distinct provenance message ids of the top k items,
``recall@k`` the share of evidence ids found. Never-said questions are scored by whether the
answer said ``no_record`` (caught); answerable ones answered ``no_record`` are false no-records.
The baseline: each turn's own text and the question embedded by the same model, exact cosine, top
k. ``--reuse FILE`` keeps the tenant and users of a run and asks again without ingesting (for
recall-side changes; the ingest side must be measured fresh).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from engram.bootstrap import bootstrap
from engram.dependencies import Dependencies
from engram.domain.model import Scope
from engram.errors import StoreUnavailable

from . import use_local_stack
from .guard import memory_phrased
from .locomo import Client, distinct_ids, ingest, percentiles, score

HERE = Path(__file__).with_name("dialogues")
SETS = {"zh": "zh_companion_*.json", "en": "en_assistant_*.json"}
NEVER_SAID = "never_said"
# Asked again with a memory cue ("还记得…吗？", "Do you remember …"), which turns the guard on: what
# the user said must still be found. Not the assistant's words (asked with a cue already) nor
# questions across languages (their own kind).
PHRASED_KINDS = frozenset({"single", "multi", "temporal", "update", "preference"})
KS = [5, 10]


def _minilm():
    from engram.adapters.embedders.sentence_transformers import embedder_for

    return embedder_for("all-MiniLM-L6-v2")


def _e5():
    from engram.adapters.embedders.e5 import E5Embedder

    return E5Embedder()


MODELS = {"minilm": _minilm, "e5": _e5}


def load(paths: list[Path]) -> list[dict]:
    return [conv for path in paths for conv in json.loads(path.read_text(encoding="utf-8"))["conversations"]]


def set_paths(name: str) -> list[Path]:
    return sorted(HERE.glob(SETS[name]))


def categories(data: list[dict]) -> tuple[str, ...]:
    return tuple(sorted({q["category"] for c in data for q in c["questions"]} - {NEVER_SAID}))


def conversation_messages(conv: dict) -> list[dict]:
    """A conversation's turns as ``locomo.ingest`` sends them (one batch per session)."""
    return [{"role": t.get("role", "user"), "content": t["content"], "message_id": t["message_id"],
             "client_ts": t["client_ts"], "session": t["session_id"]} for t in conv["turns"]]


def recall_at_10(questions: list[dict]) -> float:
    """Recall@10 over the questions of ``PHRASED_KINDS``, whatever their kind."""
    return score(questions, "retrieved_message_ids", [10], tuple(sorted(PHRASED_KINDS)))["recall"]["10"]["overall"]


def rate(flags: list[bool]) -> float:
    return round(statistics.fmean(flags), 4) if flags else 0.0


def wait_searchable(deps: Dependencies, scope: Scope, expected: int, timeout_s: float = 180.0) -> float:
    """Wait until the user's events can be searched (what is measured is retrieval, not the
    index's refresh lag on a loaded node): ``expected`` of them, or a count that has stopped
    growing for three seconds (repeats fold, and a release that stored fewer kinds of turn as
    events is measured too); the seconds waited."""
    started, last, still_since = time.perf_counter(), -1, time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        try:
            count = deps.episodes.count(scope, tier="all")
        except StoreUnavailable:
            count = last  # the count timed out on the loaded node: ask again
        if count >= expected:
            return time.perf_counter() - started
        if count != last:
            last, still_since = count, time.perf_counter()
        elif count > 0 and time.perf_counter() - still_since >= 3.0:
            return time.perf_counter() - started
        time.sleep(0.5)
    print(f"warning: {scope.user_id}: fewer than {expected} events searchable after {timeout_s:.0f}s", file=sys.stderr)
    return time.perf_counter() - started


CACHE = Path(".run/bench/passages")


def _passages(embedder, name: str, texts: list[str]) -> tuple[np.ndarray, float | None]:
    """The baseline's passage vectors, kept between runs under ``.run/bench/passages`` (a set's
    turns take minutes to embed on two cores; the texts' hash names the file, so an edited set is
    embedded anew). Passages per second are printed only for a fresh embedding."""
    digest = hashlib.sha256("\x00".join([getattr(embedder, "model_name", name), *texts]).encode()).hexdigest()[:16]
    path = CACHE / f"{name}-{digest}.npy"
    if path.exists():
        return np.load(path), None
    started = time.perf_counter()
    vectors = np.asarray(embedder.embed(texts))
    seconds = time.perf_counter() - started
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors, seconds


def run_model(deps: Dependencies, name: str, data: list[dict], saved: dict | None, consent: bool = False) -> dict:
    embedder = MODELS[name]()
    embedder.warm_up()
    model_deps = deps.with_(embedder=embedder)
    texts = [t["content"] for conv in data for t in conv["turns"]]
    passages, embed_seconds = _passages(embedder, name, texts)
    passages_per_s = round(len(texts) / embed_seconds, 1) if embed_seconds else None
    client = Client(model_deps, None, None, (saved["tenant"], saved["key"]) if saved else None)
    users = dict(saved["users"]) if saved else {}
    per_question, query_ms, recall_ms, ingest_seconds, offset, searchable_s = [], [], [], 0.0, 0, 0.0
    phrased: list[dict] = []
    for conv in data:
        messages = conversation_messages(conv)
        if conv["user"] not in users:
            user = users[conv["user"]] = f"dlg-{name}-{conv['user']}-{uuid.uuid4().hex[:6]}"
            started = time.perf_counter()
            ingest(client, user, messages, consent)
            ingest_seconds += time.perf_counter() - started
            searchable_s += wait_searchable(model_deps, Scope(client.tenant, user), len(messages))
        user = users[conv["user"]]
        now = max(datetime.fromisoformat(m["client_ts"]) for m in messages) + timedelta(days=1)
        turn_ids = [m["message_id"] for m in messages]
        vectors, offset = passages[offset:offset + len(messages)], offset + len(messages)
        for qa in conv["questions"]:
            if qa["category"] in PHRASED_KINDS:
                asked = memory_phrased(qa["question"], len(phrased))
                answer = client.post(f"/v1/users/{user}/recall", {"query": asked, "k": max(KS), "now": now.isoformat()})
                phrased.append({"user": conv["user"], "id": qa["id"], "category": qa["category"], "question": asked,
                                "evidence": qa["evidence"], "retrieved_message_ids": distinct_ids(answer["items"]),
                                "no_record": answer["no_record"]})
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
    kinds = categories(data)
    answerable = [q for q in per_question if q["category"] != NEVER_SAID]
    never_said = [q for q in per_question if q["category"] == NEVER_SAID]
    return {
        "model": name, "model_name": getattr(embedder, "model_name", name), "consent": consent, "tenant": client.tenant,
        "key": client.key, "users": users, "categories": list(kinds),
        "methods": {"engram": score(answerable, "retrieved_message_ids", KS, kinds),
                    "dense": score(answerable, "dense_message_ids", KS, kinds)},
        "never_said_caught": rate([q["no_record"] for q in never_said]),
        "false_no_record": rate([q["no_record"] for q in answerable]),
        "false_no_record_by_category": {c: rate([q["no_record"] for q in answerable if q["category"] == c])
                                        for c in kinds},
        # The same questions as asked plainly and with a memory cue (the guard on): recall@10 of both.
        "memory_phrased": {"questions": len(phrased),
                           "recall_at_10": recall_at_10(phrased),
                           "plain_recall_at_10": recall_at_10([q for q in answerable
                                                               if q["category"] in PHRASED_KINDS]),
                           "false_no_record": rate([q["no_record"] for q in phrased]),
                           "per_question": phrased},
        "degraded_answers": sum(bool(q["degraded"] or q["memory_unavailable"]) for q in per_question),
        "embedding": {"passages": len(texts), "passages_per_s": passages_per_s,
                      "query_ms": percentiles(query_ms)},
        "recall_ms": percentiles(recall_ms),
        "ingest": {"turns": len(texts), "seconds": round(ingest_seconds, 1),
                   "turns_per_s": round(len(texts) / max(ingest_seconds, 1e-9), 1) if ingest_seconds else None,
                   "wait_searchable_s": round(searchable_s, 1)},
        "questions": {"answerable": len(answerable), "never_said": len(never_said)},
        "per_question": per_question,
    }


def print_table(results: list[dict]) -> None:
    for result in results:
        kinds = result["categories"]
        print(f"{'model':<7} {'method':<7} {'metric':<9} {'overall':>7}  " + "  ".join(f"{c[:10]:>10}" for c in kinds))
        for metric in ("recall", "hit"):
            for method, scores in result["methods"].items():
                row = scores[metric]["10"]
                cats = "  ".join(f"{row['by_category'][c]:>10.3f}" for c in kinds)
                print(f"{result['model']:<7} {method:<7} {metric + '@10':<9} {row['overall']:>7.3f}  {cats}")
        print()
    print(f"{'model':<7} {'never-said caught':>17} {'false no-record':>15} {'passages/s':>10} "
          f"{'query p50 ms':>12} {'recall p50 ms':>13} {'recall p95 ms':>13} {'degraded':>8}")
    for r in results:
        e = r["embedding"]
        print(f"{r['model']:<7} {r['never_said_caught']:>17.3f} {r['false_no_record']:>15.3f} "
              f"{e['passages_per_s'] or '(cached)':>10} {e['query_ms']['p50']:>12.2f} "
              f"{r['recall_ms']['p50']:>13.2f} {r['recall_ms']['p95']:>13.2f} {r['degraded_answers']:>8}")
    for r in results:
        m = r["memory_phrased"]
        print(f"{r['model']}: memory-phrased ({m['questions']} facts asked again with a cue): recall@10 "
              f"{m['recall_at_10']:.3f} against {m['plain_recall_at_10']:.3f} asked plainly, false no-record "
              f"{m['false_no_record']:.3f}")
    for r in results:
        i = r["ingest"]
        print(f"{r['model']}: false no-record by kind {r['false_no_record_by_category']}; ingest "
              f"{i['turns_per_s']} turns/s through the API, waited {i['wait_searchable_s']}s for search")
    if results:
        q = results[0]["questions"]
        print(f"questions: {q['answerable']} answerable, {q['never_said']} never said; "
              f"turns: {results[0]['embedding']['passages']}")


def main(argv: list[str] | None = None, default_set: str = "zh") -> int:
    parser = argparse.ArgumentParser(prog="python -m local.bench.dialogues", description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), default=default_set)
    parser.add_argument("--data", nargs="+", help="set files instead of --set's")
    parser.add_argument("--models", nargs="+", choices=sorted(MODELS), default=["e5", "minilm"])
    parser.add_argument("--limit", type=int, help="only the first N conversations")
    parser.add_argument("--json", dest="json_out")
    parser.add_argument("--consent", action="store_true",
                        help="each user gives long-term consent before their turns (the profile graph is kept)")
    parser.add_argument("--reuse", help="a JSON file: the tenants and users of an earlier run, asked again")
    args = parser.parse_args(argv)
    use_local_stack()
    data = load([Path(p) for p in args.data] if args.data else set_paths(args.set))[: args.limit]
    deps = bootstrap()
    saved = json.loads(Path(args.reuse).read_text()) if args.reuse and Path(args.reuse).exists() else {}
    results = [run_model(deps, name, data, saved.get(name), args.consent) for name in args.models]
    print_table(results)
    if args.reuse:
        Path(args.reuse).write_text(json.dumps({r["model"]: {"tenant": r["tenant"], "key": r["key"],
                                                             "users": r["users"]} for r in results}))
    if args.json_out:
        Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json_out).write_text(json.dumps({"generated_at": datetime.now(UTC).isoformat(), "set": args.set,
                                                   "results": results}, ensure_ascii=False, indent=1),
                                       encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
