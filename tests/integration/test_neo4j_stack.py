"""Neo4j 5 over Bolt on the local stack (``local/stack up neo4j``).

Everything goes through one pooled driver, as Engram's functions use it. Nodes carry a tenant
unique to this run and are deleted at the end, so the test can share a database with others.
"""

from __future__ import annotations

import os
import uuid

import neo4j
import pytest

from local.stackctl.common import PORTS

pytestmark = pytest.mark.stack

URI = os.environ.get("ENGRAM_NEO4J_URI", f"bolt://127.0.0.1:{PORTS['neo4j']}")
AUTH = (os.environ.get("ENGRAM_NEO4J_USER", "neo4j"),
        os.environ.get("ENGRAM_NEO4J_PASSWORD", "engram-local-pw"))

UPSERT = """
MERGE (u:User {tenant: $tenant, user_id: $user_id})
MERGE (p:Preference {tenant: $tenant, name: $name})
MERGE (u)-[r:HAS_PREFERENCE]->(p)
SET r.confidence = $confidence
"""


@pytest.fixture(scope="module")
def driver():
    with neo4j.GraphDatabase.driver(URI, auth=AUTH, max_connection_pool_size=4) as drv:
        drv.verify_connectivity()
        yield drv


@pytest.fixture
def tenant(driver):
    tenant = f"test-{uuid.uuid4().hex[:12]}"
    yield tenant
    driver.execute_query("MATCH (n {tenant: $tenant}) DETACH DELETE n", tenant=tenant)


def test_components_name_neo4j_5(driver):
    records, _, _ = driver.execute_query("CALL dbms.components() YIELD name, versions, edition")
    kernel = next(r for r in records if r["name"].startswith("Neo4j"))
    assert kernel["versions"][0].startswith("5."), kernel


def test_merge_is_idempotent_and_reads_back(driver, tenant):
    for confidence in (0.6, 0.9):  # the second MERGE must update, not duplicate
        driver.execute_query(UPSERT, tenant=tenant, user_id="alice", name="green tea",
                             confidence=confidence)

    records, _, _ = driver.execute_query(
        """
        MATCH (u:User {tenant: $tenant, user_id: 'alice'})-[r:HAS_PREFERENCE]->(p:Preference)
        RETURN p.name AS name, r.confidence AS confidence
        """,
        tenant=tenant, routing_=neo4j.RoutingControl.READ)
    assert [(r["name"], r["confidence"]) for r in records] == [("green tea", 0.9)]

    counts, _, _ = driver.execute_query(
        """
        MATCH (n {tenant: $tenant})
        RETURN count(n) AS nodes, count { MATCH ({tenant: $tenant})-[:HAS_PREFERENCE]->() } AS rels
        """,
        tenant=tenant)
    assert (counts[0]["nodes"], counts[0]["rels"]) == (2, 1)
