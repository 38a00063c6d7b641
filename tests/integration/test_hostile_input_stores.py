"""The hostile-input corpus (tests/hostile.py) on the real stores: the cases marked ``stores``,
where PostgreSQL (NUL, psycopg's encoder), Neo4j, OpenSearch (date ranges, clause limits) and
Redis have limits of their own. No 5xx, a 4xx naming the field, and the user keeps working."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engram.domain.limits import text_problem
from engram.domain.model import Scope
from engram.domain.recall.lexical import query_terms
from engram.domain.recall.query import lexical_text
from engram.domain.records import SessionRef
from tests.hostile import SESSION, assert_answered, assert_user_still_works, corpus, seed, send

pytestmark = pytest.mark.stack
USER = "u1"


@pytest.mark.parametrize("case", corpus(stores_only=True))
def test_hostile_input_on_the_real_stores(app_client, make_tenant, case):
    _, headers = make_tenant()
    seed(app_client, USER, headers)
    assert_answered(case, send(app_client, case, USER, headers))
    assert_user_still_works(app_client, USER, headers)


def test_nan_written_straight_into_redis_still_reads(app_client, deps, make_tenant):
    """NaN stored in session fields (by an older version) once made every later read a 500."""
    tenant, headers = make_tenant()
    seed(app_client, USER, headers)
    deps.sessions.set_fields(SessionRef(Scope(tenant, USER), "phone", "s1"), {"score": float("nan")})
    context = app_client.get(f"/v1/users/{USER}/{SESSION}", headers=headers)
    assert context.status_code == 200 and context.json()["fields"]["score"] is None
    assert app_client.get(f"/v1/users/{USER}/export", headers=headers).status_code == 200
    assert_user_still_works(app_client, USER, headers)


@given(st.text(min_size=1, max_size=2000).filter(str.strip))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_query_makes_the_lexical_search_fail(deps, text):
    """OpenSearch refuses a query of more than 1024 clauses: whatever the query's script, the
    search reads few enough of its tokens (``domain.recall.query.lexical_text``)."""
    assume(not text_problem(text))
    # as a recall asks it: with the question's terms counted in the same round trip
    deps.episodes.lexical(Scope("fuzz-tenant", "u1"), lexical_text(text), 10, count_terms=list(query_terms(text)))
