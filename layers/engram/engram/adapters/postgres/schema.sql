-- Engram's relational schema on PostgreSQL + TimescaleDB. Idempotent: applied at start-up
-- under an advisory lock, so concurrent cold starts do not race on CREATE.
CREATE EXTENSION IF NOT EXISTS timescaledb;
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE IF NOT EXISTS tenant_keys (
    key_hash   text PRIMARY KEY,
    tenant_id  text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS users (
    tenant            text NOT NULL,
    user_id           text NOT NULL,
    long_term_consent boolean NOT NULL DEFAULT false,
    consent_version   integer NOT NULL DEFAULT 0,
    consent_at        timestamptz,
    age               integer,
    child_mode        boolean NOT NULL DEFAULT false,
    erasing           boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, user_id)
);
-- The users being erased right now, for the nightly jobs that must leave them alone (a handful).
CREATE INDEX IF NOT EXISTS users_erasing ON users (tenant, user_id) WHERE erasing;

CREATE TABLE IF NOT EXISTS consent_events (
    id        bigserial PRIMARY KEY,
    tenant    text NOT NULL,
    user_id   text NOT NULL,
    long_term boolean NOT NULL,
    age       integer,
    version   integer NOT NULL,
    at        timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS devices (
    tenant    text NOT NULL,
    user_id   text NOT NULL,
    device_id text NOT NULL,
    kind      text NOT NULL,
    linked_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, user_id, device_id)
);

-- The first result of a write, per (tenant, user, Idempotency-Key). The response is sealed under
-- the user's data key (no plaintext), a record expires after 24 hours, and erasure deletes the
-- user's records (and its verify step counts them). Replaced idempotency_keys, which kept whole
-- responses in clear with no user column: its rows are transient, so it is dropped, not migrated.
DROP TABLE IF EXISTS idempotency_keys;
CREATE TABLE IF NOT EXISTS idempotency_records (
    tenant         text NOT NULL,
    user_id        text NOT NULL,
    key            text NOT NULL,
    request_sha256 text NOT NULL,
    status         integer,
    response       jsonb,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, user_id, key)
);

-- One row per write request in progress (adapters/postgres/write_fence.py): the erasure saga waits until
-- none of the user's leases is unexpired before it deletes, so no write that began before the
-- mark lands after the deletes. Expiry bounds a writer that died without ending its lease.
CREATE TABLE IF NOT EXISTS write_leases (
    tenant     text NOT NULL,
    user_id    text NOT NULL,
    lease_id   text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, user_id, lease_id)
);

-- Every accepted turn, durably, before anything else is derived from it.
CREATE TABLE IF NOT EXISTS turn_log (
    tenant         text NOT NULL,
    user_id        text NOT NULL,
    session_id     text NOT NULL,
    device_id      text NOT NULL,
    message_id     text NOT NULL,
    role           text NOT NULL,
    content        text,
    content_sha256 text NOT NULL,
    truncated      boolean NOT NULL DEFAULT false,
    client_ts      timestamptz NOT NULL,
    received_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant, user_id, message_id, client_ts)
);
SELECT create_hypertable('turn_log', 'client_ts', chunk_time_interval => INTERVAL '1 day', if_not_exists => TRUE);
CREATE INDEX IF NOT EXISTS turn_log_user ON turn_log (tenant, user_id, client_ts DESC);
CREATE INDEX IF NOT EXISTS turn_log_received ON turn_log (received_at);

-- Writes a derived store (Redis, OpenSearch, Neo4j) missed while it was down, applied later by
-- the catch-up in seq order per user and layer (adapters/postgres/pending_writes.py). The payload is the
-- batch as the write step had it, sealed under the user's data key.
CREATE TABLE IF NOT EXISTS pending_writes (
    seq         bigserial PRIMARY KEY,
    tenant      text NOT NULL,
    user_id     text NOT NULL,
    layer       text NOT NULL,
    batch_key   text NOT NULL,
    message_ids text[] NOT NULL,
    said_at     timestamptz NOT NULL,
    payload     bytea NOT NULL,
    attempts    integer NOT NULL DEFAULT 0,
    next_at     timestamptz NOT NULL DEFAULT now(),
    last_error  text,
    dead        boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant, user_id, layer, batch_key)
);
CREATE INDEX IF NOT EXISTS pending_writes_user ON pending_writes (tenant, user_id, layer, seq);
-- Held by the catch-up applying the row: a second run never applies a user's layer beside it.
ALTER TABLE pending_writes ADD COLUMN IF NOT EXISTS claimed_until timestamptz;

CREATE TABLE IF NOT EXISTS task_events (
    tenant      text NOT NULL,
    user_id     text NOT NULL,
    task_id     text NOT NULL,
    status      text NOT NULL,
    metadata    jsonb NOT NULL DEFAULT '{}',
    duration_ms bigint,
    ts          timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now()
);
SELECT create_hypertable('task_events', 'ts', chunk_time_interval => INTERVAL '1 day', if_not_exists => TRUE);
CREATE INDEX IF NOT EXISTS task_events_user_ts ON task_events (tenant, user_id, ts DESC);
CREATE INDEX IF NOT EXISTS task_events_task_ts ON task_events (tenant, user_id, task_id, ts DESC);

