"""The extraction case set (tests/extraction_cases) scored through the service layer on fakes:
ingested by the ingestion chain, read back from the profile. The same figures are printed by
``python -m local.bench.extraction``."""

from __future__ import annotations

import json

import pytest

from tests.extraction_cases import all_cases, run_all, score


@pytest.fixture(scope="module")
def figures() -> dict:
    return score(run_all())


def _failures(figures: dict) -> str:
    return json.dumps(figures["failures"][:25], ensure_ascii=False, indent=1)


def test_the_case_set_is_large_and_bilingual():
    cases = all_cases()
    assert len(cases) >= 300
    assert {c.lang for c in cases} == {"en", "zh"}
    assert sum(1 for c in cases if not c.expected) >= 60, "negatives: hearsay, questions, hypotheses, others"
    assert sum(1 for c in cases if len(c.turns) > 1) >= 30, "histories: changes of state and corrections"


@pytest.mark.parametrize("group", ["all", "lang:en", "lang:zh"])
def test_recall_and_precision(figures, group):
    assert figures[group]["recall"] >= 0.85, _failures(figures)
    assert figures[group]["precision"] >= 0.97, _failures(figures)


def test_no_false_current_belief(figures):
    assert figures["all"]["false_current"] == 0, _failures(figures)
