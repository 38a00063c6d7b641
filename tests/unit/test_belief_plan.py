"""``plan_fact_write``: the one copy of what a fact does to the profile graph. Each branch by
example, then the rule's invariants over generated edges; the stores that apply the plan are held
to the profile-graph contract suite (tests/contract/profile_graph.py)."""

from __future__ import annotations

import ast
import copy
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.domain.model import PREDICATES
from engram.domain.model import Predicate as P
from engram.domain.model import TrustSource as Src
from engram.domain.profile.belief_plan import BeliefPlan, Close, Reinforce, candidate_reads, plan_fact_write
from engram.domain.profile.trust import TRUST_WEIGHTS, reinforce
from engram.domain.records import Fact

T0 = datetime(2026, 4, 1, 8, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=10)
ROOT = Path(__file__).resolve().parents[2]


def edge(edge_id: str, predicate: P = P.LIVES_IN, source: Src = Src.USER, confidence: float = 0.8, *,
         valid_from: datetime | None = T0, valid_to: datetime | None = None, message_ids: tuple = ()) -> dict:
    return {"id": edge_id, "predicate": predicate.value, "object": "x", "label": "Concept", "source": source.value,
            "confidence": confidence, "valid_from": valid_from, "valid_to": valid_to,
            "message_ids": list(message_ids), "tags": [], "created_at": T0, "updated_at": T0, "confirmed_at": T0,
            "weight": 1.0, "counter_evidence": [], "sensitive": False, "sealed": None}


def fact(predicate: P = P.LIVES_IN, confidence: float = 0.8, source: Src = Src.USER, **kw) -> Fact:
    return Fact(predicate, "x", confidence, source, **kw)


def plan(f: Fact, heard=(), current=(), opposites=()) -> BeliefPlan:
    return plan_fact_write(f, list(heard), list(current), list(opposites), now=NOW)


# -- each branch ----------------------------------------------------------------------------------

@pytest.mark.parametrize("closed", [None, T0 + timedelta(days=1)])
def test_a_statement_already_heard_plans_nothing(closed):
    heard = [edge("e-1", message_ids=("m0",)), edge("e-2", valid_to=closed, message_ids=("m1", "m2"))]
    assert plan(fact(message_ids=("m1",)), heard, [edge("e-3")]) == BeliefPlan("unchanged", unchanged="e-2")


def test_a_fact_without_messages_is_never_already_heard():
    assert plan(fact(), [edge("e-1")]).action == "reinforced"


def test_the_same_fact_again_reinforces_the_current_edge_to_its_object():
    heard = [edge("e-old", valid_to=T0), edge("e-1", source=Src.USER, confidence=0.6, message_ids=("m1",))]
    got = plan(fact(confidence=0.9, source=Src.LLM, message_ids=("m2",), observed_at=T0), heard, [edge("e-9")])
    assert got == BeliefPlan("reinforced", reinforce=Reinforce("e-1", reinforce(0.6, 0.9), Src.USER, ("m2",), T0))


def test_a_reinforcement_takes_a_source_at_least_as_strong_and_is_observed_now_by_default():
    got = plan(fact(source=Src.SYSTEM), [edge("e-1", source=Src.RULE)]).reinforce
    assert (got.source, got.observed_at) == (Src.SYSTEM, NOW)


def test_a_reinforcement_merges_into_the_edge_as_it_stands():
    again = Reinforce("e-1", 0.8, Src.USER, ("m1", "m3", "m3"), T0)
    assert again.merged_message_ids(["m1", "m2"]) == ["m1", "m2", "m3", "m3"]
    assert again.confirmed_at(T0 - timedelta(days=1)) == T0
    assert again.confirmed_at(T0 + timedelta(days=1)) == T0 + timedelta(days=1)


