"""The guard and the relevance floor on LoCoMo: questions asked as memory questions, questions
about things the user never said, and the sweeps the two thresholds are calibrated on.

* answerable, memory-phrased: each benchmark question wrapped in a memory cue, the templates
  taken in turn (several EN phrasings, the cue before, after or around the question). The guard
  must not say "no record" (target: at most 2 %), and recall@10 must stay within 0.02 of the
  plain question's (the cue is not part of what is searched).
* never said: other conversations' questions about names, or (their speakers' names swapped for
  this user's) about topics, that appear nowhere in this user's conversation, memory-phrased the
  same way (``never_said``). The guard must say "no record" (target: at least 95 %).

The sweeps read the layers directly (in-process, guard and floor off) so that each threshold's
rates come from one pass: the best relevance a record could show, per question.
"""

from __future__ import annotations

import dataclasses
import re
import statistics

from engram.dependencies import Dependencies
from engram.domain.model import Scope
from engram.domain.recall.cues import names_in
from engram.domain.recall.fusion import HYBRID, counted_records, fuse, record_strength
from engram.domain.recall.lexical import lexical_overlap
from engram.domain.recall.query import content_terms
from engram.service.recall import RECALL_PLAN, RecallRequest

TEMPLATES = (
    "Do you remember {q}",
    "{Q} Did I mention that?",
    "What did I tell you about this: {Q}",
    "Can you recall {q}",
    "{Q} I told you before.",
    "Last time we talked, {q}",
    "You remember, {q}",
    "Did I ever tell you? {Q}",
)
# The same in Chinese: the cue before, around or after the question (its own "?" dropped).
ZH_TEMPLATES = (
    "还记得{Z}吗？",
    "我之前跟你说过{Z}吗？",
    "{Z}，我上次跟你说过的，还记得吗？",
    "你记不记得{Z}？",
)
NEVER_SAID_PER_CONVERSATION = 60
GUARD_SWEEP = [round(0.2 + 0.025 * i, 3) for i in range(21)]
FLOOR_SWEEP = [-1.0, 0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35]
# Guard and floor off: what the layers found, whatever it is worth.
RAW = dataclasses.replace(RECALL_PLAN, recipe=dataclasses.replace(HYBRID, name="raw", guard_threshold=-1.0,
                                                                  han_guard_threshold=-1.0, relevance_floor=-2.0))


def memory_phrased(question: str, index: int) -> str:
    """``question`` asked with a memory cue ("Do you remember ...", "还记得...吗？"), the ``index``-th
    of its language's templates."""
    q = question.strip()
    if not q.isascii():
        return ZH_TEMPLATES[index % len(ZH_TEMPLATES)].format(Z=q.rstrip("？?。.!！ "))
    return TEMPLATES[index % len(TEMPLATES)].format(q=q[:1].lower() + q[1:], Q=q)


def never_said(conv: dict, conv_text: str, others: list[dict],
               limit: int = NEVER_SAID_PER_CONVERSATION) -> list[tuple[str, str]]:
    """Questions about what this user never said, with their kind, half of each kind:

    * named: another conversation's question whose names appear nowhere here ("What did Jon
      paint?" to Caroline's memory): the name check catches them;
    * topic: another conversation's question with its speakers' names swapped for this one's,
      kept only when none of its other content words occurs here ("What did Caroline say about
      her bakery?"): only the relevance threshold can catch them, so they are what calibrates it.
    """
    lowered = conv_text.lower()
    here = [conv.get("speaker_a") or "", conv.get("speaker_b") or ""]
    named, topical = [], []
    for other in others:
        there = [other.get("speaker_a") or "", other.get("speaker_b") or ""]
        for qa in other["qa"]:
            question = str(qa.get("question") or "")
            names = names_in(question)
            if names and all(not re.search(rf"\b{re.escape(n)}", lowered) for n in names):
                named.append(question)
            swapped = question
            for theirs, ours in zip(there, here, strict=True):
                if theirs and ours:
                    swapped = re.sub(rf"\b{re.escape(theirs)}\b", ours, swapped)
            rest = [t for t in content_terms(swapped) if t not in {h.lower() for h in here}]
            if swapped != question and rest and lexical_overlap(tuple(rest), conv_text) == 0:
                topical.append(swapped)
    half = limit // 2
    named = named[:half]
    return [(q, "named") for q in named] + [(q, "topic") for q in topical[:limit - len(named)]]


def raw_items(deps: Dependencies, scope: Scope, query: str, now: str, k: int):
    """The fused top-k as the plan would give it with guard and floor off, the intent, and the
    events heard to be about a topic mostly never said (None: no such check applied)."""
    request = RecallRequest.parse(scope, query, k, now)
    ctx = RAW.context(request, {})
    results = {step.layer: step.read(deps, ctx, {}) for step in RAW.parallel}
    heard = results["episode"].fields.get("heard") if "episode" in results else None
    return fuse({layer: r.items for layer, r in results.items()}, RAW.recipe, 50), ctx.intent, heard


def strength(items, intent, floor: float, k: int, heard=None) -> float:
    kept = [i for i in items if i.layer != "episode" or i.relevance >= floor][:k]
    return record_strength(counted_records(kept, None if heard is None else set(heard), intent.about_assistant),
                           intent.names)


def guard_sweep(answerable: list[float], absent: list[float]) -> list[dict]:
    rows = []
    for t in GUARD_SWEEP:
        rows.append({"threshold": t,
                     "false_no_record": round(sum(s < t for s in answerable) / max(len(answerable), 1), 4),
                     "never_said_caught": round(sum(s < t for s in absent) / max(len(absent), 1), 4)})
    return rows


def floor_sweep(plain: list[tuple[list, list[str]]], k: int) -> list[dict]:
    """recall@k and items returned per plain question, for each floor (episodes only)."""
    rows = []
    for floor in FLOOR_SWEEP:
        recalls, counts = [], []
        for items, evidence in plain:
            kept = [i for i in items if i.layer != "episode" or i.relevance >= floor][:k]
            ids = {m for i in kept for m in i.provenance.get("message_ids") or []}
            recalls.append(len(ids & set(evidence)) / len(evidence))
            counts.append(len(kept))
        rows.append({"floor": floor, f"recall@{k}": round(statistics.fmean(recalls), 4) if recalls else 0.0,
                     "items": round(statistics.fmean(counts), 2) if counts else 0.0})
    return rows


def print_guard(result: dict) -> None:
    g = result["guard"]
    print(f"guard (threshold {g['threshold']}, floor {g['floor']}): "
          f"false no-record on answerable memory questions {g['false_no_record']:.3f} (target <= 0.02, "
          f"n={g['answerable']}), never-said caught {g['never_said_caught']:.3f} (target >= 0.95, n={g['never_said']})")
    print(f"recall@{g['k']}: memory-phrased {g['recall_memory']:.3f} vs plain {g['recall_plain']:.3f} "
          f"(delta {g['recall_memory'] - g['recall_plain']:+.3f}, target within 0.02)")
    print("guard sweep (in-process, at the configured floor):")
    for row in g["sweep"]:
        print(f"  threshold {row['threshold']:.3f}  false no-record {row['false_no_record']:.3f}  "
              f"never-said caught {row['never_said_caught']:.3f}")
    key = f"recall@{g['k']}"
    print(f"floor sweep (plain questions, episodes only, {key} and items returned):")
    for row in g["floor_sweep"]:
        print(f"  floor {row['floor']:>5.2f}  recall {row[key]:.3f}  items {row['items']:.2f}")
