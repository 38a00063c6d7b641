"""The process's runtime state (``engram.runtime``) belongs to one ``Dependencies`` build: two builds
share no breaker, latencies, admission gate, pools or key cache, and a copy (``with_``) shares
its original's, as a swapped store still runs in the same process."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from engram.domain.model import Scope
from engram.runtime import Runtime
from engram.service.recall import RecallRequest, run_in_process
from engram.service.users import set_consent
from tests.fakes import fake_deps
from tests.unit.support import failing, say

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


def _ask(deps, scope) -> dict:
    return run_in_process(deps, RecallRequest.parse(scope, "What am I allergic to?", 10, NOW.isoformat()))


def _remembering(settings, scope):
    deps = fake_deps(settings)
    set_consent(deps, scope, True, None)
    say(deps, scope, "I'm allergic to peanuts.")
    return deps


def test_each_fake_deps_builds_its_own_runtime(settings):
    one, two = fake_deps(settings), fake_deps(settings)
    assert isinstance(one.runtime, Runtime) and one.runtime is not two.runtime
    assert one.runtime.breaker is not two.runtime.breaker and one.runtime.latency is not two.runtime.latency
    assert one.runtime.admission(1) is not two.runtime.admission(1)
    assert one.runtime.pool("recall-beside", 12) is not two.runtime.pool("recall-beside", 12)
    assert one.runtime.tenant_keys is not two.runtime.tenant_keys


def test_a_breaker_opened_in_one_build_leaves_the_other_closed(settings):
    alice = Scope("t1", "alice")
    one, two = _remembering(settings, alice), _remembering(settings, alice)
    assert _ask(one.with_(graph=failing(one.graph, "items")), alice)["degraded"] == ["profile"]
    assert one.runtime.breaker.is_open("profile") and not two.runtime.breaker.is_open("profile")
    assert _ask(two, alice)["degraded"] == []
    assert _ask(one, alice)["degraded"] == ["profile"]  # the copy's failure opened its original's breaker


def test_latencies_measured_in_one_build_do_not_stretch_the_others_deadlines(settings):
    one, two = fake_deps(settings), fake_deps(settings)
    for _ in range(20):
        one.runtime.latency.observe("episodes", 500)
    assert one.runtime.latency.deadline("episodes", 300, 4, 3000) == 1000
    assert two.runtime.latency.deadline("episodes", 300, 4, 3000) == 3000  # still cold


def test_a_full_admission_gate_in_one_build_does_not_hold_the_other(settings):
    one, two = fake_deps(settings), fake_deps(settings)
    gate = one.runtime.admission(1)
    assert gate is one.runtime.admission(1)  # one gate per size, whoever asks
    entered = threading.Event()
    with gate:
        waiter = threading.Thread(target=lambda: (two.runtime.admission(1).__enter__(), entered.set()))
        waiter.start()
        assert entered.wait(5)  # the other build's gate was free
    waiter.join(5)


def test_a_copy_shares_its_originals_runtime(settings):
    deps = fake_deps(settings)
    assert deps.with_(graph=deps.graph).runtime is deps.runtime


def test_a_named_pool_is_made_once_and_its_threads_carry_the_name():
    runtime = Runtime()
    assert runtime.pool("ingest-writes", 16) is runtime.pool("ingest-writes", 16)
    assert runtime.submit(("ingest-writes", 16), lambda: threading.current_thread().name).result(5).startswith(
        "ingest-writes")
