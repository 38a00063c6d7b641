"""Consent is retroactive, on the real stores: through the API, then a search of Redis,
PostgreSQL, Neo4j and OpenSearch themselves for what the user said (tests/consent_scenario.py)."""

from __future__ import annotations

import json
import uuid

import psycopg
import pytest
from psycopg import sql

from engram.domain.keys import session_scan_pattern
from engram.domain.model import Scope
from tests.consent_scenario import (
    LATER,
    PROFILE_WORDS,
    SAID,
    SAID_WORDS,
    User,
    assert_only_what_child_mode_keeps,
    assert_remembered,
    remember,
    shown,
    taken_back,
    words_in,
)
from tests.fakes import RecordingLlm
from tests.unit.support import body, message, through_lambdas

pytestmark = pytest.mark.stack


@pytest.fixture
def user(app_client, tenant_key) -> User:
    tenant, headers = tenant_key
    return User(app_client, headers, Scope(tenant, f"u-{uuid.uuid4().hex[:8]}"))


def raw_rows(deps, scope: Scope) -> dict:
    """The user's rows as PostgreSQL holds them, whole, as text."""
    with deps.clients.pg() as conn:
        return {table: [r[0] for r in conn.execute(
            sql.SQL("SELECT to_jsonb(t)::text FROM {} t WHERE tenant = %s AND user_id = %s").format(
                sql.Identifier(table)), (scope.tenant, scope.user_id)).fetchall()]
            for table in ("turn_log", "task_events", "audit_log")}


def raw_redis(deps, scope: Scope) -> dict:
    """Every Redis key of the user's working memory with whatever it holds."""
    client, out = deps.sessions.client, {}
    for key in client.scan_iter(match=session_scan_pattern(scope)):
        kind = client.type(key)
        out[key] = {"hash": client.hgetall, "zset": lambda k: client.zrange(k, 0, -1),
                    "list": lambda k: client.lrange(k, 0, -1)}[kind](key)
    return out


def raw_events(deps, scope: Scope) -> list[dict]:
    """The user's OpenSearch documents, vectors included, found by the owner fields alone."""
    query = {"size": 100, "query": {"bool": {"filter": [{"term": {"tenant": scope.tenant}},
                                                        {"term": {"user_id": scope.user_id}}]}}}
    return [h["_source"] for h in deps.episodes.client.search(index=deps.episodes.index, body=query)["hits"]["hits"]]


def test_revoking_long_term_consent_removes_the_graph_and_what_the_audit_said_of_it(deps, user):
    remember(user)
    assert_remembered(deps, user)
    user.consent(False)
    assert deps.graph.count_user(user.scope) == 0 and deps.graph.items(user.scope, include_history=True) == []
    assert words_in(raw_rows(deps, user.scope)["audit_log"], PROFILE_WORDS) == []
    seen = shown(user)
    assert seen["profile"]["items"] == [] and words_in(seen["export"]["profile"] + seen["export"]["audit"]) == []
    [entry] = taken_back(deps, user.scope)
    assert entry["graph_nodes"] > 0 and entry["audit_entries"] >= 3
    user.say(LATER, start=10)
    assert deps.graph.count_user(user.scope) == 0


def test_turning_on_child_mode_leaves_nothing_of_what_was_said_in_any_store(deps, user):
    remember(user)
    assert_remembered(deps, user)
    assert words_in(raw_redis(deps, user.scope)) and words_in(raw_rows(deps, user.scope))  # there to be found
    assert user.consent(True, 9)["child_mode"] is True
    assert_only_what_child_mode_keeps(deps, user)
    events = raw_events(deps, user.scope)
    # Five turns, the assistant's among them: five events, each its type and time only.
    assert len(events) == 5 and all("vector" not in e for e in events) and words_in(events) == []
    assert words_in(raw_redis(deps, user.scope)) == [] and words_in(raw_rows(deps, user.scope)) == []
    # Safe to repeat: nothing more to take, and the audit entries name no content.
    user.consent(True, None)
    first, again = taken_back(deps, user.scope)
    assert (first["episodes"], first["turns"], first["session_turns"], first["task_changes"]) == (5, 5, 5, 2)
    assert {k: v for k, v in again.items() if k not in ("child_mode", "consent_version")} == dict.fromkeys(
        ("graph_nodes", "audit_entries", "exports", "episodes", "turns", "session_turns", "task_changes",
         "data_keys_rotated"), 0)
    assert words_in(deps.audit.entries(user.scope)) == []
    # A later ordinary write is stored as a child's.
    user.say(LATER, start=10)
    assert words_in(raw_redis(deps, user.scope), ("pottery",)) == []
    assert words_in(raw_rows(deps, user.scope), ("pottery",)) == []
    assert words_in(raw_events(deps, user.scope), ("pottery",)) == []
    assert_only_what_child_mode_keeps(deps, user)


def test_the_audit_log_takes_a_redaction_only_through_its_function(deps, user):
    """However engram.redaction is set, the runtime cannot rewrite what an entry says."""
    remember(user)
    with deps.clients.pg() as conn, pytest.raises(psycopg.Error):
        with conn.transaction():
            conn.execute("SET LOCAL engram.redaction = 'on'")
            conn.execute("UPDATE audit_log SET after = %s WHERE tenant = %s AND user_id = %s",
                         (json.dumps({"object": "forged"}), user.scope.tenant, user.scope.user_id))
    assert words_in(deps.audit.entries(user.scope), ("forged",)) == []


@pytest.mark.parametrize("age", [None, 9])
def test_the_llm_is_sent_nothing_forbidden_one_lambda_per_step(deps, user, age):
    user.consent(age is None, age)
    llm = RecordingLlm(forbidden=("hazelnut",) if age is None else SAID_WORDS)
    through_lambdas(deps.with_(llm=llm), {"tenant": user.scope.tenant, "user_id": user.scope.user_id,
                                          "body": body(*(message(text, mid) for mid, role, text in SAID
                                                         if role == "user"))})
    assert llm.seen == ([] if age else [SAID[0][2], SAID[2][2], SAID[4][2]])
