//! The SQLite backend: one database file in WAL mode (`.lore/store.db`).
//!
//! - Writes run in `BEGIN IMMEDIATE` transactions, so writers in any
//!   number of processes queue on SQLite's lock (waiting up to the busy
//!   timeout) and never interleave; a transaction id is SQLite's
//!   integer key, unique and increasing across processes (transactions
//!   are never deleted, so a key is never reused).
//! - `synchronous = NORMAL` in WAL mode: a committed transaction survives
//!   the process being killed at any point; an uncommitted one leaves
//!   nothing. (Only a power loss can drop the newest commits; set
//!   [`Durability::Full`] to fsync every commit.)
//! - Readers use their own connections and never block the writer.

mod feedback;
mod read;
pub(crate) mod restore;
mod runs;
mod schema;
mod shared;
pub(crate) mod snapshot;
mod tasks;
mod vectors;
pub(crate) mod write;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

pub use schema::SCHEMA_VERSION;

use crate::KnowledgeStore;
use crate::error::StoreError;
use crate::model::*;
use crate::versioning;

/// How hard a commit presses data to disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Survives a killed process (WAL, `synchronous = NORMAL`).
    #[default]
    Process,
    /// Also survives a power loss (`synchronous = FULL`), at a cost per commit.
    Full,
}

/// How long a writer waits for another process's write before giving up
/// with the retryable `timeout` code.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Idle reader connections kept open.
const IDLE_READERS: usize = 8;

/// The knowledge store on one SQLite file.
pub struct SqliteStore {
    path: PathBuf,
    durability: Durability,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens (creating if needed, with its folder) the store at `path` and
    /// brings its schema up to date.
    pub fn open(path: &Path, durability: Durability) -> Result<SqliteStore, StoreError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                StoreError::Unavailable(format!("cannot create {}: {}", parent.display(), e.kind()))
            })?;
        }
        let writer = retry_busy(|| {
            let mut conn = open_connection(path, durability)?;
            schema::migrate(&mut conn)?;
            Ok(conn)
        })?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            durability,
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on the write connection.
    fn with_writer<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = self
            .writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut conn)
    }

    /// Runs `f` on a reader connection from the pool (opening one if all
    /// are busy).
    fn with_reader<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let pooled = self
            .readers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop();
        let conn = match pooled {
            Some(conn) => conn,
            None => retry_busy(|| open_connection(&self.path, self.durability))?,
        };
        let result = f(&conn);
        let mut idle = self
            .readers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if idle.len() < IDLE_READERS {
            idle.push(conn);
        }
        result
    }
}

/// Runs `open` until it stops failing with `Busy` or the busy timeout
/// passes. Two processes opening the same new file at once can meet a lock
/// SQLite does not wait on by itself (switching to WAL, WAL recovery).
fn retry_busy<T>(mut open: impl FnMut() -> Result<T, StoreError>) -> Result<T, StoreError> {
    let started = std::time::Instant::now();
    loop {
        match open() {
            Err(StoreError::Busy) if started.elapsed() < BUSY_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

fn open_connection(path: &Path, durability: Durability) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| {
        StoreError::Unavailable(format!(
            "cannot open the knowledge store {}: {}",
            path.display(),
            match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::NotADatabase) =>
                    "the file is not a Lore store".to_string(),
                _ => "check the path and its permissions".to_string(),
            }
        ))
    })?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Unavailable(format!(
            "the knowledge store {} cannot use write-ahead logging (got {mode}); put it on a local disk",
            path.display()
        )));
    }
    let synchronous = match durability {
        Durability::Process => "NORMAL",
        Durability::Full => "FULL",
    };
    conn.execute_batch(&format!(
        "PRAGMA synchronous = {synchronous}; PRAGMA foreign_keys = ON; PRAGMA wal_autocheckpoint = 10000;"
    ))?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(conn)
}

impl KnowledgeStore for SqliteStore {
    fn head(&self) -> Result<TxId, StoreError> {
        self.with_reader(read::head)
    }

    fn kind_head(&self, kind: EntryKind) -> Result<TxId, StoreError> {
        self.with_reader(|conn| read::kind_head(conn, kind))
    }

    fn store(&self, actor: &str, entry: NewEntry) -> Result<Written<Entry>, StoreError> {
        let mut written = self.store_batch(actor, vec![entry])?;
        let entry = written
            .1
            .pop()
            .ok_or_else(|| StoreError::Unavailable("the store wrote no entry".to_string()))?;
        Ok(Written {
            value: entry,
            tx_id: written.0,
            changed: true,
        })
    }

