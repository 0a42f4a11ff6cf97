//! Lore's versioned knowledge store.
//!
//! The store is a transaction log. Every change (storing, updating or
//! deleting an entry, relating or unrelating two nodes, undoing an earlier
//! change) is one transaction with a strictly increasing `tx_id`, and
//! writes new *versions* of rows instead of overwriting them. So:
//!
//! - **history** is exact: every version an entry or triple ever had, and
//!   the transaction that wrote it;
//! - **as-of reads** see the state right after any transaction, with the
//!   same code that reads the current state;
//! - **undo** reverts one transaction by writing a new one that restores
//!   the rows it changed, refusing (unless forced) when a later transaction
//!   touched the same rows.
//!
//! Entries are knowledge items (memory notes, wiki pages, semantic-layer
//! files, documents) and triples are graph edges `subject —predicate→
//! object`. [`mirror`] keeps entries of one kind in step with a folder of
//! files people edit (the wiki, the semantic layer).
//! [`KnowledgeStore`] is the interface; [`SqliteStore`] implements it on one
//! SQLite file that several processes can share safely, and
//! [`PostgresStore`] on a schema of a PostgreSQL database that processes on
//! several machines can share. Both pass the same contract
//! (`tests/contract/`).
//!
//! ```
//! use lore_store::{Durability, KnowledgeStore, NewEntry, SqliteStore};
//! # let dir = tempfile::tempdir().unwrap();
//! let store = SqliteStore::open(&dir.path().join("store.db"), Durability::Process).unwrap();
//! let written = store
//!     .store("cli", NewEntry { topic: "deployment".into(), content: "Blue-green deploys.".into(), ..Default::default() })
//!     .unwrap();
//! assert_eq!(written.value.version, 1);
//! ```
#![doc = include_str!("../README.md")]

mod cursor;
pub mod error;
pub mod feed;
mod graph;
pub mod mirror;
pub mod model;
pub mod postgres;
mod rules;
pub mod shared;
mod sqlite;
mod tasks;
mod text;
mod versioning;

pub use error::StoreError;
pub use model::*;
pub use postgres::{MigrationReport, PostgresStore, migrate_sqlite_to_postgres};
pub use shared::{Lease, LeaseGrant, Published, SharedFile, SharedFileVersion};
pub use sqlite::{Durability, SCHEMA_VERSION, SqliteStore};

/// Everything Lore does with its knowledge store. Implementations must make
/// every write one atomic transaction, safe against concurrent writers in
/// other processes.
pub trait KnowledgeStore: Send + Sync {
    /// The newest committed transaction (0 for an empty store).
    fn head(&self) -> Result<TxId, StoreError>;

    /// The newest transaction that changed an entry of `kind` (stored,
    /// updated, deleted or restored by an undo), 0 when none did: a reader
    /// of one kind (the wiki mirror) skips its work when only other kinds
    /// changed.
    fn kind_head(&self, kind: EntryKind) -> Result<TxId, StoreError>;

    /// Stores a new entry.
    fn store(&self, actor: &str, entry: NewEntry) -> Result<Written<Entry>, StoreError>;

    /// Stores several entries in one transaction: all or none.
    fn store_batch(
        &self,
        actor: &str,
        entries: Vec<NewEntry>,
    ) -> Result<(TxId, Vec<Entry>), StoreError>;

    /// Changes an entry, writing its next version (nothing when nothing
    /// changes).
    fn update(
        &self,
        actor: &str,
        id: &str,
        patch: EntryPatch,
    ) -> Result<Written<Entry>, StoreError>;

    /// Writes the entry of one kind that a topic names (wiki pages: one
    /// entry per page path): a new version of the live one, or a new entry
    /// when none is live. `expected_version` 0 means "must not exist yet";
    /// another number must be the live version. Atomic across processes.
    fn put(
        &self,
        actor: &str,
        entry: NewEntry,
        expected_version: Option<i64>,
    ) -> Result<Written<Entry>, StoreError>;

    /// Writes or removes the live entries several topics name (each like
    /// [`KnowledgeStore::put`]) in one transaction whose summary is
    /// `summary`: all or none. Every expected version is checked before
    /// anything is written; a topic written twice is refused; nothing is
    /// written when no change changes anything. Undoing the transaction
    /// reverts every change at once (a file mirror's multi-file writes).
    fn put_many(
        &self,
        actor: &str,
        summary: &str,
        writes: Vec<TopicWrite>,
    ) -> Result<BatchWritten, StoreError>;

