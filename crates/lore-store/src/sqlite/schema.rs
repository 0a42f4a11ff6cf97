//! The store's schema, as numbered migrations applied in order inside one
//! write transaction each (so a crash mid-migration leaves the previous
//! version intact).
//!
//! Versioned rows: every change of an entry or triple writes a new row
//! valid from the transaction that wrote it (`from_tx`) until the
//! transaction that replaced it (`to_tx`, [`OPEN`] while current). A read
//! "as of" transaction X sees the rows with `from_tx <= X < to_tx`; a read
//! of the current state is the same query with X = the newest transaction.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::StoreError;

/// `to_tx` of a version that is still current.
pub(crate) const OPEN: i64 = i64::MAX;

/// Every migration, in order; index + 1 is the schema version.
const MIGRATIONS: &[&str] = &[
    // 1: the transaction log, entries, tags, full text, triples.
    r#"
CREATE TABLE transactions (
    tx_id         INTEGER PRIMARY KEY,
    at            TEXT    NOT NULL,
    actor         TEXT    NOT NULL,
    kind          TEXT    NOT NULL,
    summary       TEXT    NOT NULL,
    reverts_tx_id INTEGER REFERENCES transactions(tx_id)
);
CREATE INDEX transactions_reverts ON transactions(reverts_tx_id) WHERE reverts_tx_id IS NOT NULL;

CREATE TABLE entry_versions (
    vid         INTEGER PRIMARY KEY,
    id          TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    from_tx     INTEGER NOT NULL REFERENCES transactions(tx_id),
    to_tx       INTEGER NOT NULL,
    deleted     INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    topic       TEXT    NOT NULL,
    topic_key   TEXT    NOT NULL,
    content     TEXT    NOT NULL,
    confidence  REAL    NOT NULL,
    tags        TEXT    NOT NULL,
    source      TEXT,
    recorded_at TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);
CREATE UNIQUE INDEX entry_versions_id ON entry_versions(id, to_tx);
CREATE INDEX entry_versions_topic ON entry_versions(topic_key, to_tx, from_tx, deleted);
CREATE INDEX entry_versions_from  ON entry_versions(from_tx);

CREATE TABLE entry_tags (
    tag TEXT    NOT NULL,
    vid INTEGER NOT NULL REFERENCES entry_versions(vid),
    PRIMARY KEY (tag, vid)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE entry_text USING fts5(
    topic, content, tags,
    content = 'entry_versions', content_rowid = 'vid',
    tokenize = 'porter unicode61'
);

CREATE TABLE triple_versions (
    vid         INTEGER PRIMARY KEY,
    id          TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    from_tx     INTEGER NOT NULL REFERENCES transactions(tx_id),
    to_tx       INTEGER NOT NULL,
    deleted     INTEGER NOT NULL,
    subject     TEXT    NOT NULL,
    predicate   TEXT    NOT NULL,
    object      TEXT    NOT NULL,
    confidence  REAL    NOT NULL,
    properties  TEXT
);
CREATE UNIQUE INDEX triple_versions_id ON triple_versions(id, to_tx);
CREATE INDEX triple_versions_subject ON triple_versions(subject, to_tx);
CREATE INDEX triple_versions_object  ON triple_versions(object, to_tx);
CREATE INDEX triple_versions_from    ON triple_versions(from_tx);
"#,
    // 2: the embedding cache: vectors by model and content hash (not
    // knowledge: never versioned, safe to empty).
    r#"
CREATE TABLE embeddings (
    model      TEXT NOT NULL,
    hash       TEXT NOT NULL,
    vector     BLOB NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (model, hash)
) WITHOUT ROWID;
"#,
    // 3: the newest change of one kind of entry (`kind_head`) without a
    // scan: a wiki read skips its sync when only memory entries changed.
    r#"
CREATE INDEX entry_versions_kind ON entry_versions(kind, from_tx);
"#,
    // 4: the gateway's searches (so feedback can name one) and the
    // feedback on their results. Signals for ranking, not knowledge: no
    // transactions, no history.
    r#"
CREATE TABLE gateway_searches (
    seq        INTEGER PRIMARY KEY,
    request_id TEXT    NOT NULL UNIQUE,
    query      TEXT    NOT NULL,
    chunk_ids  TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);
CREATE TABLE gateway_feedback (
    id         INTEGER PRIMARY KEY,
    request_id TEXT    NOT NULL,
    query      TEXT    NOT NULL,
    chunk_id   TEXT    NOT NULL,
    vote       INTEGER NOT NULL CHECK (vote BETWEEN -1 AND 1),
    note       TEXT,
    context    TEXT,
    voter      TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);
"#,
    // 5: memory_ingest runs (operational records: no transactions, no
    // history). The record is JSON; status is a column to find the
    // runs still running.
    r#"
CREATE TABLE ingest_runs (
    seq     INTEGER PRIMARY KEY,
    run_id  TEXT    NOT NULL UNIQUE,
    status  TEXT    NOT NULL,
    record  TEXT    NOT NULL
);
CREATE INDEX ingest_runs_status ON ingest_runs(status);
"#,
    // 6: MCP tasks, as every server sharing the store sees them
    // (operational records, like ingest runs). The record is JSON; a
    // cancellation asked for by another server is a column no save
    // clears.
    r#"
CREATE TABLE tasks (
    task_id          TEXT    PRIMARY KEY,
    status           TEXT    NOT NULL,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    expires_at       TEXT,
    record           TEXT    NOT NULL
);
CREATE INDEX tasks_expires ON tasks(expires_at) WHERE expires_at IS NOT NULL;
"#,
    // 7: leases (one holder of a named job at a time, rewritten in place)
    // and the gateway's file log (append-only: a file's chunks per
    // version, a closing row without chunks), both outside history.
    r#"
CREATE TABLE leases (
    name        TEXT    PRIMARY KEY,
    holder      TEXT    NOT NULL,
    acquired_ms INTEGER NOT NULL,
    expires_ms  INTEGER NOT NULL,
    released    INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE gateway_files (
    seq        INTEGER PRIMARY KEY,
    root       TEXT    NOT NULL,
    path       TEXT    NOT NULL,
    hash       TEXT    NOT NULL,
    chunks     TEXT,
    origin     TEXT    NOT NULL,
    written_ms INTEGER NOT NULL
);
CREATE INDEX gateway_files_path ON gateway_files(root, path, seq);
"#,
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the database to [`SCHEMA_VERSION`]; refuses a newer one.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version    INTEGER PRIMARY KEY,
             applied_at TEXT NOT NULL
         )",
    )?;
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let current: i64 = tx.query_row(
            "SELECT coalesce(max(version), 0) FROM schema_migrations",
            [],
            |row| row.get(0),
        )?;
        if current > SCHEMA_VERSION {
            return Err(StoreError::Unavailable(format!(
                "the knowledge store was written by a newer Lore (schema {current}, this build knows {SCHEMA_VERSION}); upgrade lore"
            )));
        }
        if current == SCHEMA_VERSION {
            return Ok(());
        }
        tx.execute_batch(MIGRATIONS[current as usize])?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)",
            rusqlite::params![current + 1, lore_core::time::UtcMillis::now().to_iso()],
        )?;
        tx.commit()?;
    }
}
