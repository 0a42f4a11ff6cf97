//! The version rules of every write, written once above the SQL: what
//! each write of [`crate::KnowledgeStore`] reads, what versions it writes
//! (closing the ones they replace), in which order, with which
//! transaction summary and which refusals. What a version may hold and
//! the wording of summaries and refusals are in [`crate::rules`].
//!
//! A backend supplies only its queries, by implementing [`Writer`] (how a
//! write transaction starts) and [`WriteTx`] (each read and write the
//! rules ask for inside it): `sqlite/write.rs` and `postgres/write.rs`.
//! Every write here is one transaction: it checks what it was given,
//! begins, reads, writes and commits; an error returns before the commit
//! and the dropped transaction rolls back, so a write commits whole or
//! leaves nothing.
//!
//! - `entries.rs`: storing, updating and deleting entries, and writing
//!   the live entry a topic names (one or a batch);
//! - `triples.rs`: relating, unrelating and deleting triples (one or a
//!   batch);
//! - `undo.rs`: reverting a transaction.

mod entries;
mod triples;
mod undo;

pub(crate) use entries::{put_entry, put_many, store_entries, update_entry};
pub(crate) use triples::{relate, relate_many, unrelate};
pub(crate) use undo::undo;

use crate::error::StoreError;
use crate::model::*;
use crate::rules::{EntryState, TripleState};

/// A connection that starts write transactions: one writer at a time,
/// across processes, sees the rows every earlier writer committed.
pub(crate) trait Writer {
    /// The transaction a write runs in; dropped uncommitted, it rolls
    /// back.
    type Tx<'a>: WriteTx
    where
        Self: 'a;

    /// Starts a write transaction, waiting for the writer before (and
    /// failing with the retryable [`StoreError::Busy`] after the
    /// backend's timeout).
    fn begin_write(&mut self) -> Result<Self::Tx<'_>, StoreError>;
}

/// The table of the versions of entries or of triples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VersionTable {
    /// `entry_versions`.
    Entries,
    /// `triple_versions`.
    Triples,
}

impl VersionTable {
    /// The table's name in SQL.
    pub fn name(self) -> &'static str {
        match self {
            VersionTable::Entries => "entry_versions",
            VersionTable::Triples => "triple_versions",
        }
    }
}

/// The reads and writes the version rules make inside one write
/// transaction: each backend's queries. A *current* version is the one
/// still valid (a tombstone included); a version a transaction
/// *replaced* is the one whose validity that transaction ended.
pub(crate) trait WriteTx {
    /// Appends the transaction record (with the time it is written at,
    /// which it returns with the new transaction's id).
    fn log_transaction(
        &mut self,
        actor: &str,
        kind: &str,
        summary: &str,
        reverts: Option<TxId>,
    ) -> Result<(TxId, String), StoreError>;

    /// The row id the next version written to `table` takes (new entries
    /// are named `e-<vid>`, new triples `t-<vid>`).
    fn next_vid(&mut self, table: VersionTable) -> Result<i64, StoreError>;

    /// The newest transaction.
    fn head(&mut self) -> Result<TxId, StoreError>;

    /// The current version of entry `id`.
    fn current_entry(&mut self, id: &str) -> Result<Option<Entry>, StoreError>;

    /// The version of entry `id` transaction `tx_id` replaced.
    fn entry_replaced_by(&mut self, id: &str, tx_id: TxId) -> Result<Option<Entry>, StoreError>;

    /// The current version of triple `id`.
    fn current_triple(&mut self, id: &str) -> Result<Option<Triple>, StoreError>;

    /// The version of triple `id` transaction `tx_id` replaced.
    fn triple_replaced_by(&mut self, id: &str, tx_id: TxId) -> Result<Option<Triple>, StoreError>;

    /// The live entry of `kind` whose topic is `topic` (compared
    /// case-insensitively; the oldest such entry if there are several).
    fn live_by_topic(&mut self, kind: EntryKind, topic: &str) -> Result<Option<Entry>, StoreError>;

    /// The current version of the relation `s —p→ o` (a live one over a
    /// tombstone).
    fn triple_by_spo(&mut self, s: &str, p: &str, o: &str) -> Result<Option<Triple>, StoreError>;

