"""What a new statement does to what is already believed: pure decisions over edges.

``belief_plan`` puts them together into the plan a store applies for one fact; nothing here
knows a store. (Graphiti's ``resolve_edge_contradictions`` is the shape:
the contradiction rule is a function of the edges, not a side effect of a query.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from ..model import PREDICATES, Predicate, TrustSource
from .trust import TRUST_WEIGHTS, reinforce

CONTESTED_TAG = "contested"
# A statement that something stopped being true ("I used to live in Paris", "I no longer have
# asthma"): it closes the current edge to the same object and is itself kept closed at birth, so
# the history says when it ended and which message said so.
ENDED_TAG = "ended"
# What the user does not eat, as the rule that read it tags it ("I can't eat gluten").
FOOD_TAG = "food"


@dataclass(frozen=True)
class EdgeClaim:
    """The part of a current edge that decides a contradiction."""

    edge_id: str
    source: TrustSource
    confidence: float


@dataclass(frozen=True)
class Reinforcement:
    confidence: float
    source: TrustSource


@dataclass(frozen=True)
class Resolution:
    """``close``: edges the new one ends (``valid_to`` = its ``valid_from``). ``contested``: the
    new edge lost to a stronger one, so it is stored closed at birth and tagged."""

    close: tuple[str, ...]
    contested: bool

    def tags(self, tags: Iterable[str]) -> tuple[str, ...]:
        return tuple(tags) + ((CONTESTED_TAG,) if self.contested else ())


def contradicted_by(predicate: Predicate) -> tuple[bool, tuple[Predicate, ...]]:
    """What a new edge of ``predicate`` contradicts: another object of the same predicate when
    it is functional, and the opposite predicates (likes vs dislikes) to the same object."""
    spec = PREDICATES[predicate]
    return spec.functional, spec.opposites


def states_an_end(tags: Iterable[str]) -> bool:
    return ENDED_TAG in tuple(tags)


def contradicts(predicate: Predicate, tags: Iterable[str]) -> tuple[bool, bool, tuple[Predicate, ...]]:
    """``(same_object, other_objects, opposites)``: which current edges a new edge contradicts. An
    ending contradicts only the edge to its own object (the past state it ends: "I used to live in
    Paris" says nothing about Lyon); any other statement contradicts what ``contradicted_by`` says."""
    if states_an_end(tags):
        return True, False, ()
    functional, opposites = contradicted_by(predicate)
    return False, functional, opposites


def closed_at(new_valid_from: datetime, old_valid_from: datetime | None) -> datetime:
    """When a contradicted edge stops: when the new one starts, but never before it began ("we
    moved to Lyon last month" closes a Paris first heard of today at today, not a month before)."""
    return new_valid_from if old_valid_from is None else max(new_valid_from, old_valid_from)


def already_heard(edge_message_ids: Iterable[str], message_ids: Iterable[str]) -> bool:
    """The statement is one the edge was already learned from (a client's retry, however late):
    it changes nothing, neither confidence nor what later statements or corrections decided."""
    wanted = set(message_ids)
    return bool(wanted) and wanted <= set(edge_message_ids)


def reinforce_edge(current: EdgeClaim, source: TrustSource, confidence: float) -> Reinforcement:
    """The same statement again: confidence leans on the newest; the stronger source stays."""
    stronger = TRUST_WEIGHTS[source] >= TRUST_WEIGHTS[current.source]
    return Reinforcement(reinforce(current.confidence, confidence), source if stronger else current.source)


def resolve_contradictions(source: TrustSource, confidence: float, contradicted: Iterable[EdgeClaim]) -> Resolution:
    """Resolved by trust: a newer claim from a weaker source does not overturn a stronger one;
    it is kept, closed at birth and tagged, so both sides stay visible. Otherwise the newer claim
    wins and closes every edge it contradicts."""
    contradicted = list(contradicted)
    strength = TRUST_WEIGHTS[source] * confidence
    outweighed = [c for c in contradicted if TRUST_WEIGHTS[c.source] * c.confidence > strength
                  and TRUST_WEIGHTS[c.source] > TRUST_WEIGHTS[source]]
    if outweighed:
        return Resolution(close=(), contested=True)
    return Resolution(close=tuple(c.edge_id for c in contradicted), contested=False)


# A diet is kept as a taste ("vegan diet", "素食": ``extraction.rules_en._diet``, ``rules_zh``).
_DIETS_ZH = ("素食", "纯素食")


# Conditions that decide what a user may eat ("celiac disease", "type 2 diabetes", "乳糖不耐受").
_FOOD_CONDITIONS = re.compile(r"celiac|coeliac|lactose|gluten|diabet|\bibs\b|crohn|gerd|reflux|gout|cholesterol|"
                              r"blood pressure|hypertension|kidney|糖尿病|乳糖|痛风|高血压|高血脂|胃", re.I)


def bears_on_food(predicate: Predicate, obj: str, tags: Iterable[str] = ()) -> bool:
    """An allergy, a diet, a food the user does not eat (a dislike tagged ``food`` by the rule
    that read it) or a condition that rules foods out: what anyone cooking for the user must know."""
    return predicate is Predicate.ALLERGIC_TO or FOOD_TAG in tuple(tags) or (
        predicate is Predicate.HAS_PREFERENCE and (obj.lower().endswith(" diet") or obj in _DIETS_ZH)) or (
        predicate is Predicate.HAS_CONDITION and bool(_FOOD_CONDITIONS.search(obj)))
