"""The pure input rules (engram.domain.limits and the time rules built on them): the documented
time range, times that never overflow, bounded JSON, and a session that cannot grow unbounded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.domain.ingest.sanitise import clean_turn, parse_timestamp, to_utc
from engram.domain.ingest.tagging import UNRESOLVED_TAG, cleanse, resolve_relative_time
from engram.domain.limits import (
    EPOCH_MS_MAX,
    EPOCH_MS_MIN,
    MAX_ALIAS_CHARS,
    MAX_ALIASES,
    MAX_JSON_BYTES,
    TIME_MAX,
    TIME_MIN,
    aliases_problem,
    finite_json,
    json_problem,
    text_problem,
)
from engram.domain.model import EventType, Extraction
from engram.domain.recall.query import _ANALYSED_TOKEN, MAX_LEXICAL_TOKENS, analyse, expand_with_session, lexical_text
from engram.domain.working.sessions import merge_fields, merged_fields_problem
from engram.errors import ValidationFailed

IN_RANGE = st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2199, 12, 31, 23, 59),
                        timezones=st.just(UTC))


# -- the time range ----------------------------------------------------------------------------

@pytest.mark.parametrize("value", [
    "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "1969-12-31T23:59:59Z", "2200-01-01T00:00:00Z",
    EPOCH_MS_MIN - 1, EPOCH_MS_MAX, 10**30, -1, "9" * 40, "²", "١٧٧٧٦٠٠٨٠٠٠٠٠", float("nan"), float("inf"),
    "2026-05-14T09:00:00", "2026-02-30T00:00:00Z", "a\x00", "\ud800", None, True, [],
])
def test_a_time_outside_the_range_or_no_time_at_all_is_refused_naming_the_field(value):
    with pytest.raises(ValidationFailed) as err:
        parse_timestamp(value, "when")
    assert err.value.field == "when"


def test_the_range_ends_are_where_the_documentation_says():
    assert to_utc("1970-01-01T00:00:00Z") == TIME_MIN
    assert to_utc("1970-01-01T01:00:00+01:00") == TIME_MIN
    assert to_utc("2199-12-31T23:59:59.999999Z") < TIME_MAX
    assert to_utc(EPOCH_MS_MIN) == datetime(2001, 9, 9, 1, 46, 40, tzinfo=UTC)
    assert to_utc(str(EPOCH_MS_MAX - 1)) < TIME_MAX


@given(st.one_of(st.text(max_size=40), st.integers(), st.floats(), st.datetimes().map(lambda d: d.isoformat()),
                 st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat())))
@settings(max_examples=300, deadline=None)
def test_parsing_any_value_refuses_or_lands_in_the_range(value):
    try:
        when = to_utc(value)
    except ValueError:
        return
    assert TIME_MIN <= when < TIME_MAX and when.tzinfo is UTC


# -- relative times never overflow -------------------------------------------------------------

@pytest.mark.parametrize(("text", "base"), [
    ("I met her 800000 days ago", datetime(2026, 5, 14, tzinfo=UTC)),
    ("see you in 99999999999999999999 days", datetime(2026, 5, 14, tzinfo=UTC)),
    ("I moved 999999999 weeks ago", datetime(2026, 5, 14, tzinfo=UTC)),
    ("it began 999999999 months ago", datetime(2026, 5, 14, tzinfo=UTC)),
    ("1" * 5000 + " days ago", datetime(2026, 5, 14, tzinfo=UTC)),
    ("我们800000天前见过", datetime(2026, 5, 14, tzinfo=UTC)),
    ("yesterday", TIME_MIN),
    ("the day after tomorrow", datetime(2199, 12, 31, 23, tzinfo=UTC)),
    ("last frİday", datetime(2026, 5, 14, tzinfo=UTC)),
])
def test_a_time_no_calendar_in_range_holds_stays_unresolved_and_keeps_its_words(text, base):
    when, expression = resolve_relative_time(text, base)
    assert when is None and expression
    event = Extraction(type=EventType.FACT, summary=text[:200], message_id="m1", confidence=0.5)
    cleansed = cleanse(event, text, base)
    assert UNRESOLVED_TAG in cleansed.tags and cleansed.summary == text[:200] and cleansed.occurred_at == base


@given(st.integers(min_value=0, max_value=10**25), st.sampled_from(
    ["{} days ago", "in {} days", "{} weeks ago", "{} months ago", "{}天前", "{}天后"]), IN_RANGE)
@settings(max_examples=300, deadline=None)
def test_any_count_from_any_time_in_range_resolves_in_range_or_not_at_all(count, form, base):
    when, expression = resolve_relative_time(form.format(count), base)
    assert expression is not None
    assert when is None or TIME_MIN <= when < TIME_MAX
    intent = analyse(f"what happened {form.format(count)}?", base)
    assert intent.window is None or intent.window[0] < intent.window[1]


@given(st.text(max_size=300), IN_RANGE)
@settings(max_examples=300, deadline=None)
def test_resolving_any_text_never_raises(text, base):
    when, _ = resolve_relative_time(text, base)
    assert when is None or TIME_MIN <= when < TIME_MAX


def test_a_time_in_range_still_resolves():
    when, _ = resolve_relative_time("I met her 3 days ago", datetime(2026, 5, 14, tzinfo=UTC))
    assert when == datetime(2026, 5, 11, tzinfo=UTC)
    assert resolve_relative_time("yesterday", TIME_MIN + timedelta(days=1))[0] == TIME_MIN


# -- text and free-form JSON ---------------------------------------------------------------------

@pytest.mark.parametrize(("value", "refused"), [
    ("fine", False), ("tab\tand\nnewline", False), ("\ud83c\udfb7", True), ("🎷", False), ("a\x00b", True),
    ("\ud800", True), ("x\udfff", True),
])
def test_text_refuses_nul_and_unpaired_surrogates(value, refused):
    assert (text_problem(value) is not None) is refused


def test_a_turn_with_nul_is_refused_in_the_domain_too():
    message = {"role": "user", "content": "a\x00b", "client_ts": "2026-05-14T09:00:00Z"}
    with pytest.raises(ValidationFailed) as err:
        clean_turn(2, message, "s1")
    assert err.value.field == "messages[2].content"


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(("value", "too_large"), [
    ({"a": float("nan")}, False), ({"a": [1, {"b": float("-inf")}]}, False), ({"n": 2**63}, False),
    ({"n": -(2**63) - 1}, False), ({"a\x00": 1}, False), ({"a": "\udc00"}, False), ({"a": _nested(9)}, False),
    ({"a": "x" * MAX_JSON_BYTES}, True),
])
def test_free_form_json_is_finite_bounded_and_clean(value, too_large):
    problem = json_problem(value)
    assert problem is not None and problem.too_large is too_large


def test_free_form_json_within_the_limits_passes():
    assert json_problem({"n": 2**63 - 1, "m": -(2**63), "f": 1e308, "a": _nested(7), "ok": True, "z": None}) is None


def test_aliases_are_a_bounded_map_of_strings():
    assert aliases_problem({"that one": "the red kettle"}) is None
    assert aliases_problem({"that one": 5}).too_large is False
    assert aliases_problem(["x"]).too_large is False
    assert aliases_problem({f"a{i}": "x" for i in range(MAX_ALIASES + 1)}).too_large is True
    assert aliases_problem({"a": "x" * (MAX_ALIAS_CHARS + 1)}).too_large is True


def test_a_query_reads_only_what_a_session_may_hold():
    fields = {"aliases": {f"a{i}": "t" * 5000 for i in range(100)} | {"a5": 7}, "current_item": "c" * 5000}
    expanded = expand_with_session("a1 a2 a3 a4 a5 that one", fields)
    assert len(expanded) <= 30 + MAX_ALIASES * (MAX_ALIAS_CHARS + 1) + MAX_ALIAS_CHARS + 1


def test_non_finite_numbers_read_as_null():
    assert finite_json({"a": float("nan"), "b": [float("inf"), 1.5], "c": {"d": "x"}}) == \
        {"a": None, "b": [None, 1.5], "c": {"d": "x"}}


def test_a_session_is_held_to_the_bounds_once_merged():
    current = {f"f{i}": i for i in range(64)}
    assert merged_fields_problem(current, {"f65": 1}) is not None
    assert merged_fields_problem(current, {"f0": None, "f65": 1}) is None
    assert merged_fields_problem({"a": "x" * 10_000}, {"b": "y" * 10_000}) is not None
    legacy = {f"f{i}": i for i in range(80)}  # stored before the bounds: shrinking it is allowed
    assert merged_fields_problem(legacy, {"f0": None}) is None
    assert merge_fields({"a": 1, "b": 2}, {"a": None, "c": 3}) == {"b": 2, "c": 3}


@pytest.mark.parametrize("text", ["记" * 2000, "ab " * 700, "😀" * 2000, "a,b;" * 500, "ｶﾀｶﾅ" * 500, "한국어" * 600])
def test_a_lexical_search_reads_a_bounded_head_of_any_query(text):
    head = lexical_text(text)
    assert text.startswith(head) and len(_ANALYSED_TOKEN.findall(head)) <= MAX_LEXICAL_TOKENS


def test_a_short_query_is_searched_whole():
    assert lexical_text("what did I say about jazz?") == "what did I say about jazz?"
