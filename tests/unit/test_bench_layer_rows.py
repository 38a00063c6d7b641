"""The layers scale bench loads what the product would have written (``local.bench.layer_rows``):
its task rows replay through the task store's lifecycle check to the same durations, and its graph
rows carry the node keys and sealed names ``ProfileGraph`` and the privacy layer give."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from datetime import UTC, datetime, timedelta

from engram.domain.keys import object_node_key, person_key_prefix, user_node_key
from engram.domain.model import PREDICATES, Predicate, Scope
from engram.domain.working.tasks import TaskStatus
from engram.service.ingest.route import task_id_for
from engram.service.privacy import protect_fact, reveal_item
from local.bench.layer_rows import event_counts, graph_rows, profile_facts, task_rows, user_id
from tests.fakes.keys import fake_keys
from tests.fakes.tasks import InMemoryTaskStore

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def test_event_counts_are_skewed_and_sum_to_exactly_the_rows_asked_for():
    counts = event_counts(1000, 100_003)
    assert sum(counts) == 100_003 and len(counts) == 1000
    assert max(counts) > 4 * 100 and min(counts) < 40  # a few heavy users, many light ones
    assert event_counts(1000, 100_003) == counts  # deterministic: a resumed load sees the same split


def test_task_rows_replay_through_the_lifecycle_to_the_same_durations():
    scope, start = Scope("bench-t", user_id(7)), NOW - timedelta(days=90)
    rows = task_rows(scope, 400, start, NOW, random.Random(1))
    assert len(rows) == 400
    store = InMemoryTaskStore()
    by_task: dict[str, list[tuple]] = defaultdict(list)
    for row in rows:
        by_task[row[2]].append(row)
    for task_id, changes in by_task.items():
        first = json.loads(changes[0][4])
        assert changes[0][3] == "CREATED" and task_id == task_id_for(scope, first["message_ids"][0])
        for tenant, user, _, status, metadata, duration, ts in changes:
            assert (tenant, user) == (scope.tenant, scope.user_id) and start <= ts <= NOW
            recorded = store.record(scope, task_id, TaskStatus(status), json.loads(metadata), ts)  # Conflict if invalid
            assert recorded.duration_ms == duration
    assert len(by_task) > 50
    assert {r[3] for r in rows} >= {"CREATED", "IN_PROGRESS", "COMPLETED"}
    assert any(changes[-1][3] == "IN_PROGRESS" for changes in by_task.values())  # some are left open


def test_graph_rows_use_the_products_keys_and_seal_sensitive_names_under_the_users_key():
    keys, scope, rng = fake_keys(), Scope("bench-t", user_id(3)), random.Random(5)
    facts = profile_facts(rng, NOW, sealed=True)
    rows = graph_rows(scope, [protect_fact(keys, scope, f) for f in facts], rng)
    assert 9 <= len(rows) <= 12 and all(r["uid"] == user_node_key(scope) for r in rows)
    for fact, row in zip(facts, rows, strict=True):
        spec = PREDICATES[fact.predicate]
        assert (row["rel"], row["label"]) == (fact.predicate.value.upper(), spec.target.value)
        assert row["props"]["sensitive"] is spec.sensitive
        revealed = reveal_item(keys, scope, {"object": row["name"], "sealed": row["props"]["sealed"]})
        assert revealed["object"] == fact.object  # what the profile step shows its owner
        if spec.sensitive:
            assert row["name"] != fact.object and fact.object not in row["key"]
        else:
            assert row["key"] == object_node_key(scope, spec.target, fact.object) and row["props"]["sealed"] is None
    people = [r for r in rows if r["label"] == "Person"]
    assert people and all(r["key"].startswith(person_key_prefix(scope)) for r in people)
    homes = [r["props"] for r in rows if r["rel"] == "LIVES_IN"]
    (current,) = [h for h in homes if h["valid_to"] is None]  # lives_in is functional: one open
    (older,) = [h for h in homes if h["valid_to"] is not None]
    assert older["closed_by"] == current["id"] and older["valid_to"] == current["valid_from"] > older["valid_from"]
    assert len({r["props"]["id"] for r in rows}) == len(rows)


def test_an_unsealed_user_has_no_sensitive_edge():
    rows = graph_rows(Scope("bench-t", user_id(4)), profile_facts(random.Random(9), NOW, sealed=False),
                      random.Random(9))
    assert rows and not any(r["props"]["sensitive"] for r in rows)
    assert Predicate.HAS_PREFERENCE.value.upper() in {r["rel"] for r in rows}
