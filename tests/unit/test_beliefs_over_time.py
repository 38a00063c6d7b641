"""Beliefs over time through the service layer: a change of state closes the old edge (keeping it
in the history) and opens the new one; a correction replaces what was just said."""

from __future__ import annotations

from engram.service.profile import profile
from tests.unit.support import say


def current(deps, scope) -> set[tuple[str, str]]:
    return {(i["type"], i["object"]) for i in profile(deps, scope)["items"]}


def history(deps, scope) -> dict[tuple[str, str], list]:
    out: dict[tuple[str, str], list] = {}
    for item in profile(deps, scope, include_history=True)["items"]:
        out.setdefault((item["type"], item["object"]), []).append(item["valid_to"])
    return out


def test_a_move_closes_the_old_home_and_keeps_it_in_the_history(deps, consenting):
    say(deps, consenting, "I live in Paris.", "Actually we moved to Lyon last month.")
    assert current(deps, consenting) == {("lives_in", "Lyon")}
    assert [to is not None for to in history(deps, consenting)[("lives_in", "Paris")]] == [True]


def test_not_any_more_turns_a_like_into_a_current_dislike_of_the_same_thing(deps, consenting):
    say(deps, consenting, "I love coffee.", "I don't like coffee anymore.")
    assert current(deps, consenting) == {("dislikes", "coffee")}
    assert history(deps, consenting)[("has_preference", "coffee")][0] is not None


def test_a_move_in_chinese(deps, consenting):
    say(deps, consenting, "我住在北京。", "我上个月搬到深圳了。")
    assert current(deps, consenting) == {("lives_in", "深圳")}


def test_an_ending_closes_the_state_and_opens_none(deps, consenting):
    say(deps, consenting, "I live in Boston and I work as a nurse.", "I no longer live in Boston.",
        "我不再住在北京了。")
    assert current(deps, consenting) == {("works_as", "nurse")}
    ended = history(deps, consenting)
    assert all(to is not None for to in ended[("lives_in", "Boston")]) and len(ended[("lives_in", "Boston")]) == 2
    assert all(to is not None for to in ended[("lives_in", "北京")]), "a past state is history, never current"


def test_used_to_is_a_past_state_not_a_current_one(deps, consenting):
    say(deps, consenting, "I used to live in Chicago, but now I live in Denver.")
    assert current(deps, consenting) == {("lives_in", "Denver")}
    assert ("lives_in", "Chicago") in history(deps, consenting)


def test_a_correction_replaces_the_value_just_said(deps, consenting):
    say(deps, consenting, "I'm 30.", "Sorry, I meant 31.", "I love tea.", "Sorry, I meant coffee.")
    assert current(deps, consenting) == {("has_age", "31"), ("has_preference", "coffee")}


def test_statements_about_others_and_hearsay_leave_the_profile_empty(deps, consenting):
    say(deps, consenting, "My sister is allergic to cats.", "My friend says she loves jazz.", "Do I like jazz?",
        "If I were rich I'd live in Paris.")
    assert current(deps, consenting) == set()
