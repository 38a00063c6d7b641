"""Forgetting one memory by its id and clearing a session, through API Gateway on LocalStack with
the engrammem client: the id recall gave is deleted, recall no longer shows it, another user's
memory of the same words stays."""

from __future__ import annotations

import uuid

import pytest
from engrammem import Engram, EngramAPIError
from engrammem.chat_history import EngramChatMessageHistory
from langchain_core.messages import AIMessage, HumanMessage

pytestmark = pytest.mark.stack

SAID = "I went kayaking on Lake Bled with my cousin Tomaz last weekend."


def _user() -> str:
    return f"forget-{uuid.uuid4().hex[:10]}"


def _recall(engram: Engram, user: str, query: str):
    """Recall with every layer answering: an episodes step late on a busy machine is retried, since
    an answer without episodes would show nothing forgotten whether it was or not."""
    for _ in range(5):
        answer = engram.recall(user, query)
        if not answer.memory_unavailable:
            return answer
    raise AssertionError(f"recall kept answering without {answer.memory_unavailable}")


def test_an_episode_forgotten_by_its_recall_id_is_gone_for_its_user_only(api_url, api_key, refresh_episodes):
    engram, user, other = Engram(api_url, api_key=api_key), _user(), _user()
    for who in (user, other):
        engram.ingest(who, SAID, session_id="s1", device_id="d1")
    refresh_episodes()
    before = _recall(engram, user, "Where did I go kayaking?")
    [hit] = [i for i in before.items if i.layer == "episode" and "Bled" in i.text]

    forgotten = engram.forget_memory(user, hit.memory_id)
    assert (forgotten.memory_id, forgotten.layer, forgotten.episodes) == (hit.memory_id, "episode", 1)
    refresh_episodes()
    after = _recall(engram, user, "Where did I go kayaking on Lake Bled?")
    assert all(i.memory_id != hit.memory_id for i in after.items)
    assert "Bled" not in after.context_block and all("Bled" not in i.text for i in after.items)

    with pytest.raises(EngramAPIError) as again:
        engram.forget_memory(user, hit.memory_id)
    assert (again.value.status, again.value.field) == (404, "memory_id")
    theirs = _recall(engram, other, "Where did I go kayaking?")  # the other user's memory is untouched
    assert "Bled" in theirs.context_block
    [their_id] = [i.memory_id for i in theirs.items if i.layer == "episode" and "Bled" in i.text]
    assert their_id != hit.memory_id  # ids are per user: the same words, another id
    with pytest.raises(EngramAPIError) as foreign:
        engram.forget_memory(user, their_id)
    assert foreign.value.status == 404


def test_hostile_ids_through_the_gateway_are_4xx_naming_the_field(api_url, api_key):
    engram, user = Engram(api_url, api_key=api_key), _user()
    for memory_id, status in (("ev-unknown", 404), ("x" * 129, 413), ("bad:id!", 400)):
        with pytest.raises(EngramAPIError) as caught:
            engram.forget_memory(user, memory_id)
        assert (caught.value.status, caught.value.field) == (status, "memory_id")


def test_chat_history_clear_empties_the_session_and_keeps_long_term_memory(api_url, api_key, refresh_episodes):
    user, session = _user(), f"s-{uuid.uuid4().hex[:8]}"
    history = EngramChatMessageHistory(user, session, device_id="laptop", base_url=api_url, api_key=api_key)
    history.add_messages([HumanMessage(content=SAID), AIMessage(content="That sounds lovely.")])
    assert len(history.messages) == 2
    history.clear()
    assert history.messages == []
    refresh_episodes()
    assert "Bled" in _recall(Engram(api_url, api_key=api_key), user, "Where did I go kayaking?").context_block