    /// The current versions of every relation of `subject`, tombstones
    /// first.
    fn relations_of(&mut self, subject: &str) -> Result<Vec<Triple>, StoreError>;

    /// Ends the validity of the current version of `id` in `table` at
    /// transaction `tx_id`.
    fn close_version(
        &mut self,
        table: VersionTable,
        id: &str,
        tx_id: TxId,
    ) -> Result<(), StoreError>;

    /// Inserts `entry` as the current version of its entry, with row id
    /// `vid`, and gives it back (taken by value, so a backend that builds
    /// its row around it need not copy it).
    fn insert_entry_version(&mut self, vid: i64, entry: Entry) -> Result<Entry, StoreError>;

    /// Inserts `triple` as the current version of its triple, with row id
    /// `vid`, and gives it back.
    fn insert_triple_version(&mut self, vid: i64, triple: Triple) -> Result<Triple, StoreError>;

    /// The kind and summary of transaction `tx_id`, if there is one.
    fn transaction_record(&mut self, tx_id: TxId) -> Result<Option<(String, String)>, StoreError>;

    /// The ids of the rows of `table` transaction `tx_id` wrote a version
    /// of, in the order it wrote them.
    fn ids_written_by(
        &mut self,
        table: VersionTable,
        tx_id: TxId,
    ) -> Result<Vec<String>, StoreError>;

    /// The first transaction after `after` that wrote a version of `id`
    /// in `table`.
    fn next_change(
        &mut self,
        table: VersionTable,
        id: &str,
        after: TxId,
    ) -> Result<Option<TxId>, StoreError>;

    /// The newest transaction that reverted `tx_id`.
    fn newest_revert_of(&mut self, tx_id: TxId) -> Result<Option<TxId>, StoreError>;

    /// Commits.
    fn commit(self) -> Result<(), StoreError>;
}

/// Deletes an entry (`e-…`) or triple (`t-…`) by writing a tombstone
/// version.
pub(crate) fn delete(conn: &mut impl Writer, actor: &str, id: &str) -> Result<TxId, StoreError> {
    let mut tx = conn.begin_write()?;
    let tx_id = if id.starts_with("t-") {
        triples::delete_by_id(&mut tx, actor, id)?
    } else if id.starts_with("e-") {
        entries::delete(&mut tx, actor, id)?
    } else {
        return Err(StoreError::NotFound(format!(
            "`{id}` is not an entry id (e-…) or a triple id (t-…)"
        )));
    };
    tx.commit()?;
    Ok(tx_id)
}

/// Writes a new entry version, closing the current one if any.
#[allow(clippy::too_many_arguments)]
fn write_entry_version(
    tx: &mut impl WriteTx,
    vid: i64,
    id: &str,
    version: i64,
    tx_id: TxId,
    state: &EntryState,
    deleted: bool,
    recorded_at: &str,
    updated_at: &str,
) -> Result<Entry, StoreError> {
    if version > 1 {
        tx.close_version(VersionTable::Entries, id, tx_id)?;
    }
    let entry = Entry {
        id: id.to_string(),
        topic: state.topic.clone(),
        content: state.content.clone(),
        confidence: state.confidence,
        tags: state.tags.clone(),
        source: state.source.clone(),
        kind: state.kind,
        recorded_at: recorded_at.to_string(),
        updated_at: updated_at.to_string(),
        version,
        tx_id,
        deleted,
    };
    tx.insert_entry_version(vid, entry)
}

/// Writes a new triple version, closing the current one if any.
fn write_triple_version(
    tx: &mut impl WriteTx,
    vid: i64,
    id: &str,
    version: i64,
    tx_id: TxId,
    state: &TripleState,
    deleted: bool,
) -> Result<Triple, StoreError> {
    if version > 1 {
        tx.close_version(VersionTable::Triples, id, tx_id)?;
    }
    let triple = Triple {
        id: id.to_string(),
        subject: state.subject.clone(),
        predicate: state.predicate.clone(),
        object: state.object.clone(),
        confidence: state.confidence,
        properties: state.properties.clone(),
        version,
        tx_id,
        deleted,
    };
    tx.insert_triple_version(vid, triple)
}
