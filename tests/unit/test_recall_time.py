"""Questions about when something happened get the event's day in the context block: the day it
was said and, when the user named another ("next week", "上周五"), the day it is about."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engram.domain.recall.fusion import RecallItem, context_block
from engram.service.recall import RecallRequest, run_in_process
from tests.unit.support import say

SAID = datetime(2026, 5, 20, 9, tzinfo=UTC)  # a Wednesday


def ask(deps, scope, query: str) -> dict:
    now = SAID + timedelta(days=30)
    return run_in_process(deps, RecallRequest.parse(scope, query, 5, now.isoformat(), None, None))


def event_lines(answer: dict, word: str) -> list[str]:
    return [line for line in answer["context_block"].splitlines() if "[episode]" in line and word in line]


def test_a_when_question_reads_the_day_the_user_meant(deps, consenting):
    say(deps, consenting, "I booked a flight to Lisbon for next week.", at=SAID)
    lines = event_lines(ask(deps, consenting, "When am I flying to Lisbon?"), "Lisbon")
    assert lines, "the trip was not recalled"
    assert "said 2026-05-20 (Wed), about 2026-05-27 (Wed)" in lines[0], lines[0]


def test_a_chinese_relative_day_is_resolved_against_the_turn(deps, consenting):
    say(deps, consenting, "我上周五去看了牙医。", at=SAID)
    lines = event_lines(ask(deps, consenting, "我什么时候去看的牙医？"), "牙医")
    assert lines and "about 2026-05-15 (Fri)" in lines[0], lines


def test_an_event_without_another_day_shows_only_when_it_was_said(deps, consenting):
    say(deps, consenting, "I adopted a grey cat called Pixel.", at=SAID)
    lines = event_lines(ask(deps, consenting, "When did I adopt Pixel?"), "Pixel")
    assert lines and "said 2026-05-20 (Wed)" in lines[0] and "about" not in lines[0], lines


def test_weekdays_only_for_questions_about_time():
    item = RecallItem(memory_id="e1", layer="episode", type="event", text="flight to Lisbon", confidence=0.9,
                      decayed_confidence=0.9, trust_source="user", needs_confirmation=False,
                      valid_from="2026-05-27T09:00:00+00:00", valid_to=None,
                      provenance={"message_ids": ["m1"], "ts": "2026-05-20T09:00:00+00:00"}, score=1.0)
    assert "said 2026-05-20, about 2026-05-27," in context_block([item], 600)
    assert "said 2026-05-20 (Wed), about 2026-05-27 (Wed)," in context_block([item], 600, temporal=True)
    broken = RecallItem(**{**item.__dict__, "provenance": {"ts": "not a date"}, "valid_from": "garbage"})
    assert "said not a date, about garbage" in context_block([broken], 600, temporal=True)
