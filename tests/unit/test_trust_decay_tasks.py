from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.lifecycle.decay import decay_confidence, needs_confirmation
from engram.domain.model import TrustSource
from engram.domain.profile.trust import Claim, counter_evidence, reinforce, resolve_conflict, smooth_feedback
from engram.domain.working.tasks import TaskStatus, check_transition
from engram.errors import Conflict

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def test_reinforce_weights_new_evidence_0_7():
    assert reinforce(0.5, 1.0) == pytest.approx(0.85)


def test_feedback_smoothing_with_prior_5():
    assert smooth_feedback(1.0, 0.0) == pytest.approx(5 / 6)


def test_counter_evidence_halves():
    assert counter_evidence(0.8) == pytest.approx(0.4)


def test_preference_half_life_is_90_days_and_crosses_confirmation_threshold():
    assert decay_confidence(0.9, NOW - timedelta(days=90), NOW, "preference") == pytest.approx(0.45)
    aged = decay_confidence(0.9, NOW - timedelta(days=120), NOW, "preference")
    assert needs_confirmation(aged) and not needs_confirmation(0.45)


def test_emotion_fades_in_a_day():
    assert decay_confidence(1.0, NOW - timedelta(days=1), NOW, "emotion") == pytest.approx(0.5)


def test_weighted_vote_and_safety_critical_system_fact_wins():
    claims = [Claim("no allergy", TrustSource.RULE, 0.7), Claim("no allergy", TrustSource.USER, 0.9),
              Claim("peanut allergy", TrustSource.SYSTEM, 0.9, safety_critical=True)]
    assert resolve_conflict(claims).value == "peanut allergy"
    assert resolve_conflict(claims[:2] + [Claim("x", TrustSource.LLM, 1.0)]).value == "no allergy"


def test_task_state_machine():
    check_transition(None, TaskStatus.CREATED)
    check_transition(TaskStatus.IN_PROGRESS, TaskStatus.PAUSED)
    check_transition(TaskStatus.PAUSED, TaskStatus.IN_PROGRESS)
    with pytest.raises(Conflict):
        check_transition(TaskStatus.COMPLETED, TaskStatus.IN_PROGRESS)
    with pytest.raises(Conflict):
        check_transition(None, TaskStatus.IN_PROGRESS)
