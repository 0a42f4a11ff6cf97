//! The PostgreSQL store's schema: the SQLite store's tables (same rows,
//! same meaning, see `sqlite/schema.rs`) in a schema of their own, as
//! numbered migrations applied under an advisory lock in one transaction
//! (so two processes opening a new store at once do not race, and a
//! failed migration leaves the previous version intact).
//!
//! Differences in form only: booleans are `BOOLEAN`, tags and a search's
//! results are `TEXT[]`, vectors `BYTEA`; full text is a weighted
//! `tsvector` column (topic A, tags B, content C) over the words
//! [`crate::text::words`] cuts, stemmed by English Snowball without a
//! stopword list (as SQLite's `porter` tokenizer keeps every word).
//! Counters (`counters`) hold the last transaction and feedback ids; see
//! `write.rs` for why.

use super::session::{Session, get};
use crate::error::StoreError;

/// `to_tx` of a version that is still current.
pub(super) const OPEN: i64 = i64::MAX;

/// Every migration, in order; index + 1 is the schema version.
const MIGRATIONS: &[&str] = &[
    // 1: everything the SQLite store's migrations 1 to 5 hold.
    r#"
CREATE TABLE counters (
    name  TEXT   PRIMARY KEY,
    value BIGINT NOT NULL
);
INSERT INTO counters (name, value) VALUES ('tx', 0), ('feedback', 0);

CREATE TABLE transactions (
    tx_id         BIGINT PRIMARY KEY,
    at            TEXT   NOT NULL,
    actor         TEXT   NOT NULL,
    kind          TEXT   NOT NULL,
    summary       TEXT   NOT NULL,
    reverts_tx_id BIGINT REFERENCES transactions(tx_id)
);
CREATE INDEX transactions_reverts ON transactions(reverts_tx_id) WHERE reverts_tx_id IS NOT NULL;

CREATE TEXT SEARCH DICTIONARY lore_english_stem (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION lore_english (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION lore_english ALTER MAPPING FOR asciiword, word WITH lore_english_stem;

CREATE TABLE entry_versions (
    vid         BIGINT           PRIMARY KEY,
    id          TEXT             NOT NULL,
    version     BIGINT           NOT NULL,
    from_tx     BIGINT           NOT NULL REFERENCES transactions(tx_id),
    to_tx       BIGINT           NOT NULL,
    deleted     BOOLEAN          NOT NULL,
    kind        TEXT             NOT NULL,
    topic       TEXT             NOT NULL,
    topic_key   TEXT COLLATE "C" NOT NULL,
    content     TEXT             NOT NULL,
    confidence  DOUBLE PRECISION NOT NULL,
    tags        TEXT[]           NOT NULL,
    source      TEXT,
    recorded_at TEXT             NOT NULL,
    updated_at  TEXT             NOT NULL,
    search      TSVECTOR
);
CREATE UNIQUE INDEX entry_versions_id ON entry_versions(id, to_tx);
CREATE INDEX entry_versions_topic ON entry_versions(topic_key, to_tx, from_tx, deleted);
CREATE INDEX entry_versions_from ON entry_versions(from_tx);
CREATE INDEX entry_versions_kind ON entry_versions(kind, from_tx);
CREATE INDEX entry_versions_tags ON entry_versions USING gin (tags);
CREATE INDEX entry_versions_search ON entry_versions USING gin (search);

CREATE TABLE triple_versions (
    vid        BIGINT           PRIMARY KEY,
    id         TEXT             NOT NULL,
    version    BIGINT           NOT NULL,
    from_tx    BIGINT           NOT NULL REFERENCES transactions(tx_id),
    to_tx      BIGINT           NOT NULL,
    deleted    BOOLEAN          NOT NULL,
    subject    TEXT             NOT NULL,
    predicate  TEXT             NOT NULL,
    object     TEXT             NOT NULL,
    confidence DOUBLE PRECISION NOT NULL,
    properties TEXT
);
CREATE UNIQUE INDEX triple_versions_id ON triple_versions(id, to_tx);
CREATE INDEX triple_versions_subject ON triple_versions(subject, to_tx);
CREATE INDEX triple_versions_object ON triple_versions(object, to_tx);
CREATE INDEX triple_versions_from ON triple_versions(from_tx);

CREATE TABLE embeddings (
    model      TEXT  NOT NULL,
    hash       TEXT  NOT NULL,
    vector     BYTEA NOT NULL,
    created_at TEXT  NOT NULL,
    PRIMARY KEY (model, hash)
);

CREATE TABLE gateway_searches (
    seq        BIGSERIAL PRIMARY KEY,
    request_id TEXT      NOT NULL UNIQUE,
    query      TEXT      NOT NULL,
    chunk_ids  TEXT[]    NOT NULL,
    created_at TEXT      NOT NULL
);
CREATE TABLE gateway_feedback (
    id         BIGINT   PRIMARY KEY,
    request_id TEXT     NOT NULL,
    query      TEXT     NOT NULL,
    chunk_id   TEXT     NOT NULL,
    vote       SMALLINT NOT NULL CHECK (vote BETWEEN -1 AND 1),
    note       TEXT,
    context    TEXT,
    voter      TEXT     NOT NULL,
    created_at TEXT     NOT NULL
);

CREATE TABLE ingest_runs (
    seq    BIGSERIAL PRIMARY KEY,
    run_id TEXT      NOT NULL UNIQUE,
    status TEXT      NOT NULL,
    record TEXT      NOT NULL
);
CREATE INDEX ingest_runs_status ON ingest_runs(status);
"#,
    // 2: MCP tasks, as every server sharing the store sees them
    // (operational records, like ingest runs).
    r#"
CREATE TABLE tasks (
    task_id          TEXT    PRIMARY KEY,
    status           TEXT    NOT NULL,
    cancel_requested BOOLEAN NOT NULL DEFAULT false,
    expires_at       TEXT,
    record           TEXT    NOT NULL
);
CREATE INDEX tasks_expires ON tasks(expires_at) WHERE expires_at IS NOT NULL;
"#,
    // 3: leases and the gateway's file log (as SQLite's migration 7).
    r#"
CREATE TABLE leases (
    name        TEXT    PRIMARY KEY,
    holder      TEXT    NOT NULL,
    acquired_ms BIGINT  NOT NULL,
    expires_ms  BIGINT  NOT NULL,
    released    BOOLEAN NOT NULL DEFAULT false
);
CREATE TABLE gateway_files (
    seq        BIGSERIAL PRIMARY KEY,
    root       TEXT      NOT NULL,
    path       TEXT      NOT NULL,
    hash       TEXT      NOT NULL,
    chunks     TEXT,
    origin     TEXT      NOT NULL,
    written_ms BIGINT    NOT NULL
);
CREATE INDEX gateway_files_path ON gateway_files(root, path, seq);
"#,
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// `name` quoted as an SQL identifier (checked by the caller to be a
/// plain one).
pub(super) fn quoted(name: &str) -> String {
    format!("\"{name}\"")
}

/// Creates the schema `name` if needed and brings it to
/// [`SCHEMA_VERSION`]; refuses a newer one. The session's `search_path`
/// already names it.
pub(super) fn migrate(session: &mut Session, name: &str) -> Result<(), StoreError> {
    let mut tx = session.begin()?;
    // One migrator per schema at a time, across processes.
    let key = crate::cursor::fingerprint(&["lore-store schema", name]) as i64;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&key])?;
    let exists = tx
        .query_opt("SELECT 1 FROM pg_namespace WHERE nspname = $1", &[&name])?
        .is_some();
    if !exists {
        tx.batch(&format!("CREATE SCHEMA {}", quoted(name)))?;
    }
    tx.batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version    BIGINT PRIMARY KEY,
             applied_at TEXT   NOT NULL
         )",
    )?;
    let row = tx.query_one(
        "SELECT coalesce(max(version), 0)::BIGINT FROM schema_migrations",
        &[],
    )?;
    let current: i64 = get(&row, 0)?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::Unavailable(format!(
            "the knowledge store in schema {name} was written by a newer Lore (schema {current}, this build knows {SCHEMA_VERSION}); upgrade lore"
        )));
    }
    for version in current + 1..=SCHEMA_VERSION {
        tx.batch(MIGRATIONS[version as usize - 1])?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
            &[&version, &lore_core::time::UtcMillis::now().to_iso()],
        )?;
    }
    tx.commit()
}
