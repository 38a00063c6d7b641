"""The local stack's data-format stamp: data written under another key format (or embedding model)
is wiped, not migrated.

Store keys, document ids and node keys are built by ``engram.domain.keys`` (format
``FORMAT_VERSION``). Keys of the earlier format joined ids with ':' or '|', which ids may contain,
so an old key cannot be decoded back into its parts unambiguously: there is nothing to migrate
from. ``RUN_DIR/data_format`` records the format the local data was written in; ``up`` and
``deploy`` call ``ensure_data_format`` before migrations, and a missing or different stamp wipes
every store's user data once: Redis is flushed, the episodes index and the Neo4j graph are
deleted, the user tables are truncated (``tenant_keys`` is kept, so API keys still work), and the
archive bucket's objects are deleted, every version, bypassing GOVERNANCE retention.
"""

from __future__ import annotations

from psycopg import sql

from .common import RUN_DIR, log

STAMP = RUN_DIR / "data_format"
# Every table holding users' data (the schema's tables but tenant_keys).
USER_DATA_TABLES = ("users", "consent_events", "devices", "idempotency_records", "turn_log", "task_events",
                    "audit_log", "user_keys", "archive_days", "behaviour_patterns", "erasure_jobs")


def current_format() -> str:
    """The key format, and the embedding model the stored vectors were made with: vectors of two
    models do not compare, so a stack whose model changed starts afresh as well."""
    from engram.config import get_settings
    from engram.domain.keys import FORMAT_VERSION

    return f"{FORMAT_VERSION}/{get_settings().embed_model}"


def stamped_format() -> str | None:
    return STAMP.read_text().strip() if STAMP.exists() else None


def ensure_data_format(deps, s3, archive_bucket: str | None = None) -> dict | None:
    """Wipe the local data unless it is stamped with the current format; the stamp afterwards.
    ``s3`` is a client of the stack's S3 (LocalStack). Returns what was wiped, or None when the
    data was current."""
    stamped, wanted = stamped_format(), current_format()
    if stamped == wanted:
        return None
    log(f"data format {stamped or '(unstamped)'} != {wanted}: wiping the local data written in it")
    wiped = wipe(deps, s3, archive_bucket)
    STAMP.parent.mkdir(parents=True, exist_ok=True)
    STAMP.write_text(wanted + "\n")
    log(f"data format {wanted}: wiped {wiped}")
    return wiped


def wipe(deps, s3, archive_bucket: str | None = None) -> dict:
    from engram.adapters.opensearch.episode_index import concrete_indices

    clients = deps.clients
    out: dict = {"redis": bool(clients.redis.flushdb())}
    index = deps.settings.episode_index
    # The setting names an alias (or, in layout 1, the index itself): delete what is behind it.
    behind = concrete_indices(clients.opensearch, index)
    out["opensearch"] = bool(behind)
    if behind:
        clients.opensearch.indices.delete(index=",".join(behind))
    with clients.neo4j.session() as session:
        summary = session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
        out["neo4j"] = summary.counters.nodes_deleted
    from engram.migrate import owner_connection

    # As the owner: the runtime's role may not TRUNCATE (audit_log is append-only for it), and on a
    # fresh machine that role does not exist yet (the migration after this wipe creates it).
    with owner_connection(clients) as conn:
        present = [r[0] for r in conn.execute("SELECT t FROM unnest(%s::text[]) AS t WHERE to_regclass(t) IS NOT NULL",
                                              (list(USER_DATA_TABLES),)).fetchall()]
        for table in present:
            conn.execute(sql.SQL("TRUNCATE {}").format(sql.Identifier(table)))
    out["postgres"] = present
    if archive_bucket:
        out["archive"] = _empty_archive(s3, archive_bucket)
    return out


def _empty_archive(s3, bucket: str) -> dict:
    """Every version of every object under ``archive/``; what Object Lock still refuses is counted."""
    from botocore.exceptions import BotoCoreError, ClientError

    deleted = refused = 0
    try:
        pages = list(s3.get_paginator("list_object_versions").paginate(Bucket=bucket, Prefix="archive/"))
    except (ClientError, BotoCoreError) as exc:
        # No such bucket, or LocalStack not running: LocalStack keeps no state across restarts, so
        # an archive it does not hold now is gone already.
        log(f"data format: archive bucket {bucket} not listed ({type(exc).__name__}: {exc})")
        return {"deleted": 0, "refused": 0}
    for page in pages:
        for entry in page.get("Versions", []) + page.get("DeleteMarkers", []):
            try:
                s3.delete_object(Bucket=bucket, Key=entry["Key"], VersionId=entry["VersionId"],
                                 BypassGovernanceRetention=True)
                deleted += 1
            except ClientError:
                refused += 1
    return {"deleted": deleted, "refused": refused}
