//! Reading a store file as of one instant, without writing to it: what a
//! copy into another backend reads (the opposite of `restore.rs`).
//!
//! A [`Snapshot`] is a read-only connection inside one read transaction.
//! In WAL mode that transaction sees the file as it was when it started,
//! whatever other processes commit meanwhile (and blocks none of them),
//! so every row and every answer it gives belongs to the same state.
//!
//! Leases are not read: they are live locks of running processes, and a
//! copy starts with none (see `crate::shared`).

use std::path::Path;

use rusqlite::{Connection, OpenFlags, Row};

use super::read::{ENTRY_COLUMNS, TRIPLE_COLUMNS, entry_from_row, triple_from_row};
use super::{BUSY_TIMEOUT, SCHEMA_VERSION, read};
use crate::error::StoreError;
use crate::model::*;
use crate::shared::SharedFileVersion;

/// The tables a store of [`SCHEMA_VERSION`] has (a file without one of
/// them is not a Lore store).
const TABLES: &[&str] = &[
    "schema_migrations",
    "transactions",
    "entry_versions",
    "entry_tags",
    "entry_text",
    "triple_versions",
    "embeddings",
    "gateway_searches",
    "gateway_feedback",
    "ingest_runs",
    "gateway_files",
];

/// The tables every schema version has.
const CORE_TABLES: &[&str] = &[
    "schema_migrations",
    "transactions",
    "entry_versions",
    "triple_versions",
];

/// The tables [`Snapshot::count`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counted {
    /// Transactions.
    Transactions,
    /// Entry versions (tombstones included).
    EntryVersions,
    /// Triple versions (tombstones included).
    TripleVersions,
    /// Cached vectors.
    Vectors,
    /// Recorded searches.
    Searches,
    /// Feedback.
    Feedback,
    /// `memory_ingest` runs.
    IngestRuns,
    /// Versions in the gateway's file log.
    SharedFiles,
}

impl Counted {
    /// Every one, in the order a copy writes them.
    pub const ALL: [Counted; 8] = [
        Counted::Transactions,
        Counted::EntryVersions,
        Counted::TripleVersions,
        Counted::Vectors,
        Counted::Searches,
        Counted::Feedback,
        Counted::IngestRuns,
        Counted::SharedFiles,
    ];

    /// The table (the same name in both backends).
    pub fn table(self) -> &'static str {
        match self {
            Counted::Transactions => "transactions",
            Counted::EntryVersions => "entry_versions",
            Counted::TripleVersions => "triple_versions",
            Counted::Vectors => "embeddings",
            Counted::Searches => "gateway_searches",
            Counted::Feedback => "gateway_feedback",
            Counted::IngestRuns => "ingest_runs",
            Counted::SharedFiles => "gateway_files",
        }
    }
}

/// One cached vector as stored (little-endian `f32`s).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CachedVector {
    pub model: String,
    pub hash: String,
    pub vector: Vec<u8>,
    pub created_at: String,
}

/// One `memory_ingest` run as stored (its JSON record untouched).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StoredRun {
    pub seq: i64,
    pub run_id: String,
    pub status: String,
    pub record: String,
}

/// A store file as of the instant [`Snapshot::open`] read it.
pub(crate) struct Snapshot {
    conn: Connection,
}

