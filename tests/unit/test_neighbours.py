"""A turn's neighbours lend it relevance (``domain.recall.neighbours``)."""

from hypothesis import given
from hypothesis import strategies as st

from engram.domain.recall.neighbours import adjacent, with_neighbours

ids = st.sampled_from([f"e{i}" for i in range(8)])
days = st.sampled_from([f"2026-05-0{d}" for d in range(1, 10)])
said = st.dictionaries(ids, st.tuples(st.sampled_from(["s1", "s2"]), days))
scores = st.dictionaries(ids, st.floats(0, 1))


def test_neighbours_are_the_turns_just_before_and_after_in_the_same_session():
    turns = {"a": ("s1", "2026-05-01T10:00"), "c": ("s1", "2026-05-01T10:02"), "b": ("s1", "2026-05-01T10:01"),
             "x": ("s2", "2026-05-01T10:01")}
    assert adjacent(turns) == {"a": ["b"], "b": ["a", "c"], "c": ["b"], "x": []}


def test_a_turn_next_to_a_strong_match_rises_above_an_equal_one_elsewhere():
    turns = {"request": ("s1", "1"), "answer": ("s1", "2"), "elsewhere": ("s2", "1"), "other": ("s2", "2")}
    fused = with_neighbours({"request": 0.9, "answer": 0.3, "elsewhere": 0.3, "other": 0.1}, adjacent(turns), 0.3)
    assert fused["answer"] > fused["elsewhere"]
    assert fused["request"] > fused["answer"]  # lent relevance never outranks the match itself here


@given(scores, said)
def test_weight_zero_changes_nothing(found, turns):
    assert with_neighbours(found, adjacent(turns), 0.0) == found


@given(scores, said, st.floats(0.01, 1))
def test_never_lowers_a_score_and_lends_at_most_weight_times_the_best(found, turns, weight):
    fused = with_neighbours(found, adjacent(turns), weight)
    best = max(found.values(), default=0.0)
    for item_id, score in found.items():
        assert score <= fused[item_id] <= score + weight * best + 1e-12


@given(said)
def test_neighbourhood_is_symmetric_and_within_a_session(turns):
    near = adjacent(turns)
    for item_id, others in near.items():
        assert len(others) <= 2
        for other in others:
            assert item_id in near[other] and turns[other][0] == turns[item_id][0]
