"""Reinforcements of one edge at once, on the real Neo4j adapter: the plan decides confidence and
source from what it read, but the statement's message ids are merged into the edge as it stands
when written (``domain.profile.belief_plan.Reinforce``), so no writer loses another's ids and a retry of
any of them is recognised as already heard."""

from __future__ import annotations

import threading
import uuid

import pytest

from engram.bootstrap import build
from engram.config import Settings
from engram.domain.model import Predicate, Scope, TrustSource
from engram.domain.records import Fact

pytestmark = pytest.mark.stack


@pytest.fixture(scope="module")
def graph(stack_state):
    return build(Settings(archive_bucket=stack_state["archive_bucket"])).graph


@pytest.fixture
def alice(graph):
    scope = Scope(f"ct-{uuid.uuid4().hex[:12]}", "alice")
    yield scope
    graph.delete_user(scope)


def tea(*message_ids: str) -> Fact:
    return Fact(Predicate.HAS_PREFERENCE, "tea", 0.8, TrustSource.USER, message_ids=message_ids)


def test_reinforcements_at_once_keep_every_message(graph, alice):
    graph.upsert_fact(alice, tea("m0"))
    writers = 6
    start, errors = threading.Barrier(writers), []

    def say(n: int) -> None:
        start.wait()
        try:
            graph.upsert_fact(alice, tea(f"m{n}"))
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=say, args=(n,)) for n in range(1, writers + 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    [edge] = graph.items(alice, include_history=True)
    assert sorted(edge["message_ids"]) == [f"m{n}" for n in range(writers + 1)]
    assert graph.upsert_fact(alice, tea("m3"))[0] == "unchanged"
