"""``engrammem-mcp``: Engram as tools for a model, over MCP (stdio by default, streamable HTTP with
``--http PORT``). One user per server process, configured by the environment:
ENGRAM_API_URL, ENGRAM_API_KEY, ENGRAM_USER_ID, and optionally ENGRAM_SESSION_ID and
ENGRAM_DEVICE_ID (the conversation and device new turns belong to). Every API or network
failure comes back as a tool error naming the API's ``code`` and ``field``; nothing crashes the
server."""

from __future__ import annotations

import argparse
import functools
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from .client import AsyncEngram
from .errors import EngramAPIError, EngramError


@dataclass(frozen=True)
class Settings:
    api_url: str
    api_key: str
    user_id: str
    session_id: str = "mcp"
    device_id: str = "mcp"

    @classmethod
    def from_env(cls) -> Settings:
        missing = [n for n in ("ENGRAM_API_URL", "ENGRAM_API_KEY", "ENGRAM_USER_ID") if not os.environ.get(n)]
        if missing:
            raise SystemExit(f"engrammem-mcp: set {', '.join(missing)}")
        return cls(os.environ["ENGRAM_API_URL"], os.environ["ENGRAM_API_KEY"], os.environ["ENGRAM_USER_ID"],
                   os.environ.get("ENGRAM_SESSION_ID") or "mcp", os.environ.get("ENGRAM_DEVICE_ID") or "mcp")


class Message(BaseModel):
    role: Literal["user", "assistant"]
    content: str = Field(description="what was said, verbatim")


def _tool_errors(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Turn the client's errors into tool errors the model can read and act on."""

    @functools.wraps(fn)
    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return await fn(*args, **kwargs)
        except EngramAPIError as exc:
            where = f", field {exc.field}" if exc.field else ""
            raise ToolError(f"Engram refused ({exc.status} {exc.code}{where}): {exc.message}") from exc
        except EngramError as exc:
            raise ToolError(f"Engram is unreachable: {exc}") from exc

    return wrapped


def _item(item: Any) -> dict[str, Any]:
    keep = ("memory_id", "layer", "type", "text", "confidence", "decayed_confidence", "trust_source",
            "needs_confirmation", "valid_from", "valid_to", "provenance", "object")
    data = item.model_dump()
    return {k: data[k] for k in keep if k in data}


def build_server(settings: Settings, client: AsyncEngram | None = None) -> MCPServer:
    engram = client or AsyncEngram(settings.api_url, api_key=settings.api_key)
    user = settings.user_id
    server = MCPServer("engram", instructions=(
        "Long-term memory about the current user. Call `recall` before answering anything that may depend on "
        "what the user said before; call `remember` when the user tells you something worth keeping."))

    @server.tool()
    @_tool_errors
    async def remember(fact: str | None = None, messages: list[Message] | None = None) -> dict[str, Any]:
        """Store what the user said so it can be recalled in later conversations. Give `fact` for one
        statement in the user's own words ("I am allergic to peanuts"), or `messages` for conversation
        turns (role user or assistant). Returns the message ids and what was extracted from them."""
        turns: list[Any] = ([fact] if fact else []) + [t.model_dump() for t in messages or ()]
        if not turns:
            raise ToolError("give `fact` or `messages`")
        result = await engram.ingest(user, turns, session_id=settings.session_id, device_id=settings.device_id)
        return result.model_dump()

    @server.tool()
    @_tool_errors
    async def recall(query: str, k: int = 10) -> dict[str, Any]:
        """Look up what is known about the user that bears on `query` (a question or topic in natural
        language). Returns `context_block` (text to rely on when answering), `no_record` (true: the user
        never said it, do not guess) and the items with their confidence and provenance (the message ids
        they came from)."""
        result = await engram.recall(user, query, k=k, session_id=settings.session_id,
                                     device_id=settings.device_id)
        return {"context_block": result.context_block, "no_record": result.no_record,
                "memory_unavailable": result.memory_unavailable, "items": [_item(i) for i in result.items]}

    @server.tool()
    @_tool_errors
    async def list_memories(include_history: bool = False) -> dict[str, Any]:
        """List the long-term profile held about the user (facts, preferences, relations), each with its
        confidence, trust source and provenance. Use it when the user asks what you know about them, or to
        find the memory_id to correct or forget."""
        result = await engram.profile(user, history=include_history)
        return {"items": [_item(i) for i in result.items]}

    @server.tool()
    @_tool_errors
    async def correct_memory(memory_id: str, object: str | None = None,  # noqa: A002 - the API's name
                             confidence: float | None = None) -> dict[str, Any]:
        """Correct a profile item (memory_id from `list_memories`) when the user says it is wrong: `object`
        is the corrected value (e.g. the new city), `confidence` 0.1-1.0. The item's source becomes human."""
        return _item(await engram.correct_profile_item(user, memory_id, object=object, confidence=confidence))

    @server.tool()
    @_tool_errors
    async def forget(memory_id: str | None = None, type: str | None = None,  # noqa: A002 - the API's name
                     before: str | None = None) -> dict[str, Any]:
        """Forget when the user asks you to: one memory by `memory_id` (any memory_id `recall` or
        `list_memories` gave: an episode, a profile item or a task), or every memory of a `type` (profile,
        preference, dislike, health, relation, task, plan, emotion, correction, fact, small_talk, greeting)
        and/or from `before` a time (ISO 8601 with offset)."""
        if memory_id:
            return (await engram.forget_memory(user, memory_id)).model_dump()
        if not (type or before):
            raise ToolError("give `memory_id`, or `type` and/or `before`")
        return (await engram.forget(user, type=type, before=before)).model_dump()

    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="engrammem-mcp", description=__doc__.split("\n\n")[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on PORT instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="with --http: the address to bind (default 127.0.0.1)")
    args = parser.parse_args(argv)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request would drown the tool logs
    server = build_server(Settings.from_env())
    if args.http:
        server.run("streamable-http", host=args.host, port=args.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
