"""InMemoryEpisodeStore: typed events as ``adapters.opensearch.episode_store`` keeps them in OpenSearch.

Tiers are ``EpisodeStore.scope_filter``'s: ``hot`` hides evicted and archived events,
``retrievable`` hides archived ones, ``all`` hides nothing. Dense scores are Lucene's cosinesimil
score, (1 + cos) / 2, by numpy; lexical scores are a small BM25 over the English-analysed text
fields (Lucene's English stop words, a light stemmer), the context field boosted 0.3 and exact
keyword terms, as the real query's ``should`` clauses are. Documents are held under the
adapter's own ids (``domain.keys.episode_doc_id``) and found by their ``tenant`` and ``user_id``
fields, as the real queries' filters find them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from engram.adapters.opensearch.episode_store import NOT_RECALLED, EpisodeStore
from engram.domain.ingest.sanitise import format_timestamp
from engram.domain.keys import episode_doc_id
from engram.domain.model import Scope
from engram.domain.recall.lexical import is_cjk
from engram.domain.records import EpisodeDoc

from ._common import clone, parse_ts, serialized, utcnow

_HIDDEN = {"hot": ("evicted", "archived"), "retrievable": ("archived",), "all": ()}
# Lucene's EnglishAnalyzer stop set.
_STOP = frozenset("a an and are as at be but by for if in into is it no not of on or such that the their then "
                  "there these they this to was will with".split())
_WORD = re.compile(r"\w+", re.UNICODE)
_K1, _B = 1.2, 0.75
_FIELDS = (("text", 1.0), ("summary", 1.0), ("context", 0.3))


def _stem(word: str) -> str:
    word = word.removesuffix("'s")
    for suffix, repl in (("ies", "i"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word.endswith("ss")):
            return word[: len(word) - len(suffix)] + repl
    return word


def terms(text: str | None) -> list[str]:
    """English analysis, roughly: lower case, word tokens, stop words out, stemmed."""
    return [_stem(w) for w in _WORD.findall((text or "").lower()) if w not in _STOP]


def _cosine(a: list[float], b: list[float]) -> float:
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    norm = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / norm if norm else 0.0


def _without_vector(doc: dict) -> dict:
    return {k: v for k, v in clone(doc).items() if k != "vector"}


def _as_recalled(doc: dict) -> dict:
    return {k: v for k, v in clone(doc).items() if k not in NOT_RECALLED}


@serialized
class InMemoryEpisodeStore:
    scope_filter = staticmethod(EpisodeStore.scope_filter)

    def __init__(self) -> None:
        self.docs: dict[str, dict] = {}   # episode_doc_id -> the document

    # -- helpers ----------------------------------------------------------------------------

    @staticmethod
    def _in_tier(doc: dict, tier: str) -> bool:
        return not any(doc.get(flag) is True for flag in _HIDDEN[tier])

    @staticmethod
    def _owned(doc: dict | None, scope: Scope) -> bool:
        return doc is not None and doc["tenant"] == scope.tenant and doc["user_id"] == scope.user_id

    def _mine(self, scope: Scope, event_id: str) -> dict | None:
        doc = self.docs.get(episode_doc_id(scope, event_id))
        return doc if self._owned(doc, scope) else None

    def _of(self, scope: Scope, tier: str = "all") -> list[dict]:
        return [d for d in self.docs.values() if self._owned(d, scope) and self._in_tier(d, tier)]

    @staticmethod
    def _by_ts(docs: list[dict]) -> list[dict]:
        return sorted(docs, key=lambda d: parse_ts(d["ts"]))

    def _delete(self, scope: Scope, keep) -> int:
        doomed = [k for k, d in self.docs.items() if self._owned(d, scope) and not keep(d)]
        for key in doomed:
            del self.docs[key]
        return len(doomed)

    # -- writes -----------------------------------------------------------------------------

    def ensure_index(self) -> None:
        return None

    def refresh(self) -> None:
        return None  # every write is visible at once here

    def put(self, scope: Scope, docs: list[EpisodeDoc], *, merges: dict[str, dict] | None = None,
            drop: Sequence[str] = ()) -> None:
        for doc in docs:
            self.docs[episode_doc_id(scope, doc["event_id"])] = {
                **clone(doc), "tenant": scope.tenant, "user_id": scope.user_id}
        for event_id, fields in (merges or {}).items():
            self.update(scope, event_id, fields)
        for event_id in drop:
            self.docs.pop(episode_doc_id(scope, event_id), None)

    def update(self, scope: Scope, event_id: str, fields: dict) -> None:
        doc = self._mine(scope, event_id)
        if doc is not None:
            doc.update(clone(fields))

    def bulk_update(self, updates: list[tuple[Scope, str, dict]]) -> None:
        for scope, event_id, fields in updates:
            self.update(scope, event_id, fields)

    def delete_ids(self, targets: list[tuple[Scope, str]]) -> int:
        owned = {episode_doc_id(s, i) for s, i in targets if self._mine(s, i) is not None}
        return sum(1 for key in owned if self.docs.pop(key, None) is not None)

    def evict_over_cap(self, scope: Scope, cap: int) -> list[str]:
        live = self._of(scope, "hot")
        if len(live) <= cap:
            return []
        # OpenSearch sorts a missing value last.
        ordered = sorted(live, key=lambda d: (d.get("weight", math.inf), d.get("confidence", math.inf),
                                              parse_ts(d["ts"])))
        now = utcnow().isoformat()
        for doc in ordered[: len(live) - cap]:
            doc.update(evicted=True, updated_at=now)
        return [d["event_id"] for d in ordered[: len(live) - cap]]

    def delete_user(self, scope: Scope) -> int:
        return self._delete(scope, lambda d: False)

    def redact_content(self, scope: Scope, blanks: dict) -> int:
        changed = 0
        for doc in self._of(scope, "all"):
            had_vector = doc.pop("vector", None) is not None
            if had_vector or any(doc.get(k) != v for k, v in blanks.items()):
                doc.update(clone(blanks))
                changed += 1
        return changed

    def delete_matching(self, scope: Scope, *, type_: str | None = None, before: datetime | None = None) -> int:
        cutoff = parse_ts(format_timestamp(before)) if before is not None else None

        def doomed(doc: dict) -> bool:
            return (type_ is None or doc.get("type") == type_) and (cutoff is None or parse_ts(doc["ts"]) < cutoff)

        return self._delete(scope, lambda d: not doomed(d))

    # -- reads ------------------------------------------------------------------------------

    def get(self, scope: Scope, event_id: str) -> dict | None:
        doc = self._mine(scope, event_id)
        return clone(doc) if doc is not None else None

    def get_fresh(self, scope: Scope, event_ids: list[str]) -> list[dict]:
        docs = [self._mine(scope, e) for e in event_ids]
        return [_as_recalled(d) for d in docs if d is not None and self._in_tier(d, "retrievable")]

    def count(self, scope: Scope, *, tier: str = "hot") -> int:
        return len(self._of(scope, tier))

    def _dense(self, scope: Scope, vector: list[float], k: int, type_: str | None = None) -> list[dict]:
        candidates = [d for d in self._of(scope, "retrievable")
                      if d.get("vector") is not None and (type_ is None or d.get("type") == type_)]
        scored = [((1 + _cosine(vector, d["vector"])) / 2, d) for d in candidates]
        best = sorted(scored, key=lambda item: -item[0])[:k]
        return [{**_without_vector(d), "_score": score} for score, d in best]

    def nearest_of_type(self, scope: Scope, queries: list[tuple[list[float], str]], k: int) -> list[list[dict]]:
        return [self._dense(scope, vector, k, type_) for vector, type_ in queries]

    def _lexical(self, scope: Scope, text: str, size: int, blind: list[str] | None = None) -> list[dict]:
        docs = self._of(scope, "retrievable")
        query = terms(text)
        keyword_terms = set(text.lower().split())
        analysed = [{name: terms(d.get(name)) for name, _ in _FIELDS} for d in docs]
        hits = []
        for doc, fields in zip(docs, analysed, strict=True):
            score = 0.0
            for name, boost in _FIELDS:
                lengths = [len(a[name]) for a in analysed]
                avg = (sum(lengths) / len(lengths)) or 1.0
                for term in set(query):
                    tf = fields[name].count(term)
                    if not tf:
                        continue
                    df = sum(1 for a in analysed if term in a[name])
                    idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
                    score += boost * idf * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * len(fields[name]) / avg))
            score += sum(1.0 for kw in doc.get("keywords") or [] if kw in keyword_terms)
            # A terms query scores a constant 1 whichever of its tokens match.
            score += 1.0 if set(blind or ()) & set(doc.get("blind_terms") or ()) else 0.0
            if score > 0:
                hits.append((score, doc))
        hits.sort(key=lambda item: -item[0])
        return [{**_as_recalled(d), "_score": score} for score, d in hits[:size]]

    def lexical(self, scope: Scope, text: str, size: int, *, blind: list[str] | None = None,
                count_terms: list[str] | None = None) -> tuple[list[dict], int, dict[str, int]]:
        return (self._lexical(scope, text, size, blind), *self.term_counts(scope, list(count_terms or [])))

    def nearest(self, scope: Scope, vector: list[float], size: int) -> list[dict]:
        return [_as_recalled(d) for d in self._dense(scope, vector, size)]

    def recent(self, scope: Scope, size: int, *, skip_types: Sequence[str] = ()) -> list[dict]:
        docs = [d for d in self._by_ts(self._of(scope, "retrievable")) if d.get("type") not in skip_types]
        return [{**_as_recalled(d), "_score": None} for d in reversed(docs)][:size]

    def term_counts(self, scope: Scope, terms_: list[str]) -> tuple[int, dict[str, int]]:
        docs = self._of(scope, "retrievable")
        analysed = [(d.get("text") or "", terms(d.get("text"))) for d in docs]
        return len(docs), {t: sum(1 for text, words in analysed
                                  if (t in text if is_cjk(t) else _stem(t.lower()) in words)) for t in terms_}

    def all_for_user(self, scope: Scope) -> list[dict]:
        return [_without_vector(d) for d in self._by_ts(self._of(scope, "all"))]

    def for_forgetting(self, scope: Scope) -> list[dict]:
        return [clone(d) for d in self._by_ts(self._of(scope, "retrievable"))]

    # -- across users (nightly jobs) --------------------------------------------------------

    def events_between(self, start: str, end: str) -> list[dict]:
        lo, hi = parse_ts(start), parse_ts(end)
        return [_without_vector(d) for d in self._by_ts(list(self.docs.values())) if lo <= parse_ts(d["ts"]) < hi]

    def evicted(self) -> list[dict]:
        return [_without_vector(d) for d in self._by_ts(list(self.docs.values())) if d.get("evicted") is True]

    def users(self) -> list[Scope]:
        return [Scope(t, u) for t, u in sorted({(d["tenant"], d["user_id"]) for d in self.docs.values()})]
