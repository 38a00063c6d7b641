"""The benchmarks' peer (mem0): its pure parts, under the project's interpreter (mem0 not installed).

What must hold for its recall@k to be comparable with ours: its search results map back to the
dia_ids our evidence names, in rank order; it is configured offline (our model, a local store,
an LLM that cannot be reached); and its recall is scored by our function on our evidence."""

from __future__ import annotations

import importlib.util
import json

import pytest

from local.bench import peer, peer_mem0
from local.bench.locomo import score


def test_search_results_map_to_distinct_dia_ids_in_rank_order():
    results = [{"id": "a", "metadata": {"dia_id": "D2:7"}}, {"id": "b", "metadata": {"dia_id": "D1:3"}},
               {"id": "c", "metadata": {"dia_id": "D2:7"}},  # the same turn stored twice counts once
               {"id": "d"}, {"id": "e", "metadata": None}, {"id": "f", "metadata": {"other": 1}},
               {"id": "g", "metadata": {"dia_id": "D5:1"}}]
    assert peer_mem0.dia_ids(results) == ["D2:7", "D1:3", "D5:1"]
    assert peer_mem0.dia_ids([]) == []


def test_mapped_dia_ids_are_scored_by_our_recall_on_our_evidence():
    answer = [{"metadata": {"dia_id": d}} for d in ("D1:1", "D9:9", "D1:2", "D3:3")]
    per_question = [{"category": 1, "evidence": ["D1:2", "D3:3"], "mem0_message_ids": peer_mem0.dia_ids(answer)},
                    {"category": 2, "evidence": ["D7:7"], "mem0_message_ids": []}]
    figures = score(per_question, "mem0_message_ids", [2, 4])
    assert figures["recall"]["2"]["by_category"]["1"] == 0.0  # D1:2 is third
    assert figures["recall"]["4"]["by_category"]["1"] == 1.0
    assert figures["recall"]["4"]["overall"] == 0.5  # the question with nothing found counts


def test_mem0_is_configured_offline_with_our_model_and_a_local_store(tmp_path):
    config = peer_mem0.config("/models/minilm", str(tmp_path))
    assert config["embedder"] == {"provider": "huggingface",
                                  "config": {"model": "/models/minilm", "model_kwargs": {"device": "cpu"}}}
    store = config["vector_store"]["config"]
    assert config["vector_store"]["provider"] == "qdrant" and store["path"].startswith(str(tmp_path))
    assert not {"host", "port", "url"} & set(store) and store["embedding_model_dims"] == 384
    assert config["llm"]["config"]["openai_base_url"].startswith("http://127.0.0.1:")
    assert config["history_db_path"].startswith(str(tmp_path))
    assert peer_mem0.OFFLINE["MEM0_TELEMETRY"] == "False" and peer_mem0.OFFLINE["HF_HUB_OFFLINE"] == "1"
    assert peer_mem0.OFFLINE["HTTPS_PROXY"].startswith("http://127.0.0.1:")


def test_peer_is_measured_by_name_or_read_from_a_file(tmp_path):
    figures = {"ingest": {"turns_per_s": 12.5}}
    path = tmp_path / "peer.json"
    path.write_text(json.dumps(figures))
    assert peer.measured("mem0") and not peer.measured(str(path)) and not peer.measured(None)
    assert peer.from_file(str(path)) == figures
    assert peer.from_file("mem0") is None and peer.from_file(None) is None


def test_the_peer_is_never_importable_from_the_project_interpreter():
    # Installing mem0 is the benchmark's own step, into .run/peer-venv: never into .venv.
    assert importlib.util.find_spec("mem0") is None


def test_peer_answers_each_request_over_one_memory():
    class FakeMemory:
        def __init__(self):
            self.added = []

        def add(self, messages, user_id, infer, metadata=None):
            assert infer is False
            self.added.append((user_id, [m["content"] for m in messages], metadata))

        def search(self, query, top_k, filters):
            return {"results": [{"metadata": {"dia_id": d}} for _, _, meta in self.added if meta
                                for d in [meta["dia_id"]]][:top_k]}

    ops = peer_mem0.Ops(FakeMemory())
    ops.add("u1", ["a", "b"])
    ops.add("u1", ["c", "d"], ["D1:1", "D1:2"])
    assert ops.memory.added == [("u1", ["a", "b"], None), ("u1", ["c"], {"dia_id": "D1:1"}),
                                ("u1", ["d"], {"dia_id": "D1:2"})]
    assert ops.search("u1", "q", 1)["dia_ids"] == ["D1:1"]
    many = ops.search_many([{"user": "u1", "query": "q"}] * 3, 2, 2)
    assert len(many["ms"]) == 3 and many["wall_s"] >= 0
    with pytest.raises(ValueError):
        ops.add("u1", ["e"], [])  # a dia_id per text, or none
