"""How sure we are: source trust, confidence updates, conflict resolution. Pure arithmetic."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..model import TrustSource

# SPEC defaults: user explicit 1.0, third-party system 0.95, repeated confirmation 0.8,
# self-report 0.7, AI inference 0.5. A human correction through the API counts as explicit.
TRUST_WEIGHTS: dict[TrustSource, float] = {
    TrustSource.USER: 1.0,
    TrustSource.HUMAN: 1.0,
    TrustSource.SYSTEM: 0.95,
    TrustSource.RULE: 0.7,
    TrustSource.LLM: 0.5,
}
REPEAT_CONFIRMATION = 0.8
NEW_WEIGHT = 0.7
PRIOR_COUNT = 5
COUNTER_EVIDENCE_FACTOR = 0.5
MIN_CONFIDENCE, MAX_CONFIDENCE = 0.1, 1.0


def clamp(value: float) -> float:
    return max(MIN_CONFIDENCE, min(MAX_CONFIDENCE, value))


def reinforce(old: float, new: float) -> float:
    """A repeated statement: weighted average that leans on the newest evidence (0.7 new)."""
    return clamp(NEW_WEIGHT * new + (1 - NEW_WEIGHT) * old)


def smooth_feedback(old: float, feedback: float, prior_count: int = PRIOR_COUNT) -> float:
    """Bayesian smoothing of a retrieval weight: one vote moves it, never flips it."""
    return (old * prior_count + feedback) / (prior_count + 1)


def counter_evidence(old: float) -> float:
    """The user just did what the memory says they can't: halve our belief."""
    return clamp(old * COUNTER_EVIDENCE_FACTOR)


@dataclass(frozen=True)
class Claim:
    value: str
    source: TrustSource
    confidence: float
    safety_critical: bool = False


def resolve_conflict(claims: Iterable[Claim]) -> Claim:
    """Weighted vote across sources. A safety-critical system fact (an allergy on record)
    outranks any self-report, whatever the vote says."""
    claims = list(claims)
    critical = [c for c in claims if c.safety_critical and c.source is TrustSource.SYSTEM]
    if critical:
        return max(critical, key=lambda c: c.confidence)
    votes: dict[str, float] = {}
    for claim in claims:
        votes[claim.value] = votes.get(claim.value, 0.0) + TRUST_WEIGHTS[claim.source] * claim.confidence
    winner = max(votes, key=votes.get)
    return max((c for c in claims if c.value == winner), key=lambda c: TRUST_WEIGHTS[c.source] * c.confidence)
