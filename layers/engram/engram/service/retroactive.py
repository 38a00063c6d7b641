"""Consent is retroactive: what a withdrawn consent allowed, or what child mode forbids, is taken
out of what is already stored, not only kept out of new writes.

Without long-term consent: the profile graph goes, and the audit entries about it lose the
objects they named (the audit keeps that an edge was written, by whom, how sure, from which
messages). In child mode (which also means no long-term consent), every store is brought to what
a child's own writes leave (``domain.consent``): events keep type, times, ids and tags (no text,
summary, context, keywords, vector); turn-log rows and working-memory turns keep id, role and
time; task metadata keeps its message ids and an empty title. Then the user's data key is
rotated: the copies that cannot be rewritten (the Object-Locked archive, sealed under that key)
become unreadable, as erasure's crypto-shredding makes them, and a replay of an earlier
Idempotency-Key finds its sealed response unreadable and runs as a new request.

``take_back`` is idempotent (each part leaves alone what is already so, and reports what it
changed), so whoever is unsure whether it finished runs it again: ``set_consent`` after every
consent decision that forbids something, and the ingest chain's write step when the consent it
read was withdrawn while it wrote.
"""

from __future__ import annotations

from ..bootstrap import Dependencies
from ..domain.consent import CHILD_EVENT_BLANKS, CHILD_TASK_BLANKS, CHILD_TASK_KEEPS, Permissions
from ..domain.model import Scope
from ..domain.records import AuditEntry

GRAPH_CONTENT = ("object",)   # what an audit entry about the graph says of the content


def take_back(deps: Dependencies, scope: Scope, permissions: Permissions, actor: str = "user") -> dict[str, int]:
    """Apply ``permissions`` (the user's current ones) to what is stored; returns, per store, how
    much it changed, and records that in the audit log (counts only)."""
    if permissions.long_term:
        return {}
    # A stored export is a copy of what is now forbidden (the profile at least): it goes too.
    changed = {"graph_nodes": deps.graph.delete_user(scope),
               "audit_entries": deps.audit.redact(scope, "graph", GRAPH_CONTENT),
               "exports": deps.exports.delete_user(scope)}
    if permissions.child_mode:
        changed |= {"episodes": deps.episodes.redact_content(scope, CHILD_EVENT_BLANKS),
                    "turns": deps.turns.redact_content(scope),
                    "session_turns": deps.sessions.redact_turns(scope),
                    "task_changes": deps.tasks.redact_metadata(scope, CHILD_TASK_KEEPS, CHILD_TASK_BLANKS),
                    "data_keys_rotated": int(deps.keys.shred(scope))}
    deps.audit.append(scope, [AuditEntry(actor, "take_back", "all", None, "system", None, None,
                                         {"child_mode": permissions.child_mode,
                                          "consent_version": permissions.version, **changed})])
    return changed
