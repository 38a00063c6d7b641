"""ProfileGraph: the long-term profile as a bi-temporal graph in Neo4j.

Nodes: ``(:User {uid})`` per tenant and user; objects keyed per tenant (Preference, Concept,
Product, Behavior: shared by the tenant's users) or per user (Person: somebody's son is nobody
else's). Both keys are ``domain.keys`` encodings of their parts, so ids containing ':' or '|'
cannot make two users share a node, and a user's Person nodes are exactly those whose key starts
with ``keys.person_key_prefix``.
Edges carry a predicate from the closed vocabulary as their type, so relationship
types in the Cypher below come from ``Predicate`` only, never from input.
What a fact does to the edges already there is planned in ``domain.profile.belief_plan``; this module
reads the edges the plan is made from and writes the plan. A contradicted edge is closed
(``valid_to``), never deleted.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ...domain.keys import object_node_key, person_key_prefix, user_node_key
from ...domain.model import PREDICATES, NodeLabel, Predicate, Scope
from ...domain.profile.belief_plan import BeliefPlan, candidate_reads, plan_fact_write
from ...domain.records import Fact
from ...errors import NotFound, StoreUnavailable
from ..clients import Clients

if TYPE_CHECKING:
    import neo4j

_REL_TYPES = "|".join(p.value.upper() for p in Predicate)
_ITEM = ("RETURN r.id AS id, type(r) AS rel, o.name AS object, labels(o)[0] AS label, r.confidence AS confidence, "
         "r.source AS source, r.created_at AS created_at, r.updated_at AS updated_at, r.valid_from AS valid_from, "
         "r.valid_to AS valid_to, r.message_ids AS message_ids, r.tags AS tags, r.weight AS weight, "
         "r.counter_evidence AS counter_evidence, r.sensitive AS sensitive, r.sealed AS sealed, "
         "coalesce(r.confirmed_at, r.updated_at) AS confirmed_at")


def _item(record) -> dict:
    data = dict(record)
    data["predicate"] = data.pop("rel").lower()
    for key in ("created_at", "updated_at", "valid_from", "valid_to", "confirmed_at"):
        if data.get(key) is not None:
            data[key] = data[key].to_native()
    data["message_ids"] = list(data.get("message_ids") or [])
    data["tags"] = list(data.get("tags") or [])
    return data


def _dropped() -> tuple[type[Exception], ...]:
    """The driver's errors for a server that is gone or restarted. The driver is imported when
    ``Clients.neo4j`` first makes it (a request that writes no fact never loads it); an ``except``
    clause evaluates this only once an error is on its way, by then from ``sys.modules``."""
    from neo4j.exceptions import ServiceUnavailable, SessionExpired

    return ServiceUnavailable, SessionExpired


def _ensure_constraints(drv: neo4j.Driver) -> None:
    with drv.session() as session:
        session.run("CREATE CONSTRAINT user_uid IF NOT EXISTS FOR (u:User) REQUIRE u.uid IS UNIQUE").consume()
        for label in NodeLabel:
            if label is not NodeLabel.USER:
                session.run(f"CREATE CONSTRAINT {label.value.lower()}_key IF NOT EXISTS "
                            f"FOR (n:{label.value}) REQUIRE n.key IS UNIQUE").consume()
        for predicate in Predicate:
            rel = predicate.value.upper()
            session.run(f"CREATE INDEX {predicate.value}_id IF NOT EXISTS FOR ()-[r:{rel}]-() ON (r.id)").consume()


def _candidates(tx, scope: Scope, fact: Fact, params: dict) -> dict[str, list[dict]]:
    """The edges ``plan_fact_write`` decides over, in one round trip: the user's edges of the
    predicate to the fact's object (current or closed), and the current ones it may contradict."""
    spec = PREDICATES[fact.predicate]
    rel = fact.predicate.value.upper()
    functional, opposites = candidate_reads(fact)
    parts = [f"MATCH (:User {{uid: $uid}})-[r:{rel}]->(o:{spec.target.value} {{key: $key}}) {_ITEM}, 'heard' AS part"]
    if functional:
        parts.append(f"MATCH (:User {{uid: $uid}})-[r:{rel}]->(o) WHERE r.valid_to IS NULL AND o.key <> $key "
                     f"{_ITEM}, 'current' AS part")
    keys = {}
    for n, opposite in enumerate(opposites):  # its object node is of the opposite's own label ("hiking" liked, done)
        keys[f"okey{n}"] = object_node_key(scope, PREDICATES[opposite].target, fact.object)
        parts.append(f"MATCH (:User {{uid: $uid}})-[r:{opposite.value.upper()}]->(o {{key: $okey{n}}}) "
                     f"WHERE r.valid_to IS NULL {_ITEM}, 'opposite' AS part")
    found: dict[str, list[dict]] = {"heard": [], "current": [], "opposite": []}
    for record in tx.run(" UNION ALL ".join(parts), {**params, **keys}):
        item = _item(record)
        found[item.pop("part")].append(item)
    return found


