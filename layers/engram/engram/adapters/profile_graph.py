"""ProfileGraph: the long-term profile as a bi-temporal graph in Neo4j.

Nodes: ``(:User {uid})`` per tenant and user; objects keyed per tenant (Preference, Concept,
Product, Behavior: shared by the tenant's users) or per user (Person: somebody's son is nobody
else's). Both keys are ``domain.keys`` encodings of their parts, so ids containing ':' or '|'
cannot make two users share a node, and a user's Person nodes are exactly those whose key starts
with ``keys.person_key_prefix``.
Edges carry a predicate from the closed vocabulary as their type, so relationship
types in the Cypher below come from ``Predicate`` only, never from input.
A contradicting newer fact closes the older edge (``valid_to``) instead of deleting it.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..domain.beliefs import (
    EdgeClaim,
    already_heard,
    closed_at,
    contradicts,
    reinforce_edge,
    resolve_contradictions,
    states_an_end,
)
from ..domain.keys import object_node_key, person_key_prefix, user_node_key
from ..domain.model import PREDICATES, NodeLabel, Predicate, Scope, TrustSource
from ..domain.records import Fact
from ..errors import NotFound, StoreUnavailable
from .clients import Clients

if TYPE_CHECKING:
    import neo4j

_REL_TYPES = "|".join(p.value.upper() for p in Predicate)
_CLAIM = ("id", "source", "confidence", "valid_from")  # what a contradiction is decided and closed by
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
        spec = PREDICATES[fact.predicate]
        rel, label = fact.predicate.value.upper(), spec.target.value
        now = datetime.now(UTC)
        params = {"uid": user_node_key(scope), "tenant": scope.tenant, "user": scope.user_id,
                  "key": object_node_key(scope, spec.target, fact.object), "name": fact.object, "now": now,
                  "valid_from": fact.valid_from or now, "mids": list(fact.message_ids),
                  "observed": fact.observed_at or now}
        tx.run(f"MERGE (u:User {{uid: $uid}}) ON CREATE SET u.tenant = $tenant, u.user_id = $user, "
               f"u.created_at = $now MERGE (o:{label} {{key: $key}}) ON CREATE SET o.name = $name, "
               f"o.tenant = $tenant, o.created_at = $now", params).consume()
        heard = [_item(r) for r in tx.run(f"MATCH (:User {{uid: $uid}})-[r:{rel}]->(o:{label} {{key: $key}}) "
                                          f"{_ITEM}", params)]
        earlier = next((e for e in heard if already_heard(e["message_ids"], fact.message_ids)), None)
        if earlier is not None:
            return "unchanged", earlier, earlier
        ending = states_an_end(fact.tags)
        current = None if ending else tx.run(f"MATCH (:User {{uid: $uid}})-[r:{rel}]->(o:{label} {{key: $key}}) "
                                             f"WHERE r.valid_to IS NULL {_ITEM}", params).single()
        if current is not None:
            before = _item(current)
            again = reinforce_edge(EdgeClaim(before["id"], TrustSource(before["source"]), before["confidence"]),
                                   fact.source, fact.confidence)
            record = tx.run(
                f"MATCH (:User {{uid: $uid}})-[r:{rel}]->(o) WHERE r.id = $id "
                f"SET r.confidence = $confidence, r.updated_at = $now, r.source = $source, "
                f"r.confirmed_at = CASE WHEN $observed > coalesce(r.confirmed_at, r.created_at) THEN $observed "
                f"ELSE coalesce(r.confirmed_at, r.created_at) END, "
                f"r.message_ids = r.message_ids + [m IN $mids WHERE NOT m IN r.message_ids] {_ITEM}",
                {**params, "id": before["id"], "confidence": again.confidence, "source": again.source.value}).single()
            return "reinforced", before, _item(record)
        same, functional, opposites = contradicts(fact.predicate, fact.tags)
        contradicted = []
        if same:
            contradicted += tx.run(f"MATCH (:User {{uid: $uid}})-[r:{rel}]->(o {{key: $key}}) WHERE r.valid_to IS NULL "
                                   f"{_ITEM}", params).values(*_CLAIM)
        if functional:
            contradicted += tx.run(f"MATCH (:User {{uid: $uid}})-[r:{rel}]->(o) WHERE r.valid_to IS NULL "
                                   f"AND o.key <> $key {_ITEM}", params).values(*_CLAIM)
        for opposite in opposites:  # its object node is of the opposite's own label ("hiking" liked, done)
            opposite_key = object_node_key(scope, PREDICATES[opposite].target, fact.object)
            contradicted += tx.run(f"MATCH (:User {{uid: $uid}})-[r:{opposite.value.upper()}]->(o {{key: $okey}}) "
                                   f"WHERE r.valid_to IS NULL {_ITEM}", {**params, "okey": opposite_key}
                                   ).values(*_CLAIM)
        new_id = f"e-{uuid.uuid4().hex[:20]}"
        resolution = resolve_contradictions(fact.source, fact.confidence,
                                            [EdgeClaim(i, TrustSource(src), conf) for i, src, conf, _ in contradicted])
        if resolution.close:
            began = {i: start.to_native() if start is not None else None for i, _, _, start in contradicted}
            closes = [{"id": i, "valid_to": closed_at(params["valid_from"], began[i])} for i in resolution.close]
            tx.run("UNWIND $closes AS c MATCH ()-[r]->() WHERE r.id = c.id SET r.valid_to = c.valid_to, "
                   "r.closed_by = $new_id, r.updated_at = $now",
                   {**params, "closes": closes, "new_id": new_id}).consume()
        record = tx.run(
            f"MATCH (u:User {{uid: $uid}}), (o:{label} {{key: $key}}) "
            f"CREATE (u)-[r:{rel} {{id: $id, confidence: $confidence, source: $source, created_at: $now, "
            f"updated_at: $now, confirmed_at: $observed, valid_from: $valid_from, valid_to: $valid_to, "
            f"message_ids: $mids, tags: $tags, "
            f"weight: $weight, sensitive: $sensitive, sealed: $sealed, counter_evidence: []}}]->(o) {_ITEM}",
            {**params, "id": new_id, "confidence": fact.confidence, "source": fact.source.value,
             "valid_to": params["valid_from"] if resolution.contested or ending else None,
             "tags": list(resolution.tags(fact.tags)), "weight": fact.weight,
             "sensitive": spec.sensitive, "sealed": fact.sealed}).single()
        return ("contested" if resolution.contested else "created"), None, _item(record)

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
