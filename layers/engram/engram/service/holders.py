"""What holds a user's data: one ``UserDataHolder`` per place, each answering for deleting the
user, counting what is left of them, taking back what their consent no longer allows, and
exporting them.

The composition root registers every holder (``bootstrap.user_data_holders``), and erasure, its
verify step, retroactive consent, export and the contract tests' wipe iterate that registry
(``deps.holders``): nothing else lists the stores. A holder is one step of the erasure saga, so
holders are per server, as the saga's Lambdas and their IAM policies are: its name is the state
machine's branch (``Delete_<name>``), the job's step and the residue report's key.
``tests/unit/test_data_holders.py`` holds the state machine to the registry, and fails for a
port keyed by user that no holder answers for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import ClassVar

from ..dependencies import Dependencies
from ..domain.lifecycle.archive import shard_of
from ..domain.limits import finite_json
from ..domain.model import Scope
from ..domain.privacy.consent import CHILD_EVENT_BLANKS, CHILD_TASK_BLANKS, CHILD_TASK_KEEPS, Permissions
from ..domain.records import SessionRef
from .privacy import reveal_episode, reveal_item, reveal_items, reveal_turn
from .profile import profile_item_view

Sections = dict[str, Callable[[], Iterable | dict]]
GRAPH_CONTENT = ("object",)   # what an audit entry about the graph says of the content
KEY_ROWS = "user_keys"        # the wrapped data key's table: the archive's residue, not the rows'


@dataclass(frozen=True)
class _Holder:
    deps: Dependencies = field(repr=False)
    name: ClassVar[str]
    holds: ClassVar[tuple[str, ...]]
    waives: ClassVar[Mapping[str, str]] = MappingProxyType({})


class _OneStoreHolder(_Holder):
    """A holder of one part whose port deletes and counts a user's data itself."""

    def _store(self):
        return getattr(self.deps, self.holds[0])

    def delete(self, scope: Scope) -> dict:
        return {"deleted": self._store().delete_user(scope)}

    def residue(self, scope: Scope) -> int:
        return self._store().count_user(scope)


class SessionHolder(_OneStoreHolder):
    """Redis: working memory, per device and session."""

    name: ClassVar[str] = "redis"
    holds: ClassVar[tuple[str, ...]] = ("sessions",)

    def redact(self, scope: Scope, permissions: Permissions) -> dict[str, int]:
        return {"session_turns": self.deps.sessions.redact_turns(scope)} if permissions.child_mode else {}

    def export(self, scope: Scope, now: datetime) -> Sections:
        refs = self.deps.sessions.sessions_of(scope)
        return {"sessions": lambda: (self._session(ref) for ref in refs)}

    def _session(self, ref: SessionRef) -> dict:
        ctx = self.deps.sessions.get(ref)
        return {"device_id": ref.device_id, "session_id": ref.session_id, "turns": ctx.turns,
                "fields": finite_json(ctx.fields), "version": ctx.version, "ttl_s": ctx.ttl_s}


class EpisodeHolder(_OneStoreHolder):
    """OpenSearch: episodic events of every tier, vectors included."""

    name: ClassVar[str] = "opensearch"
    holds: ClassVar[tuple[str, ...]] = ("episodes",)

    def residue(self, scope: Scope) -> int:
        return self.deps.episodes.count(scope, tier="all")  # every tier: a cold event is data too

    def redact(self, scope: Scope, permissions: Permissions) -> dict[str, int]:
        if not permissions.child_mode:
            return {}
        return {"episodes": self.deps.episodes.redact_content(scope, CHILD_EVENT_BLANKS)}

    def export(self, scope: Scope, now: datetime) -> Sections:
        episodes, keys = self.deps.episodes, self.deps.keys
        episodes.count(scope, tier="all")  # the events are read lazily: an index that is down fails now
        return {"episodes": lambda: (reveal_episode(keys, scope, e) for e in episodes.all_for_user(scope))}