def _apply(tx, fact: Fact, plan: BeliefPlan, heard: dict[str, dict], params: dict):
    """Write ``plan``; returns what ``upsert_fact`` does."""
    rel, label = fact.predicate.value.upper(), PREDICATES[fact.predicate].target.value
    if plan.unchanged is not None:
        return plan.action, heard[plan.unchanged], heard[plan.unchanged]
    if (again := plan.reinforce) is not None:
        # The ids and the confirmation are merged in the SET itself (see ``Reinforce``).
        record = tx.run(
            f"MATCH (:User {{uid: $uid}})-[r:{rel}]->(o) WHERE r.id = $id "
            f"SET r.confidence = $confidence, r.updated_at = $now, r.source = $source, "
            f"r.confirmed_at = CASE WHEN $observed > coalesce(r.confirmed_at, r.created_at) THEN $observed "
            f"ELSE coalesce(r.confirmed_at, r.created_at) END, "
            f"r.message_ids = r.message_ids + [m IN $mids WHERE NOT m IN r.message_ids] {_ITEM}",
            {**params, "id": again.edge_id, "confidence": again.confidence, "source": again.source.value,
             "observed": again.observed_at, "mids": list(again.message_ids)}).single()
        return plan.action, heard[again.edge_id], _item(record)
    new, new_id = plan.create, f"e-{uuid.uuid4().hex[:20]}"
    if plan.close:
        tx.run("UNWIND $closes AS c MATCH ()-[r]->() WHERE r.id = c.id SET r.valid_to = c.valid_to, "
               "r.closed_by = $new_id, r.updated_at = $now",
               {**params, "closes": [{"id": c.edge_id, "valid_to": c.valid_to} for c in plan.close],
                "new_id": new_id}).consume()
    record = tx.run(
        f"MATCH (u:User {{uid: $uid}}), (o:{label} {{key: $key}}) "
        f"CREATE (u)-[r:{rel} {{id: $id, confidence: $confidence, source: $source, created_at: $now, "
        f"updated_at: $now, confirmed_at: $confirmed_at, valid_from: $valid_from, valid_to: $valid_to, "
        f"message_ids: $mids, tags: $tags, "
        f"weight: $weight, sensitive: $sensitive, sealed: $sealed, counter_evidence: []}}]->(o) {_ITEM}",
        {**params, "id": new_id, "confidence": new.confidence, "source": new.source.value,
         "confirmed_at": new.confirmed_at, "valid_from": new.valid_from, "valid_to": new.valid_to,
         "mids": list(new.message_ids), "tags": list(new.tags), "weight": new.weight,
         "sensitive": new.sensitive, "sealed": new.sealed}).single()
    return plan.action, None, _item(record)


