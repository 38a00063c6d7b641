"""The episodes index: its layout, and the move of an older layout's documents into it.

Requests name an alias (``Settings.episode_index``); behind it is one physical index per layout
and shard count, ``{alias}-v{LAYOUT}-{shards}s``. ``ensure`` (``engram.migrate``, a deploy step
run before traffic) creates the current one, copies every document of whatever the alias (or a
concrete index of that name, as layout 1 made it) held before, by id and routing, then swaps the
alias over in one atomic request and deletes the old index. The old index is write-blocked
while it is copied (writes fail with 503, reads go on), so nothing written, deleted or redacted
meanwhile is lost or brought back; run it before traffic, as every migration.

Layout 2 keeps the vectors out of the stored ``_source`` (k-NN derived source,
``index.knn.derived_source.enabled``, OpenSearch 2.19+): a read or an update rebuilds them from
the vector values Lucene keeps for the HNSW graph anyway, so every reader of ``_source`` and
every scripted update behaves as before, and the JSON copy of 384 floats (about 8 KB) is gone.
The vector field has no doc values either (``doc_values: false``: exact and filtered k-NN read
the vector values, and nothing scores vectors by script), which saves another 1.5 KB per event.

Layout 3 built a cheaper graph (m 16, ef_construction 32, was 16 and 128). Every search of this
index is filtered to one user, and the store asks for more neighbours than a user has events in a
segment (``EpisodeStore.EXACT_KNN``), which makes the search score that user's vectors exactly
instead of walking the graph; so the graph answers no query, and building it (at every refresh,
and again at every merge) was most of OpenSearch's CPU while ingesting.

Layout 4 builds no graph at all: the faiss engine with ``knn.advanced.approximate_threshold: -1``
keeps the flat vectors and never builds a graph for a segment, while the same ``knn`` query
scores them exactly (same cosine space, same scores: (1 + cosine) / 2). On 20,000 events of 100
users (``local.bench.episode_layout``): OpenSearch CPU 0.91 -> 0.41 ms per event to ingest, a
merge into one segment 11.6 -> 0.4 s, the same top 10 and scores for 300 filtered queries at
about the same cost per query. Faiss normalises the vectors
it keeps for the cosine space, so a vector read back is the unit vector of the one written (the
embedders' vectors are unit vectors already).
"""

from __future__ import annotations

import logging

from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import NotFoundError, TransportError

LAYOUT = 4
# The graph a segment would get if ``approximate_threshold`` were ever raised from -1 (never):
# cheap, since it would answer no query of ours either (see above).
GRAPH = {"m": 16, "ef_construction": 32}
_TEXT = {"type": "text", "analyzer": "english", "fields": {"cjk": {"type": "text", "analyzer": "cjk"}}}
log = logging.getLogger(__name__)


def index_body(dimension: int, shards: int = 1, replicas: int = 0) -> dict:
    return {
        "settings": {"index": {"knn": True, "knn.derived_source.enabled": True, "number_of_shards": shards,
                               "number_of_replicas": replicas, "refresh_interval": "1s",
                               "knn.advanced.approximate_threshold": -1}},
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "tenant": {"type": "keyword"}, "user_id": {"type": "keyword"},
                "event_id": {"type": "keyword"}, "type": {"type": "keyword"},
                "summary": _TEXT, "text": _TEXT, "keywords": {"type": "keyword"},
                # The turn before this one in its session: what a short answer is an answer to.
                "context": _TEXT,
                # An assistant's answer: the message id of the user's request it answered.
                "reply_to": {"type": "keyword"},
                "raw_sha256": {"type": "keyword"}, "message_ids": {"type": "keyword"},
                "session_id": {"type": "keyword"}, "device_id": {"type": "keyword"},
                "ts": {"type": "date"}, "occurred_at": {"type": "date"},
                "confidence": {"type": "float"}, "trust_source": {"type": "keyword"},
                "weight": {"type": "float"}, "tags": {"type": "keyword"},
                "sensitive": {"type": "boolean"}, "sealed": {"type": "keyword", "index": False},
                # A sealed event's keyed term tokens (domain.privacy.blind_index): lexical recall without
                # its words in clear.
                "blind_terms": {"type": "keyword"},
                "evicted": {"type": "boolean"}, "archived": {"type": "boolean"},
                "merged_count": {"type": "integer"}, "updated_at": {"type": "date"},
                "vector": {"type": "knn_vector", "dimension": dimension, "doc_values": False,
                           "method": {"name": "hnsw", "engine": "faiss", "space_type": "cosinesimil",
                                      "parameters": dict(GRAPH)}},
            },
        },
    }


