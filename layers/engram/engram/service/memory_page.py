"""The user's memory page: a signed link an agent asks for, and what the page shows and lets its
user do with it. Correcting, deleting and exporting are the agent-facing use cases themselves
(``profile``, ``export``), run for the scope the link names, under the same fence."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from ..dependencies import Dependencies
from ..domain.ingest.sanitise import format_timestamp
from ..domain.model import Scope
from ..domain.privacy import page_links
from ..errors import ValidationFailed
from .privacy import reveal_turn
from .profile import profile


def issue_link(deps: Dependencies, scope: Scope, ttl_s: int | None = None) -> dict:
    """A token that opens ``scope``'s page until it expires (the setting's lifetime, or less)."""
    longest = deps.settings.page_link_ttl_s
    ttl = longest if ttl_s is None else ttl_s
    if not 60 <= ttl <= longest:
        raise ValidationFailed(f"ttl_s must be between 60 and {longest} seconds", field="ttl_s")
    expires_at = int(time.time()) + ttl
    token = page_links.issue(deps.link_secret.secret(), scope.tenant, scope.user_id, expires_at)
    return {"token": token, "expires_at": format_timestamp(datetime.fromtimestamp(expires_at, UTC))}


def open_link(deps: Dependencies, user_id: str, token: object) -> tuple[Scope, datetime]:
    """The scope a token opens for the page of ``user_id``, and until when (401/403 otherwise)."""
    claims = page_links.verify(deps.link_secret.secret(), token, time.time())
    page_links.for_user(claims, user_id)
    return Scope(claims.tenant, claims.user_id), datetime.fromtimestamp(claims.expires_at, UTC)


def page_view(deps: Dependencies, scope: Scope) -> dict:
    """What is believed about the user (as GET /profile shows it), and the turns it came from."""
    items = profile(deps, scope)["items"]
    ids = sorted({m for item in items for m in item["provenance"]["message_ids"]})
    turns = [reveal_turn(deps.keys, scope, row) for row in deps.turns.turns(scope, ids)] if ids else []
    messages = {row["message_id"]: {"role": row.get("role"), "content": row.get("content") or "",
                                    "at": format_timestamp(row.get("client_ts"))} for row in turns}
    return {"items": items, "messages": messages}
