"""EngramStore (LangGraph BaseStore) and EngramChatMessageHistory (LangChain) in real LangGraph
graphs, with a fake chat model from langchain_core (no LLM), against the deployed stack."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import uuid

import pytest
from engrammem import Engram
from engrammem.chat_history import EngramChatMessageHistory
from engrammem.langgraph_store import EngramStore
from langchain_core.language_models.fake_chat_models import ParrotFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import BaseStore

from tests.readme_snippets import for_user, snippet

pytestmark = pytest.mark.stack
TENANT = "local"  # the tenant of the stack's API key
DOC = "docs/agents.md"  # where the LangGraph snippet is shown


@pytest.fixture
def engram_env(api_url, api_key, monkeypatch):
    monkeypatch.setenv("ENGRAM_API_URL", api_url)
    monkeypatch.setenv("ENGRAM_API_KEY", api_key)


def _user() -> str:
    return f"lg-{uuid.uuid4().hex[:10]}"


def test_the_docs_langgraph_snippet_runs(engram_env):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(for_user(snippet(DOC, "langgraph"), _user()), f"{DOC}:langgraph", "exec"), {})
    assert "Pixel" in out.getvalue()


def test_a_graph_stores_and_reads_memory_through_the_store(engram_env):
    user = _user()
    namespace = (TENANT, user, "memories")
    model = ParrotFakeChatModel()

    def remember(state: MessagesState, *, store: BaseStore):
        said = state["messages"][-1].content
        store.put(namespace, "allergy", {"text": said, "source": "chat"})
        return {}

    def answer(state: MessagesState, *, store: BaseStore):
        kept = store.get(namespace, "allergy")
        found = store.search(namespace, query="What am I allergic to?", limit=3)
        known = "\n".join(item.value["text"] for item in found)
        return {"messages": [model.invoke(f"kept={kept.value['text'] if kept else None}\nknown={known}")]}

    store = EngramStore(TENANT)
    graph = (StateGraph(MessagesState).add_node(remember).add_node(answer)
             .add_edge(START, "remember").add_edge("remember", "answer").compile(store=store))
    result = graph.invoke({"messages": [("user", "I am allergic to peanuts.")]})
    reply = result["messages"][-1].content
    assert "kept=I am allergic to peanuts." in reply and "known=" in reply and "peanuts" in reply.split("known=")[1]

    hit = next(i for i in store.search(namespace, query="peanut allergy") if i.key == "allergy")
    assert hit.value["source"] == "chat" and hit.score is not None
    assert hit.value["memory"]["provenance"]["message_ids"] == [store._message_id("lg.memories", "allergy")]
    assert [i.key for i in store.search(namespace)] == ["allergy"]  # no query: the collection's keys
    assert store.search(namespace, filter={"source": "elsewhere"}) == []

    store.delete(namespace, "allergy")
    assert store.get(namespace, "allergy") is None
    with pytest.raises(ValueError):
        store.get(("another-tenant", user), "allergy")


def test_the_async_graph_path_uses_the_same_store(engram_env):
    namespace = (TENANT, _user())
    store = EngramStore(TENANT)

    async def scenario():
        await store.aput(namespace, "city", {"text": "I moved to Porto last spring."})
        item = await store.aget(namespace, "city")
        found = await store.asearch(namespace, query="Where do I live now?")
        return item, found

    item, found = asyncio.run(scenario())
    assert item.value == {"text": "I moved to Porto last spring."} and item.namespace == namespace
    assert any(i.key == "city" and "Porto" in i.value["text"] for i in found)


def test_chat_history_over_an_engram_session_in_a_graph(engram_env):
    user, session = _user(), f"chat-{uuid.uuid4().hex[:6]}"
    model = ParrotFakeChatModel()

    def chat(state: MessagesState):
        history = EngramChatMessageHistory(user, session, device_id="laptop")
        earlier = history.messages
        question = state["messages"][-1]
        reply = AIMessage(content=f"(I recall {len(earlier)} earlier messages) "
                                  + model.invoke(earlier + [question]).content)
        history.add_messages([HumanMessage(content=question.content), reply])
        return {"messages": [reply]}

    graph = StateGraph(MessagesState).add_node(chat).add_edge(START, "chat").compile()
    graph.invoke({"messages": [("user", "My favourite colour is teal.")]})
    second = graph.invoke({"messages": [("user", "What did I say before?")]})
    assert second["messages"][-1].content.startswith("(I recall 2 earlier messages)")

    history = EngramChatMessageHistory(user, session, device_id="laptop")
    kinds = [(type(m).__name__, m.content) for m in history.messages]
    assert kinds[0] == ("HumanMessage", "My favourite colour is teal.") and kinds[1][0] == "AIMessage"
    assert len(kinds) == 4
    assert len(asyncio.run(history.aget_messages())) == 4
    # What the history added is the user's memory too: recall finds it from another session.
    answer = Engram(os.environ["ENGRAM_API_URL"], api_key=os.environ["ENGRAM_API_KEY"]).recall(
        user, "What is my favourite colour?")
    assert "teal" in answer.context_block