def test_a_new_fact_is_created_current_with_what_the_fact_says():
    got = plan(fact(P.ALLERGIC_TO, 0.7, Src.RULE, message_ids=("m1",), valid_from=T0, observed_at=T0,
                    tags=("from-chat",), weight=2.0, sealed="eg1:abc"))
    assert (got.action, got.close, got.unchanged, got.reinforce) == ("created", (), None, None)
    new = got.create
    assert (new.confidence, new.source, new.valid_from, new.valid_to, new.confirmed_at) == (0.7, Src.RULE, T0, None,
                                                                                         T0)
    assert (new.message_ids, new.tags, new.weight, new.sensitive, new.sealed) == (("m1",), ("from-chat",), 2.0,
                                                                                  True, "eg1:abc")


def test_a_new_fact_without_times_starts_and_is_confirmed_now():
    new = plan(fact()).create
    assert (new.valid_from, new.confirmed_at, new.sensitive) == (NOW, NOW, False)


def test_a_new_value_of_a_functional_predicate_closes_the_current_one():
    got = plan(fact(valid_from=T0 + timedelta(days=30)), [edge("e-closed", valid_to=T0)], [edge("e-paris")])
    assert got.action == "created" and got.close == (Close("e-paris", T0 + timedelta(days=30)),)
    assert got.create.valid_to is None


def test_a_change_dated_before_the_old_edge_began_closes_it_when_it_began():
    got = plan(fact(valid_from=T0 - timedelta(days=30)), current=[edge("e-1", valid_from=T0)])
    assert got.close == (Close("e-1", T0),)
    assert plan(fact(valid_from=T0), current=[edge("e-1", valid_from=None)]).close == (Close("e-1", T0),)


def test_a_non_functional_predicate_contradicts_no_other_object():
    assert plan(fact(P.HAS_PREFERENCE), current=[edge("e-1", P.HAS_PREFERENCE)]).close == ()


def test_an_opposite_predicate_to_the_same_object_is_closed():
    liked, hobby = edge("e-1", P.HAS_PREFERENCE), edge("e-2", P.HAS_HOBBY)
    got = plan(fact(P.DISLIKES, valid_from=T0), opposites=[liked, hobby])
    assert {c.edge_id for c in got.close} == {"e-1", "e-2"} and got.action == "created"
    assert plan(fact(P.HAS_PREFERENCE), opposites=[hobby]).close == (), "a hobby is not a taste's opposite"


def test_a_weaker_source_is_contested_and_closes_nothing():
    got = plan(fact(confidence=0.6, source=Src.LLM, valid_from=T0), current=[edge("e-1", confidence=0.9)])
    assert (got.action, got.close, got.create.valid_to, got.create.tags) == ("contested", (), T0, ("contested",))


def test_an_equally_trusted_newer_claim_wins_whatever_its_confidence():
    got = plan(fact(confidence=0.4, source=Src.RULE), current=[edge("e-1", source=Src.RULE, confidence=0.9)])
    assert got.action == "created" and [c.edge_id for c in got.close] == ["e-1"]


def test_an_ending_closes_its_own_object_and_is_kept_closed():
    heard = [edge("e-paris", valid_from=T0)]
    got = plan(fact(valid_from=T0 + timedelta(days=2), tags=("ended",)), heard, [edge("e-lyon")],
               [edge("e-opp", P.DISLIKES)])
    assert got.action == "created" and got.close == (Close("e-paris", T0 + timedelta(days=2)),)
    assert (got.create.valid_to, got.create.tags) == (T0 + timedelta(days=2), ("ended",))


def test_an_ending_of_something_never_believed_is_history_only():
    got = plan(fact(valid_from=T0, tags=("ended",)), [edge("e-1", valid_to=T0)])
    assert (got.action, got.close, got.create.valid_to) == ("created", (), T0)


def test_an_ending_from_a_weaker_source_does_not_close_a_stronger_edge():
    got = plan(fact(confidence=0.6, source=Src.LLM, valid_from=T0, tags=("ended",)), [edge("e-1", confidence=0.9)])
    assert (got.action, got.close, got.create.valid_to) == ("contested", (), T0)
    assert got.create.tags == ("ended", "contested")


