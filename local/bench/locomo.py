"""LoCoMo retrieval benchmark: Engram's recall against plain dense and fused baselines, in one run.

    python -m local.bench.locomo --data FILE --k 5 10 20 --json OUT [--limit N] [--api-url URL --api-key KEY]
                                 [--reuse USERS.json] [--peer mem0]

Each conversation is ingested through the HTTP API as one user (message id = ``dia_id``, client
time = the session's date); every question of categories 1-4 is asked through recall. The
dense baseline embeds the question and each turn's own text with the same model and takes the
exact top-k; the fused baseline adds BM25 over the same turns by reciprocal-rank fusion. The
latency floor is one query embedding plus one k-NN query in the episode store.
Without ``--api-url`` the API runs in-process (ASGI) over the configured stores. ``--reuse FILE``
keeps the tenant and the users a first run ingested (written there) and asks the next runs' questions
of them without ingesting again: for iterating on recall, never for figures about ingestion.
``--peer mem0`` also runs mem0 open source (``local.bench.peer``) on the same turns and questions
and scores its recall on the same evidence (``methods.mem0``; its figures under ``peer``).

The guard and the relevance floor are measured beside it (``local/bench/guard.py``): every
question again as a memory question, and other conversations' never-said questions; the
calibration sweeps read the layers in-process, so they need the stores this process reaches.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import time
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from engram.adapters.opensearch.episode_store import EpisodeStore
from engram.bootstrap import bootstrap
from engram.dependencies import Dependencies
from engram.domain.keys import episode_routing
from engram.domain.model import Scope
from engram.domain.recall.fusion import HYBRID

from . import bench_tenant, peer, use_local_stack
from . import guard as g

CATEGORIES = ("1", "2", "3", "4")
_SESSION = re.compile(r"^session_(\d+)$")


def session_time(text: str) -> datetime:
    """LoCoMo writes '1:56 pm on 8 May, 2023'."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def conversation_turns(conv: dict) -> list[dict]:
    """Messages in API form, in order; a shared photo's caption is part of what was said."""
    sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION.match(key)) and conv[key])
    messages = []
    for number, key in sessions:
        start = session_time(conv[f"session_{number}_date_time"])
        for i, turn in enumerate(conv[key]):
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            messages.append({"role": "user", "content": text, "message_id": turn["dia_id"],
                             "client_ts": (start + timedelta(seconds=30 * i)).isoformat(),
                             "session": f"session_{number}"})
    return messages


class Bm25:
    """Okapi BM25 over one conversation's turns (their own statistics), the lexical half of the
    fused baseline: what a plain dense + BM25 retriever with reciprocal-rank fusion would find."""

    STOP = frozenset("a an and are as at be but by did do does for from had has have he her his how i if in "
                     "is it its me my of on or our she so that the their them they this to was we were what "
                     "when where which who why will with you your".split())

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = [Counter(self.tokens(t)) for t in texts]
        self.lengths = np.asarray([sum(d.values()) for d in self.docs], dtype=float)
        self.df = Counter(term for d in self.docs for term in d)
        self.k1, self.b, self.n = k1, b, len(self.docs)

    @classmethod
    def tokens(cls, text: str) -> list[str]:
        return [w for w in re.findall(r"[a-z0-9']+", text.lower()) if w not in cls.STOP]

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(self.n)
        norm = self.k1 * (1 - self.b + self.b * self.lengths / max(self.lengths.mean(), 1.0))
        for term in set(self.tokens(query)):
            idf = math.log(1 + (self.n - self.df[term] + 0.5) / (self.df[term] + 0.5))
            tf = np.asarray([d[term] for d in self.docs], dtype=float)
            out += idf * tf * (self.k1 + 1) / (tf + norm)
        return out


def rrf(*scores: np.ndarray, k: int = 60) -> np.ndarray:
    """Reciprocal-rank fusion of score arrays over the same items."""
    out = np.zeros(len(scores[0]))
    for s in scores:
        ranks = np.empty(len(s))
        ranks[np.argsort(-s)] = np.arange(1, len(s) + 1)
        out += 1.0 / (k + ranks)
    return out


def evidence_ids(qa: dict) -> list[str]:
    return [e.strip() for item in qa.get("evidence", []) for e in str(item).split(";") if e.strip()]


def distinct_ids(items: list[dict]) -> list[str]:
    ids: list[str] = []
    for item in items:
        for mid in item["provenance"]["message_ids"]:
            if mid not in ids:
                ids.append(mid)
    return ids