    /// Adds (or changes the confidence and properties of) the relations
    /// in `relate` and removes those in `unrelate`, in one transaction
    /// whose summary is `summary`: all or none, every node checked before
    /// anything is written. A relation already as asked is left alone and
    /// a removal of a relation that is not there is skipped, so a graph
    /// kept in step with files can be written again after a crash;
    /// nothing is written when nothing changes. A relation both added and
    /// removed is refused. Undoing the transaction reverts it all.
    fn relate_many(
        &self,
        actor: &str,
        summary: &str,
        relate: Vec<NewTriple>,
        unrelate: Vec<TripleKey>,
    ) -> Result<RelateManyWritten, StoreError>;

    /// Deletes an entry (`e-…`) or triple (`t-…`) by writing a tombstone
    /// version; history keeps every earlier version.
    fn delete(&self, actor: &str, id: &str) -> Result<TxId, StoreError>;

    /// Relates two nodes; relating an existing relation again changes only
    /// what differs (confidence, properties).
    fn relate(&self, actor: &str, triple: NewTriple) -> Result<Written<Triple>, StoreError>;

    /// Removes the relation `subject —predicate→ object`; returns its id and
    /// the transaction.
    fn unrelate(
        &self,
        actor: &str,
        subject: &str,
        predicate: &str,
        object: &str,
    ) -> Result<(String, TxId), StoreError>;

    /// Reverts one transaction as a new transaction.
    fn undo(&self, actor: &str, tx_id: TxId, force: bool) -> Result<UndoResult, StoreError>;

    /// One entry or triple (as JSON), now or as of a transaction.
    fn get(&self, id: &str, as_of_tx_id: Option<TxId>) -> Result<serde_json::Value, StoreError>;

    /// Finds entries.
    fn query(&self, query: &EntryQuery) -> Result<Page<Entry>, StoreError>;

    /// Every live entry (of `kind`, or all) as of a transaction (the
    /// newest when `None`), oldest first, with the transaction read: what a
    /// search index or a mirror is rebuilt from.
    fn entries_at(
        &self,
        kind: Option<EntryKind>,
        as_of_tx_id: Option<TxId>,
    ) -> Result<(TxId, Vec<Entry>), StoreError>;

    /// Lists triples.
    fn list_triples(&self, query: &TripleQuery) -> Result<Page<Triple>, StoreError>;

    /// Walks the graph from a node.
    fn query_graph(&self, query: &GraphQuery) -> Result<GraphResult, StoreError>;

    /// Lists transactions.
    fn history(&self, query: &HistoryQuery) -> Result<Page<HistoryItem>, StoreError>;

    /// The newest transaction whose summary starts with `prefix` (a
    /// writer's stamp, such as a `memory_ingest` run's id, written in the
    /// same commit as its changes), `None` when no transaction has it.
    /// Reads the whole log when none matches: for recovering the rare
    /// run whose process died, not for every request.
    fn transaction_stamped(&self, prefix: &str) -> Result<Option<TxId>, StoreError>;

    /// The first transaction that reverted `tx_id` (an undo of it), `None`
    /// while none has.
    fn reverted_by(&self, tx_id: TxId) -> Result<Option<TxId>, StoreError>;

    /// What each transaction after `after` changed, oldest first: the
    /// change feed behind subscriptions.
    fn changes_since(&self, after: TxId, limit: usize) -> Result<Vec<TxChanges>, StoreError>;

    /// Verifies the file and counts what it holds.
    fn check(&self) -> Result<StoreHealth, StoreError>;

    /// The entries with these ids as of a transaction (those live then),
    /// in one read: for listings ranked outside the store.
    fn entries_by_id(&self, ids: &[String], as_of: TxId) -> Result<Vec<Entry>, StoreError>;

    /// The embedding cache: the cached vectors of `model` for those of
    /// `hashes` it has. The cache is not knowledge (no transaction, no
    /// history): a text embedded once is never sent to a provider again,
    /// whichever process asks.
    fn cached_vectors(
        &self,
        model: &str,
        hashes: &[String],
    ) -> Result<std::collections::HashMap<String, Vec<f32>>, StoreError>;

    /// Caches vectors of `model` (replacing any under the same hash), all
    /// in one write.
    fn cache_vectors(&self, model: &str, vectors: &[(String, Vec<f32>)]) -> Result<(), StoreError>;

