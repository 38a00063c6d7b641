"""Folding repeats into the events they repeat (``routing._fold_duplicates``), over any batch and
any nearest hits: the rules that keep a fold from losing or inventing a memory."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engram.domain.recall.lexical import repeats_wording
from engram.service.ingest.route import MERGE_SCORE, _fold_duplicates

STORED = [{"event_id": f"ev-s{i}", "message_ids": [f"s{i}"], "confidence": 0.6, "merged_count": 1,
           "ts": "2026-01-01T00:00:00Z"} for i in range(4)]


@st.composite
def batches(draw):
    n = draw(st.integers(1, 10))
    docs = [{"event_id": f"ev-b{i}", "message_ids": [f"b{i}"], "confidence": 0.6, "trust_source": "rule",
             "updated_at": "2026-02-01T00:00:00Z", "ts": f"2026-02-01T00:00:{i:02d}Z"} for i in range(n)]
    pool = STORED + docs  # a hit may be one of the batch's own docs (an index that refreshed meanwhile)
    hits = [draw(st.lists(st.builds(lambda t, s: {**t, "_score": s}, st.sampled_from(pool),
                                    st.sampled_from([0.5, MERGE_SCORE - 0.001, MERGE_SCORE, 0.99, 1.0])),
                          max_size=1)) for _ in docs]
    return docs, hits


@given(batches())
def test_a_doc_folds_only_into_a_stored_event_close_enough(batch):
    docs, hits = batch
    merged_into, merges, audit = _fold_duplicates(docs, hits)
    ours = {d["event_id"] for d in docs}
    for doc, found in zip(docs, hits, strict=True):
        if doc["event_id"] in merged_into:
            assert found and found[0]["_score"] >= MERGE_SCORE
            assert merged_into[doc["event_id"]] == found[0]["event_id"] not in ours
        else:
            assert not found or found[0]["_score"] < MERGE_SCORE or found[0]["event_id"] in ours
    assert set(merges) <= set(merged_into.values()) and len(audit) == len(
        [d for d in docs if d["event_id"] in merged_into])


@given(batches())
def test_a_merged_event_keeps_every_message_and_counts_each_repeat_once(batch):
    docs, hits = batch
    merged_into, merges, _ = _fold_duplicates(docs, hits)
    for target_id, after in merges.items():
        stored = next(s for s in STORED if s["event_id"] == target_id)
        folded = [d for d in docs if merged_into.get(d["event_id"]) == target_id]
        assert set(after["message_ids"]) == set(stored["message_ids"]).union(*(d["message_ids"] for d in folded))
        assert after["merged_count"] == stored["merged_count"] + len(folded)
        assert after["confidence"] >= stored["confidence"]
        assert after["ts"] == max([stored["ts"]] + [d["ts"] for d in folded])


def test_a_retry_of_a_fold_that_happened_changes_nothing():
    doc = {"event_id": "ev-b0", "message_ids": ["s0"], "confidence": 0.6, "trust_source": "rule",
           "updated_at": "2026-02-01T00:00:00Z", "ts": "2026-02-01T00:00:00Z"}
    merged_into, merges, audit = _fold_duplicates([doc], [[{**STORED[0], "_score": 1.0}]])
    assert merged_into == {"ev-b0": "ev-s0"} and merges == {} and audit == []


def _doc(text: str) -> dict:
    return {"event_id": "ev-b0", "message_ids": ["b0"], "confidence": 0.6, "trust_source": "rule", "text": text,
            "updated_at": "2026-02-01T00:00:00Z", "ts": "2026-02-01T00:00:00Z"}


def test_a_reply_close_in_meaning_but_not_in_words_does_not_fold_into_what_it_answers():
    # Embedded with the message it answers as context, a reply can reach cosine 0.95 to it.
    question = {**STORED[0], "text": "Caroline: I went to the LGBTQ support group yesterday and it was powerful.",
                "_score": 0.98}
    reply = _doc("Melanie: Wow, that's great, Caroline! I'm so proud of you for going.")
    assert _fold_duplicates([reply], [[question]])[0] == {}
    again = _doc("Caroline: I went to the LGBTQ support group yesterday, it was so powerful!")
    assert _fold_duplicates([again], [[question]])[0] == {"ev-b0": "ev-s0"}


@given(st.sampled_from(["I love jazz", "我喜欢爵士乐", "Jazz on Sunday mornings with my sister", "ok", ""]),
       st.sampled_from(["I love jazz!", "i LOVE jazz", "我很喜欢爵士乐", "My sister hates jazz on Sundays",
                        "Kites need steady wind", "", "ok"]))
def test_a_fold_needs_the_words_as_well_as_the_meaning(text, stored_text):
    folded = _fold_duplicates([_doc(text)], [[{**STORED[1], "text": stored_text, "_score": 1.0}]])[0]
    assert bool(folded) == repeats_wording(text, stored_text)