    fn store_batch(
        &self,
        actor: &str,
        entries: Vec<NewEntry>,
    ) -> Result<(TxId, Vec<Entry>), StoreError> {
        let entries = entries
            .into_iter()
            .map(crate::rules::EntryState::from_new)
            .collect::<Result<Vec<_>, _>>()?;
        self.with_writer(|conn| versioning::store_entries(conn, actor, entries))
    }

    fn update(
        &self,
        actor: &str,
        id: &str,
        patch: EntryPatch,
    ) -> Result<Written<Entry>, StoreError> {
        self.with_writer(|conn| versioning::update_entry(conn, actor, id, patch))
    }

    fn put(
        &self,
        actor: &str,
        entry: NewEntry,
        expected_version: Option<i64>,
    ) -> Result<Written<Entry>, StoreError> {
        let state = crate::rules::EntryState::from_new(entry)?;
        self.with_writer(|conn| versioning::put_entry(conn, actor, state, expected_version))
    }

    fn put_many(
        &self,
        actor: &str,
        summary: &str,
        writes: Vec<TopicWrite>,
    ) -> Result<BatchWritten, StoreError> {
        let changes = crate::rules::TopicChange::batch(writes)?;
        self.with_writer(|conn| versioning::put_many(conn, actor, summary, changes))
    }

    fn delete(&self, actor: &str, id: &str) -> Result<TxId, StoreError> {
        self.with_writer(|conn| versioning::delete(conn, actor, id))
    }

    fn relate_many(
        &self,
        actor: &str,
        summary: &str,
        relate: Vec<NewTriple>,
        unrelate: Vec<TripleKey>,
    ) -> Result<RelateManyWritten, StoreError> {
        self.with_writer(|conn| versioning::relate_many(conn, actor, summary, relate, unrelate))
    }

    fn relate(&self, actor: &str, triple: NewTriple) -> Result<Written<Triple>, StoreError> {
        self.with_writer(|conn| versioning::relate(conn, actor, triple))
    }

    fn unrelate(
        &self,
        actor: &str,
        subject: &str,
        predicate: &str,
        object: &str,
    ) -> Result<(String, TxId), StoreError> {
        self.with_writer(|conn| versioning::unrelate(conn, actor, subject, predicate, object))
    }

    fn undo(&self, actor: &str, tx_id: TxId, force: bool) -> Result<UndoResult, StoreError> {
        self.with_writer(|conn| versioning::undo(conn, actor, tx_id, force))
    }

    fn get(&self, id: &str, as_of_tx_id: Option<TxId>) -> Result<serde_json::Value, StoreError> {
        self.with_reader(|conn| read::get(conn, id, as_of_tx_id))
    }

    fn query(&self, query: &EntryQuery) -> Result<Page<Entry>, StoreError> {
        self.with_reader(|conn| read::query_entries(conn, query))
    }

    fn entries_at(
        &self,
        kind: Option<EntryKind>,
        as_of_tx_id: Option<TxId>,
    ) -> Result<(TxId, Vec<Entry>), StoreError> {
        self.with_reader(|conn| read::entries_at(conn, kind, as_of_tx_id))
    }

    fn list_triples(&self, query: &TripleQuery) -> Result<Page<Triple>, StoreError> {
        self.with_reader(|conn| read::list_triples(conn, query))
    }

    fn query_graph(&self, query: &GraphQuery) -> Result<GraphResult, StoreError> {
        self.with_reader(|conn| read::query_graph(conn, query))
    }

    fn history(&self, query: &HistoryQuery) -> Result<Page<HistoryItem>, StoreError> {
        self.with_reader(|conn| read::history(conn, query))
    }

    fn changes_since(&self, after: TxId, limit: usize) -> Result<Vec<TxChanges>, StoreError> {
        self.with_reader(|conn| read::changes_since(conn, after, limit))
    }

    fn transaction_stamped(&self, prefix: &str) -> Result<Option<TxId>, StoreError> {
        self.with_reader(|conn| read::transaction_stamped(conn, prefix))
    }

    fn reverted_by(&self, tx_id: TxId) -> Result<Option<TxId>, StoreError> {
        self.with_reader(|conn| read::reverted_by(conn, tx_id))
    }

    fn check(&self) -> Result<StoreHealth, StoreError> {
        self.with_reader(read::check)
    }

