"""EpisodeStore: typed episodic events in one OpenSearch index with k-NN (HNSW) and BM25.

Every request is routed by the user's encoded identity (``domain.keys.episode_routing``: all of
a user's events live on one shard) and filtered on tenant and user, so no query can reach another
user's events. A document's ``_id`` is ``domain.keys.episode_doc_id`` (a hash of the encoded
tenant, user and event id), unique per owner: another owner's event of the same id is another
document, never an overwrite.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from datetime import UTC, datetime

from opensearchpy import ConflictError as OSConflictError
from opensearchpy import NotFoundError, OpenSearch, helpers
from opensearchpy.exceptions import TransportError

from ...config import Settings
from ...domain.ingest.sanitise import format_timestamp
from ...domain.keys import episode_doc_id, episode_routing
from ...domain.model import Scope
from ...domain.recall.lexical import is_cjk
from ...domain.records import EpisodeDoc
from ...errors import StoreUnavailable
from ..clients import Clients
from . import episode_index
from .answers import answering, check_bulk, found_docs
from .ownership import OWNED_REDACTION, owned_by, owned_update

# What a recall's candidates come without: the vector (rebuilt by derived source, ~8 KB of JSON),
# and the fields no recall reads (the turn before, keywords, blind tokens, hash, bookkeeping).
# On conversation data they were a third of each hit's JSON: OpenSearch ~12 % and the client
# ~16 % less CPU for 70 k-NN candidates, and no context or keywords of a sealed event to open.
NOT_RECALLED = ("vector", "context", "keywords", "blind_terms", "raw_sha256", "updated_at", "merged_count")


class EpisodeStore:
    def __init__(self, clients: Clients, settings: Settings, dimension: int = 384) -> None:
        self._clients = clients
        self._settings = settings
        self.index = settings.episode_index
        self.dimension = dimension
        # Writes are visible within the refresh interval unless the settings ask for more
        # (Settings.episode_refresh); every write below passes this, none forces a refresh.
        self._refresh = settings.episode_refresh

    @property
    def client(self) -> OpenSearch:
        return self._clients.opensearch

    def ensure_index(self) -> dict:
        """The index of the current layout behind the alias (a deploy step: ``engram.migrate``)."""
        with answering():
            return episode_index.ensure(self.client, self.index, self.dimension, self._settings.episode_shards,
                                        self._settings.episode_replicas)

    def refresh(self) -> None:
        """Make every write so far searchable now (tests and benchmarks; requests never call it)."""
        with answering():
            self.client.indices.refresh(index=self.index)

    @staticmethod
    def scope_filter(scope: Scope, tier: str = "retrievable") -> list[dict]:
        """The user's events in a tier: ``hot`` (counted against the per-user cap), ``retrievable``
        (hot plus events evicted by the cap, which stay searchable until the archive job has
        moved them to S3), or ``all`` (archived ones too: export, erasure)."""
        clauses = [{"term": {"tenant": scope.tenant}}, {"term": {"user_id": scope.user_id}}]
        hidden = {"hot": ["evicted", "archived"], "retrievable": ["archived"], "all": []}[tier]
        if hidden:
            clauses.append({"bool": {"must_not": [{"term": {flag: True}} for flag in hidden]}})
        return clauses

    def put(self, scope: Scope, docs: list[EpisodeDoc], *, merges: dict[str, dict] | None = None,
            drop: Sequence[str] = ()) -> None:
        """Index events under their own ids (a retried ingest overwrites, never duplicates), apply
        ``merges`` (event id -> fields) to existing ones and delete the ``drop`` ones, in one bulk
        request."""
        if not docs and not merges and not drop:
            return
        routing = episode_routing(scope)
        actions = [{"_op_type": "index", "_index": self.index, "_id": episode_doc_id(scope, d["event_id"]),
                    "_routing": routing, "_source": {**d, "tenant": scope.tenant, "user_id": scope.user_id}}
                   for d in docs]
        merges = merges or {}
        actions += [{"_op_type": "update", "_index": self.index, "_id": episode_doc_id(scope, event_id),
                     "_routing": routing, "retry_on_conflict": 10, **owned_update(scope, fields)}
                    for event_id, fields in merges.items()]
        actions += [{"_op_type": "delete", "_index": self.index, "_id": episode_doc_id(scope, event_id),
                     "_routing": routing} for event_id in drop]
        with answering():
            _, errors = helpers.bulk(self.client, actions, refresh=self._refresh, raise_on_error=False)
        by_id = {episode_doc_id(scope, event_id): event_id for event_id in merges}
        retry = []
        for error in errors:
            op, item = next(iter(error.items()))
            if op in ("update", "delete") and item.get("status") == 404:
                continue  # the merge target is gone (deleted meanwhile): as update() does
            if op != "update" or item.get("status") != 409 or item.get("_id") not in by_id:
                raise StoreUnavailable(f"episode store: bulk write failed: {item.get('error')}")
            retry.append(by_id[item["_id"]])
        for event_id in retry:  # still contended after the shard's own retries: one by one, with pauses
            self.update(scope, event_id, merges[event_id])

    def update(self, scope: Scope, event_id: str, fields: dict) -> None:
        # Concurrent writers of one user merge into the same event (a repeated sentence): the
        # script is applied again on the newer version (retry_on_conflict, inside the shard), and
        # if the event stays contended, again after a short pause; still contended, the client
        # retries (503), never a 500.
        for attempt in range(4):
            try:
                with answering():
                    self.client.update(index=self.index, id=episode_doc_id(scope, event_id),
                                       routing=episode_routing(scope), body=owned_update(scope, fields),
                                       refresh=self._refresh, retry_on_conflict=10)
                return
            except NotFoundError:
                return
            except OSConflictError as exc:
                if attempt == 3:
                    raise StoreUnavailable(f"episode store: {event_id} is being updated concurrently") from exc
                time.sleep(random.uniform(0.01, 0.05) * (attempt + 1))

    def get(self, scope: Scope, event_id: str) -> dict | None:
        try:
            with answering():
                doc = self.client.get(index=self.index, id=episode_doc_id(scope, event_id),
                                      routing=episode_routing(scope))["_source"]
        except NotFoundError:
            return None
        return doc if owned_by(doc, scope) else None

    def get_fresh(self, scope: Scope, event_ids: list[str]) -> list[dict]:
        if not event_ids:
            return []
        with answering():
            found = self.client.mget(index=self.index, body={"ids": [episode_doc_id(scope, e) for e in event_ids]},
                                     routing=episode_routing(scope), _source_excludes=list(NOT_RECALLED),
                                     realtime=True)["docs"]
        return [d["_source"] for d in found_docs(found) if owned_by(d["_source"], scope)
                and not d["_source"].get("archived")]

    # Lucene scores a segment's filtered vectors exactly when the filter matches no more of them
    # than the k asked for, and walks the HNSW graph otherwise. A user's events in one segment are
    # at most a few hundred (the per-user cap), so asking for this many makes every search exact,
    # whatever the graph's quality: the top ``size`` is returned as before, and the graph can be
    # built cheaply (``episode_index.GRAPH``).
    EXACT_KNN = 1000

    @classmethod
    def knn_body(cls, scope: Scope, vector: list[float], size: int, extra_filters: list[dict] | None = None,
                 tier: str = "retrievable", excludes: tuple[str, ...] = ("vector",)) -> dict:
        """The ``size`` events of the user nearest ``vector``: one filtered k-NN search."""
        knn_filter = {"bool": {"filter": cls.scope_filter(scope, tier) + (extra_filters or [])}}
        return {"size": size, "_source": {"excludes": list(excludes)}, "query": {"knn": {"vector": {
            "vector": vector, "k": max(size, cls.EXACT_KNN), "filter": knn_filter}}}}

    def nearest_of_type(self, scope: Scope, queries: list[tuple[list[float], str]], k: int) -> list[list[dict]]:
        """For each (vector, event type) the ``k`` nearest events of that type, in one round trip."""
        if not queries:
            return []
        lines: list[dict] = []
        for vector, type_ in queries:
            lines += [{"index": self.index, "routing": episode_routing(scope)},
                      self.knn_body(scope, vector, k, [{"term": {"type": type_}}])]
        return self._msearch(lines, None)

    def _responses(self, lines: list[dict], timeout_s: float | None) -> list[dict]:
        """One ``_msearch`` round trip; each search's response, or the first error raised."""
        with answering():
            result = self.client.msearch(body=lines, request_timeout=timeout_s or 10)
        for response in result["responses"]:
            if "error" in response:
                raise StoreUnavailable(f"episode store: {response['error']}")
        return result["responses"]

    def _msearch(self, lines: list[dict], timeout_s: float | None) -> list[list[dict]]:
        """Each search's hits as ``{**source, "_score"}``."""
        return [[{**h["_source"], "_score": h["_score"]} for h in response["hits"]["hits"]]
                for response in self._responses(lines, timeout_s)]

    def _lexical_body(self, scope: Scope, text: str, size: int, blind: list[str] | None, terms: list[str]) -> dict:
        """Lexical candidates and the user's term counts in one search: the query takes every
        retrievable event of the user (so the aggregation counts over all of them) and scores it
        by the clauses, and ``post_filter`` keeps as hits those that at least one clause matches.
        (Two searches, one for each, cost OpenSearch a search's fixed cost more per recall.)"""
        # Lexical hits come without their vectors (``NOT_RECALLED``): the k-NN side's candidates
        # cover most, the rest take its lowest cosine.
        clauses = ([{"match": {"text": text}}, {"match": {"text.cjk": text}}, {"match": {"summary": text}},
                    {"terms": {"keywords": text.lower().split()}},
                    {"match": {"context": {"query": text, "boost": 0.3}}}]
                   + ([{"terms": {"blind_terms": blind}}] if blind else []))
        return {"size": size, "_source": {"excludes": list(NOT_RECALLED)},
                "query": {"bool": {"filter": self.scope_filter(scope), "should": clauses}},
                "post_filter": {"bool": {"should": clauses, "minimum_should_match": 1}},
                "aggs": self._counts_aggs(terms)}

    @staticmethod
    def _counts_aggs(terms: list[str]) -> dict:
        """A ``filters`` bucket per term (a Chinese bigram as a phrase of its two characters) and
        one of every event the query takes."""
        buckets: dict = {"all": {"match_all": {}}}
        buckets |= {f"t{i}": {"match_phrase" if is_cjk(term) else "match": {"text": term}}
                    for i, term in enumerate(terms)}
        return {"df": {"filters": {"filters": buckets}}}

    def _counts_body(self, scope: Scope, terms: list[str]) -> dict:
        return {"size": 0, "query": {"bool": {"filter": self.scope_filter(scope)}}, "aggs": self._counts_aggs(terms)}

    @staticmethod
    def _counts(response: dict, terms: list[str]) -> tuple[int, dict[str, int]]:
        buckets = response["aggregations"]["df"]["buckets"]
        return int(buckets["all"]["doc_count"]), {t: int(buckets[f"t{i}"]["doc_count"]) for i, t in enumerate(terms)}

    def lexical(self, scope: Scope, text: str, size: int, *, blind: list[str] | None = None,
                count_terms: list[str] | None = None) -> tuple[list[dict], int, dict[str, int]]:
        """Lexical candidates (BM25, English and CJK analysis) and, as ``term_counts``, the user's
        events and how many hold each of ``count_terms``: one search, which needs no query vector."""
        terms = list(count_terms or [])
        [response] = self._responses([{"index": self.index, "routing": episode_routing(scope)},
                                      self._lexical_body(scope, text, size, blind, terms)], None)
        hits = [{**h["_source"], "_score": h["_score"]} for h in response["hits"]["hits"]]
        return (hits, *self._counts(response, terms))

    def nearest(self, scope: Scope, vector: list[float], size: int) -> list[dict]:
        """The user's ``size`` retrievable events nearest ``vector`` (``_score`` = (1 + cos) / 2)."""
        return self._msearch([{"index": self.index, "routing": episode_routing(scope)},
                              self.knn_body(scope, vector, size, excludes=NOT_RECALLED)], None)[0]

    def recent(self, scope: Scope, size: int, *, skip_types: Sequence[str] = ()) -> list[dict]:
        body = {"size": size, "_source": {"excludes": list(NOT_RECALLED)}, "sort": [{"ts": "desc"}],
                "query": {"bool": {"filter": self.scope_filter(scope),
                                   "must_not": [{"terms": {"type": list(skip_types)}}] if skip_types else []}}}
        return self._msearch([{"index": self.index, "routing": episode_routing(scope)}, body], None)[0]

    def term_counts(self, scope: Scope, terms: list[str]) -> tuple[int, dict[str, int]]:
        """How many of the user's retrievable events there are, and how many hold each term, in
        one search (``_counts_aggs`` over the user's events)."""
        with answering():
            result = self.client.search(index=self.index, routing=episode_routing(scope),
                                        body=self._counts_body(scope, terms), request_timeout=10)
        return self._counts(result, terms)

    def count(self, scope: Scope, *, tier: str = "hot") -> int:
        body = {"query": {"bool": {"filter": self.scope_filter(scope, tier)}}}
        with answering():
            return self.client.count(index=self.index, body=body, routing=episode_routing(scope))["count"]

    def evict_over_cap(self, scope: Scope, cap: int) -> list[str]:
        """Keep the user's ``cap`` strongest live events; the rest are marked evicted (they leave
        retrieval and wait for the archive job, which deletes them once archived)."""
        live = self.count(scope, tier="hot")
        if live <= cap:
            return []
        body = {"size": live - cap, "_source": ["event_id"],
                "query": {"bool": {"filter": self.scope_filter(scope, "hot")}},
                "sort": [{"weight": "asc"}, {"confidence": "asc"}, {"ts": "asc"}]}
        routing = episode_routing(scope)
        hits = self.client.search(index=self.index, body=body, routing=routing)["hits"]["hits"]
        now = datetime.now(UTC).isoformat()
        actions = [{"_op_type": "update", "_index": self.index, "_id": h["_id"], "_routing": routing,
                    "doc": {"evicted": True, "updated_at": now}} for h in hits]
        helpers.bulk(self.client, actions, refresh=self._refresh)
        return [h["_source"]["event_id"] for h in hits]

    def _searchable_now(self) -> None:
        """Refresh before a search that must see every write so far: an erasure, a redaction and
        an export find documents by query, and a write may still be inside the refresh interval.
        (They are rare; ingestion and recall never refresh.)"""
        if self._refresh != "true":
            self.refresh()

    def _scan(self, query: dict, routing: str | None = None, **kwargs) -> list[dict]:
        """Every hit of ``query``; a shard that does not answer fails the scan (a partial result
        would pass for the whole)."""
        with answering():
            return list(helpers.scan(self.client, query=query, index=self.index, routing=routing,
                                     allow_partial_search_results=False, **kwargs))

    def all_for_user(self, scope: Scope) -> list[dict]:
        """Every event of the user, evicted and archived included (export, erasure checks)."""
        self._searchable_now()
        query = {"query": {"bool": {"filter": self.scope_filter(scope, "all")}},
                 "_source": {"excludes": ["vector"]}, "sort": [{"ts": "asc"}]}
        return [h["_source"] for h in self._scan(query, episode_routing(scope), preserve_order=True)]

    def delete_user(self, scope: Scope) -> int:
        return self._delete_where(scope, [])

    def delete_matching(self, scope: Scope, *, type_: str | None = None, before: datetime | None = None) -> int:
        """The user's events of a type and/or from before a time (all tiers)."""
        filters: list[dict] = []
        if type_ is not None:
            filters.append({"term": {"type": type_}})
        if before is not None:
            filters.append({"range": {"ts": {"lt": format_timestamp(before)}}})
        return self._delete_where(scope, filters)

    def redact_content(self, scope: Scope, blanks: dict) -> int:
        # By id (scan, then bulk scripted updates): _update_by_query, like _delete_by_query, lives
        # in the reindex module that a minimal OpenSearch lacks.
        self._searchable_now()
        routing = episode_routing(scope)
        query = {"query": {"bool": {"filter": self.scope_filter(scope, "all")}}, "_source": False}
        script = {"source": OWNED_REDACTION, "lang": "painless",
                  "params": {"tenant": scope.tenant, "user_id": scope.user_id, "blanks": blanks}}
        try:
            with answering():
                actions = [{"_op_type": "update", "_index": self.index, "_id": h["_id"], "_routing": routing,
                            "retry_on_conflict": 3, "script": script}
                           for h in self._scan(query, routing)]
                results = helpers.streaming_bulk(self.client, actions, refresh="true")
                return sum(1 for _, item in results if item["update"].get("result") == "updated")
        except helpers.BulkIndexError as exc:  # a document left unredacted: the caller must retry
            raise StoreUnavailable(f"episode store: redaction failed: {exc.errors[:1]}") from exc

    def _delete_where(self, scope: Scope, filters: list[dict]) -> int:
        body = {"query": {"bool": {"filter": self.scope_filter(scope, "all") + filters}}}
        routing = episode_routing(scope)
        with answering():
            self._searchable_now()
            try:
                result = self.client.delete_by_query(index=self.index, body=body, routing=routing, refresh=True,
                                                     conflicts="proceed")
                return result.get("deleted", 0)
            except TransportError as exc:
                # _delete_by_query lives in the reindex module, which a minimal OpenSearch (the
                # local one) lacks: delete the same documents by id instead.
                if "no handler found" not in str(exc):
                    raise
            actions = [{"_op_type": "delete", "_index": self.index, "_id": h["_id"], "_routing": routing}
                       for h in self._scan({**body, "_source": False}, routing)]
            deleted, errors = helpers.bulk(self.client, actions, refresh="true", raise_on_error=False)
        check_bulk(errors)
        return deleted

    # -- system-wide reads and writes for the archive and forgetting jobs (issue 6) ----------
    # These cross users on purpose (a nightly job covers everyone); each returned doc carries
    # its own tenant and user_id, and every write goes back through that doc's own routing.

    def events_between(self, start: str, end: str) -> list[dict]:
        """Every event (all tiers, all users) whose ``ts`` lies in ``[start, end)``."""
        query = {"query": {"range": {"ts": {"gte": start, "lt": end}}}, "_source": {"excludes": ["vector"]}}
        return [h["_source"] for h in self._scan(query)]

    def evicted(self) -> list[dict]:
        """Events the per-user cap evicted that are still stored (retention deletes them once
        they are in a verified archive)."""
        query = {"query": {"term": {"evicted": True}}, "_source": {"excludes": ["vector"]}}
        return [h["_source"] for h in self._scan(query)]

    def for_forgetting(self, scope: Scope) -> list[dict]:
        """The user's retrievable events with their vectors (near-duplicate detection)."""
        query = {"query": {"bool": {"filter": self.scope_filter(scope, "retrievable")}}, "sort": [{"ts": "asc"}]}
        return [h["_source"] for h in self._scan(query, episode_routing(scope), preserve_order=True)]

    def bulk_update(self, updates: list[tuple[Scope, str, dict]]) -> None:
        if not updates:
            return
        actions = [{"_op_type": "update", "_index": self.index, "_id": episode_doc_id(s, i),
                    "_routing": episode_routing(s), "retry_on_conflict": 3, **owned_update(s, doc)}
                   for s, i, doc in updates]
        with answering():
            _, errors = helpers.bulk(self.client, actions, refresh="true", raise_on_error=False)
        check_bulk(errors)

    def delete_ids(self, targets: list[tuple[Scope, str]]) -> int:
        if not targets:
            return 0
        with answering():
            # Only the owner's documents: a delete by id alone cannot check whose it is.
            docs = self.client.mget(index=self.index, body={"docs": [
                {"_id": episode_doc_id(s, i), "routing": episode_routing(s), "_source": ["tenant", "user_id"]}
                for s, i in targets]})["docs"]
            found = {d["_id"] for d in found_docs(docs)}
            owned = [(s, d["_id"]) for (s, _), d in zip(targets, docs, strict=True)
                     if d["_id"] in found and owned_by(d["_source"], s)]
            if not owned:
                return 0
            actions = [{"_op_type": "delete", "_index": self.index, "_id": doc_id, "_routing": episode_routing(s)}
                       for s, doc_id in owned]
            ok, errors = helpers.bulk(self.client, actions, refresh="true", raise_on_error=False)
        check_bulk(errors)
        return ok
