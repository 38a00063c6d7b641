"""The engrammem client against the deployed stack: the quick starts as written in the READMEs,
the async client, the streamed export, and the live /openapi.json against the client's models."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid

import httpx
import pytest
from engrammem import AsyncEngram, Engram, EngramAPIError

from tests.client_contract import drift
from tests.readme_snippets import ROOT, for_user, snippet

pytestmark = pytest.mark.stack


def _user() -> str:
    return f"client-{uuid.uuid4().hex[:10]}"


@pytest.mark.parametrize("readme", ["clients/python/README.md", "README.md"])
def test_the_quick_start_runs_as_written(readme, api_url, api_key):
    code = for_user(snippet(readme, "quickstart"), _user())
    env = {**os.environ, "ENGRAM_API_URL": api_url, "ENGRAM_API_KEY": api_key}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=240,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Pixel" in done.stdout, done.stdout


def test_the_client_matches_the_live_openapi_schema(api_url, api_key):
    schema = httpx.get(f"{api_url}/openapi.json", headers={"Authorization": f"Bearer {api_key}"}, timeout=60)
    assert schema.status_code == 200
    assert drift(schema.json()) == []


def test_async_client_round_trip_errors_and_streamed_export(api_url, api_key):
    user = _user()
    # A caller repeating a key sends the same body: a string's client_ts would be "now" each time.
    turn = {"role": "user", "content": "My sister Ana lives in Lisbon.", "client_ts": "2026-05-01T10:00:00Z"}

    async def scenario():
        async with AsyncEngram(api_url, api_key=api_key) as engram:
            written = await engram.ingest(user, turn, session_id="s1", device_id="d1", idempotency_key=f"k-{user}")
            again = await engram.ingest(user, [turn], session_id="s1", device_id="d1", idempotency_key=f"k-{user}")
            answer = await engram.recall(user, "Where does my sister live?")
            with pytest.raises(EngramAPIError) as caught:
                await engram.recall(user, "x", k=0)
            document = b"".join([c async for c in engram.export_stream(user)])
            return written, again, answer, caught.value, document

    written, again, answer, error, document = asyncio.run(scenario())
    assert again.message_ids == written.message_ids  # the replay returned the first result
    assert "Lisbon" in answer.context_block
    assert written.message_ids[0] in answer.items[0].provenance.message_ids
    assert (error.status, error.code, error.field) == (400, "invalid_request", "k")
    exported = json.loads(document)
    assert exported["user_id"] == user
    assert [t["message_id"] for t in exported["turns"]] == written.message_ids  # written once, not twice
    linked = b"".join(Engram(api_url, api_key=api_key).export_stream(user, delivery="url"))
    assert json.loads(linked)["user_id"] == user
