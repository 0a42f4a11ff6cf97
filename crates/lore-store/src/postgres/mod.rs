//! The PostgreSQL backend: the store's tables in a schema of their own
//! (`lore` unless told otherwise) on a server that several processes and
//! machines share. It behaves as the SQLite backend does (the same
//! contract suite runs on both, and a long random session is compared
//! operation by operation); what differs is how:
//!
//! - **Writes** are one PostgreSQL transaction each, queued on one row
//!   lock so transaction ids are strictly increasing and commit in order
//!   across processes (`write.rs` says why this and not a sequence or
//!   `SERIALIZABLE`). A writer waits at most [`LOCK_TIMEOUT_MS`] for
//!   another (or the url's `options=-c lock_timeout=…`), then fails with
//!   the retryable `timeout` code, like SQLite's busy timeout.
//! - **Change notification**: every committed write sends
//!   `NOTIFY <channel>, '<tx_id>'` from inside its transaction, so
//!   processes that `LISTEN` wake at once instead of polling. The channel
//!   is [`NOTIFY_CHANNEL`] (`lore_store`) for the default schema and
//!   `lore_store_<schema>` for another, so stores sharing a database do
//!   not wake each other ([`PostgresStore::notify_channel`]).
//! - **Threads**: the trait is synchronous; queries are polled on the
//!   calling thread while a private runtime drives the connections, so any
//!   thread may call, a tokio worker or blocking-pool thread included
//!   (`session.rs`). One store opens at most 16 connections.
//! - **Backups** ([`crate::KnowledgeStore::backup_to`]) write an SQLite
//!   store file holding the same transactions and rows, read from one
//!   snapshot (`backup.rs`); the other way, [`migrate_sqlite_to_postgres`]
//!   copies an SQLite store file into an empty PostgreSQL store with the
//!   same transactions and rows, in one transaction checked against the
//!   file before it commits (`migrate/`).
//! - **Full text** is a `tsvector` per version over the same words as
//!   SQLite's index (case and Latin accents folded), stemmed by Snowball's
//!   English stemmer where SQLite uses Porter's, and ranked by `ts_rank`
//!   with SQLite's weights (topic 3, tags 2, content 1) instead of BM25:
//!   the same entries match (but for the rare word the two stemmers cut
//!   differently), and matches may come in another order.
//! - **Check**: PostgreSQL has no `integrity_check`; `integrity_ok` says
//!   that every entry and triple has exactly one current version and the
//!   transaction counter is the newest transaction.
//!
//! Two differences are visible: PostgreSQL text cannot hold the NUL
//! character, so a write containing one is refused (`invalid_request`)
//! where SQLite stores it; and connections use the url's settings
//! (`postgres://user:password@host:port/db`, `connect_timeout`,
//! `application_name`…), with TLS as libpq's `sslmode` says (default
//! `prefer`; `require`, `verify-ca`, `verify-full`, and `sslrootcert` for
//! a CA file: `lore_tls::postgres`).

mod backup;
mod feedback;
mod migrate;
mod read;
mod runs;
mod schema;
mod session;
mod shared;
mod tasks;
mod vectors;
mod versions;
mod write;

use std::path::Path;
use std::time::Duration;

use lore_tls::postgres::PgTarget;

pub use migrate::{MigrationReport, migrate_sqlite_to_postgres};
pub use schema::SCHEMA_VERSION;
use session::Sessions;

use crate::KnowledgeStore;
use crate::error::StoreError;
use crate::model::*;
use crate::rules::{EntryState, TopicChange};
use crate::versioning;

/// The schema a store lives in unless told otherwise.
pub const DEFAULT_SCHEMA: &str = "lore";

/// The channel the store in [`DEFAULT_SCHEMA`] notifies after each
/// committed write, with the transaction id as payload.
pub const NOTIFY_CHANNEL: &str = "lore_store";

/// How long a writer waits for another's lock before failing with the
/// retryable `timeout` code (SQLite's busy timeout), unless the url sets
/// `lock_timeout` in its `options`.
pub const LOCK_TIMEOUT_MS: u64 = 10_000;

/// How long opening a connection may take unless the url says.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest schema name (so `lore_store_<schema>` is a channel name
/// PostgreSQL accepts: 63 bytes).
const SCHEMA_NAME_MAX: usize = 52;

