"""Integration fixtures of their own: the export bucket.

The in-process app and the erasure steps read the export bucket that ``ENGRAM_EXPORT_BUCKET``
names: the deployed ``ExportBucket`` once ``local/stack deploy`` has recorded it (tests/conftest.py),
else the setting's default. A stack deployed from a template without that bucket has none, so
before any test runs the configured bucket is made to exist, configured as template.yaml
configures it. It is never deleted: its name is shared by every test session on this stack (other
people's included), each test removes the exports of its own fresh tenants, and LocalStack keeps
nothing across a restart anyway.
"""

from __future__ import annotations

import warnings

import pytest
from botocore.exceptions import BotoCoreError, ClientError

LIFECYCLE = {"Rules": [{"ID": "expire-exports", "Status": "Enabled", "Filter": {"Prefix": "exports/"},
                        "Expiration": {"Days": 1}, "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}}]}


def ensure_export_bucket(s3, bucket: str, kms_key_id: str) -> bool:
    """Create ``bucket`` as template.yaml's ExportBucket unless it exists; True if it was made."""
    try:
        s3.head_bucket(Bucket=bucket)
        return False
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in ("404", "NoSuchBucket", "NotFound"):
            raise
    try:
        s3.create_bucket(Bucket=bucket)
    except ClientError as exc:  # another session made it first
        if exc.response.get("Error", {}).get("Code") not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
            raise
    s3.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration={"Rules": [{
        "ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": kms_key_id},
        "BucketKeyEnabled": True}]})
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration=LIFECYCLE)
    s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={
        "BlockPublicAcls": True, "IgnorePublicAcls": True, "BlockPublicPolicy": True, "RestrictPublicBuckets": True})
    return True


@pytest.fixture(scope="session", autouse=True)
def export_bucket() -> str:
    from engram.adapters.clients import Clients
    from engram.config import get_settings

    settings = get_settings()
    try:
        ensure_export_bucket(Clients(settings).aws("s3"), settings.export_bucket, settings.kms_key_id)
    except (ClientError, BotoCoreError) as exc:
        # Not fatal here: most integration tests never touch it, and those that do fail naming it.
        warnings.warn(f"export bucket {settings.export_bucket} unavailable: {exc}", stacklevel=1)
    return settings.export_bucket
