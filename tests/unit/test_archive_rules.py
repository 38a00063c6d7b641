"""Pure archive and forgetting rules."""

import math
from datetime import UTC, date, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from engram.domain.lifecycle import forgetting as rules
from engram.domain.lifecycle.archive import (
    build_manifest,
    event_row_key,
    manifest_bytes,
    manifest_key,
    object_key,
    part_number,
    shard_of,
    verification_failures,
)
from engram.domain.recall.lexical import repeats_wording


def test_keys_are_hive_partitions_and_manifest_names_the_day():
    day = date(2026, 3, 7)
    assert object_key("turns", day, 2, 0) == "archive/turns/year=2026/month=03/day=07/shard=2/part-0.parquet"
    assert part_number(object_key("events", day, 0, 12)) == 12
    assert "manifest" in manifest_key(day) and "2026-03-07" in manifest_key(day)


def test_shards_are_stable_and_spread():
    assert shard_of("t", "alice", 4) == shard_of("t", "alice", 4)
    assert {shard_of("t", f"u{i}", 4) for i in range(100)} == {0, 1, 2, 3}


def test_manifest_is_deterministic():
    objects = [{"key": "b", "sha256": "2", "rows": 3, "kind": "turns", "shard": 1},
               {"key": "a", "sha256": "1", "rows": 2, "kind": "events", "shard": 0}]
    one = manifest_bytes(build_manifest(date(2026, 1, 1), 4, objects))
    two = manifest_bytes(build_manifest(date(2026, 1, 1), 4, list(reversed(objects))))
    assert one == two and b'"turns": 3' in one


def test_verification_names_every_mismatch():
    entry = {"key": "k", "sha256": "abc", "rows": 3}
    assert verification_failures(entry, {"sha256": "abc", "rows": 3}) == []
    assert verification_failures(entry, None) == ["k: missing"]
    problems = verification_failures(entry, {"sha256": "zzz", "rows": 2})
    assert len(problems) == 2 and "sha256" in problems[0] and "rows" in problems[1]


def test_event_row_key_ignores_flags_not_content():
    doc = {"event_id": "ev-1", "text": "x", "message_ids": ["m1"], "weight": 1.0, "evicted": False}
    assert event_row_key(doc) == event_row_key({**doc, "weight": 0.3, "evicted": True, "archived": True})
    assert event_row_key(doc) != event_row_key({**doc, "message_ids": ["m1", "m2"]})


NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def ev(i, type_, days_ago, **extra):
    ts = (NOW - timedelta(days=days_ago)).isoformat()
    return {"event_id": f"e{i}", "type": type_, "ts": ts, "tags": [], "weight": 1.0, **extra}


def test_stale_chatter_only_small_talk_and_greetings_past_the_age():
    events = [ev(1, "greeting", 31), ev(2, "small_talk", 40), ev(3, "greeting", 5), ev(4, "preference", 90),
              ev(5, "small_talk", 60, archived=True)]
    assert rules.stale_chatter(events, NOW, 30) == ["e1", "e2"]


def test_repeated_types_within_the_window_once():
    events = [ev(i, "emotion", i) for i in range(5)] + [ev(9, "emotion", 20), ev(10, "fact", 1)]
    assert rules.repeated_types(events, NOW, 5, 7) == {"emotion": ["e0", "e1", "e2", "e3", "e4"]}
    tagged = [{**e, "tags": ["repeated"]} if e["event_id"] == "e0" else e for e in events]
    assert rules.repeated_types(tagged, NOW, 5, 7)["emotion"] == ["e1", "e2", "e3", "e4"]
    assert rules.repeated_types(events[:4], NOW, 5, 7) == {}


def test_near_duplicates_fold_into_the_oldest_of_the_same_type():
    a = ev(1, "fact", 3, vector=[1.0, 0.0], message_ids=["m1"])
    b = ev(2, "fact", 2, vector=[0.99, 0.05], message_ids=["m2"])
    c = ev(3, "preference", 1, vector=[1.0, 0.0], message_ids=["m3"])  # same vector, other type
    d = ev(4, "fact", 1, vector=[0.0, 1.0], message_ids=["m4"])
    [merge] = rules.near_duplicates([d, c, b, a], 0.95)
    assert merge.keep == "e1" and merge.absorbed == ["e2"] and merge.message_ids == ["m1", "m2"]


def test_a_reply_close_in_meaning_is_not_folded_into_the_message_it_answers():
    """As at ingestion: a turn is embedded with the one before it, so a reply can be 0.95 to the
    message it answers; the nightly job folds only what repeats the words too."""
    asked = ev(1, "fact", 3, vector=[1.0, 0.0], text="Did you finish the marathon in Boston last spring?")
    answer = ev(2, "fact", 2, vector=[0.99, 0.05], text="Yes! Crossed the line in under four hours.")
    again = ev(3, "fact", 1, vector=[0.995, 0.02], text="Did you finish the Boston marathon last spring?")
    [merge] = rules.near_duplicates([answer, again, asked], 0.95)
    assert merge.keep == "e1" and merge.absorbed == ["e3"]


def _reference_near_duplicates(events, min_cosine):
    """The rule as first written: a pure-Python cosine against each representative in turn."""
    def cosine(a, b):
        norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
        return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0

    reps, merges = {}, {}
    for event in sorted(events, key=lambda e: (e["ts"], e["event_id"])):
        if not event.get("vector") or event.get("archived"):
            continue
        same = reps.setdefault(event["type"], [])
        target = next((m for rep, m in same if cosine(rep["vector"], event["vector"]) >= min_cosine
                       and repeats_wording(event.get("text") or "", rep.get("text") or "")), None)
        if target is None:
            merge = rules.Merge(event["event_id"], [], list(event.get("message_ids") or []))
            same.append((event, merge))
            merges[event["event_id"]] = merge
        else:
            target.absorbed.append(event["event_id"])
            target.message_ids = sorted(set(target.message_ids) | set(event.get("message_ids") or []))
    return [(m.keep, m.absorbed, m.message_ids) for m in merges.values() if m.absorbed]


_EVENT = st.fixed_dictionaries({
    "type": st.sampled_from(["fact", "emotion"]),
    "days_ago": st.integers(0, 5),
    # Few directions, so that most lists hold repeats: the same, scaled, close (0.995), apart, none
    "vector": st.sampled_from([None, [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.1, 0.0], [0.0, 1.0, 0.0],
                               [0.0, 0.0, 0.0], [1.0, 1.0, 0.0]]),
    "text": st.sampled_from(["", "I ran the Boston marathon", "I ran a marathon", "Boston was cold", "ok"]),
    "archived": st.booleans(),
})


@given(st.lists(_EVENT, max_size=25))
def test_near_duplicates_fold_as_the_pairwise_rule_did(specs):
    events = [ev(i, s["type"], s["days_ago"], vector=s["vector"], text=s["text"], archived=s["archived"],
                 message_ids=[f"m{i}"]) for i, s in enumerate(specs)]
    # 0.93: no cosine of these vectors lands on it (no tie to round either way)
    assert [(m.keep, m.absorbed, m.message_ids) for m in rules.near_duplicates(events, 0.93)] \
        == _reference_near_duplicates(events, 0.93)


def test_behaviour_patterns_are_counts_only():
    events = [ev(1, "emotion", 7), ev(2, "emotion", 14), ev(3, "fact", 7)]
    counts = rules.behaviour_patterns(events)
    assert counts == {("emotion", NOW.weekday(), 12): 2, ("fact", NOW.weekday(), 12): 1}
