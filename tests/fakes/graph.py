"""InMemoryProfileGraph: the bi-temporal profile as ``adapters.neo4j.profile_graph`` keeps it in Neo4j.

User nodes per tenant and user, object nodes per tenant (Person nodes per user) under the same
keys as the adapter's (``domain.keys``: a user's Person nodes are those under its prefix), edges
with the same properties. What a fact does to existing edges is the same plan the adapter
applies (``domain.profile.belief_plan.plan_fact_write``): this fake only reads the candidates and writes it.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import datetime

from engram.domain.keys import object_node_key, person_key_prefix, user_node_key
from engram.domain.model import PREDICATES, Predicate, Scope
from engram.domain.profile.belief_plan import BeliefPlan, candidate_reads, plan_fact_write
from engram.domain.records import Fact
from engram.errors import NotFound

from ._common import clone, serialized, utcnow

_ITEM_KEYS = ("id", "confidence", "source", "created_at", "updated_at", "valid_from", "valid_to", "message_ids",
              "tags", "weight", "counter_evidence", "sensitive", "sealed")


@serialized
class InMemoryProfileGraph:
    def __init__(self) -> None:
        self.users: dict[str, dict] = {}
        self.objects: dict[str, dict] = {}     # key -> {label, name, tenant}
        self.edges: list[dict] = []            # {uid, rel, key, **properties}

    def ensure_constraints(self) -> None:
        return None

    # -- reading edges ----------------------------------------------------------------------

    def _item(self, edge: dict) -> dict:
        obj = self.objects[edge["key"]]
        data = {k: clone(edge.get(k)) for k in _ITEM_KEYS}
        data.update(object=obj["name"], label=obj["label"], predicate=edge["rel"],
                    confirmed_at=edge.get("confirmed_at") or edge.get("updated_at"))
        data["message_ids"] = list(data["message_ids"] or [])
        data["tags"] = list(data["tags"] or [])
        return data

    def _edges_of(self, scope: Scope, *, rel: str | None = None, current: bool = True) -> list[dict]:
        uid = user_node_key(scope)
        return [e for e in self.edges if e["uid"] == uid and (rel is None or e["rel"] == rel)
                and (not current or e.get("valid_to") is None)]

    def _edge(self, scope: Scope, item_id: str) -> dict:
        found = next((e for e in self._edges_of(scope, current=False) if e["id"] == item_id), None)
        if found is None:
            raise NotFound(f"profile item {item_id} not found", field="item_id")
        return found

    # -- the port ---------------------------------------------------------------------------

    def upsert_fact(self, scope: Scope, fact: Fact) -> tuple[str, dict | None, dict]:
        spec = PREDICATES[fact.predicate]
        rel, now = fact.predicate.value, utcnow()
        key = object_node_key(scope, spec.target, fact.object)
        uid = user_node_key(scope)
        self.users.setdefault(uid, {"tenant": scope.tenant, "user_id": scope.user_id, "created_at": now})
        self.objects.setdefault(key, {"label": spec.target.value, "name": fact.object, "tenant": scope.tenant,
                                      "created_at": now})
        heard = [self._item(e) for e in self._edges_of(scope, rel=rel, current=False) if e["key"] == key]
        functional, opposites = candidate_reads(fact)
        current = [self._item(e) for e in self._edges_of(scope, rel=rel) if e["key"] != key] if functional else []
        opposed = [self._item(e) for p in opposites for e in self._edges_of(scope, rel=p.value)
                   if e["key"] == object_node_key(scope, PREDICATES[p].target, fact.object)]
        plan = plan_fact_write(fact, heard, current, opposed, now=now)
        return self._apply(scope, fact, key, plan, now)

    def _apply(self, scope: Scope, fact: Fact, key: str, plan: BeliefPlan,
               now: datetime) -> tuple[str, dict | None, dict]:
        if plan.unchanged is not None:
            earlier = self._edge(scope, plan.unchanged)
            return plan.action, self._item(earlier), self._item(earlier)
        if (again := plan.reinforce) is not None:
            edge = self._edge(scope, again.edge_id)
            before = self._item(edge)
            edge.update(confidence=again.confidence, updated_at=now, source=again.source.value,
                        confirmed_at=again.confirmed_at(edge.get("confirmed_at") or edge["created_at"]),
                        message_ids=again.merged_message_ids(edge["message_ids"]))
            return plan.action, before, self._item(edge)
        new, new_id = plan.create, f"e-{uuid.uuid4().hex[:20]}"
        for close in plan.close:
            self._edge(scope, close.edge_id).update(valid_to=close.valid_to, closed_by=new_id, updated_at=now)
        edge = {"uid": user_node_key(scope), "rel": fact.predicate.value, "key": key, "id": new_id,
                "confidence": new.confidence, "source": new.source.value, "created_at": now, "updated_at": now,
                "confirmed_at": new.confirmed_at, "valid_from": new.valid_from, "valid_to": new.valid_to,
                "message_ids": list(new.message_ids), "tags": list(new.tags), "weight": new.weight,
                "sensitive": new.sensitive, "sealed": new.sealed, "counter_evidence": []}
        self.edges.append(edge)
        return plan.action, None, self._item(edge)

    def items(self, scope: Scope, *, include_history: bool = False, limit: int | None = None,
              predicates: Collection[Predicate] | None = None) -> list[dict]:
        kinds = None if predicates is None else {Predicate(p).value for p in predicates}
        edges = [e for e in self._edges_of(scope, current=not include_history) if kinds is None or e["rel"] in kinds]
        edges = sorted(edges, key=lambda e: e["updated_at"], reverse=True)
        edges.sort(key=lambda e: e["confidence"] * (e["weight"] if e.get("weight") is not None else 1.0),
                   reverse=True)
        return [self._item(e) for e in (edges[:limit] if limit else edges)]

    def item(self, scope: Scope, item_id: str) -> dict:
        return self._item(self._edge(scope, item_id))

    def update_item(self, scope: Scope, item_id: str, changes: dict) -> tuple[dict, dict]:
        edge = self._edge(scope, item_id)
        before = self._item(edge)
        edge.update(clone(changes), updated_at=utcnow())
        return before, self._item(edge)

    def delete_item(self, scope: Scope, item_id: str) -> dict:
        edge = self._edge(scope, item_id)
        before = self._item(edge)
        self.edges.remove(edge)
        return before

    def delete_user(self, scope: Scope) -> int:
        uid, prefix = user_node_key(scope), person_key_prefix(scope)
        targets = {e["key"] for e in self.edges if e["uid"] == uid}
        deleted = 1 if self.users.pop(uid, None) is not None else 0
        self.edges = [e for e in self.edges if e["uid"] != uid]
        persons = [k for k, o in self.objects.items() if o["label"] == "Person" and k.startswith(prefix)]
        for key in persons:
            del self.objects[key]
        self.edges = [e for e in self.edges if e["key"] not in persons]
        deleted += len(persons)
        linked = {e["key"] for e in self.edges}
        orphans = [k for k in targets if k in self.objects and k not in linked]
        for key in orphans:
            del self.objects[key]
        return deleted + len(orphans)

    def count_user(self, scope: Scope) -> int:
        prefix = person_key_prefix(scope)
        persons = sum(1 for k, o in self.objects.items() if o["label"] == "Person" and k.startswith(prefix))
        return (1 if user_node_key(scope) in self.users else 0) + persons

