"""The user-assistant dialogue sets (local/bench/dialogues, read by ``python -m local.bench.dialogues``)
are what their benchmark claims: every evidence id is a turn of its conversation, an assistant
question's evidence is what the assistant said, never-said questions have none, turns are in time
order over at least eight days, and each set has the kinds and counts the benchmark reports on."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from engram.api.schemas import IngestBody
from local.bench.dialogues import conversation_messages, load, set_paths

KINDS = {"single", "multi", "temporal", "update", "preference", "assistant", "english", "never_said"}


HOLDOUT = Path(__file__).parents[2] / "local" / "bench" / "dialogues" / "holdout"


@pytest.fixture(scope="module", params=["zh", "en", "holdout-zh", "holdout-en"])
def conversations(request):
    """The dev sets, and the held-out ones written after the changes they measure (``--data``)."""
    if request.param.startswith("holdout-"):
        return request.param, load(sorted(HOLDOUT.glob(f"{request.param.removeprefix('holdout-')}_holdout_*.json")))
    return request.param, load(set_paths(request.param))


def test_the_sets_have_the_shape_the_benchmark_reports_on(conversations):
    name, convs = conversations
    kinds = Counter(q["category"] for c in convs for q in c["questions"])
    if name.startswith("holdout-"):  # smaller: four users, every kind asked
        assert len(convs) >= 4 and sum(kinds.values()) >= 100 and kinds["never_said"] >= 20
        assert set(kinds) == KINDS - ({"english"} if name == "holdout-en" else set())
        return
    assert len(convs) >= 10 and set(kinds) <= KINDS
    assert kinds["assistant"] >= (80 if name == "zh" else 30) and kinds["never_said"] >= (80 if name == "zh" else 30)
    if name == "zh":
        assert sum(kinds.values()) >= 300 and kinds["english"] >= 30
    else:
        assert all(len(c["turns"]) >= 150 for c in convs)


def test_evidence_is_a_turn_of_its_conversation_and_of_the_right_speaker(conversations):
    _, convs = conversations
    ids = [q["id"] for c in convs for q in c["questions"]]
    assert len(ids) == len(set(ids))
    for conv in convs:
        turns = {t["message_id"]: t for t in conv["turns"]}
        assert len(turns) == len(conv["turns"])
        for q in conv["questions"]:
            assert set(q["evidence"]) <= set(turns), q["id"]
            assert (q["category"] == "never_said") == (not q["evidence"]), q["id"]
            if q["category"] == "assistant":
                assert all(turns[e]["role"] == "assistant" for e in q["evidence"]), q["id"]


def test_turns_are_what_the_ingestion_api_accepts_in_time_order_over_days(conversations):
    _, convs = conversations
    for conv in convs:
        messages = conversation_messages(conv)
        for session in dict.fromkeys(m["session"] for m in messages):
            batch = [{k: v for k, v in m.items() if k != "session"} for m in messages if m["session"] == session]
            for start in range(0, len(batch), 100):
                IngestBody.model_validate({"session_id": session, "device_id": "bench",
                                           "messages": batch[start:start + 100]})
        stamps = [datetime.fromisoformat(t["client_ts"]) for t in conv["turns"]]
        assert all(s.tzinfo is not None for s in stamps) and stamps == sorted(stamps), conv["user"]
        assert len({s.date() for s in stamps}) >= 8, conv["user"]
        assert {t["role"] for t in conv["turns"]} == {"user", "assistant"}, conv["user"]