def test_candidate_reads_follow_the_predicate_and_an_ending():
    assert candidate_reads(fact(P.LIVES_IN)) == (True, ())
    assert candidate_reads(fact(P.DISLIKES)) == (False, (P.HAS_PREFERENCE, P.HAS_HOBBY))
    assert candidate_reads(fact(P.DISLIKES, tags=("ended",))) == (False, ())


# -- the rule's invariants over generated edges --------------------------------------------------

MANY = settings(max_examples=200, deadline=None, database=None)
ids = st.lists(st.sampled_from(["m1", "m2", "m3"]), max_size=3, unique=True).map(tuple)
moments = st.integers(-5, 5).map(lambda d: T0 + timedelta(days=d))
sources = st.sampled_from(list(Src))
confidences = st.sampled_from([0.1, 0.4, 0.6, 0.8, 1.0])
# Functional, with opposites, neither (sensitive or not): every way a predicate contradicts.
kinds_of_predicate = st.sampled_from([P.LIVES_IN, P.HAS_SPOUSE, P.DISLIKES, P.HAS_PREFERENCE, P.MASTERS, P.HAS_CHILD,
                                      P.HAS_PET])
facts = st.builds(Fact, kinds_of_predicate, st.just("x"), confidences, sources, message_ids=ids,
                  valid_from=st.none() | moments, observed_at=st.none() | moments,
                  tags=st.sampled_from([(), ("from-chat",), (), ("ended",), ("from-chat", "ended")]))


@st.composite
def edges(draw, predicates, *, closed=st.none() | moments):
    return edge("", draw(st.sampled_from(predicates)), draw(sources), draw(confidences),
                valid_from=draw(st.none() | moments), valid_to=draw(closed), message_ids=draw(ids))


def named(prefix: str, found: list[dict]) -> list[dict]:
    """Edge ids are unique in a store: numbered here, as generated ones would collide."""
    return [{**e, "id": f"e-{prefix}{n}"} for n, e in enumerate(found)]


@st.composite
def cases(draw):
    """A fact and the candidates a store reads for it: as ``candidate_reads`` asks, or more."""
    f = draw(facts)
    kin = [f.predicate]
    opposite_kinds = list(PREDICATES[f.predicate].opposites) or [P.HAS_HOBBY]
    heard = named("h", draw(st.lists(edges(kin), max_size=2)))
    current = named("c", draw(st.lists(edges(kin, closed=st.none()), max_size=2)))
    opposites = named("o", draw(st.lists(edges(opposite_kinds, closed=st.none()), max_size=2)))
    return f, heard, current, opposites


def contradicted(f: Fact, heard, current, opposites) -> list[dict]:
    """What the fact may close, restated from the rule's words (not its code)."""
    ending = "ended" in f.tags
    spec = PREDICATES[f.predicate]
    if ending:
        return [e for e in heard if e["valid_to"] is None]
    return ([e for e in current if spec.functional]
            + [e for e in opposites if e["predicate"] in {p.value for p in spec.opposites}])


def outweighs(e: dict, f: Fact) -> bool:
    theirs = TRUST_WEIGHTS[Src(e["source"])]
    return theirs > TRUST_WEIGHTS[f.source] and theirs * e["confidence"] > TRUST_WEIGHTS[f.source] * f.confidence


@MANY
@given(cases())
def test_exactly_one_kind_of_write_is_planned_and_the_action_names_it(case):
    got = plan(*case)
    assert sum(x is not None for x in (got.unchanged, got.reinforce, got.create)) == 1
    assert not got.close or got.create is not None
    assert got.action == ("unchanged" if got.unchanged else "reinforced" if got.reinforce
                          else "contested" if "contested" in got.create.tags else "created")