class ProfileGraph:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    @property
    def driver(self) -> neo4j.Driver:
        return self._clients.neo4j

    def ensure_constraints(self) -> None:
        """Uniqueness constraints and edge-id indexes (a deploy step: ``engram.migrate``)."""
        try:
            _ensure_constraints(self.driver)
        except _dropped() as exc:
            raise StoreUnavailable(f"profile graph: {exc}") from exc

    def _write(self, work, *args):
        try:
            with self.driver.session() as session:
                return session.execute_write(work, *args)
        except _dropped() as exc:
            raise StoreUnavailable(f"profile graph: {exc}") from exc

    def _read(self, query: str, **params) -> list:
        """One auto-commit read: RUN and PULL in one round trip. ``execute_query`` wraps each read
        in a managed transaction (BEGIN ... COMMIT), which cost the recall profile step about 2-3 ms
        at its median over the raw query at 100,000 users (``local.bench.layers_scale``). A read is
        idempotent, so a connection the server dropped (a restart; the pool only learns on use)
        is retried once on a fresh one, as the managed transaction's retry did."""
        from neo4j import READ_ACCESS  # the driver's module, which making the driver imports anyway

        for attempt in (1, 2):
            try:
                with self.driver.session(default_access_mode=READ_ACCESS) as session:
                    return list(session.run(query, params))
            except _dropped() as exc:
                if attempt == 2:
                    raise StoreUnavailable(f"profile graph: {exc}") from exc
        raise AssertionError("unreachable")

    def upsert_fact(self, scope: Scope, fact: Fact) -> tuple[str, dict | None, dict]:
        """Record a fact. Returns (action, item before, item after), action one of
        ``created``, ``reinforced``, ``contested``."""
        return self._write(self._upsert, scope, fact)

    @staticmethod
    def _upsert(tx, scope: Scope, fact: Fact):
        """Read the candidate edges, plan, apply: one transaction, so the plan is applied to what it
        was made from (a managed transaction retried whole on a transient error plans again)."""
        spec = PREDICATES[fact.predicate]
        now = datetime.now(UTC)
        params = {"uid": user_node_key(scope), "tenant": scope.tenant, "user": scope.user_id,
                  "key": object_node_key(scope, spec.target, fact.object), "name": fact.object, "now": now}
        tx.run(f"MERGE (u:User {{uid: $uid}}) ON CREATE SET u.tenant = $tenant, u.user_id = $user, "
               f"u.created_at = $now MERGE (o:{spec.target.value} {{key: $key}}) ON CREATE SET o.name = $name, "
               f"o.tenant = $tenant, o.created_at = $now", params).consume()
        found = _candidates(tx, scope, fact, params)
        plan = plan_fact_write(fact, found["heard"], found["current"], found["opposite"], now=now)
        return _apply(tx, fact, plan, {e["id"]: e for e in found["heard"]}, params)

    def items(self, scope: Scope, *, include_history: bool = False, limit: int | None = None,
              predicates: Collection[Predicate] | None = None) -> list[dict]:
        if predicates is not None and not predicates:
            return []
        # Relationship types from the enum only: nothing a request says reaches the statement.
        types = "|".join(sorted(Predicate(p).value.upper() for p in predicates)) if predicates else _REL_TYPES
        where = "" if include_history else "WHERE r.valid_to IS NULL"
        query = (f"MATCH (:User {{uid: $uid}})-[r:{types}]->(o) {where} {_ITEM} "
                 f"ORDER BY r.confidence * coalesce(r.weight, 1.0) DESC, r.updated_at DESC")
        if limit:
            query += " LIMIT $limit"
        return [_item(r) for r in self._read(query, uid=user_node_key(scope), limit=limit)]

    def item(self, scope: Scope, item_id: str) -> dict:
        records = self._read(f"MATCH (:User {{uid: $uid}})-[r:{_REL_TYPES}]->(o) WHERE r.id = $id {_ITEM}",
                             uid=user_node_key(scope), id=item_id)
        if not records:
            raise NotFound(f"profile item {item_id} not found", field="item_id")
        return _item(records[0])

    def update_item(self, scope: Scope, item_id: str, changes: dict) -> tuple[dict, dict]:
        """Apply a correction (confidence, weight, tags, valid_to) and return (before, after)."""
        before = self.item(scope, item_id)

        def work(tx):
            record = tx.run(f"MATCH (:User {{uid: $uid}})-[r:{_REL_TYPES}]->(o) WHERE r.id = $id "
                            f"SET r += $changes, r.updated_at = $now {_ITEM}",
                            {"uid": user_node_key(scope), "id": item_id, "changes": changes,
                             "now": datetime.now(UTC)}).single()
            return _item(record)

        return before, self._write(work)

    def delete_item(self, scope: Scope, item_id: str) -> dict:
        before = self.item(scope, item_id)
        self._write(lambda tx: tx.run(f"MATCH (:User {{uid: $uid}})-[r:{_REL_TYPES}]->() WHERE r.id = $id DELETE r",
                                      {"uid": user_node_key(scope), "id": item_id}).consume())
        return before

    def delete_user(self, scope: Scope) -> int:
        """The user's node, their edges and their private Person nodes; shared nodes stay unless
        nothing else points at them any more."""
        def work(tx):
            params = {"uid": user_node_key(scope), "prefix": person_key_prefix(scope)}
            targets = tx.run("MATCH (u:User {uid: $uid})-->(o) RETURN collect(DISTINCT elementId(o)) AS ids",
                             params).single()["ids"]
            deleted = tx.run("MATCH (u:User {uid: $uid}) DETACH DELETE u RETURN count(u) AS n", params).single()["n"]
            deleted += tx.run("MATCH (p:Person) WHERE p.key STARTS WITH $prefix DETACH DELETE p RETURN count(p) AS n",
                              params).single()["n"]
            deleted += tx.run("MATCH (o) WHERE elementId(o) IN $ids AND NOT (o)--() DELETE o RETURN count(o) AS n",
                              {"ids": targets}).single()["n"]
            return deleted
        return self._write(work)

    def count_user(self, scope: Scope) -> int:
        records = self._read("OPTIONAL MATCH (u:User {uid: $uid}) OPTIONAL MATCH (p:Person) "
                             "WHERE p.key STARTS WITH $prefix RETURN count(DISTINCT u) + count(DISTINCT p) AS n",
                             uid=user_node_key(scope), prefix=person_key_prefix(scope))
        return records[0]["n"]
