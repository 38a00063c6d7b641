"""Consent is retroactive: what a withdrawn consent allowed, or what child mode forbids, is taken
out of what is already stored, not only kept out of new writes.

Without long-term consent: the profile graph goes, and the audit entries about it lose the
objects they named (the audit keeps that an edge was written, by whom, how sure, from which
messages). In child mode (which also means no long-term consent), every store is brought to what
a child's own writes leave (``domain.privacy.consent``): events keep type, times, ids and tags (no text,
summary, context, keywords, vector); turn-log rows and working-memory turns keep id, role and
time; task metadata keeps its message ids and an empty title. Then the user's data key is
rotated: the copies that cannot be rewritten (the Object-Locked archive, sealed under that key)
become unreadable, as erasure's crypto-shredding makes them, and a replay of an earlier
Idempotency-Key finds its sealed response unreadable and runs as a new request.

Each holder of the user's data (``service.holders``) takes back what it keeps; ``take_back`` goes
through them all. It is idempotent (each part leaves alone what is already so, and reports what it
changed), so whoever is unsure whether it finished runs it again: ``set_consent`` after every
consent decision that forbids something, and the ingest chain's write step when the consent it
read was withdrawn while it wrote.
"""

from __future__ import annotations

from ..dependencies import Dependencies
from ..domain.model import Scope
from ..domain.privacy.consent import Permissions
from ..domain.records import AuditEntry


def take_back(deps: Dependencies, scope: Scope, permissions: Permissions, actor: str = "user") -> dict[str, int]:
    """Apply ``permissions`` (the user's current ones) to what every holder of the user's data
    stores (``deps.holders``); returns how much each kind changed, and records that in the audit
    log (counts only)."""
    if permissions.long_term:
        return {}
    changed: dict[str, int] = {}
    for holder in deps.holders:
        changed |= holder.redact(scope, permissions)
    deps.audit.append(scope, [AuditEntry(actor, "take_back", "all", None, "system", None, None,
                                         {"child_mode": permissions.child_mode,
                                          "consent_version": permissions.version, **changed})])
    return changed
