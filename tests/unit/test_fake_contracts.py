"""The port contracts (tests/contract) over the in-memory fakes (tests/fakes): no server needed."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engram.errors import Conflict, StoreUnavailable
from tests.contract.alerts import AlertPublisherContract
from tests.contract.archive_eraser import ArchiveEraserContract
from tests.contract.archive_source import ArchiveSourceContract
from tests.contract.archive_store import ArchiveStoreContract
from tests.contract.audit_log import AuditLogContract
from tests.contract.embedder import EmbedderContract
from tests.contract.episode_store import EpisodeStoreContract
from tests.contract.erasure_jobs import ErasureJobsContract
from tests.contract.export_store import ExportStoreContract
from tests.contract.idempotency import IdempotencyContract
from tests.contract.key_store import KeyStoreContract
from tests.contract.key_wrapper import KeyWrapperContract
from tests.contract.pattern_store import PatternStoreContract
from tests.contract.pending_writes import PendingWritesContract
from tests.contract.profile_graph import ProfileGraphContract
from tests.contract.session_store import SessionStoreContract
from tests.contract.task_store import TaskStoreContract
from tests.contract.tenant_directory import TenantDirectoryContract
from tests.contract.turn_log import TurnLogContract
from tests.contract.user_registry import ErasingUsersContract, UserRegistryContract
from tests.contract.workflows import WorkflowGatewayContract
from tests.contract.wrapped_keys import WrappedKeysContract
from tests.contract.write_fence import WriteFenceContract
from tests.fakes import FakeKms, InMemoryWrappedKeys, RecordingAlerts, RecordingWorkflows, fake_deps


@pytest.fixture
def deps():
    return fake_deps()


class TestInMemorySessionStore(SessionStoreContract):
    part = "sessions"


class TestInMemoryEpisodeStore(EpisodeStoreContract):
    part = "episodes"


class TestInMemoryTaskStore(TaskStoreContract):
    part = "tasks"


class TestInMemoryProfileGraph(ProfileGraphContract):
    part = "graph"


class TestInMemoryTurnLog(TurnLogContract):
    part = "turns"


class TestInMemoryAuditLog(AuditLogContract):
    part = "audit"


class TestInMemoryIdempotencyStore(IdempotencyContract):
    part = "idempotency"

    def age_claim(self, store, scope, key, seconds):
        store.keys[(scope, key)]["created_at"] -= timedelta(seconds=seconds)


class TestInMemoryUserRegistry(UserRegistryContract):
    part = "users"


class TestInMemoryErasingUsers(ErasingUsersContract):
    part = "users"


class TestInMemoryTenantDirectory(TenantDirectoryContract):
    part = "tenants"


def _registry_wrapped_keys(deps) -> InMemoryWrappedKeys:
    return InMemoryWrappedKeys(erasing=lambda scope: deps.users.state(scope).erasing)


class TestInMemoryKeyStore(KeyStoreContract):
    def make_wrapped(self, deps):
        return _registry_wrapped_keys(deps)

    def make_kms(self, deps):
        return FakeKms()


class TestInMemoryWrappedKeys(WrappedKeysContract):
    def make(self, deps):
        return _registry_wrapped_keys(deps)


class TestFakeKms(KeyWrapperContract):
    def make(self, deps):
        return FakeKms()


class TestInMemoryErasureJobs(ErasureJobsContract):
    part = "erasure_jobs"


class TestInMemoryArchiveStore(ArchiveStoreContract):
    part = "archive"


class TestInMemoryArchiveSource(ArchiveSourceContract):
    part = "archive_source"


class TestInMemoryArchiveEraser(ArchiveEraserContract):
    part = "archive_eraser"


class TestInMemoryExportStore(ExportStoreContract):
    def download(self, store, url):
        return store.fetch(url)


class TestInMemoryPatternStore(PatternStoreContract):
    part = "patterns"


class TestHashingEmbedder(EmbedderContract):
    part = "embedder"


def _express(state_machine_arn: str, payload: dict) -> dict:
    """What the express machines of the contract do: echo, fail, or fail as a step's Conflict."""
    if state_machine_arn.endswith("fail"):
        raise StoreUnavailable("step functions: Boom: the state machine failed")
    if state_machine_arn.endswith("conflict"):
        raise Conflict("this user is being erased; writes are refused", field="user_id")
    return payload


class TestRecordingWorkflows(WorkflowGatewayContract):
    def make(self, deps):
        return RecordingWorkflows(runner=_express)

    @pytest.fixture
    def machines(self):
        arn = "arn:aws:states:us-east-1:000000000000:stateMachine:"
        return {name: arn + name for name in ("standard", "echo", "fail", "conflict")}


class TestRecordingAlerts(AlertPublisherContract):
    part = "alerts"

    def make_on_missing_bus(self, deps):
        return RecordingAlerts()


class TestInMemoryWriteFence(WriteFenceContract):
    pass


# Guarded by their own lock or condition (the fence's leases, the registry's erasure fence), or
# holding no shared state of their own (the erasure jobs read the other fakes, the recorders
# append, the embedder, the link secret and the key store are pure, constant or wrap fakes that
# are serialized). The runtime is no fake: the real one, which makes its pools and gates under a lock.
_SELF_GUARDED = {"users", "fence", "erasure_jobs", "embedder", "workflows", "alerts", "metrics", "keys", "probes",
                 "link_secret", "runtime"}


def test_every_stateful_fake_applies_a_call_whole(deps):
    # The service reads and writes a store from several threads: a fake that is not serialized
    # fails at random (a dict changing size under an iteration) where no real store does.
    from dataclasses import fields

    unguarded = [
        f"{f.name}.{name}" for f in fields(deps) if f.name not in _SELF_GUARDED | {"settings", "llm", "clients"}
        for name, member in vars(type(getattr(deps, f.name))).items()
        if not name.startswith("_") and callable(member) and not hasattr(member, "__wrapped__")
        and not isinstance(member, (staticmethod, classmethod))]
    assert unguarded == []


class TestInMemoryPendingWrites(PendingWritesContract):
    pass