def physical_name(alias: str, shards: int) -> str:
    return f"{alias}-v{LAYOUT}-{shards}s"


def concrete_indices(client: OpenSearch, alias: str) -> list[str]:
    """The physical indices behind ``alias`` (or ``[alias]`` when it is itself an index)."""
    try:
        return sorted(client.indices.get(index=alias).keys())
    except NotFoundError:
        return []


def ensure(client: OpenSearch, alias: str, dimension: int, shards: int, replicas: int) -> dict:
    """Make ``alias`` name an index of the current layout; returns what was done."""
    body = index_body(dimension, shards, replicas)
    target = physical_name(alias, shards)
    if not client.indices.exists(index=target):
        try:
            client.indices.create(index=target, body=body)
        except TransportError as exc:  # a concurrent migration created it first
            if "resource_already_exists_exception" not in str(exc):
                raise
    else:  # fields added since it was made (adding fields is the one mapping change allowed)
        client.indices.put_mapping(index=target, body={"properties": body["mappings"]["properties"]})
        client.indices.put_settings(index=target, body={"index": {"number_of_replicas": replicas}})
    before = [name for name in concrete_indices(client, alias) if name != target]
    # The old index takes no writes from here on (a write gets a 503 and is retried by its
    # client), so the copy misses no write and brings back no deleted or redacted document.
    _block_writes(client, before, True)
    try:
        copied = sum(_copy(client, name, target) for name in before)
    except BaseException:
        _block_writes(client, before, False)  # nothing swapped: the old index serves on
        raise
    # The swap is one request: the alias never names nothing, nor two indices.
    if before == [alias]:  # layout 1: a concrete index of the alias's name, removed by the swap
        actions: list[dict] = [{"remove_index": {"index": alias}}]
    else:
        actions = [{"remove": {"index": name, "alias": alias}} for name in before]
    client.indices.update_aliases(body={"actions": [*actions, {"add": {"index": target, "alias": alias}}]})
    for name in before:
        if name != alias:
            client.indices.delete(index=name)
    if before:
        log.warning("episodes: %d documents moved from %s to %s", copied, before, target)
    return {"index": target, "moved_from": before, "documents_moved": copied}


def _block_writes(client: OpenSearch, names: list[str], blocked: bool) -> None:
    if names:
        client.indices.put_settings(index=",".join(names), body={"index": {"blocks.write": blocked}})


def _copy(client: OpenSearch, source: str, target: str) -> int:
    """Every document of ``source`` into ``target`` under its own id and routing (scan + bulk:
    ``_reindex`` lives in a module a minimal OpenSearch lacks); checks the count."""
    def actions():
        for hit in helpers.scan(client, index=source, query={"query": {"match_all": {}}}, size=500):
            action = {"_op_type": "index", "_index": target, "_id": hit["_id"], "_source": hit["_source"]}
            if "_routing" in hit:
                action["_routing"] = hit["_routing"]
            yield action

    copied, _ = helpers.bulk(client, actions(), chunk_size=500, request_timeout=300)
    client.indices.refresh(index=[source, target])
    expected = client.count(index=source)["count"]
    if copied < expected:
        raise RuntimeError(f"episodes: copied {copied} of {expected} documents from {source}; nothing swapped")
    return copied