-- Append-only: rows are deleted only by an erasure, which says so, and the only update is a
-- redaction (adapters/postgres/audit_log.py): when a consent is withdrawn, what an entry said about the
-- content it allowed (its before/after) goes, while who did what, when and how sure stays.
-- The runtime role may only INSERT and SELECT (see "privileges" at the end): both the erasure and
-- the redaction go through SECURITY DEFINER functions owned by the schema owner.
CREATE TABLE IF NOT EXISTS audit_log (
    id         bigserial PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    tenant     text NOT NULL,
    user_id    text NOT NULL,
    actor      text NOT NULL,
    action     text NOT NULL,
    store      text NOT NULL,
    item_id    text,
    source     text,
    confidence double precision,
    before     jsonb,
    after      jsonb
);
CREATE INDEX IF NOT EXISTS audit_log_user ON audit_log (tenant, user_id, at);

-- Any session may set engram.erasure / engram.redaction, so the trigger is no barrier against the
-- runtime (its missing UPDATE/DELETE privileges are). It keeps a redaction to its shape and stops
-- an owner's stray statement; the definer functions below set the flags for their own duration.
CREATE OR REPLACE FUNCTION audit_log_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('engram.erasure', true) = 'on' THEN
        RETURN OLD;
    END IF;
    IF TG_OP = 'UPDATE' AND current_setting('engram.redaction', true) = 'on'
       AND (NEW.id, NEW.at, NEW.tenant, NEW.user_id, NEW.actor, NEW.action, NEW.store, NEW.item_id, NEW.source,
            NEW.confidence) IS NOT DISTINCT FROM (OLD.id, OLD.at, OLD.tenant, OLD.user_id, OLD.actor, OLD.action,
            OLD.store, OLD.item_id, OLD.source, OLD.confidence)
       -- A redaction only takes away (and says so): each side is within what it was, plus the mark.
       AND (NEW.before IS NULL OR NEW.before <@ (COALESCE(OLD.before, '{}') || '{"redacted": true}'))
       AND (NEW.after IS NULL OR NEW.after <@ (COALESCE(OLD.after, '{}') || '{"redacted": true}')) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP;
END $$;
DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_guard();

-- Envelope encryption (adapters/postgres/key_store.py): one data key per user, stored only wrapped by KMS.
-- Deleting the row is crypto-shredding: whatever the key sealed (WORM archive copies, backups)
-- can no longer be opened. key_id is also written into every ciphertext the key seals.
CREATE TABLE IF NOT EXISTS user_keys (
    tenant     text NOT NULL,
    user_id    text NOT NULL,
    key_id     text NOT NULL,
    wrapped    bytea NOT NULL,
    kms_key    text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, user_id)
);

-- Nightly archival (issue 6). A day is in ``archive_days`` only once its manifest was written
-- and every object re-read and checked: retention drops nothing whose day is not here.
CREATE TABLE IF NOT EXISTS archive_days (
    day             date PRIMARY KEY,
    manifest_key    text NOT NULL,
    manifest_sha256 text NOT NULL,
    objects         integer NOT NULL,
    rows            jsonb NOT NULL,
    verified_at     timestamptz NOT NULL DEFAULT now()
);

-- Which archived object version holds which live row (issue 10: retention by identity, not by
-- counts). The shard writer records every row it writes to a part or finds in one; retention drops
-- a day's chunks only if each of their rows is held by an object of the day's verified manifest
-- (same key and SHA-256). row_key is the live row's own key (domain.lifecycle.archive.*_row_key, ids in
-- clear, as the hot tables hold them), so retention needs no user's key; the archive itself holds
-- only a keyed form of it. A user's rows go with their erasure (adapters.postgres.erasure_store.USER_TABLES);
-- turns' and tasks' with the chunks they describe.
CREATE TABLE IF NOT EXISTS archive_rows (
    day           date NOT NULL,
    kind          text NOT NULL,
    row_key       text NOT NULL,
    object_key    text NOT NULL,
    object_sha256 text NOT NULL,
    tenant        text NOT NULL,
    user_id       text NOT NULL,
    PRIMARY KEY (day, kind, row_key, object_key, object_sha256)
);
CREATE INDEX IF NOT EXISTS archive_rows_user ON archive_rows (tenant, user_id);

-- Behaviour habits kept as aggregate statistics only (no content, no event ids): how often a
-- user produced each event type per weekday (0 = Monday) and UTC hour. Recomputed by the
-- forgetting job from the events, so a re-run gives the same rows.
CREATE TABLE IF NOT EXISTS behaviour_patterns (
    tenant     text NOT NULL,
    user_id    text NOT NULL,
    event_type text NOT NULL,
    weekday    smallint NOT NULL,
    hour       smallint NOT NULL,
    count      integer NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, user_id, event_type, weekday, hour)
);

