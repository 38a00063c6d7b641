"""OpenSearch with k-NN on the local stack (``local/stack up opensearch``).

Only the lucene engine builds graphs here (the plugin ships without its faiss/nmslib JNI
libraries); the episode index builds none (faiss with ``approximate_threshold`` -1, searched
exactly in Java: ``test_episode_index.py``). Indices are per test, deleted at the end.
"""

from __future__ import annotations

import os
import uuid

import pytest
from opensearchpy import OpenSearch

from local.stackctl.common import PORTS

pytestmark = pytest.mark.stack

URL = os.environ.get("ENGRAM_OPENSEARCH_URL", f"http://127.0.0.1:{PORTS['opensearch']}")

DOCS = {
    "a1": ("alice", [1.0, 0.0, 0.0, 0.0], "我喜欢喝咖啡"),
    "a2": ("alice", [0.8, 0.6, 0.0, 0.0], "I moved to Beijing last spring"),
    "a3": ("alice", [0.0, 1.0, 0.0, 0.0], "周末和朋友去爬山"),
    # bob's vectors sit closer to the query than most of alice's: the filter, not luck, must exclude them
    "b1": ("bob", [0.99, 0.01, 0.0, 0.0], "他每天早上喝茶"),
    "b2": ("bob", [0.9, 0.1, 0.0, 0.0], "Bob prefers green tea"),
}


@pytest.fixture(scope="module")
def client():
    c = OpenSearch(URL, timeout=30)
    assert c.ping(), f"no OpenSearch at {URL}"
    return c


@pytest.fixture(scope="module")
def index(client):
    name = f"engram-test-{uuid.uuid4().hex[:10]}"
    client.indices.create(index=name, body={
        "settings": {"index": {"knn": True, "number_of_shards": 1, "number_of_replicas": 0}},
        "mappings": {"properties": {
            "vec": {"type": "knn_vector", "dimension": 4,
                    "method": {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"}},
            "user_id": {"type": "keyword"},
            "text": {"type": "text", "analyzer": "cjk"},
        }},
    })
    try:
        for doc_id, (user, vec, text) in DOCS.items():
            client.index(index=name, id=doc_id, body={"user_id": user, "vec": vec, "text": text})
        client.indices.refresh(index=name)
        yield name
    finally:
        client.indices.delete(index=name, ignore_unavailable=True)


def test_knn_plugin_installed(client):
    rows = client.cat.plugins(format="json")
    assert "opensearch-knn" in {r["component"] for r in rows}


def knn_ids(client, index, user):
    body = {"size": 3, "query": {"knn": {"vec": {
        "vector": [1.0, 0.0, 0.0, 0.0], "k": 3, "filter": {"term": {"user_id": user}}}}}}
    hits = client.search(index=index, body=body)["hits"]["hits"]
    return [h["_id"] for h in hits]


def test_filtered_knn_returns_only_that_users_docs_in_order(client, index):
    assert knn_ids(client, index, "alice") == ["a1", "a2", "a3"]
    assert knn_ids(client, index, "bob") == ["b1", "b2"]


def test_cjk_analyzer_matches_chinese_and_english(client, index):
    tokens = [t["token"] for t in client.indices.analyze(
        index=index, body={"field": "text", "text": "喝咖啡"})["tokens"]]
    assert tokens == ["喝咖", "咖啡"]

    def match(text):
        hits = client.search(index=index, body={"query": {"match": {"text": text}}})["hits"]["hits"]
        return [h["_id"] for h in hits]

    assert match("咖啡") == ["a1"]
    assert match("爬山") == ["a3"]
    assert match("beijing") == ["a2"]


def test_native_engine_field_does_not_kill_the_node(client):
    """faiss (the default engine) has no JNI library here; the stack's guard template makes
    such fields skip graph building, so indexing works and search is exact instead of fatal."""
    name = f"engram-test-{uuid.uuid4().hex[:10]}"
    client.indices.create(index=name, body={
        "settings": {"index": {"knn": True, "number_of_replicas": 0}},
        "mappings": {"properties": {"vec": {"type": "knn_vector", "dimension": 2}}},
    })
    try:
        for i, vec in enumerate([[1.0, 0.0], [0.0, 1.0], [0.9, 0.2]]):
            client.index(index=name, id=str(i), body={"vec": vec})
        client.indices.flush(index=name, force=True)  # flush is where a graph would be built
        client.indices.refresh(index=name)
        body = {"size": 2, "query": {"knn": {"vec": {"vector": [1.0, 0.0], "k": 2}}}}
        assert [h["_id"] for h in client.search(index=name, body=body)["hits"]["hits"]] == ["0", "2"]
        assert client.ping()
    finally:
        client.indices.delete(index=name, ignore_unavailable=True)
