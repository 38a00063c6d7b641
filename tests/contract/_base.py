"""What every contract class shares: the implementation under test, fresh owners per test
(tenants are unique, so a run never sees what an earlier run left), and a clean-up of what the
test wrote for them in every store."""

from __future__ import annotations

import contextlib
import hashlib
import random
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest

from engram.domain.model import Role, Scope, Turn


def new_tenant() -> str:
    return f"ct-{uuid.uuid4().hex[:12]}"


def far_day() -> date:
    """A day of the last century: no real run archives it, and two runs almost never share one."""
    return date(1901, 1, 1) + timedelta(days=random.SystemRandom().randrange(36500))


def at(day: date, hour: int = 10, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)


def turn(message_id: str, when: datetime, content: str = "hello", role: Role = Role.USER) -> Turn:
    return Turn(message_id, role, content, when, hashlib.sha256(content.encode()).hexdigest())


def wipe(deps, scope: Scope) -> None:
    """Whatever a test may have written for ``scope``, from every holder of user data, as the
    erasure saga takes it: marked (the rows go only then), deleted, dropped. Best effort."""
    for erase in (deps.erasure_jobs.mark_erasing, *(h.delete for h in deps.holders), deps.erasure_jobs.drop_user):
        with contextlib.suppress(Exception):
            erase(scope)


class Contract:
    """``make(deps)`` returns the implementation under test. A subclass in a test module names
    the part of ``Dependencies`` it tests (``part``) or overrides ``make``; the module provides the
    ``deps`` fixture."""

    part: str | None = None

    def make(self, deps):
        if self.part is None:
            raise NotImplementedError(f"{type(self).__name__} must say how to build the implementation")
        return getattr(deps, self.part)

    @pytest.fixture
    def store(self, deps):
        return self.make(deps)

    @pytest.fixture
    def owners(self, deps):
        """``owners("alice")``: a scope in this test's tenant; ``owners("alice", tenant=...)`` in
        another. Everything written for them is wiped afterwards."""
        made: list[Scope] = []
        tenant = new_tenant()

        def owner(user_id: str = "alice", *, tenant_id: str | None = None) -> Scope:
            scope = Scope(tenant_id or tenant, user_id)
            made.append(scope)
            return scope

        yield owner
        for scope in made:
            wipe(deps, scope)

    @pytest.fixture
    def lookalikes(self, owners) -> list[Scope]:
        """Owners whose ids, joined with ':' or '|', read the same: (T, "x:y") and (T:x, "y"),
        (T, "x|y") and (T|x, "y"). Each must be a different owner in every store."""
        tenant = new_tenant()
        return [owners("x:y", tenant_id=tenant), owners("y", tenant_id=f"{tenant}:x"),
                owners("x|y", tenant_id=tenant), owners("y", tenant_id=f"{tenant}|x")]

    @pytest.fixture
    def alice(self, owners) -> Scope:
        return owners("alice")

    @pytest.fixture
    def bob(self, owners) -> Scope:
        """Alice's neighbour: the same tenant."""
        return owners("bob")

    @pytest.fixture
    def stranger(self, owners) -> Scope:
        """Alice's namesake in another tenant."""
        return owners("alice", tenant_id=new_tenant())
