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

-- Append-only: rows are never updated; they are deleted only by an erasure, which says so.
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

CREATE OR REPLACE FUNCTION audit_log_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('engram.erasure', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP;
END $$;
DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_guard();

-- Envelope encryption (adapters/key_store.py): one data key per user, stored only wrapped by KMS.
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
