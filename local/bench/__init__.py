"""Benchmarks: they print figures; they are not part of the test suite (nor of the Lambda layer)."""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engram.bootstrap import Dependencies


def use_local_stack() -> None:
    """Benchmarks run in-process beside the local stack: reach AWS services (KMS, S3) on
    LocalStack unless the environment already says otherwise (the tests do the same)."""
    for name, value in (("AWS_ENDPOINT_URL", "http://127.0.0.1:4566"), ("AWS_ACCESS_KEY_ID", "test"),
                        ("AWS_SECRET_ACCESS_KEY", "test"), ("AWS_REGION", "us-east-1")):
        os.environ.setdefault(name, value)


def bench_tenant(deps: Dependencies) -> tuple[str, str]:
    """A fresh tenant and its API key, registered: each run's data stays apart from the others'."""
    tenant, key = f"bench-{uuid.uuid4().hex[:8]}", f"bench-{uuid.uuid4().hex}"
    deps.tenants.register(tenant, key)
    return tenant, key
