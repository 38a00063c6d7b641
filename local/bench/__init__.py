"""Benchmarks: they print figures; they are not part of the test suite (nor of the Lambda layer)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engram.dependencies import Dependencies


def use_local_stack() -> None:
    """Benchmarks run in-process beside the local stack (``local.stackctl.common.use_deployed_stack``)."""
    from local.stackctl.common import use_deployed_stack

    use_deployed_stack()


def bench_tenant(deps: Dependencies) -> tuple[str, str]:
    """A fresh tenant and its API key, registered: each run's data stays apart from the others'."""
    tenant, key = f"bench-{uuid.uuid4().hex[:8]}", f"bench-{uuid.uuid4().hex}"
    deps.tenants.register(tenant, key)
    return tenant, key
