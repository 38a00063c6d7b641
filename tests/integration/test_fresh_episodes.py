"""Read-your-writes without waiting for the index: with ``ENGRAM_EPISODE_REFRESH=false`` an ingest
answers before its episodes are searchable, and a recall from any session finds them by id until
the index shows them; what was forgotten meanwhile is not among them, and an erasure leaves none."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from engram.bootstrap import build
from engram.config import Settings
from engram.domain.model import Scope
from engram.service import memories
from engram.service.erasure import residue
from engram.service.recall import RecallRequest, run_in_process
from tests.unit.support import run_ingest

pytestmark = pytest.mark.stack
NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def lagging(deps):
    """The real stores as the deployed functions use them: no refresh on write, a long interval,
    so nothing written here is searchable before the test has asked."""
    settings = Settings(episode_refresh="false")
    return build(settings, embedder=deps.embedder, clients=deps.clients)


def say(deps, scope, text, mid, session="s1"):
    return run_ingest(deps, scope, {"session_id": session, "device_id": "phone", "messages": [
        {"role": "user", "content": text, "message_id": mid, "client_ts": "2026-05-30T10:00:00Z"}]})


def ask(deps, scope, query):
    return run_in_process(deps, RecallRequest.parse(scope, query, 5, NOW.isoformat()))


def ids(answer):
    return [m for item in answer["items"] for m in item["provenance"].get("message_ids") or []]


@pytest.fixture
def user(lagging):
    scope = Scope(f"tenant-{uuid.uuid4().hex[:8]}", f"fresh-{uuid.uuid4().hex[:8]}")
    lagging.episodes.client.indices.put_settings(index=lagging.settings.episode_index,
                                                 body={"index": {"refresh_interval": "30s"}}, request_timeout=120)
    yield scope
    lagging.episodes.client.indices.put_settings(index=lagging.settings.episode_index,
                                                 body={"index": {"refresh_interval": "1s"}}, request_timeout=120)


def test_what_was_just_said_is_recalled_before_the_index_shows_it(lagging, user):
    say(lagging, user, "I booked a flight to Lisbon for next week.", "m1")
    assert lagging.episodes.lexical(user, "Lisbon flight", 10)[0] == []  # not searchable yet
    # (Not "where I am flying": with e5 the guard hides that paraphrase, tests/integration/test_guard_cases.py)
    answer = ask(lagging, user, "Do you remember the flight I booked?")
    assert answer["no_record"] is False and "m1" in ids(answer)
    # From another device and session: the episode layer, not working memory, answered.
    other = ask(lagging, user, "Where am I travelling next week?")
    assert "m1" in ids(other)


def test_a_memory_forgotten_before_the_index_showed_it_is_not_recalled(lagging, user):
    said = say(lagging, user, "My locker code is 4471.", "m2")
    memory_id = next(e["memory_id"] for e in said["extracted"] if e["kind"] == "episode")
    memories.forget_memory(lagging, user, memory_id)
    answer = ask(lagging, user, "What is my locker code?")
    assert "m2" not in ids(answer)


def test_an_erasure_leaves_no_fresh_events_behind(lagging, user):
    say(lagging, user, "I adopted a grey cat called Pixel.", "m3")
    assert lagging.sessions.fresh(user) and residue(user, lagging)["redis"] > 0
    lagging.sessions.delete_user(user)  # the saga's redis step
    assert lagging.sessions.fresh(user) == [] and residue(user, lagging)["redis"] == 0
