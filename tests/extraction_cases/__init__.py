"""Extraction cases: statements and short histories, English and Chinese, with the beliefs each
should leave current in the profile, and the ones it must not (negatives: hearsay, questions,
hypotheses, past states, other people; and the states a change closed).

Each case is one line of ``en.cases`` / ``zh.cases`` (comments start with ``#``):
``category | turn || turn | expected | absent``,
facts written ``predicate=object; …`` with the short predicate names of ``SHORT``. A case runs through
the service layer on fakes (``beliefs_after``): ingested by the ingestion chain, read back by
``service.profile.profile``; a belief is current when its ``valid_to`` is null and it is not tagged
tentative. Used by ``tests/unit/test_extraction_cases.py`` and ``python -m local.bench.extraction``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

SHORT = {"name": "has_name", "age": "has_age", "like": "has_preference", "dislike": "dislikes",
         "allergy": "allergic_to", "cond": "has_condition", "child": "has_child", "parent": "has_parent",
         "spouse": "has_spouse", "sibling": "has_sibling", "friend": "has_friend", "advisor": "has_advisor",
         "colleague": "has_colleague", "manager": "has_manager", "struggle": "struggles_with", "master": "masters",
         "job": "works_as", "live": "lives_in", "pet": "has_pet", "employer": "works_at",
         "from": "comes_from", "birthday": "has_birthday", "hobby": "has_hobby", "school": "studied_at",
         "studied": "studied"}
T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)

Belief = tuple[str, str]


@dataclass(frozen=True)
class Case:
    lang: str
    category: str
    turns: tuple[str, ...]
    expected: frozenset[Belief]
    absent: frozenset[Belief]


_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"


def normalise(obj: str) -> str:
    """How an object is compared: case, spacing and a leading article do not matter, nor the verb a
    Chinese object may keep ("喝绿茶" is "绿茶"), nor the kind kept beside a pet's name ("Rex (dog)"
    is the annotator's "Rex"), nor how a day of the month is written ("the 4th of July", "July 4th"),
    nor the year said with a birthday ("December 19, 1988" is the annotator's "December 19")."""
    obj = " ".join(obj.lower().split()).strip(" .")
    obj = re.sub(r"^(?:the|a|an|my)\s+", "", obj)
    obj = re.sub(r"\s*[(（][^()（）]{1,12}[)）]$", "", obj)
    obj = re.sub(rf"^(\d{{1,2}})(?:st|nd|rd|th)? of ({_MONTHS})$", r"\2 \1", obj)
    obj = re.sub(rf"^({_MONTHS}) (\d{{1,2}})(?:st|nd|rd|th)$", r"\1 \2", obj)
    # a birthday is a day of the year: the year said beside it is more than the annotator asked for
    obj = re.sub(rf"^({_MONTHS}) (\d{{1,2}}), \d{{4}}$", r"\1 \2", obj)
    obj = re.sub(r"^\d{4}年(?=\d{1,2}月\d{1,2}日$)", "", obj)
    return re.sub(r"^(?:吃|喝|看|听|玩|打|弹|去)(?=[\u4e00-\u9fff]{2})", "", obj)


def _beliefs(spec: str) -> frozenset[Belief]:
    out = set()
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        short, _, obj = part.partition("=")
        out.add((SHORT[short.strip()], normalise(obj)))
    return frozenset(out)


def parse(lang: str, text: str) -> list[Case]:
    cases = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in re.split(r"(?<!\|)\|(?!\|)", line)] + ["", ""]
        category, turns, expected, absent = fields[:4]
        cases.append(Case(lang, category, tuple(t.strip() for t in turns.split("||")), _beliefs(expected),
                          _beliefs(absent)))
    return cases


def all_cases() -> list[Case]:
    # Data, not code: one case a line in en.cases and zh.cases beside this module.
    here = Path(__file__).parent
    return [case for lang in ("en", "zh") for case in parse(lang, (here / f"{lang}.cases").read_text("utf-8"))]


BATCHES = Path(__file__).parent / "batches"


def batch_names() -> list[str]:
    """The blind batches (``batches/NAME.LANG.cases``): written and scored before any rule was
    changed for them; their pre-change figures are in ``batches/pre_change.json``."""
    return sorted({p.name.split(".")[0] for p in BATCHES.glob("*.cases")})


def batch_cases(name: str) -> list[Case]:
    return [case for path in sorted(BATCHES.glob(f"{name}.*.cases"))
            for case in parse(path.name.split(".")[1], path.read_text("utf-8"))]


def beliefs_after(deps, scope, turns: tuple[str, ...]) -> set[Belief]:
    """Ingest ``turns`` (one batch, a minute apart) for a consenting user; the current beliefs."""
    from engram.service.ingest import IngestCommand, run_in_process
    from engram.service.profile import profile
    from engram.service.users import set_consent

    set_consent(deps, scope, True, None)
    messages = [{"role": "user", "content": t, "message_id": f"m{i}",
                 "client_ts": (T0 + timedelta(minutes=i)).isoformat()} for i, t in enumerate(turns)]
    run_in_process(deps, IngestCommand.from_body(scope, {"session_id": "s1", "device_id": "d1", "messages": messages}))
    return {(i["type"], normalise(i["object"])) for i in profile(deps, scope)["items"]
            if i["valid_to"] is None and "tentative" not in i["tags"]}


def run_all(cases: list[Case] | None = None) -> list[tuple[Case, set[Belief]]]:
    """Every case through the service layer on fakes, each as its own user."""
    from engram.config import Settings
    from engram.domain.model import Scope
    from tests.fakes import fake_deps

    deps = fake_deps(Settings(erasure_state_machine_arn=None, recall_runner="inprocess", ingest_runner="inprocess"))
    cases = all_cases() if cases is None else cases
    return [(case, beliefs_after(deps, Scope("cases", f"u{n}"), case.turns)) for n, case in enumerate(cases)]


def false_current(case: Case, got: set[Belief]) -> set[Belief]:
    """Beliefs that must not be current: a listed absent one, or any at all in a negative case."""
    return {b for b in got if b in case.absent or not case.expected}


def score(results: list[tuple[Case, set[Belief]]]) -> dict:
    """Recall, precision and false current beliefs, overall, per language and per category."""
    groups: dict[str, list] = defaultdict(list)
    for case, got in results:
        for key in ("all", f"lang:{case.lang}", f"category:{case.category}"):
            groups[key].append((case, got))

    def figures(rows) -> dict:
        expected = sum(len(c.expected) for c, _ in rows)
        found = sum(len(g) for _, g in rows)
        hits = sum(len(c.expected & g) for c, g in rows)
        return {"cases": len(rows), "expected": expected, "current": found, "hits": hits,
                "recall": round(hits / expected, 4) if expected else 1.0,
                "precision": round(hits / found, 4) if found else 1.0,
                "false_current": sum(len(false_current(c, g)) for c, g in rows)}

    out = {key: figures(rows) for key, rows in sorted(groups.items())}
    out["failures"] = [{"turns": list(c.turns), "missed": sorted(map(list, c.expected - g)),
                        "extra": sorted(map(list, g - c.expected)), "false": sorted(map(list, false_current(c, g)))}
                       for c, g in results if c.expected != g]
    return out
