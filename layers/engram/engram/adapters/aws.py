"""boto3 clients, one per service per process, pointed at LocalStack when configured."""

from __future__ import annotations

from functools import cache

import boto3
from botocore.config import Config

from ..config import get_settings


@cache
def aws_client(service: str):
    settings = get_settings()
    return boto3.client(
        service,
        region_name=settings.aws_region,
        endpoint_url=settings.aws_endpoint_url,
        config=Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=2, read_timeout=10),
    )


def ping_archive() -> None:
    aws_client("s3").head_bucket(Bucket=get_settings().archive_bucket)
