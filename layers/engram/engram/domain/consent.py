"""Consent and child mode: who may be remembered, and how much."""

from __future__ import annotations

from dataclasses import dataclass

CHILD_AGE = 13


def is_child(age: int | None) -> bool:
    return age is not None and age < CHILD_AGE


@dataclass(frozen=True)
class ConsentDecision:
    long_term: bool
    child_mode: bool | None   # None: the age was not given, child mode stays as it was


def decide_consent(long_term: bool, age: int | None) -> ConsentDecision:
    """A child's long-term memory is never on, whatever was asked; an age turns child mode on
    or off, no age leaves it as it was."""
    child = is_child(age)
    return ConsentDecision(long_term=long_term and not child, child_mode=None if age is None else child)
