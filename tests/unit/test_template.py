"""template.yaml: cfn-lint clean, and the least-privilege promises of its IAM policies hold.

The policy checks read the template as ``local/stack deploy`` does (short-form intrinsics turned
into their long forms), resolve each function's managed-policy references, and look at what any
statement whose resource names the archive bucket allows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from local.stackctl.deploy import STORE_DEFAULTS, load_template

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"


@pytest.fixture(scope="module")
def template() -> dict:
    return load_template(TEMPLATE)


def test_cfn_lint_reports_no_error():
    api = pytest.importorskip("cfnlint.api", reason="cfn-lint is in the dev extras: pip install -e '.[dev]'")
    matches = api.lint_file(TEMPLATE)
    errors = [str(m) for m in matches if m.rule.severity == "error"]
    assert errors == []


def _functions(template: dict) -> dict[str, dict]:
    return {name: r["Properties"] for name, r in template["Resources"].items()
            if r["Type"] == "AWS::Serverless::Function"}


def _statements(template: dict, props: dict) -> list[dict]:
    """The function's inline statements and those of the managed policies it references; a SAM
    policy template is kept as ``{"template": name, "args": ...}``."""
    out: list[dict] = []
    for entry in props.get("Policies", []):
        if isinstance(entry, dict) and set(entry) == {"Ref"}:
            out += template["Resources"][entry["Ref"]]["Properties"]["PolicyDocument"]["Statement"]
        elif isinstance(entry, dict) and "Statement" in entry:
            out += entry["Statement"]
        elif isinstance(entry, dict):
            [(name, args)] = entry.items()
            out.append({"template": name, "args": args})
    return out


def _archive_actions(template: dict, props: dict) -> set[str]:
    actions: set[str] = set()
    for st in _statements(template, props):
        if "template" in st:
            # A SAM S3 template would grant a bundle (S3CrudPolicy: put, delete, ACL, lifecycle).
            assert "ArchiveBucket" not in json.dumps(st["args"]), f"SAM template {st['template']} on the archive"
            continue
        if st.get("Effect") == "Allow" and "ArchiveBucket" in json.dumps(st.get("Resource")):
            action = st["Action"]
            actions |= set([action] if isinstance(action, str) else action)
    return actions


READ = {"s3:ListBucket", "s3:GetObject"}
WRITE = {"s3:PutObject", "s3:PutObjectRetention"}


def test_each_function_gets_only_the_archive_access_its_code_uses(template):
    granted = {name: _archive_actions(template, props) for name, props in _functions(template).items()}
    expected = {
        "ApiFunction": READ,  # recall's originals and the S3 probe: read only
        "HealthFunction": {"s3:ListBucket"},  # HeadBucket
        "RecallArchiveFunction": READ,
        "ArchiveShardFunction": READ | WRITE,  # existing parts, then new ones under Object Lock
        "ArchiveManifestFunction": READ | WRITE,
        "ArchiveVerifyFunction": READ,
        "ArchiveRetentionFunction": READ,
        "EraseArchiveFunction": READ | {"s3:ListBucketVersions", "s3:DeleteObjectVersion"},
    }
    assert {name: actions for name, actions in granted.items() if actions} == expected


def test_no_function_may_bypass_or_change_the_archives_lock(template):
    forbidden = {"s3:BypassGovernanceRetention", "s3:PutObjectAcl", "s3:PutLifecycleConfiguration", "s3:DeleteObject",
                 "s3:PutObjectLegalHold", "s3:PutBucketObjectLockConfiguration", "s3:PutBucketPolicy", "s3:*"}
    for name, props in _functions(template).items():
        assert not _archive_actions(template, props) & forbidden, name


def test_store_logins_are_secrets_read_only_by_the_functions_that_connect(template):
    env = template["Globals"]["Function"]["Environment"]["Variables"]
    assert not [k for k in env if "PASSWORD" in k or k == "ENGRAM_NEO4J_USER"]
    assert "@" not in template["Parameters"]["PostgresDsn"]["Default"]  # no login in the DSN
    assert {"ENGRAM_POSTGRES_SECRET_ARN", "ENGRAM_NEO4J_SECRET_ARN"} <= set(env)
    for policy in ("PostgresSecretAccess", "Neo4jSecretAccess"):
        [statement] = template["Resources"][policy]["Properties"]["PolicyDocument"]["Statement"]
        assert statement["Action"] == ["secretsmanager:GetSecretValue"]
        assert statement["Resource"] != "*" and "Fn::If" in statement["Resource"]
    functions = _functions(template)
    uses = {name: {e["Ref"] for e in props.get("Policies", []) if isinstance(e, dict) and set(e) == {"Ref"}}
            for name, props in functions.items()}
    # Pure steps (no store but Redis/OpenSearch, or none) read no secret.
    for name in ("IngestCleanFunction", "IngestCleanseFunction", "RecallSessionFunction", "RecallEpisodesFunction",
                 "RecallFuseFunction", "ArchivePlanFunction", "ArchiveManifestFunction"):
        assert not uses[name] & {"PostgresSecretAccess", "Neo4jSecretAccess"}, name
    # Every erasure step records itself in PostgreSQL.
    assert all("PostgresSecretAccess" in uses[n] for n in functions if n.startswith("Erase"))
    assert {n for n in functions if "Neo4jSecretAccess" in uses[n]} == {
        "ApiFunction", "HealthFunction", "IngestRouteFunction", "CatchUpFunction", "RecallProfileFunction",
        "EraseNeo4jFunction",
        "EraseVerifyFunction", "EraseRecordFunction"}


def test_object_lock_mode_and_days_are_parameters_fed_to_bucket_and_functions(template):
    assert template["Parameters"]["ArchiveLockMode"]["AllowedValues"] == ["GOVERNANCE", "COMPLIANCE"]
    rule = template["Resources"]["ArchiveBucket"]["Properties"]["ObjectLockConfiguration"]["Rule"]["DefaultRetention"]
    assert rule == {"Mode": {"Ref": "ArchiveLockMode"}, "Days": {"Ref": "ArchiveLockDays"}}
    env = template["Globals"]["Function"]["Environment"]["Variables"]
    assert env["ENGRAM_ARCHIVE_LOCK_MODE"] == {"Ref": "ArchiveLockMode"}
    assert env["ENGRAM_ARCHIVE_LOCK_DAYS"] == {"Ref": "ArchiveLockDays"}


def test_the_local_deploy_passes_only_parameters_the_template_declares(template):
    # CloudFormation refuses a change set naming an undeclared parameter.
    assert set(STORE_DEFAULTS) | {"Stage", "LocalKeyId", "LocalKeyMaterial"} <= set(template["Parameters"])
