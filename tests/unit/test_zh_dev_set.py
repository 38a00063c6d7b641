"""The Chinese retrieval dev set (local/bench/zh_dev.json, read by ``python -m local.bench.zh``) is
well formed: ids unique, evidence that exists in that user's own turns, the minimum sizes, every
category, and turns the ingestion API accepts as they are sent."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from engram.api.schemas import IngestBody

DATA = Path(__file__).resolve().parents[2] / "local" / "bench" / "zh_dev.json"
ANSWERABLE = ("single", "multi", "temporal", "update", "english")
CATEGORIES = (*ANSWERABLE, "never_said")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def conversations() -> list[dict]:
    return json.loads(DATA.read_text(encoding="utf-8"))["conversations"]


def _questions(conversations: list[dict]) -> list[dict]:
    return [q for conv in conversations for q in conv["questions"]]


def test_ids_are_unique_across_the_set(conversations):
    users = [conv["user"] for conv in conversations]
    turn_ids = [t["message_id"] for conv in conversations for t in conv["turns"]]
    question_ids = [q["id"] for q in _questions(conversations)]
    for ids in (users, turn_ids, question_ids):
        assert [i for i, n in Counter(ids).items() if n > 1] == []


def test_sizes_meet_the_minimums(conversations):
    memories = [t for conv in conversations for t in conv["turns"] if not t.get("chit_chat")]
    questions = _questions(conversations)
    assert len(conversations) >= 4
    assert len(memories) >= 80
    assert len(questions) >= 150
    by_category = Counter(q["category"] for q in questions)
    assert set(by_category) == set(CATEGORIES)
    assert by_category["never_said"] >= 30
    assert all(any(t.get("chit_chat") for t in conv["turns"]) for conv in conversations), "chit-chat in each"


def test_evidence_is_in_that_users_own_fact_turns(conversations):
    for conv in conversations:
        facts = {t["message_id"] for t in conv["turns"] if not t.get("chit_chat")}
        for q in conv["questions"]:
            if q["category"] == "never_said":
                assert q["evidence"] == [], q["id"]
                continue
            assert q["evidence"], q["id"]
            assert len(set(q["evidence"])) == len(q["evidence"]), q["id"]
            assert set(q["evidence"]) <= facts, q["id"]
            if q["category"] == "multi":
                assert len(q["evidence"]) >= 2, q["id"]


def test_turns_are_what_the_ingestion_api_accepts(conversations):
    from local.bench.dialogues import conversation_messages

    for conv in conversations:
        messages = conversation_messages(conv)
        assert [m["message_id"] for m in messages] == [t["message_id"] for t in conv["turns"]]
        for session in dict.fromkeys(m["session"] for m in messages):
            batch = [{k: v for k, v in m.items() if k != "session"} for m in messages if m["session"] == session]
            IngestBody.model_validate({"session_id": session, "device_id": "bench", "messages": batch})
        stamps = [datetime.fromisoformat(t["client_ts"]) for t in conv["turns"]]
        assert all(s.tzinfo is not None for s in stamps)
        assert stamps == sorted(stamps), f"{conv['user']}: turns in time order"
        assert (stamps[-1] - stamps[0]).days >= 14, f"{conv['user']}: several weeks"


def test_languages_and_no_shared_turns(conversations):
    turns = [t["content"] for conv in conversations for t in conv["turns"]]
    assert len(set(turns)) == len(turns), "no two turns (so no two users) say the same thing verbatim"
    assert all(CJK.search(t) for t in turns)
    assert sum(bool(re.search(r"[A-Za-z]{2,}", t)) for t in turns) >= 5, "mixed Chinese and English turns"
    for q in _questions(conversations):
        if q["category"] == "english":
            assert not CJK.search(q["question"]), q["id"]
        else:
            assert CJK.search(q["question"]), q["id"]


def _longest_shared_run(question: str, memory: str) -> int:
    """The longest run of the question's characters found in the memory, 我 and punctuation aside."""
    q, m = (re.sub(r"[我？?，。！、]", "", s) for s in (question, memory))
    best = 0
    for i in range(len(q)):
        j = i + best + 1
        while j <= len(q) and q[i:j] in m:
            best, j = j - i, j + 1
    return best


def test_single_questions_mostly_reword_their_memory(conversations):
    """Retrieval must be semantic: most single questions share at most two characters in a row
    with the turn that answers them."""
    reworded, singles = 0, 0
    for conv in conversations:
        text = {t["message_id"]: t["content"] for t in conv["turns"]}
        for q in conv["questions"]:
            if q["category"] == "single":
                singles += 1
                reworded += _longest_shared_run(q["question"], text[q["evidence"][0]]) <= 2
    assert singles and reworded / singles >= 0.8, f"{reworded}/{singles}"
    assert _longest_shared_run("我住在北京吗？", "我住在北京海淀区") == 4  # 住在北京
