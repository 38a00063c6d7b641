"""The forgetting job and the archive read path, seen through recall on the real stores."""

from __future__ import annotations

import json
import math
import random
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest

from engram.domain.model import Scope
from tests.integration.stepfunctions import run_execution, scheduled_target

pytestmark = pytest.mark.stack


def ingest(client, headers, user: str, items: list[tuple[str, datetime]], session: str = "s1") -> list[str]:
    messages = [{"role": "user", "content": text, "message_id": f"{user}-{uuid.uuid4().hex[:8]}",
                 "client_ts": ts.isoformat()} for text, ts in items]
    r = client.post(f"/v1/users/{user}/messages", headers=headers,
                    json={"session_id": session, "device_id": "phone", "messages": messages})
    assert r.status_code == 200, r.text
    return [m["message_id"] for m in messages]


def recall(client, headers, user: str, query: str, now: datetime) -> dict:
    r = client.post(f"/v1/users/{user}/recall", headers=headers, json={"query": query, "now": now.isoformat()})
    assert r.status_code == 200, r.text
    return r.json()


def event_for(items: list[dict], message_id: str) -> dict | None:
    return next((i for i in items if i["layer"] == "episode" and message_id in i["provenance"]["message_ids"]), None)


def test_forgetting_job_effects_are_visible_in_recall(deps, app_client, tenant_key):
    from engram.service.forgetting import run_forgetting

    tenant, headers = tenant_key
    now = datetime.now(UTC).replace(microsecond=0)
    old = now - timedelta(days=40)
    [hello] = ingest(app_client, headers, "fay", [("Hello there, good morning!", old)])
    feelings = ["I feel stressed about the quarterly deadline.", "I'm so excited about the jazz concert tonight.",
                "I am sad that the summer holiday is over.", "I feel angry about the traffic on the bridge.",
                "I'm happy my tomato garden is finally blooming."]
    emotion_ids = ingest(app_client, headers, "fay", [(t, now - timedelta(days=5 - i)) for i, t in enumerate(feelings)],
                         session="s2")

    before_hello = recall(app_client, headers, "fay", "hello good morning", now)
    assert event_for(before_hello["items"], hello) is not None
    before_stress = event_for(recall(app_client, headers, "fay", "stressed about the deadline", now)["items"],
                              emotion_ids[0])
    assert before_stress is not None

    scope = Scope(tenant, "fay")
    report = run_forgetting(deps, now=now, users=[scope])
    assert report["archived"] >= 1 and report["downweighted"] >= 5

    # Small talk older than 30 days left retrieval but is kept (for the archive and export).
    assert event_for(recall(app_client, headers, "fay", "hello good morning", now)["items"], hello) is None
    kept = {d["event_id"]: d for d in deps.episodes.all_for_user(scope)}
    greeting = next(d for d in kept.values() if hello in d["message_ids"])
    assert greeting["archived"] is True
    # Five emotions in a week: the type is down-weighted x0.3, and recall ranks it lower.
    emotions = [d for d in kept.values() if d["type"] == "emotion"]
    assert len(emotions) == 5 and all(math.isclose(d["weight"], 0.3) for d in emotions)
    after_stress = event_for(recall(app_client, headers, "fay", "stressed about the deadline", now)["items"],
                             emotion_ids[0])
    assert after_stress is not None and after_stress["score"] < before_stress["score"]

    # Habits as statistics only: counts per type, weekday and hour, adding up to the events.
    patterns = deps.patterns.patterns(scope)
    assert patterns and set(patterns[0]) == {"type", "weekday", "hour", "count"}
    assert sum(p["count"] for p in patterns) == len(kept)

    # A second run the same day changes nothing more.
    again = run_forgetting(deps, now=now, users=[scope])
    assert again["archived"] == 0 and again["downweighted"] == 0 and again["merged"] == 0
    assert all(math.isclose(d["weight"], 0.3) for d in deps.episodes.all_for_user(scope)
               if d["type"] == "emotion")

    # Forgetting on demand still works alongside the job.
    r = app_client.delete("/v1/users/fay/memories", headers=headers, params={"type": "greeting"})
    assert r.status_code == 200 and r.json()["deleted"] == 1


