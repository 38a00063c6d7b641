"""The episodes index on the real OpenSearch: a layout change moves every document (vector
included) behind the alias, and a user's k-NN search is exact whatever the HNSW graph is like
(the store asks for more neighbours than a user has events; ``EpisodeStore.EXACT_KNN``)."""

from __future__ import annotations

import copy
import uuid

import numpy as np
import pytest

from engram.adapters.opensearch import episode_index
from engram.adapters.opensearch.episode_store import EpisodeStore
from engram.config import Settings
from engram.domain.model import Scope
from tests.contract.episode_store import doc

pytestmark = pytest.mark.stack
DIM = 384


@pytest.fixture
def alias(deps):
    """An alias of this test's own (its indices deleted afterwards)."""
    name = f"test-episodes-{uuid.uuid4().hex[:10]}"
    yield name
    client = deps.clients.opensearch
    for index in episode_index.concrete_indices(client, name):
        client.indices.delete(index=index)


def store_on(deps, alias: str) -> EpisodeStore:
    return EpisodeStore(deps.clients, Settings(episode_index=alias, episode_refresh="true"), DIM)


def unit_vectors(rng: np.random.Generator, centre: np.ndarray, n: int, spread: float) -> np.ndarray:
    x = centre + spread * rng.standard_normal((n, DIM))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_a_layout_change_moves_every_document_and_keeps_its_vector(deps, alias):
    client = deps.clients.opensearch
    old = f"{alias}-v{episode_index.LAYOUT - 1}-1s"
    body = copy.deepcopy(episode_index.index_body(DIM))  # layout 3's: a Lucene HNSW graph
    del body["settings"]["index"]["knn.advanced.approximate_threshold"]
    body["mappings"]["properties"]["vector"]["method"]["engine"] = "lucene"
    client.indices.create(index=old, body=body)
    client.indices.update_aliases(body={"actions": [{"add": {"index": old, "alias": alias}}]})
    store = store_on(deps, alias)
    rng = np.random.default_rng(5)
    users = [Scope(f"t-{uuid.uuid4().hex[:8]}", "a:b"), Scope(f"t-{uuid.uuid4().hex[:8]}", "a")]
    written = {}
    for scope in users:
        vectors = unit_vectors(rng, rng.standard_normal(DIM), 12, 0.5)
        docs = [doc(text=f"event {i}", vector=v.tolist()) for i, v in enumerate(vectors)]
        docs.append(doc(text="no vector: a child's event"))
        store.put(scope, docs)
        written[scope] = docs

    outcome = episode_index.ensure(client, alias, DIM, 1, 0)

    assert outcome == {"index": episode_index.physical_name(alias, 1), "moved_from": [old], "documents_moved": 26}
    assert episode_index.concrete_indices(client, alias) == [episode_index.physical_name(alias, 1)]
    assert not client.indices.exists(index=old)
    for scope, docs in written.items():
        for d in docs:
            got = store.get(scope, d["event_id"])
            assert got is not None and got["text"] == d["text"]
            if "vector" in d:
                assert np.allclose(got["vector"], d["vector"], atol=1e-6)
                nearest = store.nearest_of_type(scope, [(d["vector"], d["type"])], 1)[0]
                assert nearest[0]["event_id"] == d["event_id"] and nearest[0]["_score"] > 0.999
            else:
                assert "vector" not in got
        assert store.count(scope) == len(docs)
    # Writes go on into the new layout, and a second run has nothing left to move.
    store.put(users[0], [doc("ev-after", text="written after the move")])
    assert store.get(users[0], "ev-after")["text"] == "written after the move"
    assert episode_index.ensure(client, alias, DIM, 1, 0)["moved_from"] == []


def test_the_index_never_builds_a_graph(deps, alias):
    """No query walks a graph (every search is exact, see the test below), so none is built:
    faiss with ``approximate_threshold`` -1 keeps flat vectors only."""
    index = episode_index.ensure(deps.clients.opensearch, alias, DIM, 1, 0)["index"]
    settings = deps.clients.opensearch.indices.get_settings(index=index, flat_settings=True)[index]["settings"]
    assert settings["index.knn.advanced.approximate_threshold"] == "-1"
    mapping = deps.clients.opensearch.indices.get_mapping(index=index)[index]["mappings"]["properties"]["vector"]
    assert mapping["method"]["engine"] == "faiss" and mapping["method"]["space_type"] == "cosinesimil"


def test_a_users_nearest_events_are_the_exact_ones(deps, alias):
    """300 events of one user (more than the 100 candidates a recall asks for) beside another
    user's, in several segments: the k-NN side returns exactly the cosine ranking numpy gives."""
    episode_index.ensure(deps.clients.opensearch, alias, DIM, 1, 0)
    store = store_on(deps, alias)
    rng = np.random.default_rng(11)
    centre = rng.standard_normal(DIM)
    me, other = Scope(f"t-{uuid.uuid4().hex[:8]}", "me"), Scope(f"t-{uuid.uuid4().hex[:8]}", "other")
    mine = unit_vectors(rng, centre, 300, 1.2)
    ids = [f"ev-{i}" for i in range(len(mine))]
    for start in range(0, len(mine), 150):  # a segment per bulk: more of the user's events in each
        store.put(me, [doc(ids[i], vector=mine[i].tolist()) for i in range(start, start + 150)])  # than k
        store.put(other, [doc(f"ev-o{start + i}", vector=v.tolist())
                          for i, v in enumerate(unit_vectors(rng, centre, 150, 1.2))])
    for _ in range(8):
        query = unit_vectors(rng, centre, 1, 1.2)[0]
        expected = [ids[i] for i in np.argsort(-(mine @ query))[:100]]
        knn = store.nearest(me, query.tolist(), 100)
        assert [d["event_id"] for d in knn] == expected
        cosines = sorted(mine @ query, reverse=True)[:100]
        assert np.allclose([2 * d["_score"] - 1 for d in knn], cosines, atol=1e-4)
    # The duplicate check at ingestion asks for one neighbour: each event is its own nearest.
    nearest = store.nearest_of_type(me, [(v.tolist(), "preference") for v in mine[:60]], 1)
    assert [hits[0]["event_id"] for hits in nearest] == ids[:60]