def score(per_question: list[dict], key: str, ks: list[int], categories: tuple[str, ...] = CATEGORIES) -> dict:
    """Recall and hit at each k of the ids under ``key``, overall and by category (``local.bench.zh`` too)."""
    out: dict = {"recall": {}, "hit": {}}
    for k in ks:
        for metric in ("recall", "hit"):
            by_cat: dict[str, list[float]] = {c: [] for c in categories}
            for q in per_question:
                found = set(q[key][:k]) & set(q["evidence"])
                value = len(found) / len(q["evidence"]) if metric == "recall" else float(bool(found))
                by_cat[str(q["category"])].append(value)
            flat = [v for values in by_cat.values() for v in values]
            out[metric][str(k)] = {"overall": round(statistics.fmean(flat), 4) if flat else 0.0,
                                   "by_category": {c: round(statistics.fmean(v), 4) if v else 0.0
                                                   for c, v in by_cat.items()}}
    return out


def percentiles(values: list[float]) -> dict:
    if not values:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0}
    ordered = sorted(values)

    def pick(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))], 2)

    return {"p50": pick(0.50), "p95": pick(0.95), "p99": pick(0.99)}


def knn_floor(deps: Dependencies, scope: Scope, vector: list[float], k: int) -> list[dict]:
    """The floor: one filtered k-NN query for the user's events (all tiers) in the episode store."""
    body = EpisodeStore.knn_body(scope, vector, k, tier="all")  # as the store asks it (exact per user)
    return deps.clients.opensearch.search(index=deps.settings.episode_index, routing=episode_routing(scope),
                                          body=body)["hits"]["hits"]


class Client:
    """The HTTP API, remote or in-process."""

    def __init__(self, deps: Dependencies, api_url: str | None, api_key: str | None,
                 tenant_key: tuple[str, str] | None = None) -> None:
        import httpx

        if api_url:
            self.http = httpx.Client(base_url=api_url.rstrip("/"), timeout=120)
            self.key = api_key
            self.tenant = None
        else:
            from fastapi.testclient import TestClient

            from engram.api.app import create_app

            self.tenant, self.key = tenant_key or bench_tenant(deps)
            self.http = TestClient(create_app(deps))

    def put(self, path: str, body: dict) -> dict:
        return self._send("PUT", path, body)

    def post(self, path: str, body: dict) -> dict:
        return self._send("POST", path, body)

    def _send(self, method: str, path: str, body: dict) -> dict:
        response = self.http.request(method, path, json=body, headers={"Authorization": f"Bearer {self.key}"})
        if response.status_code >= 400:
            raise RuntimeError(f"{path}: {response.status_code} {response.text[:300]}")
        return response.json()