class RowHolder(_Holder):
    """PostgreSQL: every row of the user (``adapters.postgres.erasure_store.USER_TABLES``), the rows of the
    parts in ``holds``, deleted in one transaction by ``erasure_jobs.delete_rows``."""

    name: ClassVar[str] = "postgres"
    holds: ClassVar[tuple[str, ...]] = ("erasure_jobs", "users", "turns", "tasks", "audit", "idempotency",
                                        "fence", "patterns", "archive_source", "pending")

    def delete(self, scope: Scope) -> dict:
        rows = self.deps.erasure_jobs.delete_rows(scope)
        return {"deleted": sum(rows.values()), "tables": rows}

    def residue(self, scope: Scope) -> int:
        return sum(n for table, n in self.deps.erasure_jobs.count_rows(scope).items() if table != KEY_ROWS)

    def redact(self, scope: Scope, permissions: Permissions) -> dict[str, int]:
        d = self.deps
        changed = {} if permissions.long_term else {"audit_entries": d.audit.redact(scope, "graph", GRAPH_CONTENT)}
        if permissions.child_mode:
            changed |= {"turns": d.turns.redact_content(scope),
                        "task_changes": d.tasks.redact_metadata(scope, CHILD_TASK_KEEPS, CHILD_TASK_BLANKS)}
        return changed

    def export(self, scope: Scope, now: datetime) -> Sections:
        d = self.deps
        state = d.users.state(scope)
        turns = [reveal_turn(d.keys, scope, t) for t in d.turns.turns(scope)]
        return {
            "user": lambda: {"known": state.known, "long_term_consent": state.long_term_consent,
                             "consent_version": state.consent_version, "consent_at": state.consent_at,
                             "age": state.age, "child_mode": state.child_mode, "erasing": state.erasing},
            "consent_history": lambda: d.users.consent_history(scope),
            "devices": lambda: (asdict(x) for x in d.users.devices(scope)),
            "tasks": lambda: (t.as_dict() for t in d.tasks.history(scope)),
            "turns": lambda: turns,
            "audit": lambda: self._audit(scope),
        }

    def _audit(self, scope: Scope) -> Iterator[dict]:
        # The audit names a sensitive object by its keyed placeholder, and only the graph's edge
        # holds the name (sealed): the user is shown the name.
        keys = self.deps.keys
        names = {raw["object"]: reveal_item(keys, scope, raw)["object"]
                 for raw in self.deps.graph.items(scope, include_history=True) if raw.get("sealed")}
        return (_named(e, names) for e in self.deps.audit.entries(scope))


def _named(entry: dict, names: dict[str, str]) -> dict:
    for side in ("before", "after"):
        value = entry.get(side)
        if isinstance(value, dict) and value.get("object") in names:
            entry = {**entry, side: {**value, "object": names[value["object"]]}}
    return entry


class GraphHolder(_OneStoreHolder):
    """Neo4j: the profile, the user's subgraph (nodes shared with others stay)."""

    name: ClassVar[str] = "neo4j"
    holds: ClassVar[tuple[str, ...]] = ("graph",)

    def redact(self, scope: Scope, permissions: Permissions) -> dict[str, int]:
        # A profile is what long-term consent is for: without it none is kept.
        return {} if permissions.long_term else {"graph_nodes": self.deps.graph.delete_user(scope)}

    def export(self, scope: Scope, now: datetime) -> Sections:
        revealed = reveal_items(self.deps.keys, scope, self.deps.graph.items(scope, include_history=True))
        profile = [profile_item_view(i, now) | ({"redacted": True} if i.get("redacted") else {}) for i in revealed]
        return {"profile": lambda: profile}


class ArchiveHolder(_Holder):
    """S3 and KMS: the user's archived objects, their stored exports, and the data key that makes
    every sealed copy readable."""

    name: ClassVar[str] = "archive"
    holds: ClassVar[tuple[str, ...]] = ("archive", "archive_eraser", "exports", "keys")
    waives: ClassVar[Mapping[str, str]] = MappingProxyType({
        "export": "archived rows are not read back into an export, which shows turns, tasks and events "
                  "where they live hot (those dropped after hot_days are missing from it); a stored "
                  "export is a copy of an earlier document"})

    def delete(self, scope: Scope) -> dict:
        d = self.deps
        # Stored exports are plain copies under the service's KMS key, out of reach of the
        # shredding below: they must be deleted.
        exports = d.exports.delete_user(scope)
        found = d.archive_eraser.objects_of(scope, shard_of(scope.tenant, scope.user_id, d.settings.archive_shards))
        deleted = [o["key"] for o in found if o["only_user"] and d.archive_eraser.delete_all_versions(o["key"])]
        retained = [o["key"] for o in found if o["key"] not in deleted]
        # Shredding last: the key is what makes the retained copies unreadable.
        shredded = d.keys.shred(scope)
        return {"deleted": len(deleted), "retained_unreadable": retained, "key_shredded": shredded,
                "exports_deleted": exports}

    def residue(self, scope: Scope) -> int:
        # The archive keeps WORM copies; what must be gone is the key that could read them, and
        # every stored export (readable by whoever holds a link until it is deleted).
        return self.deps.erasure_jobs.count_rows(scope).get(KEY_ROWS, 0) + self.deps.exports.count_user(scope)

    def redact(self, scope: Scope, permissions: Permissions) -> dict[str, int]:
        # A stored export is a copy of what is now forbidden (the profile at least): it goes. A
        # child's sealed copies become unreadable with the key, as erasure's shredding makes them.
        changed = {} if permissions.long_term else {"exports": self.deps.exports.delete_user(scope)}
        if permissions.child_mode:
            changed["data_keys_rotated"] = int(self.deps.keys.shred(scope))
        return changed

    def export(self, scope: Scope, now: datetime) -> Sections:
        return {}
