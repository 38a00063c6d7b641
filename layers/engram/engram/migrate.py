"""Schema migrations, run as a deploy step (``local/stack deploy`` calls it; on AWS run
``python -m engram.migrate`` with the function's settings once per release, before traffic).

PostgreSQL: ``adapters/schema.sql`` (idempotent DDL) under an advisory lock, so concurrent runs
do not race. OpenSearch: the episodes index (fields added since it was made are put into its
mapping). Neo4j: uniqueness constraints and edge-id indexes. Nothing of this runs on a request.
"""

from __future__ import annotations

import json
import sys
from importlib import resources

from .bootstrap import Dependencies, bootstrap

_SCHEMA_LOCK = 0x656E6772  # any constant: serialises concurrent migrations


def migrate_postgres(deps: Dependencies) -> None:
    ddl = resources.files("engram.adapters").joinpath("schema.sql").read_text()
    with deps.clients.pg() as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
        try:
            conn.execute(ddl)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))


def migrate(deps: Dependencies | None = None) -> dict[str, str]:
    deps = deps or bootstrap()
    migrate_postgres(deps)
    deps.episodes.ensure_index()
    deps.graph.ensure_constraints()
    return {"postgres": "ok", "opensearch": deps.settings.episode_index, "neo4j": "ok"}


if __name__ == "__main__":
    print(json.dumps(migrate()))
    sys.exit(0)