    fn entries_by_id(&self, ids: &[String], as_of: TxId) -> Result<Vec<Entry>, StoreError> {
        self.with_reader(|conn| read::entries_by_id(conn, ids, as_of))
    }

    fn cached_vectors(
        &self,
        model: &str,
        hashes: &[String],
    ) -> Result<std::collections::HashMap<String, Vec<f32>>, StoreError> {
        vectors::cached(self, model, hashes)
    }

    fn cache_vectors(&self, model: &str, vectors: &[(String, Vec<f32>)]) -> Result<(), StoreError> {
        vectors::cache(self, model, vectors)
    }

    fn record_search(&self, record: &SearchRecord) -> Result<(), StoreError> {
        feedback::record(self, record)
    }

    fn submit_feedback(&self, new: NewFeedback) -> Result<Feedback, StoreError> {
        feedback::submit(self, new)
    }

    fn feedback_since(&self, after: i64, limit: usize) -> Result<Vec<Feedback>, StoreError> {
        feedback::since(self, after, limit)
    }

    fn save_ingest_run(&self, run: &IngestRunRecord) -> Result<(), StoreError> {
        runs::save(self, run)
    }

    fn ingest_run(&self, run_id: &str) -> Result<Option<IngestRunRecord>, StoreError> {
        runs::get(self, run_id)
    }

    fn running_ingest_runs(&self) -> Result<Vec<IngestRunRecord>, StoreError> {
        runs::running(self)
    }

    fn save_task(&self, task: &TaskRecord) -> Result<bool, StoreError> {
        tasks::save(self, task)
    }

    fn task(&self, task_id: &str) -> Result<Option<TaskRecord>, StoreError> {
        tasks::get(self, task_id)
    }

    fn request_task_cancel(&self, task_id: &str) -> Result<bool, StoreError> {
        tasks::request_cancel(self, task_id)
    }

    fn acquire_lease(
        &self,
        name: &str,
        holder: &str,
        ttl_ms: i64,
    ) -> Result<crate::LeaseGrant, StoreError> {
        shared::acquire(self, name, holder, ttl_ms)
    }

    fn release_lease(&self, name: &str, holder: &str) -> Result<bool, StoreError> {
        shared::release(self, name, holder)
    }

    fn leases(&self, prefix: &str) -> Result<Vec<crate::Lease>, StoreError> {
        shared::list(self, prefix)
    }

    fn publish_files(
        &self,
        origin: &str,
        files: &[crate::SharedFile],
    ) -> Result<crate::Published, StoreError> {
        shared::publish(self, origin, files)
    }

    fn shared_files_since(
        &self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<crate::SharedFileVersion>, StoreError> {
        shared::since(self, after, limit)
    }

    fn shared_files_pending(
        &self,
        after: i64,
        origin: &str,
    ) -> Result<std::collections::BTreeMap<String, u64>, StoreError> {
        shared::pending(self, after, origin)
    }

    fn shared_file(
        &self,
        root: &str,
        path: &str,
    ) -> Result<Option<crate::SharedFileVersion>, StoreError> {
        shared::live(self, root, path)
    }

    fn backup_to(&self, target: &Path) -> Result<TxId, StoreError> {
        if target.exists() {
            return Err(StoreError::Conflict {
                message: format!("{} already exists; back up to a new path", target.display()),
                ids: Vec::new(),
            });
        }
        // VACUUM INTO copies one read transaction's snapshot: consistent,
        // and writers in this or other processes are not blocked. It
        // writes beside the target first, so a failure leaves no file; the
        // copy's own head says what it holds. Rows keep their numbers, so
        // the copy goes on counting where this store stood (see
        // `restore.rs`); the leases are emptied in the copy: they are
        // locks of processes running now, not state to bring back.
        let partial = target.with_extension("partial");
        let _ = std::fs::remove_file(&partial);
        let copied = self
            .with_reader(|conn| {
                conn.execute("VACUUM INTO ?1", [partial.to_string_lossy()])?;
                Ok(())
            })
            .and_then(|()| {
                let copy = Connection::open(&partial)?;
                copy.execute("DELETE FROM leases", [])?;
                let head = read::head(&copy)?;
                copy.close().map_err(|(_, e)| StoreError::from(e))?;
                Ok(head)
            })
            .and_then(|head| {
                std::fs::rename(&partial, target).map_err(|e| {
                    StoreError::Unavailable(format!("cannot write the backup: {e}"))
                })?;
                Ok(head)
            });
        if copied.is_err() {
            let _ = std::fs::remove_file(&partial);
        }
        copied
    }
}