def test_near_duplicates_merge_into_the_older_event(deps, tenant_key):
    from engram.service.forgetting import run_forgetting

    tenant, _ = tenant_key
    scope, episodes = Scope(tenant, "gus"), deps.episodes
    rng = random.Random(5)
    base = [rng.gauss(0, 1) for _ in range(384)]
    near = [x + rng.gauss(0, 0.05) for x in base]
    far = [rng.gauss(0, 1) for _ in range(384)]
    t0 = datetime.now(UTC) - timedelta(days=2)

    def doc(name: str, vector: list[float], minutes: int, text: str) -> dict:
        ts = (t0 + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
        return {"event_id": f"ev-{name}-{uuid.uuid4().hex[:8]}", "type": "fact", "summary": text, "text": text,
                "context": "", "keywords": [], "raw_sha256": name, "message_ids": [f"m-{name}"], "session_id": "s",
                "device_id": "d", "ts": ts, "occurred_at": ts, "confidence": 0.8, "trust_source": "rule",
                "weight": 1.0, "tags": [], "sensitive": False, "evicted": False, "archived": False,
                "merged_count": 1, "updated_at": ts, "vector": vector}

    # A repeat in meaning and in words folds; a reply as close in meaning would not (unit tests).
    older = doc("older", base, 0, "I moved to Lisbon in May.")
    newer = doc("newer", near, 10, "I moved to Lisbon in May!")
    other = doc("other", far, 20, "My sister plays the cello.")
    episodes.put(scope, [older, newer, other])
    report = run_forgetting(deps, users=[scope])
    assert report["merged"] == 1
    after = {d["event_id"]: d for d in episodes.all_for_user(scope)}
    assert after[older["event_id"]]["message_ids"] == ["m-newer", "m-older"]
    assert after[older["event_id"]]["merged_count"] == 2 and not after[older["event_id"]]["archived"]
    assert after[newer["event_id"]]["archived"] is True and "merged" in after[newer["event_id"]]["tags"]
    assert not after[other["event_id"]]["archived"]


def test_recall_reads_old_originals_from_the_archive(deps, stack_state, app_client, tenant_key):
    from engram.service import archival
    from engram.service.retention import apply_retention

    tenant, headers = tenant_key
    today = datetime.now(UTC).date()
    day: date = today - timedelta(days=random.SystemRandom().randrange(150, 900))
    said = "I love green tea with jasmine, especially after a long day of hiking."
    [mid] = ingest(app_client, headers, "hal", [(said, datetime(day.year, day.month, day.day, 8, tzinfo=UTC))])
    archival.archive_day(deps, day)
    apply_retention(deps)
    scope = Scope(tenant, "hal")
    assert deps.turns.turns(scope) == [], "past the hot window and archived: dropped from Postgres"

    answer = recall(app_client, headers, "hal", "What exactly did I say about green tea?", datetime.now(UTC))
    originals = [i for i in answer["items"] if i["layer"] == "archive"]
    assert originals and originals[0]["provenance"]["message_ids"] == [mid]
    assert said in originals[0]["text"]
    assert "archive" not in answer["degraded"]


def test_a_greeting_archived_as_chatter_that_said_more_is_restored(deps, app_client, tenant_key):
    """Before a greeting had to say nothing else, "hi! my mom moved to Tucson yesterday" was typed a
    greeting and archived once a month old: the job puts it back, typed as what it says."""
    from engram.service.forgetting import run_forgetting

    tenant, headers = tenant_key
    now = datetime.now(UTC).replace(microsecond=0)
    [news] = ingest(app_client, headers, "gus", [("hi! my mom moved to Tucson yesterday, we drove down",
                                                  now - timedelta(days=40))])
    scope = Scope(tenant, "gus")
    [doc] = [e for e in deps.episodes.all_for_user(scope) if news in e["message_ids"]]
    # As the old rule left it: typed a greeting by its first word, archived as chatter.
    deps.episodes.bulk_update([(scope, doc["event_id"], {"type": "greeting", "archived": True})])
    assert event_for(recall(app_client, headers, "gus", "When did my mom move to Tucson?", now)["items"], news) is None
    run_forgetting(deps, now=now, users=[scope])
    [doc] = [e for e in deps.episodes.all_for_user(scope) if news in e["message_ids"]]
    assert doc["archived"] is False and doc["type"] != "greeting"
    assert event_for(recall(app_client, headers, "gus", "When did my mom move to Tucson?", now)["items"], news)


# -- the nightly run on Step Functions: shards walked by invocations that hand over a cursor ----

def test_the_daily_rule_starts_the_forgetting_state_machine(stack_state):
    target = scheduled_target(stack_state["state_machines"]["ForgetStateMachine"], "cron(30 3 * * ? *)")
    assert json.loads(target["Input"]) == {"trigger": "schedule"}
    # Not started here: with no tenant it walks every user on the stack (the next test runs one tenant).


def test_a_run_walks_every_shard_to_its_end_one_user_per_invocation(deps, stack_state, app_client, tenant_key):
    tenant, headers = tenant_key
    now = datetime.now(UTC).replace(microsecond=0)
    users = ["ann", "a:b", "a.b-c_d", "zed"]
    said = {user: ingest(app_client, headers, user, [("Hello there, good morning!", now - timedelta(days=40)),
                                                      ("I moved to Lisbon for a new job.", now - timedelta(days=2))])
            for user in users}
    # A budget far under one user's work: every invocation hands over after one user, so each
    # shard with users loops through the state machine's Choice back to its next invocation.
    execution = run_execution(stack_state["state_machines"]["ForgetStateMachine"],
                              {"tenant": tenant, "now": now.isoformat(), "budget_s": 0.001}, timeout=300)
    assert execution["status"] == "SUCCEEDED", execution.get("cause")
    shards = json.loads(execution["output"])["shards"]
    assert len(shards) == deps.settings.forget_shards and all(s["done"] for s in shards)
    assert sum(s["totals"]["users"] for s in shards) == len(users)
    assert sum(s["totals"]["archived"] for s in shards) == len(users)  # each one's stale greeting
    for user, (hello, moved) in said.items():
        events = {e["message_ids"][0]: e for e in deps.episodes.all_for_user(Scope(tenant, user))}
        assert events[hello]["archived"] is True and not events[moved].get("archived")
