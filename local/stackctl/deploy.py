"""Deploy ``template.yaml`` onto the running LocalStack, the way ``sam package && sam deploy`` would.

Packaging: every local path in the template (a function's CodeUri, a layer's ContentUri, a state
machine's DefinitionUri, an API's DefinitionUri) is zipped or read, uploaded to a deployment
bucket under a content hash, and replaced by its S3 location; state machine definitions are
inlined. Zips are byte-for-byte reproducible, so an unchanged tree gives an unchanged template
and CloudFormation reports "no changes": a re-deploy is then a no-op.

The SAM transform itself runs inside LocalStack (aws-sam-translator is part of its runtime).
Locally the layer's third-party requirements are not installed into the layer zip (the functions
run under the project's .venv, which has them); the layer still carries the ``engram`` package.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import secrets
import time
import uuid
import zipfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import boto3
import yaml
from botocore.config import Config
from botocore.exceptions import ClientError

from .common import HOST, PORTS, REPO, RUN_DIR, StackError, log
from .monitoring import serves_cloudwatch, without_cloudwatch
from .stable_url import api_url, check_deployed, may_pin, pin_api_id, pinned_api_id

TEMPLATE = REPO / "template.yaml"
REGION = "us-east-1"
STAGE = os.environ.get("ENGRAM_STAGE", "local")
STACK_NAME = f"engram-{STAGE}"
DEPLOY_BUCKET = "engram-deployments"
API_KEY_FILE = RUN_DIR / "api_key"
KMS_KEY_FILE = RUN_DIR / "kms_data_key.json"
ENDPOINT = f"http://{HOST}:{PORTS['localstack']}"
# A stack in one of these states is deleted and created again; with none, it is created.
RECREATED = ("ROLLBACK_COMPLETE", "ROLLBACK_FAILED", "CREATE_FAILED", "DELETE_FAILED")
# CloudFormation refuses a TemplateBody larger than this; beyond it the template goes via S3.
MAX_TEMPLATE_BODY = 51_200
SKIP_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
SKIP_SUFFIXES = (".pyc", ".pyo", ".egg-info")
FIXED_DATE = (1980, 1, 1, 0, 0, 0)  # zip timestamps fixed so that equal trees give equal hashes

# Store endpoints when a service module cannot say (the defaults of the local services). The
# PostgreSQL and Neo4j logins go into secrets the template makes (PostgresSecret, Neo4jSecret): the
# functions get only the secrets' ARNs and read them from LocalStack's Secrets Manager.
STORE_DEFAULTS = {
    "RedisUrl": "redis://127.0.0.1:6379/0",
    "PostgresDsn": "postgresql://127.0.0.1:5432/engram",
    "PostgresUser": "engram_app",
    "PostgresPassword": "engram_app",
    "Neo4jUri": "bolt://127.0.0.1:7687",
    "Neo4jUser": "neo4j",
    "Neo4jPassword": "engram-local-pw",
    "OpenSearchUrl": "http://127.0.0.1:9200",
}


def client(service: str):
    return boto3.client(service, endpoint_url=ENDPOINT, region_name=REGION, aws_access_key_id="test",
                        aws_secret_access_key="test", config=Config(retries={"max_attempts": 3}))


# -- template ------------------------------------------------------------------------------------

class _CfnLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short-form tags turned into their JSON long forms."""


