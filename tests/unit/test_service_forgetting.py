"""The daily forgetting job on the fake episode store: what it archives, down-weights, merges and
counts, and that a second run on the same day changes nothing more."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.config import Settings
from engram.domain.model import Scope
from engram.errors import ValidationFailed
from engram.service import forgetting
from engram.service.forgetting import ForgetShard, forget_shard, forget_user, plan_forgetting, run_forgetting
from engram.service.privacy import seal_episode
from tests.fakes import fake_deps
from tests.unit.support import OpeningNoted, iso

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


def event(event_id: str, type_: str, days_ago: float, *, vector=None, **extra) -> dict:
    ts = iso(NOW - timedelta(days=days_ago))
    doc = {"event_id": event_id, "type": type_, "summary": event_id, "text": event_id, "context": "", "keywords": [],
           "raw_sha256": "x", "message_ids": [f"m-{event_id}"], "session_id": "s1", "device_id": "phone", "ts": ts,
           "occurred_at": ts, "confidence": 0.7, "trust_source": "rule", "weight": 1.0, "tags": [],
           "sensitive": False, "evicted": False, "archived": False, "merged_count": 1, "updated_at": ts, **extra}
    if vector is not None:
        doc["vector"] = vector
    return doc


def stored(deps, scope) -> dict[str, dict]:
    return {d["event_id"]: d for d in deps.episodes.all_for_user(scope)}


def test_stale_small_talk_leaves_retrieval_but_stays_stored(deps, alice):
    deps.episodes.put(alice, [event("old-chat", "small_talk", 40), event("old-hi", "greeting", 31, text="Hi there!"),
                              event("new-chat", "small_talk", 2), event("old-fact", "fact", 400)])
    report = forget_user(deps, alice, NOW)
    docs = stored(deps, alice)
    assert report["archived"] == 2 and {k for k, d in docs.items() if d["archived"]} == {"old-chat", "old-hi"}
    assert deps.episodes.count(alice, tier="retrievable") == 2 and deps.episodes.count(alice, tier="all") == 4
    actions = Counter(e["action"] for e in deps.audit.entries(alice))
    assert actions["forget_archive"] == 2


def test_a_repeated_type_is_down_weighted_once(deps, alice, settings):
    deps.episodes.put(alice, [event(f"mood-{i}", "emotion", i) for i in range(5)] + [event("plan", "plan", 1)])
    first = forget_user(deps, alice, NOW)
    docs = stored(deps, alice)
    assert first["downweighted"] == 5
    assert {docs[f"mood-{i}"]["weight"] for i in range(5)} == {settings.repeat_factor}
    assert all("repeated" in docs[f"mood-{i}"]["tags"] for i in range(5)) and docs["plan"]["weight"] == 1.0
    again = forget_user(deps, alice, NOW)
    assert again["downweighted"] == 0 and stored(deps, alice) == docs


def test_fewer_repeats_than_the_threshold_change_nothing(deps, alice):
    deps.episodes.put(alice, [event(f"mood-{i}", "emotion", i) for i in range(4)])
    assert forget_user(deps, alice, NOW)["downweighted"] == 0
    assert {d["weight"] for d in stored(deps, alice).values()} == {1.0}


def test_near_duplicates_merge_into_the_oldest(deps, alice):
    deps.episodes.put(alice, [event("first", "fact", 3, vector=[1.0, 0.0]),
                              event("again", "fact", 2, vector=[0.999, 0.04]),
                              event("other", "fact", 1, vector=[0.0, 1.0]),
                              event("same-vector-other-type", "preference", 1, vector=[1.0, 0.0])])
    report = forget_user(deps, alice, NOW)
    docs = stored(deps, alice)
    assert report["merged"] == 1
    assert docs["first"]["message_ids"] == ["m-again", "m-first"] and docs["first"]["merged_count"] == 2
    assert docs["again"]["archived"] is True and "merged" in docs["again"]["tags"]
    assert not docs["other"]["archived"] and not docs["same-vector-other-type"]["archived"]
    assert forget_user(deps, alice, NOW)["merged"] == 0
    assert stored(deps, alice)["first"]["merged_count"] == 2


def test_behaviour_patterns_are_counts_per_type_weekday_and_hour(deps, alice):
    deps.episodes.put(alice, [event("a", "emotion", 7), event("b", "emotion", 14), event("c", "fact", 7)])
    report = forget_user(deps, alice, NOW)
    assert report["pattern_rows"] == 2
    assert deps.patterns.patterns(alice) == [
        {"type": "emotion", "weekday": NOW.weekday(), "hour": 12, "count": 2},
        {"type": "fact", "weekday": NOW.weekday(), "hour": 12, "count": 1}]
    forget_user(deps, alice, NOW)
    assert len(deps.patterns.patterns(alice)) == 2  # recomputed, not added to


def test_every_change_is_stamped_with_the_jobs_clock(deps, alice):
    deps.episodes.put(alice, [event("old-chat", "small_talk", 40)])
    forget_user(deps, alice, NOW)
    assert stored(deps, alice)["old-chat"]["updated_at"] == iso(NOW)


def test_a_second_run_the_same_day_writes_no_audit(deps, alice):
    deps.episodes.put(alice, [event("old-chat", "small_talk", 40)] + [event(f"m{i}", "emotion", i) for i in range(5)])
    forget_user(deps, alice, NOW)
    entries = len(deps.audit.entries(alice))
    forget_user(deps, alice, NOW)
    assert len(deps.audit.entries(alice)) == entries


def test_run_forgetting_covers_every_user_and_sums_up(deps, alice, bob):
    for scope in (alice, bob):
        deps.users.ensure(scope)  # as the write fence does for every user who writes
    deps.episodes.put(alice, [event("old-chat", "small_talk", 40)])
    deps.episodes.put(bob, [event("old-hi", "greeting", 35, text="Hi there!"), event("b-fact", "fact", 1)])
    totals = run_forgetting(deps, iso(NOW))
    assert totals == {"users": 2, "archived": 2, "restored": 0, "downweighted": 0, "merged": 0, "pattern_rows": 3,
                      "skipped": 0}


def test_run_forgetting_for_named_users_only(deps, alice, bob):
    deps.episodes.put(alice, [event("old-chat", "small_talk", 40)])
    deps.episodes.put(bob, [event("old-hi", "greeting", 35, text="Hi there!")])
    assert run_forgetting(deps, NOW, users=[bob])["archived"] == 1
    assert not stored(deps, alice)["old-chat"]["archived"]


@pytest.mark.parametrize("now", ["2026-11-30T12:00:00Z", "2026-11-30T12:00:00+00:00"])
def test_the_clock_may_be_given_as_text(deps, alice, now):
    deps.users.ensure(alice)
    deps.episodes.put(alice, [event("old-chat", "small_talk", 40)])
    assert run_forgetting(deps, now)["archived"] == 1


def test_a_sealed_events_text_alone_is_opened_and_nothing_is_written_back_in_clear(deps, alice):
    keys = OpeningNoted(deps.keys)
    deps = deps.with_(keys=keys)
    said = {"text": "I am allergic to peanuts", "context": "Any food I should avoid?", "keywords": ["peanuts"],
            "sensitive": True}
    deps.episodes.put(alice, [seal_episode(keys, alice, event("first", "fact", 3, vector=[1.0, 0.0], **said)),
                              seal_episode(keys, alice, event("again", "fact", 2, vector=[0.999, 0.04], **said))])
    assert forget_user(deps, alice, NOW)["merged"] == 1  # compared in clear: the same words
    assert set(keys.opened) == {"episode:text"}
    assert "peanuts" not in str(deps.episodes.all_for_user(alice)) + str(deps.audit.entries(alice))


# -- the nightly fan-out: shards walked by invocations that hand each other a cursor -------------

_IDS = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(users=st.sets(st.tuples(st.sampled_from(["t1", "t:2", "租户"]), _IDS), max_size=25),
       shards=st.integers(1, 5), page=st.integers(1, 4), per_invocation=st.integers(1, 6), data=st.data())
def test_a_run_forgets_every_user_once_whatever_the_shards_pages_and_budget(users, shards, page, per_invocation,
                                                                           data):
    deps = fake_deps(Settings().model_copy(update={"forget_shards": shards}))
    scopes = [Scope(t, u) for t, u in sorted(users)]
    erasing = set(data.draw(st.lists(st.sampled_from(scopes), max_size=3))) if scopes else set()
    for scope in scopes:
        deps.users.ensure(scope, erasing=scope in erasing)
    met: list[Scope] = []

    def forget(_, scope, when):
        met.append(scope)
        return {"archived": 0, "restored": 0, "downweighted": 0, "merged": 0, "pattern_rows": 1, "skipped": 0}

    ticks = iter(range(10**6))  # one tick a user: the budget is spent after per_invocation users
    invocations, results = 0, []
    with patch.object(forgetting, "PAGE", page), patch.object(forgetting, "forget_user", forget):
        for item in plan_forgetting(deps, NOW)["work"]:
            event = json.loads(json.dumps(item))  # as the state machine hands it on
            while not event["done"]:
                command = ForgetShard.from_event(event)
                event = json.loads(json.dumps(forget_shard(deps, command, per_invocation,
                                                           clock=lambda: next(ticks)).to_event()))
                invocations += 1
            results.append(event)
    expected = [s for s in scopes if s not in erasing]
    assert sorted(met, key=lambda s: (s.tenant, s.user_id)) == expected and len(set(met)) == len(met)
    assert sum(r["totals"]["users"] for r in results) == len(expected)
    assert sum(r["totals"]["pattern_rows"] for r in results) == len(expected)
    # Pages are walked over every user, those being erased included (they are listed, then skipped).
    assert invocations <= shards + len(expected) // per_invocation + len(scopes) // page + shards


@pytest.mark.parametrize("event", [{}, {"now": "2026-11-30T12:00:00Z", "shard": 4, "shards": 4},
                                   {"now": "2026-11-30T12:00:00Z", "shard": "x", "shards": 4},
                                   {"now": "yesterday", "shard": 0, "shards": 1},
                                   {"now": "2026-11-30T12:00:00Z", "shard": 0, "shards": 1, "after": ["t1"]}])
def test_a_malformed_shard_is_refused_naming_the_field(event):
    with pytest.raises(ValidationFailed) as refused:
        ForgetShard.from_event(event)
    assert refused.value.field == "shard"


@pytest.mark.parametrize("budget", [0, -1, "nan", "soon"])
def test_a_budget_must_be_a_positive_number_of_seconds(budget):
    with pytest.raises(ValidationFailed) as refused:
        ForgetShard.from_event({"now": "2026-11-30T12:00:00Z", "shard": 0, "shards": 1, "budget_s": budget})
    assert refused.value.field in ("budget_s", "shard")


def test_a_tenant_run_meets_that_tenants_users_only(deps, alice, bob):
    stranger = Scope("t2", "alice")
    for scope in (alice, bob, stranger):
        deps.users.ensure(scope)
        deps.episodes.put(scope, [event("old-chat", "small_talk", 40)])
    work = plan_forgetting(deps, NOW, tenant=alice.tenant)["work"]
    totals = [forget_shard(deps, ForgetShard.from_event(item)).totals for item in work]
    assert sum(t["archived"] for t in totals) == 2
    assert not stored(deps, stranger)["old-chat"]["archived"] and stored(deps, bob)["old-chat"]["archived"]


def test_a_greeting_that_says_more_is_retyped_never_archived_as_chatter(deps, alice):
    # Typed by its first word before a greeting had to say nothing else: an old one is what it says.
    deps.episodes.put(alice, [event("hi-news", "greeting", 40, text="hi! my mom moved to Tucson yesterday"),
                              event("hi-only", "greeting", 40, text="Hello! How are you today?"),
                              event("hi-task", "greeting", 2, text="hey, can you help me plan a party?")])
    report = forget_user(deps, alice, NOW)
    docs = stored(deps, alice)
    assert report["archived"] == 1 and docs["hi-only"]["archived"] and docs["hi-only"]["type"] == "greeting"
    assert not docs["hi-news"]["archived"] and docs["hi-news"]["type"] == "fact"
    assert docs["hi-task"]["type"] == "task"
    assert Counter(e["action"] for e in deps.audit.entries(alice))["retype"] == 2
    assert forget_user(deps, alice, NOW)["archived"] == 0 and stored(deps, alice) == docs  # a re-run is a no-op


def test_a_greeting_archived_as_chatter_that_says_more_is_back_in_retrieval(deps, alice):
    deps.episodes.put(alice, [
        event("hi-news", "greeting", 40, text="hi! my mom moved to Tucson yesterday", archived=True),
        event("hi-only", "greeting", 40, text="Hello! How are you today?", archived=True),
        event("hi-merged", "greeting", 40, text="hi! my mom moved to Tucson yesterday", archived=True,
              tags=["merged"])])
    assert forget_user(deps, alice, NOW)["restored"] == 1
    docs = stored(deps, alice)
    assert not docs["hi-news"]["archived"] and docs["hi-news"]["type"] == "fact"
    assert docs["hi-only"]["archived"] and docs["hi-merged"]["archived"]  # chatter, and a repeat, stay archived
    assert deps.episodes.count(alice, tier="retrievable") == 1
    assert Counter(e["action"] for e in deps.audit.entries(alice))["restore"] == 1
    assert forget_user(deps, alice, NOW)["archived"] == 0 and stored(deps, alice) == docs
