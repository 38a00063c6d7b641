"""Forgetting curves applied at read time: stored confidence never changes by age alone."""

from __future__ import annotations

import math
from datetime import datetime

HALF_LIFE_DAYS: dict[str, float] = {
    "preference": 90.0,
    "identity": 3650.0,   # a name or an age does not fade like a taste
    "relation": 365.0,
    "health": 365.0,
    "emotion": 1.0,
    "default": 30.0,
}
NEEDS_CONFIRMATION_BELOW = 0.4


def decay_confidence(confidence: float, updated_at: datetime, now: datetime, decay_class: str = "default") -> float:
    """``c * exp(-ln2 * age / half_life)``, age measured from the last confirmation."""
    half_life = HALF_LIFE_DAYS.get(decay_class, HALF_LIFE_DAYS["default"])
    age_days = max(0.0, (now - updated_at).total_seconds() / 86400)
    return confidence * math.exp(-math.log(2) * age_days / half_life)


def needs_confirmation(decayed: float) -> bool:
    return decayed < NEEDS_CONFIRMATION_BELOW