-- Erasure saga jobs (service/erasure.py, statemachines/erasure.asl.json). Pseudonymous on purpose:
-- user_ref is domain.keys.erasure_user_ref (SHA-256 of the length-prefixed tenant and user), so the record that an erasure happened names nobody; the
-- saga carries the user id in its execution input only.
CREATE TABLE IF NOT EXISTS erasure_jobs (
    job_id        text PRIMARY KEY,
    tenant        text NOT NULL,
    user_ref      text NOT NULL,
    status        text NOT NULL CHECK (status IN ('RUNNING', 'SUCCEEDED', 'FAILED')),
    steps         jsonb NOT NULL DEFAULT '{}',
    residue       jsonb NOT NULL DEFAULT '{}',
    error         jsonb,
    execution_arn text,
    runs          integer NOT NULL DEFAULT 1,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz
);
-- At most one running erasure per user: a repeated request gets the running job back.
CREATE UNIQUE INDEX IF NOT EXISTS erasure_jobs_running ON erasure_jobs (tenant, user_ref) WHERE status = 'RUNNING';

-- ---------------------------------------------------------------- privileges
-- This file runs as the schema owner (engram.migrate with ENGRAM_POSTGRES_OWNER_DSN). The functions
-- connect as a login role that is a member of engram_runtime (migrate creates that login from the
-- runtime's own credentials), so what the runtime may do is decided here. Roles are per cluster:
-- stages sharing a cluster share engram_runtime.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'engram_runtime') THEN
        CREATE ROLE engram_runtime NOLOGIN;
    END IF;
END $$;

-- The one way audit rows are deleted: the erasure of a user, and only of a user marked as being
-- erased (the saga's mark step), so the runtime cannot quietly drop someone else's trail.
CREATE OR REPLACE FUNCTION engram_erase_user_audit(p_tenant text, p_user_id text) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET engram.erasure = 'on' AS $$
DECLARE
    deleted bigint;
BEGIN
    IF NOT EXISTS (SELECT FROM users WHERE tenant = p_tenant AND user_id = p_user_id AND erasing) THEN
        RAISE EXCEPTION 'audit rows are erased only for a user being erased'
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    DELETE FROM audit_log WHERE tenant = p_tenant AND user_id = p_user_id;
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END $$;

-- The one way audit rows change: a redaction (adapters/postgres/audit_log.py), whose shape the trigger checks.
CREATE OR REPLACE FUNCTION engram_redact_user_audit(p_tenant text, p_user_id text, p_store text, p_keys text[])
    RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public
    SET engram.redaction = 'on' AS $$
DECLARE
    changed bigint;
BEGIN
    UPDATE audit_log
       SET before = CASE WHEN before ?| p_keys THEN (before - p_keys) || '{"redacted": true}'::jsonb ELSE before END,
           after = CASE WHEN after ?| p_keys THEN (after - p_keys) || '{"redacted": true}'::jsonb ELSE after END
     WHERE tenant = p_tenant AND user_id = p_user_id AND store = p_store AND (before ?| p_keys OR after ?| p_keys);
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END $$;

-- drop_chunks needs the hypertable's owner: retention (adapters/postgres/archive_source.py) drops archived
-- days through this, and only of the two archived hypertables.
CREATE OR REPLACE FUNCTION engram_drop_chunks(p_table text, p_older_than timestamptz, p_newer_than timestamptz)
    RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    dropped integer;
BEGIN
    IF p_table NOT IN ('turn_log', 'task_events') THEN
        RAISE EXCEPTION 'engram_drop_chunks: % is not an archived hypertable', p_table
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT count(*) INTO dropped
      FROM drop_chunks(p_table::regclass, older_than => p_older_than, newer_than => p_newer_than);
    RETURN dropped;
END $$;

REVOKE ALL ON FUNCTION engram_erase_user_audit(text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION engram_redact_user_audit(text, text, text, text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION engram_drop_chunks(text, timestamptz, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_erase_user_audit(text, text) TO engram_runtime;
GRANT EXECUTE ON FUNCTION engram_redact_user_audit(text, text, text, text[]) TO engram_runtime;
GRANT EXECUTE ON FUNCTION engram_drop_chunks(text, timestamptz, timestamptz) TO engram_runtime;

-- Only the owner creates objects (PostgreSQL 15's default already; said for older servers).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO engram_runtime;
-- Every table: read and write rows, nothing else (no TRUNCATE, REFERENCES, TRIGGER). Granted anew
-- on every run, so each narrowing below must come after it. Tables created later get the same
-- through the default privileges; one that needs less says so below.
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO engram_runtime;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO engram_runtime;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO engram_runtime;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE ON SEQUENCES TO engram_runtime;
-- Append-only for the runtime: INSERT and SELECT only.
REVOKE UPDATE, DELETE, TRUNCATE ON audit_log FROM engram_runtime;
-- API keys are registered (an upsert), never deleted by the runtime.
REVOKE DELETE, TRUNCATE ON tenant_keys FROM engram_runtime;
