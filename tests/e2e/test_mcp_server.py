""".venv/bin/engram-mcp over stdio, driven by the mcp client SDK, against the deployed stack."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.readme_snippets import ROOT, snippet

pytestmark = pytest.mark.stack
TOOLS = {"remember", "recall", "forget", "list_memories", "correct_memory"}


def _server_from_docs(api_url: str, api_key: str, user: str) -> StdioServerParameters:
    """The MCP host configuration docs/agents.md shows, its placeholders filled in for this stack."""
    config = json.loads(snippet("docs/agents.md", "mcp-config"))["mcpServers"]["engram"]
    env = dict(config["env"])
    assert env.pop("ENGRAM_API_URL") == "<api url>" and env.pop("ENGRAM_API_KEY") == "<api key>"
    assert env.pop("ENGRAM_USER_ID") == "alice"
    command = config["command"].replace("/path/to/engram", str(ROOT))
    return StdioServerParameters(command=command, args=config.get("args", []), env={
        **env, "ENGRAM_API_URL": api_url, "ENGRAM_API_KEY": api_key, "ENGRAM_USER_ID": user})


async def _session_run(params: StdioServerParameters, scenario):
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await scenario(session)


def test_list_tools_then_remember_and_recall_a_fact_for_a_fresh_user(api_url, api_key):
    user = f"mcp-{uuid.uuid4().hex[:10]}"
    params = _server_from_docs(api_url, api_key, user)
    assert params.command == str(ROOT / ".venv/bin/engram-mcp")

    async def scenario(session: ClientSession):
        tools = (await session.list_tools()).tools
        remembered = await session.call_tool("remember", {"fact": "I adopted a grey cat called Pixel."})
        recalled = await session.call_tool("recall", {"query": "What is my cat called?"})
        return tools, remembered, recalled

    tools, remembered, recalled = asyncio.run(_session_run(params, scenario))
    assert TOOLS <= {t.name for t in tools}
    assert all(len(t.description or "") > 80 for t in tools if t.name in TOOLS)
    assert not remembered.is_error, remembered.content
    message_ids = remembered.structured_content["message_ids"]
    assert not recalled.is_error, recalled.content
    answer = recalled.structured_content
    assert "Pixel" in answer["context_block"] and answer["no_record"] is False
    assert answer["items"][0]["provenance"]["message_ids"] == message_ids


def test_profile_tools_and_errors_come_back_as_tool_errors(api_url, api_key):
    from engrammem import Engram

    user = f"mcp-{uuid.uuid4().hex[:10]}"
    Engram(api_url, api_key=api_key).set_consent(user, long_term=True)  # a profile is kept with consent only
    params = _server_from_docs(api_url, api_key, user)

    async def scenario(session: ClientSession):
        await session.call_tool("remember", {"messages": [{"role": "user", "content": "I live in Berlin."}]})
        listed = await session.call_tool("list_memories", {})
        item = next(i for i in listed.structured_content["items"] if "Berlin" in i["text"])
        corrected = await session.call_tool("correct_memory", {"memory_id": item["memory_id"], "object": "Munich"})
        # A correction is a new item (the old edge is closed): forget that one.
        forgotten = await session.call_tool("forget", {"memory_id": corrected.structured_content["memory_id"]})
        after = await session.call_tool("list_memories", {})
        refused = await session.call_tool("recall", {"query": "x", "k": 0})
        empty = await session.call_tool("remember", {})
        missing = await session.call_tool("forget", {"memory_id": "pf-does-not-exist"})
        still = await session.call_tool("recall", {"query": "Where do I live?"})  # the server lives on
        return corrected, forgotten, after, refused, empty, missing, still

    corrected, forgotten, after, refused, empty, missing, still = asyncio.run(_session_run(params, scenario))
    assert not corrected.is_error and corrected.structured_content["trust_source"] == "human"
    assert "Munich" in corrected.structured_content["text"]
    assert not forgotten.is_error
    assert all(i["memory_id"] != corrected.structured_content["memory_id"] for i in after.structured_content["items"])
    assert refused.is_error and "invalid_request" in refused.content[0].text and "field k" in refused.content[0].text
    assert empty.is_error and "fact" in empty.content[0].text
    assert missing.is_error and "404" in missing.content[0].text
    assert not still.is_error


def test_streamable_http_with_the_http_flag(api_url, api_key):
    import socket
    import subprocess
    import time

    import httpx
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"PATH": "/usr/bin:/bin", "ENGRAM_API_URL": api_url, "ENGRAM_API_KEY": api_key,
           "ENGRAM_USER_ID": f"mcp-{uuid.uuid4().hex[:10]}"}
    server = subprocess.Popen([str(ROOT / ".venv/bin/engram-mcp"), "--http", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.2)

        async def scenario():
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams, \
                    ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                return {t.name for t in (await session.list_tools()).tools}

        assert TOOLS <= asyncio.run(scenario())
    finally:
        server.terminate()
        server.wait(timeout=10)
