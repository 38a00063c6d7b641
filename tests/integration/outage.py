"""A real server stopped for the length of a block, then started again (and the recall breaker,
which its absence may have opened, closed)."""

from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def stopped(deps, service):
    service.stop()
    try:
        yield
    finally:
        service.start()
        deps.runtime.breaker.reset()