def run(deps: Dependencies, data: list[dict], ks: list[int], client: Client, tenant: str,
        ingested: dict[str, str] | None = None) -> dict:
    """``ingested`` maps a conversation's sample_id to the user already holding it; conversations
    not in it are ingested as new users and added to it."""
    ingested = {} if ingested is None else ingested
    top = max(ks)
    gk = 10 if 10 in ks else top
    per_question, e2e, by_step = [], [], {}
    memory_asked, absent_asked, plain_raw = [], [], []  # the guard's questions (``guard``)
    floor_embed, floor_knn = [], []
    ingest_seconds, turns_total = 0.0, 0
    for conv in data:
        messages = conversation_turns(conv)
        user = ingested.get(conv["sample_id"])
        if user is None:
            user = ingested[conv["sample_id"]] = f"locomo-{conv['sample_id']}-{uuid.uuid4().hex[:6]}"
            started = time.perf_counter()
            ingest(client, user, messages)
            ingest_seconds += time.perf_counter() - started
            turns_total += len(messages)
        now = max(datetime.fromisoformat(m["client_ts"]) for m in messages) + timedelta(days=1)
        scope = Scope(tenant, user)
        # The baseline: each turn's own text embedded alone by the same model, exact top-k.
        turn_ids = [m["message_id"] for m in messages]
        turn_vectors = np.asarray(deps.embedder.embed([m["content"] for m in messages]))
        bm25_turns = Bm25([m["content"] for m in messages])
        for index, qa in enumerate(conv["qa"]):
            if str(qa.get("category")) not in CATEGORIES or not evidence_ids(qa):
                continue
            t0 = time.perf_counter()
            answer = client.post(f"/v1/users/{user}/recall", {"query": qa["question"], "k": top,
                                                              "now": now.isoformat()})
            e2e.append((time.perf_counter() - t0) * 1000)
            for step, ms in answer["timings_ms"].items():
                by_step.setdefault(step, []).append(ms)
            t1 = time.perf_counter()
            vector = deps.embedder.embed_query([qa["question"]])[0]
            t2 = time.perf_counter()
            knn_floor(deps, scope, vector, top)
            t3 = time.perf_counter()
            cosines = turn_vectors @ np.asarray(vector)
            dense = [turn_ids[i] for i in np.argsort(-cosines)[:top]]
            lexical = bm25_turns.scores(qa["question"])
            fused = [turn_ids[i] for i in np.argsort(-rrf(cosines, lexical))[:top]]
            floor_embed.append((t2 - t1) * 1000)
            floor_knn.append((t3 - t2) * 1000)
            per_question.append({
                "conversation": conv["sample_id"], "qa_index": index, "category": int(qa["category"]),
                "evidence": evidence_ids(qa), "retrieved_message_ids": distinct_ids(answer["items"]),
                "dense_message_ids": dense, "fused_message_ids": fused,
                "no_record": answer["no_record"], "degraded": answer["degraded"]})
            memory_asked.append(ask_guarded(deps, client, scope, user, g.memory_phrased(qa["question"], index),
                                            now, gk, evidence_ids(qa)))
            plain_raw.append((g.raw_items(deps, scope, qa["question"], now.isoformat(), 50)[0], evidence_ids(qa)))
        others = [c for c in data if c is not conv]
        conv_text = " ".join(m["content"] for m in messages)
        for index, (question, kind) in enumerate(g.never_said(conv, conv_text, others)):
            asked = ask_guarded(deps, client, scope, user, g.memory_phrased(question, index), now, gk, [])
            absent_asked.append({**asked, "kind": kind})
    engram = score(per_question, "retrieved_message_ids", ks)
    dense = score(per_question, "dense_message_ids", ks)
    fused = score(per_question, "fused_message_ids", ks)
    embed_p, knn_p = percentiles(floor_embed), percentiles(floor_knn)
    return {
        "methods": {"engram": engram, "dense": dense, "fused": fused},
        "latency_ms": {"end_to_end": percentiles(e2e),
                       "by_step": {s: percentiles(v) for s, v in sorted(by_step.items())}},
        "floor_ms": {"embed_query": embed_p, "knn": knn_p},
        "ratio_p95_to_floor": round(percentiles(e2e)["p95"] / max(embed_p["p95"] + knn_p["p95"], 1e-6), 2),
        "ingest": {"turns": turns_total, "seconds": round(ingest_seconds, 1),
                   "turns_per_s": round(turns_total / max(ingest_seconds, 1e-6), 1)},
        "questions": len(per_question),
        "guard": guard_figures(per_question, memory_asked, absent_asked, plain_raw, gk),
        "per_question": per_question,
        # Each guard question as asked (memory-phrased answerable, then never said): what the guard
        # said and the strongest record it saw, for reading its misses one by one.
        "guard_questions": {"answerable": [{**q, "evidence": p["evidence"]} for q, p in zip(memory_asked, per_question,
                                                                                            strict=True)],
                            "never_said": absent_asked},
    }


def ingest(client: Client, user: str, messages: list[dict], consent: bool = False) -> None:
    """One batch per session (at most 100 turns each); ``consent``: the user gives long-term
    consent first, so beliefs about them are kept in the profile graph (without it, episodes only)."""
    if consent:
        client.put(f"/v1/users/{user}/consent", {"long_term": True})
    for session in dict.fromkeys(m["session"] for m in messages):
        batch = [{k: v for k, v in m.items() if k != "session"} for m in messages if m["session"] == session]
        for i in range(0, len(batch), 100):
            client.post(f"/v1/users/{user}/messages",
                        {"session_id": session, "device_id": "bench", "messages": batch[i:i + 100]})


def ask_guarded(deps: Dependencies, client: Client, scope: Scope, user: str, query: str, now: datetime, k: int,
                evidence: list[str]) -> dict:
    """One guard question through the API, and the best relevance a record showed (in-process)."""
    answer = client.post(f"/v1/users/{user}/recall", {"query": query, "k": k, "now": now.isoformat()})
    items, intent, heard = g.raw_items(deps, scope, query, now.isoformat(), k)  # k: the heard check reads the top k
    found = set(distinct_ids(answer["items"])[:k]) & set(evidence)
    return {"query": query, "no_record": answer["no_record"], "memory_dependent": answer["memory_dependent"],
            "unavailable": bool(answer.get("memory_unavailable")),
            "recall": len(found) / len(evidence) if evidence else 0.0,
            "strength": g.strength(items, intent, HYBRID.relevance_floor, k, heard)}


def _share(flags: list[bool]) -> float:
    return round(statistics.fmean(flags), 4) if flags else 0.0


