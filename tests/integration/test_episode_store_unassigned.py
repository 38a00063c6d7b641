"""The episode store while its shard is not serving, on the real OpenSearch: the window after a
restart (the node answers, the index is red until its shard has recovered), made to last by an
index whose shard may be allocated nowhere. Every read answers "store unavailable", never an
empty result: an empty one would read as "no record" at recall, as "not stored yet" at a retried
ingest, as "nothing left" at an erasure check and as "not yours" to a forget-one."""

from __future__ import annotations

import uuid

import pytest

from engram.adapters.opensearch import episode_index
from engram.adapters.opensearch.episode_store import EpisodeStore
from engram.config import Settings
from engram.domain.model import Scope
from engram.errors import StoreUnavailable

pytestmark = pytest.mark.stack
DIM = 384


@pytest.fixture(scope="module")
def unassigned(deps):
    """A store over an index whose one shard is never started (its alias, then deleted)."""
    client = deps.clients.opensearch
    alias = f"test-red-{uuid.uuid4().hex[:10]}"
    body = episode_index.index_body(DIM)
    body["settings"]["index"]["routing.allocation.require._name"] = "no-such-node"
    index = f"{alias}-v{episode_index.LAYOUT}-1s"
    client.indices.create(index=index, body={**body, "aliases": {alias: {}}}, params={"wait_for_active_shards": "0"})
    yield EpisodeStore(deps.clients, Settings(episode_index=alias, episode_refresh="false"), DIM)
    client.indices.delete(index=index)


SCOPE = Scope("t-red", "u-red")
VECTOR = [1.0] + [0.0] * (DIM - 1)
READS = {
    "get": lambda s: s.get(SCOPE, "e1"),
    "get_fresh": lambda s: s.get_fresh(SCOPE, ["e1", "e2"]),
    "all_for_user": lambda s: s.all_for_user(SCOPE),
    "count": lambda s: s.count(SCOPE),
    "nearest": lambda s: s.nearest(SCOPE, VECTOR, 5),
    "nearest_of_type": lambda s: s.nearest_of_type(SCOPE, [(VECTOR, "fact")], 1),
    "lexical": lambda s: s.lexical(SCOPE, "passport", 5),
    "recent": lambda s: s.recent(SCOPE, 5),
    "term_counts": lambda s: s.term_counts(SCOPE, ["passport"]),
    "for_forgetting": lambda s: s.for_forgetting(SCOPE),
    "events_between": lambda s: s.events_between("2020-01-01T00:00:00+00:00", "2030-01-01T00:00:00+00:00"),
    "evicted": lambda s: s.evicted(),
    "delete_ids": lambda s: s.delete_ids([(SCOPE, "e1")]),
    "delete_user": lambda s: s.delete_user(SCOPE),
}


@pytest.mark.parametrize("name", sorted(READS))
def test_a_shard_not_serving_is_the_store_unavailable_never_an_empty_answer(unassigned, name):
    with pytest.raises(StoreUnavailable):
        READS[name](unassigned)
