"""Waiting on the deployed erasure saga through the API (its jobs run on Step Functions)."""

from __future__ import annotations

import time

import pytest


def wait(client, headers: dict, job_id: str, timeout: float = 180) -> dict:
    """The erasure job once it is no longer RUNNING (the test fails after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/v1/erasure-jobs/{job_id}", headers=headers).json()
        if job["status"] != "RUNNING":
            return job
        time.sleep(1)
    pytest.fail(f"erasure job {job_id} still running after {timeout} s: {job}")
