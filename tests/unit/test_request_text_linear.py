"""What a request's text is read by outside extraction grows about linearly with its length, whatever
shape a hostile or careless client gives it: recall's reading of a question (``query.analyse`` and
what the service reads of its topic) and ingestion's cleaning and tagging of a message. Patterns
tried at every character of a long run once read the rest of the run each time: 8,000 digits in a
message took 5 s to resolve as a relative time, 8,000 spaces 6 s to tag, a 2,000-character
question of 有 0.45 s to read.

Not a budget in seconds: the time at the longest allowed text is compared with that at an eighth
of it in the same run (best of 3 each, measured again while over the bound). Eight times the length
takes about 8 times as long when linear, about 64 times when quadratic; anything under 40 passes (a
machine busy with other work stretches a linear 8 to 20). A few constructions per module read, the
ones that were fine too."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engram.domain.ingest import sanitise, tagging
from engram.domain.ingest.relative_time import resolve_relative_time
from engram.domain.limits import MAX_CONTENT_CHARS, MAX_QUERY_CHARS
from engram.domain.model import Message, Role
from engram.domain.privacy.blind_index import index_terms
from engram.domain.recall import lexical
from engram.domain.recall.cues import in_users_voice, names_in, without_names
from engram.domain.recall.dates import named_window
from engram.domain.recall.glossary import load_glossary
from engram.domain.recall.query import analyse, lexical_text
from engram.domain.recall.relations import relations_in
from tests.unit.support import timed_growth

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
BOUND = 40
FLOOR_S = 1e-4  # below a tenth of a millisecond a timer says nothing of the shape of the growth


def _repeated(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def _between(run: str, length: int) -> str:
    """A run between two words: its end decides, wherever in it a pattern starts."""
    return "x " + _repeated(run, length - 4) + " x"


# What a question may be made of: each module's words repeated, with and without the word a
# pattern waits for, runs of punctuation, digits, spaces, capitals, mixed scripts.
_QUESTIONS = {
    # cues: leftovers of a cut cue, a stacked Chinese cue, capitalised words (names)
    "commas": lambda n: _between(",", n),
    "comma-space": lambda n: _between(", ", n),
    "dashes": lambda n: _between("-", n),
    "有": lambda n: _repeated("有", n),
    "之前有": lambda n: _repeated("之前有", n),
    "names": lambda n: _repeated("Abc ", n),
    "name-spaces": lambda n: _between("Abc" + " " * 30, n),
    "did you remember": lambda n: _repeated("did you remember ", n),
    "你之前推荐": lambda n: _repeated("你之前推荐", n),
    # relative times and dates
    "digits": lambda n: _repeated("1", n),
    "一": lambda n: _repeated("一", n),
    "上个": lambda n: _repeated("上个", n),
    "3 June": lambda n: _repeated("3 June ", n),
    "June 3": lambda n: _repeated("June 3 ", n),
    "2023年6月": lambda n: _repeated("2023年6月", n),
    "days ago": lambda n: _repeated("two days ", n),
    # events compared in time
    "从家到": lambda n: _repeated("从家到", n),
    "which first": lambda n: _repeated("which first or ", n),
    "how long between": lambda n: _repeated("how long between a and ", n),
    "先还是": lambda n: _repeated("先还是", n),
    # query: time, now, overview, food
    "还": lambda n: _repeated("还", n),
    "what time": lambda n: _repeated("what time ", n),
    "who am i": lambda n: _repeated("who am i! ", n),
    "tell me about": lambda n: _repeated("what do you know about Abc ", n),
    # relations, lexical, glossary, blind index
    "我妈": lambda n: _repeated("我妈", n),
    "my my sister": lambda n: _repeated("my my sister's ", n),
    "什么我们": lambda n: _repeated("什么我们叫", n),
    "blood pressure": lambda n: _repeated("blood pressure's ", n),
    "it's-a-b": lambda n: _repeated("it's-a-b ", n),
    "spaces": lambda n: _between(" ", n),
    "en spaces": lambda n: _between("\u2002", n),
    "mixed": lambda n: _repeated("Abc中1, ", n),
}

_RECALL = {
    "analyse": lambda q: analyse(q, NOW),
    "names_in": names_in,
    "relations_in": relations_in,
    "query_terms": lexical.query_terms,
    "chinese_words": lexical.chinese_words,
    "index_terms": index_terms,
    "lexical_text": lexical_text,
    "in_users_voice": in_users_voice,
    "without_names": lambda q: without_names(q, ("abc", "王老师")),
    "han_for": lambda q: load_glossary().han_for(q),
}

# What a message may be made of (after ``sanitise.normalise_text``, which keeps en spaces and
# single newlines).
_MESSAGES = {
    "spaces": lambda n: _between(" ", n),
    "en spaces": lambda n: _between("\u2002", n),
    "newlines": lambda n: _between("\n", n),
    "commas": lambda n: _between(",", n),
    "digits": lambda n: _repeated("1", n),
    "一": lambda n: _repeated("一", n),
    "words": lambda n: _repeated("x ", n),
    "hedges": lambda n: _repeated("maybe I might ", n),
    "list items": lambda n: _repeated("1. maybe ", n),
    "clauses": lambda n: _repeated("and but so ", n),
    "或许": lambda n: _repeated("或许，", n),
    "3 June": lambda n: _repeated("3 June ", n),
    "in two days": lambda n: _repeated("in two ", n),
    "mixed": lambda n: _repeated("Abc中1, ", n),
}

_INGEST = {
    "clean_message": lambda t: sanitise.clean_message(Message(Role.USER, t, NOW, "m1"), "s1"),
    "is_tentative": tagging.is_tentative,
    "is_tentative_fact": lambda t: tagging.is_tentative_fact(t, "vegan diet"),
    "resolve_relative_time": lambda t: resolve_relative_time(t, NOW),
    "named_window": lambda t: named_window(t, NOW),
    "index_terms": index_terms,
    "repeats_wording": lambda t: lexical.repeats_wording(t, t),
}


def _ratio(read, make, length: int) -> tuple[float, float]:
    long_text, short_text = make(length), make(length // 8)
    read(long_text)  # warm: a segmenter or glossary loads once per process
    return timed_growth(lambda: read(short_text), lambda: read(long_text), BOUND, FLOOR_S)


@pytest.mark.parametrize("entry", sorted(_RECALL))
@pytest.mark.parametrize("shape", sorted(_QUESTIONS))
def test_reading_a_question_grows_about_linearly_with_its_length(entry, shape):
    short, long = _ratio(_RECALL[entry], _QUESTIONS[shape], MAX_QUERY_CHARS)
    assert long < BOUND * short, (entry, shape, short, long)


@pytest.mark.parametrize("entry", sorted(_INGEST))
@pytest.mark.parametrize("shape", sorted(_MESSAGES))
def test_reading_a_message_grows_about_linearly_with_its_length(entry, shape):
    short, long = _ratio(_INGEST[entry], _MESSAGES[shape], MAX_CONTENT_CHARS)
    assert long < BOUND * short, (entry, shape, short, long)
