"""What one fact does to the profile graph, decided once: a plan the stores apply.

A store reads the candidate edges (``candidate_reads`` says which), calls ``plan_fact_write``
and writes what the plan says. The rule itself (already heard, reinforce, contradict by trust,
close, create) lives only here, so the Neo4j adapter and the in-memory fake cannot drift apart
on it; each store only knows how to read edges and how to write a plan. (Graphiti's
``resolve_edge_contradictions`` is the shape: the decision is a function of the edges read.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from ..model import PREDICATES, Predicate, TrustSource
from ..records import Fact, ProfileEdge
from .beliefs import (
    EdgeClaim,
    already_heard,
    closed_at,
    contradicts,
    reinforce_edge,
    resolve_contradictions,
    states_an_end,
)

Action = Literal["unchanged", "reinforced", "created", "contested"]


@dataclass(frozen=True)
class Reinforce:
    """The current edge to the same object, said again.

    ``message_ids`` and ``observed_at`` are merged into the edge as it stands when it is written,
    not as it was read: the Neo4j adapter merges them inside its ``SET``, where Cypher takes the
    edge's write lock before reading it, so two reinforcements at once both keep their messages
    (``confidence`` and ``source`` are decided from the read, as they always were)."""

    edge_id: str
    confidence: float
    source: TrustSource
    message_ids: tuple[str, ...]
    observed_at: datetime

    def merged_message_ids(self, held: Iterable[str]) -> list[str]:
        """The edge's ids, then the statement's it lacked."""
        held = list(held)
        return held + [m for m in self.message_ids if m not in held]

    def confirmed_at(self, held: datetime) -> datetime:
        """A confirmation only moves forward: a late retry of an older message is no news."""
        return self.observed_at if self.observed_at > held else held


@dataclass(frozen=True)
class Close:
    """An edge the new one ends; it is marked as closed by the new edge."""

    edge_id: str
    valid_to: datetime


@dataclass(frozen=True)
class NewEdge:
    """The edge the fact becomes. ``valid_to`` is set when it is closed at birth: it lost to a
    stronger edge (then tagged contested) or it states an end."""

    confidence: float
    source: TrustSource
    valid_from: datetime
    valid_to: datetime | None
    confirmed_at: datetime
    message_ids: tuple[str, ...]
    tags: tuple[str, ...]
    weight: float
    sensitive: bool
    sealed: str | None


@dataclass(frozen=True)
class BeliefPlan:
    """What to write for one fact. ``action`` is what ``ProfileGraph.upsert_fact`` reports;
    exactly one of ``unchanged`` (the edge already learned from the fact's messages),
    ``reinforce`` or ``create`` is set, and ``close`` only beside ``create``."""

    action: Action
    unchanged: str | None = None
    reinforce: Reinforce | None = None
    close: tuple[Close, ...] = ()
    create: NewEdge | None = None


def candidate_reads(fact: Fact) -> tuple[bool, tuple[Predicate, ...]]:
    """What a store reads for ``plan_fact_write`` besides the edges to the fact's own object:
    whether the predicate's current edges to other objects (it is functional), and the opposite
    predicates whose current edges to the same object it contradicts. An ending needs neither."""
    _, functional, opposites = contradicts(fact.predicate, fact.tags)
    return functional, opposites


def _claim(edge: ProfileEdge) -> EdgeClaim:
    return EdgeClaim(edge["id"], TrustSource(edge["source"]), edge["confidence"])


def plan_fact_write(fact: Fact, heard: Sequence[ProfileEdge], current: Sequence[ProfileEdge],
                    opposites: Sequence[ProfileEdge], *, now: datetime) -> BeliefPlan:
    """The plan for ``fact``, from the user's edges a store read in the transaction it will write in:

    * ``heard``: of the fact's predicate to the fact's object, current or closed;
    * ``current``: the current ones of the fact's predicate to other objects;
    * ``opposites``: the current ones of an opposite predicate to the same object (by its own key).

    Edges the fact cannot contradict (another object's when the predicate is not functional, any
    other object's or opposite's when the fact states an end, a closed one) are ignored, so a
    store may read more than ``candidate_reads`` asks. ``now`` stands for a missing ``valid_from``
    or ``observed_at``, and a store stamps its writes with the same instant."""
    earlier = next((e for e in heard if already_heard(e["message_ids"], fact.message_ids)), None)
    if earlier is not None:
        return BeliefPlan("unchanged", unchanged=earlier["id"])
    observed = fact.observed_at or now
    ending = states_an_end(fact.tags)
    same = [e for e in heard if e["valid_to"] is None]
    if same and not ending:
        again = reinforce_edge(_claim(same[0]), fact.source, fact.confidence)
        return BeliefPlan("reinforced", reinforce=Reinforce(same[0]["id"], again.confidence, again.source,
                                                            tuple(fact.message_ids), observed))
    same_object, functional, opposed = contradicts(fact.predicate, fact.tags)
    kinds = {p.value for p in opposed}
    contradicted = [*(same if same_object else ()), *(current if functional else ()),
                    *(e for e in opposites if e["predicate"] in kinds)]
    contradicted = [e for e in contradicted if e["valid_to"] is None]
    resolution = resolve_contradictions(fact.source, fact.confidence, map(_claim, contradicted))
    valid_from = fact.valid_from or now
    began = {e["id"]: e["valid_from"] for e in contradicted}
    closes = tuple(Close(i, closed_at(valid_from, began[i])) for i in resolution.close)
    new = NewEdge(confidence=fact.confidence, source=fact.source, valid_from=valid_from,
                  valid_to=valid_from if resolution.contested or ending else None, confirmed_at=observed,
                  message_ids=tuple(fact.message_ids), tags=resolution.tags(fact.tags), weight=fact.weight,
                  sensitive=PREDICATES[fact.predicate].sensitive, sealed=fact.sealed)
    return BeliefPlan("contested" if resolution.contested else "created", close=closes, create=new)