/// The knowledge store in one schema of a PostgreSQL database.
///
/// ```no_run
/// use lore_store::{KnowledgeStore, NewEntry, PostgresStore};
/// let store = PostgresStore::open("postgres://lore@db.internal:5432/knowledge").unwrap();
/// let written = store
///     .store("cli", NewEntry { topic: "deployment".into(), content: "Blue-green deploys.".into(), ..Default::default() })
///     .unwrap();
/// assert_eq!(written.value.version, 1);
/// ```
pub struct PostgresStore {
    schema: String,
    channel: String,
    target: String,
    sessions: Sessions,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("server", &self.target)
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Opens the store in schema [`DEFAULT_SCHEMA`] of the database `url`
    /// names, creating the schema and its tables (or bringing them up to
    /// date) if needed.
    pub fn open(url: &str) -> Result<PostgresStore, StoreError> {
        PostgresStore::open_in_schema(url, DEFAULT_SCHEMA)
    }

    /// [`open`](PostgresStore::open), a relative `sslrootcert` of the url
    /// read from `base_dir` (a project's folder) instead of the current
    /// one.
    pub fn open_in(url: &str, base_dir: &Path) -> Result<PostgresStore, StoreError> {
        PostgresStore::connect(url, DEFAULT_SCHEMA, base_dir)
    }

    /// Opens the store in schema `schema` (lower-case letters, digits and
    /// `_`, at most 52 characters, not starting with a digit or `pg_`):
    /// several stores, such as one per project or per test, can share a
    /// database. The url's own `search_path` is not used.
    pub fn open_in_schema(url: &str, schema: &str) -> Result<PostgresStore, StoreError> {
        PostgresStore::connect(url, schema, Path::new("."))
    }

    fn connect(url: &str, schema: &str, base_dir: &Path) -> Result<PostgresStore, StoreError> {
        check_schema_name(schema)?;
        let mut target = PgTarget::parse(url).map_err(|e| {
            StoreError::Refused(format!(
                "the store url is not a PostgreSQL url ({e}); write postgres://user:password@host:5432/database"
            ))
        })?;
        let tls = target.tls(base_dir).map_err(|e| {
            StoreError::Refused(format!("the store url's TLS settings cannot be used: {e}"))
        })?;
        let config = &mut target.config;
        if config.get_application_name().is_none() {
            config.application_name("lore-store");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let mut setup = format!("SET search_path TO {}", schema::quoted(schema));
        // The url may set its own (`options=-c lock_timeout=…`).
        if !config
            .get_options()
            .is_some_and(|o| o.contains("lock_timeout"))
        {
            setup.push_str(&format!("; SET lock_timeout = {LOCK_TIMEOUT_MS}"));
        }
        let channel = if schema == DEFAULT_SCHEMA {
            NOTIFY_CHANNEL.to_string()
        } else {
            format!("{NOTIFY_CHANNEL}_{schema}")
        };
        let address = target.address();
        let sessions = Sessions::new(target, tls, setup, &channel)?;
        sessions.with(|session| schema::migrate(session, schema))?;
        Ok(PostgresStore {
            schema: schema.to_string(),
            channel,
            target: address,
            sessions,
        })
    }

    /// The schema the store's tables are in.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// The channel every committed write notifies with its transaction id
    /// as payload (`LISTEN` on it to wake when the store changes).
    pub fn notify_channel(&self) -> &str {
        &self.channel
    }
}

/// A plain lower-case identifier that needs no escaping anywhere.
fn check_schema_name(schema: &str) -> Result<(), StoreError> {
    let plain = schema
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    let starts_well = schema
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
    if plain && starts_well && schema.len() <= SCHEMA_NAME_MAX && !schema.starts_with("pg_") {
        Ok(())
    } else {
        Err(StoreError::Refused(format!(
            "`{schema}` cannot name the store's schema: use lower-case letters, digits and _, at most {SCHEMA_NAME_MAX} characters, starting with a letter (not pg_), e.g. lore"
        )))
    }
}

impl KnowledgeStore for PostgresStore {
    fn head(&self) -> Result<TxId, StoreError> {
        self.sessions.with(read::head)
    }

    fn kind_head(&self, kind: EntryKind) -> Result<TxId, StoreError> {
        self.sessions.with(|s| read::kind_head(s, kind))
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
            .map(EntryState::from_new)
            .collect::<Result<Vec<_>, _>>()?;
        self.sessions
            .with(|s| versioning::store_entries(s, actor, entries))
    }

    fn update(
        &self,
        actor: &str,
        id: &str,
        patch: EntryPatch,
    ) -> Result<Written<Entry>, StoreError> {
        self.sessions
            .with(|s| versioning::update_entry(s, actor, id, patch))
    }

