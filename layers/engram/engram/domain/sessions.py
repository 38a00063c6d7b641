"""Working memory's rules: which kept snapshot a rollback restores."""

from __future__ import annotations

from ..errors import NotFound, ValidationFailed


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