impl Snapshot {
    /// Opens the store at `path` read-only and starts reading it; refuses
    /// a file that is not a Lore store, or one of another schema version.
    pub fn open(path: &Path) -> Result<Snapshot, StoreError> {
        let shown = path.display();
        if !path.is_file() {
            return Err(StoreError::NotFound(format!(
                "there is no store file at {shown}; give the path of a Lore store (.lore/store.db)"
            )));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|_| {
            StoreError::PermissionDenied(format!(
                "cannot open {shown} for reading; check the path and its permissions"
            ))
        })?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.execute_batch("BEGIN")?;
        // The first read starts the read transaction: every later read
        // sees the file as it is now.
        let present: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .and_then(|mut s| {
                s.query_map([], |row| row.get(0))?
                    .collect::<Result<Vec<String>, _>>()
            })
            .map_err(|e| match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::NotADatabase) => StoreError::Refused(format!(
                    "{shown} is not a Lore store (not an SQLite database); give the path of a Lore store (.lore/store.db)"
                )),
                Some(
                    rusqlite::ErrorCode::CannotOpen
                    | rusqlite::ErrorCode::PermissionDenied
                    | rusqlite::ErrorCode::ReadOnly,
                ) => StoreError::PermissionDenied(format!(
                    "cannot read {shown}: check its permissions (and its folder's: SQLite needs the -wal and -shm files beside it)"
                )),
                _ => StoreError::from(e),
            })?;
        let missing: Vec<&str> = TABLES
            .iter()
            .copied()
            .filter(|t| !present.iter().any(|p| p == t))
            .collect();
        // Every schema since the first has these.
        if let Some(table) = missing.iter().find(|t| CORE_TABLES.contains(t)) {
            return Err(StoreError::Refused(format!(
                "{shown} is an SQLite database but not a Lore store (it has no {table} table); give the path of a Lore store (.lore/store.db)"
            )));
        }
        let version: i64 = conn.query_row(
            "SELECT coalesce(max(version), 0) FROM schema_migrations",
            [],
            |row| row.get(0),
        )?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Unavailable(format!(
                "the knowledge store {shown} was written by a newer Lore (schema {version}, this build knows {SCHEMA_VERSION}); upgrade lore and copy it with that version"
            )));
        }
        if version < SCHEMA_VERSION {
            return Err(StoreError::Refused(format!(
                "the knowledge store {shown} has an older schema (version {version}, this build writes {SCHEMA_VERSION}); open it once with this Lore (for example `lore memory check`), which brings it up to date, then copy it"
            )));
        }
        if let Some(table) = missing.first() {
            return Err(StoreError::Refused(format!(
                "{shown} is not a Lore store of schema {version} (it has no {table} table); give the path of a Lore store (.lore/store.db)"
            )));
        }
        Ok(Snapshot { conn })
    }

    /// Calls `each` with every row `sql` returns, as `decode` reads it, in
    /// order (rows are streamed, never all held at once).
    fn each<T>(
        &self,
        sql: &str,
        decode: impl Fn(&Row<'_>) -> rusqlite::Result<T>,
        mut each: impl FnMut(T) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut statement = self.conn.prepare(sql)?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            each(decode(row)?)?;
        }
        Ok(())
    }

    /// Every transaction record, oldest first (without changed ids).
    pub fn each_transaction(
        &self,
        each: impl FnMut(Transaction) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.each(
            "SELECT tx_id, at, actor, kind, summary, reverts_tx_id FROM transactions ORDER BY tx_id",
            |row| {
                Ok(Transaction {
                    tx_id: row.get(0)?,
                    at: row.get(1)?,
                    actor: row.get(2)?,
                    kind: row.get(3)?,
                    summary: row.get(4)?,
                    reverts_tx_id: row.get(5)?,
                    changed_ids: Vec::new(),
                    changed_ids_truncated: false,
                })
            },
            each,
        )
    }

    /// Every entry version with its row id and the transaction that
    /// ended it, in row order.
    pub fn each_entry_version(
        &self,
        each: impl FnMut((i64, Entry, TxId)) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.each(
            &format!(
                "SELECT {ENTRY_COLUMNS}, ev.vid, ev.to_tx FROM entry_versions ev ORDER BY ev.vid"
            ),
            |row| Ok((row.get(12)?, entry_from_row(row)?, row.get(13)?)),
            each,
        )
    }

    /// Every triple version with its row id and the transaction that
    /// ended it, in row order.
    pub fn each_triple_version(
        &self,
        each: impl FnMut((i64, Triple, TxId)) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.each(
            &format!(
                "SELECT {TRIPLE_COLUMNS}, tv.vid, tv.to_tx FROM triple_versions tv ORDER BY tv.vid"
            ),
            |row| Ok((row.get(9)?, triple_from_row(row)?, row.get(10)?)),
            each,
        )
    }

    /// Every cached vector, by model and hash.
    pub fn each_vector(
        &self,
        each: impl FnMut(CachedVector) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.each(
            "SELECT model, hash, vector, created_at FROM embeddings ORDER BY model, hash",
            |row| {
                Ok(CachedVector {
                    model: row.get(0)?,
                    hash: row.get(1)?,
                    vector: row.get(2)?,
                    created_at: row.get(3)?,
                })
            },
            each,
        )
    }

    /// Every recorded search with its sequence number, oldest first.
    pub fn each_search(
        &self,
        mut each: impl FnMut((i64, SearchRecord)) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.each(
            "SELECT seq, request_id, query, chunk_ids, created_at FROM gateway_searches ORDER BY seq",
            |row| {
                let seq: i64 = row.get(0)?;
                let chunk_ids: String = row.get(3)?;
                Ok((
                    seq,
                    chunk_ids,
                    SearchRecord {
                        request_id: row.get(1)?,
                        query: row.get(2)?,
                        chunk_ids: Vec::new(),
                        created_at: row.get(4)?,
                    },
                ))
            },
            |(seq, chunk_ids, mut search)| {
                search.chunk_ids = serde_json::from_str(&chunk_ids).map_err(|e| {
                    StoreError::Unavailable(format!(
                        "recorded search {} has results that do not read back ({e}); the store file is damaged",
                        search.request_id
                    ))
                })?;
                each((seq, search))
            },
        )
    }

    /// Every piece of feedback, oldest first.
    pub fn each_feedback(
        &self,
        mut each: impl FnMut(Feedback) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        // Read in pages with the store's own decoding.
        let mut after = 0;
        loop {
            let page = super::feedback::read_since(&self.conn, after, 500)?;
            let Some(last) = page.last() else {
                return Ok(());
            };
            after = last.id;
            for feedback in page {
                each(feedback)?;
            }
        }
    }

    /// Every `memory_ingest` run, oldest first.
    pub fn each_ingest_run(
        &self,
        each: impl FnMut(StoredRun) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.each(
            "SELECT seq, run_id, status, record FROM ingest_runs ORDER BY seq",
            |row| {
                Ok(StoredRun {
                    seq: row.get(0)?,
                    run_id: row.get(1)?,
                    status: row.get(2)?,
                    record: row.get(3)?,
                })
            },
            each,
        )
    }

    /// Every version in the gateway's file log with its sequence number,
    /// oldest first.
    pub fn each_shared_file(
        &self,
        each: impl FnMut(SharedFileVersion) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.each(
            "SELECT seq, origin, written_ms, root, path, hash, chunks FROM gateway_files ORDER BY seq",
            super::shared::version_of,
            each,
        )
    }

    /// The file log's newest sequence number (0 when it is empty).
    pub fn newest_shared_seq(&self) -> Result<i64, StoreError> {
        Ok(self.conn.query_row(
            "SELECT coalesce(max(seq), 0) FROM gateway_files",
            [],
            |row| row.get(0),
        )?)
    }

    /// How many rows `table` holds.
    pub fn count(&self, table: Counted) -> Result<i64, StoreError> {
        Ok(self.conn.query_row(
            &format!("SELECT count(*) FROM {}", table.table()),
            [],
            |row| row.get(0),
        )?)
    }

    /// The cached vectors of each model: `(model, count)`, by model.
    pub fn vectors_per_model(&self) -> Result<Vec<(String, i64)>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT model, count(*) FROM embeddings GROUP BY model ORDER BY model")?;
        let counts = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(counts)
    }

    /// Every entry id (`triples` false) or triple id, in the order they
    /// were created.
    pub fn ids(&self, triples: bool) -> Result<Vec<String>, StoreError> {
        let table = if triples {
            "triple_versions"
        } else {
            "entry_versions"
        };
        let mut statement = self.conn.prepare(&format!(
            "SELECT id FROM {table} WHERE version = 1 ORDER BY vid"
        ))?;
        let ids = statement
            .query_map([], |row| row.get(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ids)
    }

    /// [`crate::KnowledgeStore::head`] as of the snapshot.
    pub fn head(&self) -> Result<TxId, StoreError> {
        read::head(&self.conn)
    }

    /// [`crate::KnowledgeStore::check`] as of the snapshot.
    pub fn check(&self) -> Result<StoreHealth, StoreError> {
        read::check(&self.conn)
    }

    /// [`crate::KnowledgeStore::history`] as of the snapshot.
    pub fn history(&self, query: &HistoryQuery) -> Result<Page<HistoryItem>, StoreError> {
        read::history(&self.conn, query)
    }

    /// [`crate::KnowledgeStore::query`] as of the snapshot.
    pub fn query(&self, query: &EntryQuery) -> Result<Page<Entry>, StoreError> {
        read::query_entries(&self.conn, query)
    }

    /// [`crate::KnowledgeStore::list_triples`] as of the snapshot.
    pub fn list_triples(&self, query: &TripleQuery) -> Result<Page<Triple>, StoreError> {
        read::list_triples(&self.conn, query)
    }

    /// [`crate::KnowledgeStore::get`] as of the snapshot.
    pub fn get(&self, id: &str, as_of: Option<TxId>) -> Result<serde_json::Value, StoreError> {
        read::get(&self.conn, id, as_of)
    }

    /// [`crate::KnowledgeStore::changes_since`] as of the snapshot.
    pub fn changes_since(&self, after: TxId, limit: usize) -> Result<Vec<TxChanges>, StoreError> {
        read::changes_since(&self.conn, after, limit)
    }

    /// [`crate::KnowledgeStore::feedback_since`] as of the snapshot.
    pub fn feedback_since(&self, after: i64, limit: usize) -> Result<Vec<Feedback>, StoreError> {
        super::feedback::read_since(&self.conn, after, limit)
    }

    /// [`crate::KnowledgeStore::running_ingest_runs`] as of the snapshot.
    pub fn running_ingest_runs(&self) -> Result<Vec<IngestRunRecord>, StoreError> {
        super::runs::read_running(&self.conn)
    }
}