    /// Writes a consistent copy of the whole store to `target` while
    /// readers and writers go on (an online backup), and returns the
    /// transaction the copy holds everything up to. `target` must not
    /// exist; a failed backup leaves nothing there. The copy is an SQLite
    /// store file holding the knowledge with its history, the embedding
    /// cache, searches, feedback, ingest runs and the gateway's file log,
    /// each row with its number, so a store restored from it goes on
    /// numbering after the highest copied one and a server following the
    /// file log can rebuild its index from it. Leases are not copied:
    /// they are locks of processes running now, and a restored store
    /// starts with none.
    fn backup_to(&self, target: &std::path::Path) -> Result<TxId, StoreError>;

    /// Records a search the gateway answered (the newest 10,000 are
    /// kept). Not knowledge: no transaction, no history.
    fn record_search(&self, record: &SearchRecord) -> Result<(), StoreError>;

    /// Stores feedback on a result of a recorded search: `NotFound` when
    /// the search is unknown (or no longer kept) or the chunk was not
    /// among its results, `Invalid` for a vote outside -1..1.
    fn submit_feedback(&self, feedback: NewFeedback) -> Result<Feedback, StoreError>;

    /// The feedback stored after id `after`, oldest first (at most
    /// `limit`).
    fn feedback_since(&self, after: i64, limit: usize) -> Result<Vec<Feedback>, StoreError>;

    /// Stores a `memory_ingest` run, replacing the record of the same id
    /// (the newest 1,000 runs are kept). Not knowledge: no transaction.
    fn save_ingest_run(&self, run: &IngestRunRecord) -> Result<(), StoreError>;

    /// One `memory_ingest` run by id.
    fn ingest_run(&self, run_id: &str) -> Result<Option<IngestRunRecord>, StoreError>;

    /// The runs whose status is still `running` (to find those whose
    /// process died).
    fn running_ingest_runs(&self) -> Result<Vec<IngestRunRecord>, StoreError>;

    /// Stores an MCP task's record, replacing the one of the same id but
    /// keeping a cancellation already asked for; forgets the tasks whose
    /// `expires_at` has passed. Answers whether the task's cancellation
    /// has been asked for (by any server). Not knowledge: no transaction.
    fn save_task(&self, task: &TaskRecord) -> Result<bool, StoreError>;

    /// One task by id (`None` when unknown or forgotten).
    fn task(&self, task_id: &str) -> Result<Option<TaskRecord>, StoreError>;

    /// Asks for a task's cancellation (its server stops it cooperatively);
    /// `false` when the task is unknown.
    fn request_task_cancel(&self, task_id: &str) -> Result<bool, StoreError>;

    /// Takes the lease `name` for `holder` for `ttl_ms` (by the store's
    /// clock) when nobody holds it (never taken, released, or lapsed), or
    /// renews it when `holder` holds it; otherwise answers the other
    /// holder's lease, `granted: false`. Atomic across processes. Not
    /// knowledge: no transaction (see [`shared`]).
    fn acquire_lease(
        &self,
        name: &str,
        holder: &str,
        ttl_ms: i64,
    ) -> Result<LeaseGrant, StoreError>;

    /// Releases `holder`'s lease `name` (kept as its last holder's, ended
    /// now); `false` when `holder` did not hold it.
    fn release_lease(&self, name: &str, holder: &str) -> Result<bool, StoreError>;

    /// The leases whose name starts with `prefix`, held or not, by name.
    fn leases(&self, prefix: &str) -> Result<Vec<Lease>, StoreError>;

    /// Appends to the gateway's file log, in one write, a version of each
    /// of `files` whose hash differs from its live version's, or that
    /// closes a live file; `origin` names the writer. Append-only: no row
    /// is changed or removed. Answers the log's newest sequence number.
    fn publish_files(&self, origin: &str, files: &[SharedFile]) -> Result<Published, StoreError>;

    /// The file log's versions after sequence number `after`, oldest first
    /// (at most `limit`); sequence numbers commit in order, so a reader
    /// that remembers the last one it applied misses nothing.
    fn shared_files_since(
        &self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<SharedFileVersion>, StoreError>;

    /// How many versions after sequence number `after` writers other
    /// than `origin` wrote, by root: what a server that applied the log up
    /// to `after` has yet to apply (`km-ingest-status`'s freshness of the
    /// roots other servers ingest).
    fn shared_files_pending(
        &self,
        after: i64,
        origin: &str,
    ) -> Result<std::collections::BTreeMap<String, u64>, StoreError>;

    /// The live version of one file of the log (its newest: `chunks:
    /// None` when it closed the file), or `None` when the log never held
    /// it. What a server serves of a file another server ingested.
    fn shared_file(&self, root: &str, path: &str) -> Result<Option<SharedFileVersion>, StoreError>;
}
