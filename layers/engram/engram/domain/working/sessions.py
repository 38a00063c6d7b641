"""Working memory's rules: which kept snapshot a rollback restores, how fields merge, and the
bounds a session's fields keep."""

from __future__ import annotations

from ...errors import NotFound, ValidationFailed
from ..limits import MAX_FIELDS, MAX_JSON_BYTES, json_size


def snapshot_to_restore(snapshots: list[dict], *, version: int | None, steps: int | None) -> dict:
    """``snapshots`` newest first; ``steps`` back from the current one, or the kept ``version``."""
    if not snapshots:
        raise NotFound("no kept versions for this session", field="version")
    if steps is not None:
        if not 1 <= steps < len(snapshots):
            raise ValidationFailed(f"steps must be between 1 and {len(snapshots) - 1}", field="steps")
        return snapshots[steps]
    target = next((s for s in snapshots if s["version"] == version), None)
    if target is None:
        raise NotFound(f"version {version} is not kept", field="version")
    return target


def merge_fields(current: dict, update: dict) -> dict:
    """A session's fields after a ``set``: ``update`` merged over ``current``, a None value removing one."""
    merged = {**current, **{k: v for k, v in update.items() if v is not None}}
    for name in [k for k, v in update.items() if v is None]:
        merged.pop(name, None)
    return merged


def merged_fields_problem(current: dict, update: dict) -> str | None:
    """Why the session's fields after ``update`` would break the bounds of one request's fields
    (``domain.limits``), or None: many small requests cannot grow a session without limit. An
    update that does not grow a session (one stored before these bounds) is always let through."""
    merged = merge_fields(current, update)
    if len(merged) > MAX_FIELDS and len(merged) > len(current):
        return f"the session would hold more than {MAX_FIELDS} fields"
    size = json_size(merged)
    if size > MAX_JSON_BYTES and size > json_size(current):
        return f"the session's fields would be larger than {MAX_JSON_BYTES} bytes as JSON"
    return None