def _intrinsic(loader: _CfnLoader, tag_suffix: str, node: yaml.Node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if tag_suffix == "Ref":
        return {"Ref": value}
    if tag_suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    name = "Condition" if tag_suffix == "Condition" else f"Fn::{tag_suffix}"
    return {name: value}


_CfnLoader.add_multi_constructor("!", _intrinsic)
# CloudFormation reads an unquoted 2010-09-09 as a string; PyYAML would make it a date.
_CfnLoader.yaml_implicit_resolvers = {
    first: [r for r in resolvers if r[0] != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_template(path: Path = TEMPLATE) -> dict:
    return yaml.load(path.read_text(), Loader=_CfnLoader)  # noqa: S506 - a SafeLoader subclass


def zip_dir(root: Path, prefix: str = "", exclude: tuple[str, ...] = ()) -> bytes:
    """A reproducible zip of ``root``: sorted entries, fixed timestamps, no caches."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root)
            if (path.is_dir() or set(rel.parts) & SKIP_PARTS or rel.name in exclude
                    or any(part.endswith(SKIP_SUFFIXES) for part in rel.parts)):
                continue
            info = zipfile.ZipInfo(f"{prefix}{rel.as_posix()}", FIXED_DATE)
            info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())
    return buf.getvalue()


def upload(s3, name: str, data: bytes, suffix: str) -> str:
    key = f"{name}/{hashlib.sha256(data).hexdigest()[:20]}{suffix}"
    try:
        s3.head_object(Bucket=DEPLOY_BUCKET, Key=key)
    except ClientError:
        s3.put_object(Bucket=DEPLOY_BUCKET, Key=key, Body=data)
    return key


def package(template: dict, s3) -> dict:
    """Replace local paths in the template by S3 locations (what ``sam package`` does)."""
    for logical_id, resource in template.get("Resources", {}).items():
        kind, props = resource.get("Type"), resource.get("Properties", {})
        if kind == "AWS::Serverless::Function" and isinstance(props.get("CodeUri"), str):
            data = zip_dir(_local(props["CodeUri"], logical_id))
            props["CodeUri"] = f"s3://{DEPLOY_BUCKET}/{upload(s3, logical_id, data, '.zip')}"
        elif kind == "AWS::Serverless::LayerVersion" and isinstance(props.get("ContentUri"), str):
            build = resource.get("Metadata", {}).get("BuildMethod", "")
            # A python* build puts the tree under python/, where the runtime looks for layer code;
            # requirements.txt is for `sam build` to install, not content.
            prefix, exclude = ("python/", ("requirements.txt",)) if build.startswith("python") else ("", ())
            data = zip_dir(_local(props["ContentUri"], logical_id), prefix, exclude)
            props["ContentUri"] = f"s3://{DEPLOY_BUCKET}/{upload(s3, logical_id, data, '.zip')}"
        elif kind == "AWS::Serverless::StateMachine" and isinstance(props.get("DefinitionUri"), str):
            props["Definition"] = json.loads(_local(props.pop("DefinitionUri"), logical_id).read_text())
        elif kind == "AWS::Serverless::Api" and isinstance(props.get("DefinitionUri"), str):
            data = _local(props["DefinitionUri"], logical_id).read_bytes()
            props["DefinitionUri"] = f"s3://{DEPLOY_BUCKET}/{upload(s3, logical_id, data, '.yaml')}"
    return template


def _local(uri: str, logical_id: str) -> Path:
    path = (REPO / uri).resolve()
    if not path.exists():
        raise StackError(f"{logical_id}: {uri} does not exist (paths in template.yaml are relative to the repo)")
    return path


# -- parameters and tenant key -------------------------------------------------------------------

def store_parameters() -> dict[str, str]:
    """Store endpoints as the local services report them, else their documented defaults."""
    from .cli import load

    params = dict(STORE_DEFAULTS)
    wanted = {"redis": {"url": "RedisUrl"},
              "postgres": {"url": "PostgresDsn", "app_user": "PostgresUser", "app_password": "PostgresPassword"},
              "neo4j": {"url": "Neo4jUri", "user": "Neo4jUser", "password": "Neo4jPassword"},
              "opensearch": {"url": "OpenSearchUrl"}}
    for name, fields in wanted.items():
        try:
            entry = load(name).health()
        except Exception as exc:  # noqa: BLE001 - a service module may not exist yet
            log(f"deploy: {name} health unavailable ({exc}); using defaults")
            continue
        if not entry.get("healthy"):
            log(f"deploy: {name} is not healthy; its functions will report it down")
        params.update({param: str(entry[field]) for field, param in fields.items() if entry.get(field)})
    # The service's URL carries the owner's login: the functions' login is PostgresUser's, in the secret.
    params["PostgresDsn"] = _without_login(params["PostgresDsn"])
    return params


def _without_login(dsn: str) -> str:
    url = urlsplit(dsn)
    return urlunsplit(url._replace(netloc=url.netloc.rpartition("@")[2]))


def postgres_owner_dsn() -> str:
    """The schema owner's DSN (migrations and the data wipe run as the owner, the functions never)."""
    from .services.postgres import DB, PASSWORD, USER

    return f"postgresql://{USER}:{PASSWORD}@{HOST}:{PORTS['postgres']}/{DB}"


def local_kms_key() -> dict[str, str]:
    """LocalStack keeps no state across restarts, but PostgreSQL keeps the users' wrapped data
    keys: a fixed id and key material for DataKey (made once, kept in the run dir) let them unwrap
    after a restart, as they would on AWS where the key simply lives on."""
    if not KMS_KEY_FILE.exists():
        KMS_KEY_FILE.parent.mkdir(parents=True, exist_ok=True)
        KMS_KEY_FILE.write_text(json.dumps({"LocalKeyId": str(uuid.uuid4()),
                                            "LocalKeyMaterial": base64.b64encode(secrets.token_bytes(32)).decode()}))
        KMS_KEY_FILE.chmod(0o600)
    return json.loads(KMS_KEY_FILE.read_text())


def embed_onnx_dir() -> str:
    """The ONNX export of the embedding model (``local/bootstrap-venv`` makes it), for the template's
    EmbedOnnxDir: the functions run as host processes (``local/lambda_executor``) and read it where
    it is, while the layer's own default (``.run/onnx`` beside the package) does not exist where
    LocalStack unpacks the layer. Given even before an export exists: ``auto`` embeds on torch
    until one is there, and on onnxruntime in every process started after."""
    from engram.adapters.embedders.sentence_transformers import onnx_export_in
    from engram.config import Settings

    path = str(Path(Settings().embed_onnx_dir).resolve())  # a fresh Settings: the cached one is for the stores
    if not onnx_export_in(path):
        log(f"deploy: no ONNX export in {path} (python -m local.onnx.export): the functions embed on torch")
    return path


def _app_dependencies(params: dict[str, str]):
    """The app's composition root, pointed at the same stores as the stack (its settings come
    from ENGRAM_* variables, read once). This process uses plain logins (the secrets are made by
    the stack, after the migration that creates the runtime's login): the runtime's, and the
    owner's for migrations and the data wipe."""
    from psycopg.conninfo import make_conninfo

    runtime = make_conninfo(params["PostgresDsn"], user=params["PostgresUser"], password=params["PostgresPassword"])
    os.environ.update({"ENGRAM_REDIS_URL": params["RedisUrl"], "ENGRAM_POSTGRES_DSN": runtime,
                       "ENGRAM_POSTGRES_OWNER_DSN": postgres_owner_dsn(),
                       "ENGRAM_NEO4J_URI": params["Neo4jUri"], "ENGRAM_NEO4J_USER": params["Neo4jUser"],
                       "ENGRAM_NEO4J_PASSWORD": params["Neo4jPassword"],
                       "ENGRAM_OPENSEARCH_URL": params["OpenSearchUrl"]})
    try:
        from engram.bootstrap import bootstrap
    except ImportError as exc:
        raise StackError(f"the engram package is not importable ({exc}); is the project installed in .venv?") from exc
    return bootstrap()


def migrate_stores(params: dict[str, str]) -> dict:
    """Schema migrations are a deploy step (``python -m engram.migrate`` on AWS), never a cold start's."""
    from engram.migrate import migrate

    try:
        return migrate(_app_dependencies(params))
    except Exception as exc:  # noqa: BLE001 - report any store failure with context
        raise StackError(f"schema migration failed: {type(exc).__name__}: {exc}") from exc


def check_data_format(params: dict[str, str]) -> None:
    """Local data of another key format is wiped before migrations recreate the schema (``dataformat``)."""
    from .dataformat import ensure_data_format

    previous = json.loads((RUN_DIR / "stack.json").read_text()) if (RUN_DIR / "stack.json").exists() else {}
    try:
        ensure_data_format(_app_dependencies(params), client("s3"), previous.get("archive_bucket"))
    except Exception as exc:  # noqa: BLE001 - report any store failure with context
        raise StackError(f"cannot bring the local data to the current format: {type(exc).__name__}: {exc}") from exc


def local_api_key(params: dict[str, str]) -> str:
    """The local tenant's API key: made once, kept in the run dir, registered with the app."""
    if API_KEY_FILE.exists():
        key = API_KEY_FILE.read_text().strip()
    else:
        key = f"local-{secrets.token_urlsafe(24)}"
        API_KEY_FILE.parent.mkdir(parents=True, exist_ok=True)
        API_KEY_FILE.write_text(key)
        API_KEY_FILE.chmod(0o600)
    try:
        _app_dependencies(params).tenants.register("local", key)
    except Exception as exc:  # noqa: BLE001 - report any store failure with context
        raise StackError(f"cannot register the local API key in PostgreSQL: {exc}") from exc
    return key


# -- CloudFormation ------------------------------------------------------------------------------

def _stack_status(cfn) -> str | None:
    try:
        return cfn.describe_stacks(StackName=STACK_NAME)["Stacks"][0]["StackStatus"]
    except ClientError as exc:
        if "does not exist" in str(exc):
            return None
        raise


def _failure_reasons(cfn) -> str:
    try:
        events = cfn.describe_stack_events(StackName=STACK_NAME)["StackEvents"]
    except ClientError:
        return ""
    return "\n".join(f"  {e['LogicalResourceId']}: {e.get('ResourceStatusReason')}" for e in events
                     if "FAILED" in e.get("ResourceStatus", ""))[:4000]


def deploy_stack(cfn, body: str, parameters: dict[str, str], s3) -> bool:
    """Create or update the stack through a change set; False when nothing changed."""
    status = _stack_status(cfn)
    if status in RECREATED:
        log(f"deploy: stack {STACK_NAME} is {status}; deleting it first")
        cfn.delete_stack(StackName=STACK_NAME)
        _wait(cfn, lambda s: s is None or s == "DELETE_COMPLETE", "delete")
        status = None
    kind = "CREATE" if status in (None, "REVIEW_IN_PROGRESS", "DELETE_COMPLETE") else "UPDATE"
    source = {"TemplateBody": body}
    if len(body.encode()) > MAX_TEMPLATE_BODY:
        key = upload(s3, "templates", body.encode(), ".json")
        source = {"TemplateURL": f"{ENDPOINT}/{DEPLOY_BUCKET}/{key}"}
    name = f"deploy-{int(time.time() * 1000)}"
    cfn.create_change_set(
        StackName=STACK_NAME, ChangeSetName=name, ChangeSetType=kind, **source,
        Parameters=[{"ParameterKey": k, "ParameterValue": v} for k, v in parameters.items()],
        Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"],
    )
    deadline = time.monotonic() + 120
    while True:
        change_set = cfn.describe_change_set(StackName=STACK_NAME, ChangeSetName=name)
        if change_set["Status"] in ("CREATE_COMPLETE", "FAILED"):
            break
        if time.monotonic() > deadline:
            raise StackError(f"change set {name} still {change_set['Status']} after 120 s")
        time.sleep(0.3)
    if change_set["Status"] == "FAILED" or (kind == "UPDATE" and not change_set.get("Changes")):
        reason = change_set.get("StatusReason") or ""
        if kind == "UPDATE" and ("didn't contain changes" in reason or "No updates" in reason
                                 or not change_set.get("Changes")):
            cfn.delete_change_set(StackName=STACK_NAME, ChangeSetName=name)
            return False
        raise StackError(f"change set for {STACK_NAME} failed: {reason}")
    cfn.execute_change_set(StackName=STACK_NAME, ChangeSetName=name)
    final = _wait(cfn, lambda s: s is not None and not s.endswith("_IN_PROGRESS"), kind.lower())
    if final not in ("CREATE_COMPLETE", "UPDATE_COMPLETE"):
        raise StackError(f"stack {STACK_NAME} ended {final}:\n{_failure_reasons(cfn)}")
    return True


def _wait(cfn, done, what: str, timeout: float = 600) -> str | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = _stack_status(cfn)
        if done(status):
            return status
        time.sleep(0.5)
    raise StackError(f"stack {STACK_NAME} {what} not finished after {timeout:.0f} s:\n{_failure_reasons(cfn)}")


def deploy() -> dict:
    from .services.localstack import LocalStack

    health = LocalStack().health()
    if not health["healthy"]:
        raise StackError("LocalStack is not running: `local/stack up localstack --no-deploy` first")
    started = time.monotonic()
    s3, cfn = client("s3"), client("cloudformation")
    try:
        s3.head_bucket(Bucket=DEPLOY_BUCKET)
    except ClientError:
        s3.create_bucket(Bucket=DEPLOY_BUCKET)
    api_id = pinned_api_id(cfn, STACK_NAME)
    # The page links the API hands out point at the URL clients call (LocalStack's path style).
    # LocalStack starts an invocation again when it has run for about a minute: the local stack's
    # forgetting invocations hand over their cursor well before that.
    parameters = {"Stage": STAGE, **store_parameters(), **local_kms_key(),
                  "PublicApiUrl": api_url(ENDPOINT, api_id, STAGE), "EmbedOnnxDir": embed_onnx_dir(),
                  "ForgetBudgetSeconds": "30"}
    check_data_format(parameters)
    migrated = migrate_stores(parameters)
    log(f"deploy: migrations applied {migrated}")
    template = package(load_template(), s3)
    if not serves_cloudwatch(health):
        template, dropped = without_cloudwatch(template)
        log(f"deploy: this LocalStack was started without cloudwatch: {len(dropped)} alarm/dashboard resources "
            "left out (`local/stack down && local/stack up` starts it with them)")
    creating = _stack_status(cfn) in (None, "REVIEW_IN_PROGRESS", "DELETE_COMPLETE", *RECREATED)
    pinned = may_pin(cfn, client("apigateway"), STACK_NAME, creating)
    body = json.dumps(pin_api_id(template, api_id) if pinned else template, sort_keys=True)
    changed = deploy_stack(cfn, body, parameters, s3)
    log(f"deploy: stack {STACK_NAME} {'updated' if changed else 'unchanged'} in "
        f"{time.monotonic() - started:.1f} s")

    outputs = {o["OutputKey"]: o["OutputValue"]
               for o in cfn.describe_stacks(StackName=STACK_NAME)["Stacks"][0].get("Outputs", [])}
    resources = cfn.list_stack_resources(StackName=STACK_NAME)["StackResourceSummaries"]
    check_deployed(api_id, outputs["ApiId"], pinned)
    by_type: dict[str, dict[str, str]] = {}
    for res in resources:
        by_type.setdefault(res["ResourceType"], {})[res["LogicalResourceId"]] = res["PhysicalResourceId"]
    return {
        "stack": STACK_NAME,
        "api": {"url": api_url(ENDPOINT, outputs["ApiId"], STAGE),
                "key": local_api_key(parameters)},
        "archive_bucket": outputs["ArchiveBucketName"],
        "export_bucket": outputs["ExportBucketName"],
        "data_key_arn": outputs.get("DataKeyArn"),
        "state_machines": by_type.get("AWS::StepFunctions::StateMachine", {}),
        "functions": by_type.get("AWS::Lambda::Function", {}),
    }