def guard_figures(plain: list[dict], memory: list[dict], absent: list[dict], plain_raw: list, k: int) -> dict:
    recall_plain = [len(set(q["retrieved_message_ids"][:k]) & set(q["evidence"])) / len(q["evidence"])
                    for q in plain]
    return {
        "threshold": HYBRID.guard_threshold, "floor": HYBRID.relevance_floor, "k": k,
        "answerable": len(memory), "never_said": len(absent),
        "false_no_record": round(statistics.fmean(q["no_record"] for q in memory), 4) if memory else 0.0,
        "never_said_caught": round(statistics.fmean(q["no_record"] for q in absent), 4) if absent else 0.0,
        **{f"never_said_caught_{kind}": _share([q["no_record"] for q in absent if q["kind"] == kind])
           for kind in ("named", "topic")},
        "not_memory_dependent": sum(not q["memory_dependent"] for q in memory + absent),
        "unavailable": sum(q["unavailable"] for q in memory + absent),
        "recall_memory": round(statistics.fmean(q["recall"] for q in memory), 4) if memory else 0.0,
        "recall_plain": round(statistics.fmean(recall_plain), 4) if recall_plain else 0.0,
        "sweep": g.guard_sweep([q["strength"] for q in memory], [q["strength"] for q in absent]),
        "floor_sweep": g.floor_sweep(plain_raw, k),
        "missed_answerable": [q["query"] for q in memory if q["no_record"]][:20],
        "uncaught_never_said": [q["query"] for q in absent if not q["no_record"]][:20],
    }


def print_table(result: dict, ks: list[int]) -> None:
    print(f"{'method':<8} {'metric':<7} {'k':>3}  {'overall':>7}  " + "  ".join(f"cat{c:>4}" for c in CATEGORIES))
    for method, m in result["methods"].items():
        for metric in ("recall", "hit"):
            for k in ks:
                row = m[metric][str(k)]
                cats = "  ".join(f"{row['by_category'][c]:>7.3f}" for c in CATEGORIES)
                print(f"{method:<8} {metric:<7} {k:>3}  {row['overall']:>7.3f}  {cats}")
    for k in ks:
        delta = (result["methods"]["engram"]["recall"][str(k)]["overall"]
                 - result["methods"]["dense"]["recall"][str(k)]["overall"])
        fused_delta = (result["methods"]["engram"]["recall"][str(k)]["overall"]
                       - result["methods"]["fused"]["recall"][str(k)]["overall"])
        print(f"recall@{k}: engram - dense = {delta:+.3f}, engram - fused (BM25 + dense, RRF) = {fused_delta:+.3f}")
    lat = result["latency_ms"]
    print(f"end-to-end recall ms: {lat['end_to_end']}")
    for step, p in lat["by_step"].items():
        print(f"  {step:<22} p50 {p['p50']:>8.2f}  p95 {p['p95']:>8.2f}")
    print(f"floor ms: embed_query {result['floor_ms']['embed_query']}  knn {result['floor_ms']['knn']}")
    print(f"end-to-end p95 / (embed p95 + knn p95) = {result['ratio_p95_to_floor']}x (target <= 3x)")
    print(f"ingest: {result['ingest']}  questions: {result['questions']}")
    g.print_guard(result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.bench.locomo", description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--json", dest="json_out")
    parser.add_argument("--api-url")
    parser.add_argument("--api-key")
    parser.add_argument("--tenant", help="the API key's tenant (needed with --api-url for the dense baseline)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--reuse", help="a JSON file: the tenant and users of an earlier run (in-process only)")
    parser.add_argument("--peer", metavar="mem0|FILE", help="mem0: measure mem0 on the same data; FILE: its figures")
    args = parser.parse_args(argv)
    use_local_stack()
    with open(args.data, encoding="utf-8") as fh:
        data = json.load(fh)[: args.limit]
    deps = bootstrap()
    saved = json.loads(Path(args.reuse).read_text()) if args.reuse and Path(args.reuse).exists() else None
    if saved and not args.api_url:
        client = Client(deps, None, None, (saved["tenant"], saved["key"]))
    else:
        client = Client(deps, args.api_url, args.api_key)
    tenant = client.tenant or args.tenant
    if tenant is None:
        parser.error("--tenant is required with --api-url")
    deps.embedder.warm_up()
    ingested = dict(saved["users"]) if saved else {}
    result = run(deps, data, sorted(args.k), client, tenant, ingested)
    if args.reuse and not args.api_url:
        Path(args.reuse).write_text(json.dumps({"tenant": tenant, "key": client.key, "users": ingested}))
    result["generated_at"] = datetime.now(UTC).isoformat()
    result["peer"] = peer.mem0_on_locomo(data, result, sorted(args.k)) if peer.measured(args.peer) \
        else peer.from_file(args.peer)
    print_table(result, sorted(args.k))
    if peer.measured(args.peer):
        peer.print_beside_ours(result, sorted(args.k))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
