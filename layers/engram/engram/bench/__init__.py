"""Benchmarks: they print figures; they are not part of the test suite."""

import os


def use_local_stack() -> None:
    """Benchmarks run in-process beside the local stack: reach AWS services (KMS, S3) on
    LocalStack unless the environment already says otherwise (the tests do the same)."""
    for name, value in (("AWS_ENDPOINT_URL", "http://127.0.0.1:4566"), ("AWS_ACCESS_KEY_ID", "test"),
                        ("AWS_SECRET_ACCESS_KEY", "test"), ("AWS_REGION", "us-east-1")):
        os.environ.setdefault(name, value)