    fn put(
        &self,
        actor: &str,
        entry: NewEntry,
        expected_version: Option<i64>,
    ) -> Result<Written<Entry>, StoreError> {
        let state = EntryState::from_new(entry)?;
        self.sessions
            .with(|s| versioning::put_entry(s, actor, state, expected_version))
    }

    fn put_many(
        &self,
        actor: &str,
        summary: &str,
        writes: Vec<TopicWrite>,
    ) -> Result<BatchWritten, StoreError> {
        let changes = TopicChange::batch(writes)?;
        self.sessions
            .with(|s| versioning::put_many(s, actor, summary, changes))
    }

    fn relate_many(
        &self,
        actor: &str,
        summary: &str,
        relate: Vec<NewTriple>,
        unrelate: Vec<TripleKey>,
    ) -> Result<RelateManyWritten, StoreError> {
        self.sessions
            .with(|s| versioning::relate_many(s, actor, summary, relate, unrelate))
    }

    fn delete(&self, actor: &str, id: &str) -> Result<TxId, StoreError> {
        self.sessions.with(|s| versioning::delete(s, actor, id))
    }

    fn relate(&self, actor: &str, triple: NewTriple) -> Result<Written<Triple>, StoreError> {
        self.sessions.with(|s| versioning::relate(s, actor, triple))
    }

    fn unrelate(
        &self,
        actor: &str,
        subject: &str,
        predicate: &str,
        object: &str,
    ) -> Result<(String, TxId), StoreError> {
        self.sessions
            .with(|s| versioning::unrelate(s, actor, subject, predicate, object))
    }

    fn undo(&self, actor: &str, tx_id: TxId, force: bool) -> Result<UndoResult, StoreError> {
        self.sessions
            .with(|s| versioning::undo(s, actor, tx_id, force))
    }

    fn get(&self, id: &str, as_of_tx_id: Option<TxId>) -> Result<serde_json::Value, StoreError> {
        self.sessions.with(|s| read::get_one(s, id, as_of_tx_id))
    }

    fn query(&self, query: &EntryQuery) -> Result<Page<Entry>, StoreError> {
        self.sessions.with(|s| read::query_entries(s, query))
    }

    fn entries_at(
        &self,
        kind: Option<EntryKind>,
        as_of_tx_id: Option<TxId>,
    ) -> Result<(TxId, Vec<Entry>), StoreError> {
        self.sessions
            .with(|s| read::entries_at(s, kind, as_of_tx_id))
    }

    fn list_triples(&self, query: &TripleQuery) -> Result<Page<Triple>, StoreError> {
        self.sessions.with(|s| read::list_triples(s, query))
    }

    fn query_graph(&self, query: &GraphQuery) -> Result<GraphResult, StoreError> {
        self.sessions.with(|s| read::query_graph(s, query))
    }

    fn history(&self, query: &HistoryQuery) -> Result<Page<HistoryItem>, StoreError> {
        self.sessions.with(|s| read::history(s, query))
    }

    fn changes_since(&self, after: TxId, limit: usize) -> Result<Vec<TxChanges>, StoreError> {
        self.sessions.with(|s| read::changes_since(s, after, limit))
    }

    fn transaction_stamped(&self, prefix: &str) -> Result<Option<TxId>, StoreError> {
        self.sessions.with(|s| read::transaction_stamped(s, prefix))
    }

    fn reverted_by(&self, tx_id: TxId) -> Result<Option<TxId>, StoreError> {
        self.sessions.with(|s| read::reverted_by(s, tx_id))
    }

    fn check(&self) -> Result<StoreHealth, StoreError> {
        self.sessions.with(read::check)
    }

    fn entries_by_id(&self, ids: &[String], as_of: TxId) -> Result<Vec<Entry>, StoreError> {
        self.sessions.with(|s| read::entries_by_id(s, ids, as_of))
    }

    fn cached_vectors(
        &self,
        model: &str,
        hashes: &[String],
    ) -> Result<std::collections::HashMap<String, Vec<f32>>, StoreError> {
        self.sessions.with(|s| vectors::cached(s, model, hashes))
    }

    fn cache_vectors(&self, model: &str, vectors: &[(String, Vec<f32>)]) -> Result<(), StoreError> {
        self.sessions.with(|s| vectors::cache(s, model, vectors))
    }