@MANY
@given(cases())
def test_a_statement_is_unchanged_exactly_when_an_edge_to_its_object_was_learned_from_it(case):
    f, heard, *_ = case
    learned = [e["id"] for e in heard if f.message_ids and set(f.message_ids) <= set(e["message_ids"])]
    got = plan(*case)
    assert (got.unchanged is not None) == bool(learned) and (not learned or got.unchanged == learned[0])


@MANY
@given(cases())
def test_only_a_current_edge_to_the_same_object_is_reinforced_and_never_by_an_ending(case):
    f, heard, *_ = case
    got = plan(*case)
    if got.unchanged is None:
        current_same = [e["id"] for e in heard if e["valid_to"] is None]
        assert (got.reinforce is not None) == (bool(current_same) and "ended" not in f.tags)
    if got.reinforce is not None:
        assert got.reinforce.edge_id == current_same[0] and got.reinforce.message_ids == f.message_ids
        held = next(e for e in heard if e["id"] == got.reinforce.edge_id)
        assert got.reinforce.confidence == reinforce(held["confidence"], f.confidence)
        stronger = max(Src(held["source"]), f.source, key=lambda s: (TRUST_WEIGHTS[s], s == f.source))
        assert got.reinforce.source == stronger


@MANY
@given(cases())
def test_a_new_edge_either_closes_everything_it_contradicts_or_is_contested_and_closes_nothing(case):
    f, heard, current, opposites = case
    got = plan(*case)
    if got.create is None:
        return
    targets = contradicted(*case)
    contested = any(outweighs(e, f) for e in targets)
    valid_from = f.valid_from or NOW
    assert (got.action == "contested") == contested
    assert sorted(c.edge_id for c in got.close) == ([] if contested else sorted(e["id"] for e in targets))
    began = {e["id"]: e["valid_from"] for e in targets}
    for c in got.close:
        assert c.valid_to >= valid_from and (began[c.edge_id] is None or c.valid_to >= began[c.edge_id])
        assert c.valid_to in (valid_from, began[c.edge_id])
    closed_at_birth = contested or "ended" in f.tags
    assert got.create.valid_to == (valid_from if closed_at_birth else None)
    assert got.create.tags == f.tags + (("contested",) if contested else ())


@MANY
@given(cases(), st.lists(edges([P.HAS_NAME, P.DISLIKES, P.LIVES_IN], closed=moments), max_size=2),
       st.lists(edges(list(P), closed=st.none()), max_size=2))
def test_edges_the_fact_cannot_contradict_change_nothing(case, closed, unrelated):
    """A store may read more than it must: closed edges, and current ones of kinds the rule does
    not look at (another object of a non-functional predicate, a non-opposite), are ignored."""
    f, heard, current, opposites = case
    closed, unrelated = named("x", closed), named("y", unrelated)
    spec = PREDICATES[f.predicate]
    kinds = {p.value for p in spec.opposites}
    extra_current = closed + ([] if spec.functional else [e for e in unrelated if e["predicate"] == f.predicate.value])
    extra_opposites = closed + [e for e in unrelated if e["predicate"] not in kinds]
    assert plan(f, heard, current + extra_current, opposites + extra_opposites) == plan(*case)


@MANY
@given(cases())
def test_planning_is_pure(case):
    before = copy.deepcopy(case)
    assert plan(*case) == plan(*case) and case == before


# -- one copy of the rule ---------------------------------------------------------------------------

RULE_PIECES = {"already_heard", "reinforce_edge", "resolve_contradictions", "closed_at", "contradicts",
               "states_an_end", "reinforce"}


@pytest.mark.parametrize("store", ["layers/engram/engram/adapters/neo4j/profile_graph.py", "tests/fakes/graph.py"])
def test_the_stores_apply_the_plan_and_hold_none_of_the_rule(store):
    imported = {alias.name for node in ast.walk(ast.parse((ROOT / store).read_text()))
                if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert "plan_fact_write" in imported and not imported & RULE_PIECES
