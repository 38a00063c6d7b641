"""A LangChain ``BaseChatMessageHistory`` over one Engram session (extra ``langgraph``).

Messages are the session's working memory (Engram keeps a session's recent turns for 24 hours);
adding messages ingests them, so they also become the user's long-term memory; ``clear()`` empties
the session's working memory only. Human and AI messages only: Engram stores user and assistant
turns.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from ._pair import ClientCall, ClientPair, call
from .client import AsyncEngram, Engram

_ROLES = {"human": "user", "ai": "assistant"}


class EngramChatMessageHistory(BaseChatMessageHistory):
    def __init__(self, user_id: str, session_id: str, *, device_id: str = "default", client: Engram | None = None,
                 async_client: AsyncEngram | None = None, **client_options: Any) -> None:
        self.user_id, self.session_id, self.device_id = user_id, session_id, device_id
        self.clients = ClientPair(client, async_client, **client_options)

    def _read(self) -> Generator[ClientCall, Any, list[BaseMessage]]:
        context = yield call("session_context", self.user_id, self.session_id, device_id=self.device_id)
        kinds = {"user": HumanMessage, "assistant": AIMessage}
        return [kinds[t.role](content=t.content or "", id=t.message_id) for t in context.turns if t.role in kinds]

    def _write(self, messages: Sequence[BaseMessage]) -> Generator[ClientCall, Any, None]:
        turns = []
        for message in messages:
            if message.type not in _ROLES:
                raise ValueError(f"Engram stores human and ai messages, not {message.type!r}")
            turn = {"role": _ROLES[message.type], "content": message.text}
            if message.id:
                turn["message_id"] = message.id
            turns.append(turn)
        if turns:
            yield call("ingest", self.user_id, turns, session_id=self.session_id, device_id=self.device_id)

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return self.clients.run(self._read())

    async def aget_messages(self) -> list[BaseMessage]:
        return await self.clients.arun(self._read())

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self.clients.run(self._write(messages))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await self.clients.arun(self._write(messages))

    def _clear(self) -> Generator[ClientCall, Any, None]:
        yield call("clear_session", self.user_id, self.session_id, device_id=self.device_id)

    def clear(self) -> None:
        """Empty this session's working memory (its turns, fields and versions). What its turns
        became in long-term memory stays: forget that by memory id, by type, or by erasure."""
        self.clients.run(self._clear())

    async def aclear(self) -> None:
        await self.clients.arun(self._clear())