    fn backup_to(&self, target: &Path) -> Result<TxId, StoreError> {
        self.sessions.with(|s| backup::to_sqlite(s, target))
    }

    fn record_search(&self, record: &SearchRecord) -> Result<(), StoreError> {
        self.sessions.with(|s| feedback::record(s, record))
    }

    fn submit_feedback(&self, new: NewFeedback) -> Result<Feedback, StoreError> {
        self.sessions.with(|s| feedback::submit(s, new))
    }

    fn feedback_since(&self, after: i64, limit: usize) -> Result<Vec<Feedback>, StoreError> {
        self.sessions.with(|s| feedback::since(s, after, limit))
    }

    fn save_ingest_run(&self, run: &IngestRunRecord) -> Result<(), StoreError> {
        self.sessions.with(|s| runs::save(s, run))
    }

    fn ingest_run(&self, run_id: &str) -> Result<Option<IngestRunRecord>, StoreError> {
        self.sessions.with(|s| runs::get_run(s, run_id))
    }

    fn running_ingest_runs(&self) -> Result<Vec<IngestRunRecord>, StoreError> {
        self.sessions.with(runs::running)
    }

    fn save_task(&self, task: &TaskRecord) -> Result<bool, StoreError> {
        self.sessions.with(|s| tasks::save(s, task))
    }

    fn task(&self, task_id: &str) -> Result<Option<TaskRecord>, StoreError> {
        self.sessions.with(|s| tasks::get_task(s, task_id))
    }

    fn request_task_cancel(&self, task_id: &str) -> Result<bool, StoreError> {
        self.sessions.with(|s| tasks::request_cancel(s, task_id))
    }

    fn acquire_lease(
        &self,
        name: &str,
        holder: &str,
        ttl_ms: i64,
    ) -> Result<crate::LeaseGrant, StoreError> {
        self.sessions
            .with(|s| shared::acquire(s, name, holder, ttl_ms))
    }

    fn release_lease(&self, name: &str, holder: &str) -> Result<bool, StoreError> {
        self.sessions.with(|s| shared::release(s, name, holder))
    }

    fn leases(&self, prefix: &str) -> Result<Vec<crate::Lease>, StoreError> {
        self.sessions.with(|s| shared::list(s, prefix))
    }

    fn publish_files(
        &self,
        origin: &str,
        files: &[crate::SharedFile],
    ) -> Result<crate::Published, StoreError> {
        self.sessions.with(|s| shared::publish(s, origin, files))
    }

    fn shared_files_since(
        &self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<crate::SharedFileVersion>, StoreError> {
        self.sessions.with(|s| shared::since(s, after, limit))
    }

    fn shared_files_pending(
        &self,
        after: i64,
        origin: &str,
    ) -> Result<std::collections::BTreeMap<String, u64>, StoreError> {
        self.sessions.with(|s| shared::pending(s, after, origin))
    }

    fn shared_file(
        &self,
        root: &str,
        path: &str,
    ) -> Result<Option<crate::SharedFileVersion>, StoreError> {
        self.sessions.with(|s| shared::live(s, root, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_are_plain_identifiers() {
        for good in ["lore", "lore_test_1", "_x"] {
            assert!(check_schema_name(good).is_ok(), "{good}");
        }
        for bad in ["", "Lore", "1x", "pg_lore", "a-b", "a\"b", &"x".repeat(53)] {
            assert!(check_schema_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_url_that_is_not_postgres_or_names_a_missing_ca_is_refused_before_connecting() {
        use lore_core::error::HasErrorCode;
        let error = PostgresStore::open("mysql:://nope").unwrap_err();
        assert_eq!(error.code().as_str(), "invalid_request");
        let error = PostgresStore::open("postgres://postgres@127.0.0.1:1/test?sslmode=sometimes")
            .unwrap_err();
        assert!(error.to_string().contains("verify-full"), "{error}");
        let dir = tempfile::tempdir().unwrap();
        let error = PostgresStore::open_in(
            "postgres://postgres@127.0.0.1:1/test?sslmode=verify-full&sslrootcert=ca.pem",
            dir.path(),
        )
        .unwrap_err();
        assert_eq!(error.code().as_str(), "invalid_request");
        assert!(error.to_string().contains("ca.pem"), "{error}");
        // TLS asked for, nothing listening: the server is unreachable.
        let error = PostgresStore::open("postgres://postgres@127.0.0.1:1/test?sslmode=require")
            .unwrap_err();
        assert_eq!(error.code().as_str(), "store_unavailable", "{error}");
    }
}
