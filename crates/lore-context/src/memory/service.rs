//! The memory toolset's service: the knowledge store's operations as the
//! memory tools and `lore memory` run them. One rule lives here and
//! nowhere else: a write that committed is told to the change feed (so
//! subscribers and the search index see it), and a write that changed
//! nothing is not.
//!
//! Blocking, like the store: the MCP adapter runs each call on its
//! blocking pool, the CLI calls it directly.

use std::sync::Arc;

use lore_core::error::HasErrorCode;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::feed::{ChangeFeed, StoreHandle};
use lore_store::{
    Entry, EntryPatch, EntryQuery, GraphQuery, GraphResult, HistoryItem, HistoryQuery,
    KnowledgeStore, NewEntry, NewTriple, Page, StoreError, Triple, TxId, UndoResult, Written,
};

use super::query::{MemorySearch, QueryInput, QueryOutput};

/// What an undo names: a transaction, or the ingest run whose transaction
/// it undoes.
#[derive(Debug, Clone)]
pub enum UndoTarget {
    /// A transaction id.
    Transaction(TxId),
    /// A `memory_ingest` run id.
    IngestRun(String),
}

/// The knowledge memory over one project's store.
pub struct Memory {
    store: Arc<StoreHandle>,
    feed: Arc<ChangeFeed>,
    search: Option<Arc<MemorySearch>>,
}

impl Memory {
    /// The memory over `store`, its writes told to `feed`.
    pub fn new(store: Arc<StoreHandle>, feed: Arc<ChangeFeed>) -> Memory {
        Memory {
            store,
            feed,
            search: None,
        }
    }

    /// Text queries ranked through the shared search index.
    pub fn with_search(mut self, search: Arc<MemorySearch>) -> Memory {
        self.search = Some(search);
        self
    }

    /// The store it writes to.
    pub fn store_handle(&self) -> &Arc<StoreHandle> {
        &self.store
    }

    /// The feed its writes are told to.
    pub fn feed(&self) -> &Arc<ChangeFeed> {
        &self.feed
    }

    fn open(&self) -> Result<Arc<dyn KnowledgeStore>, ErrorReport> {
        self.store.open()
    }

    /// Runs `op` on the store; when it wrote (`wrote` says so of its
    /// result), tells the feed.
    fn write<T>(
        &self,
        op: impl FnOnce(&dyn KnowledgeStore) -> Result<T, StoreError>,
        wrote: impl FnOnce(&T) -> bool,
    ) -> Result<T, ErrorReport> {
        let store = self.open()?;
        let done = op(store.as_ref()).map_err(|e| e.report())?;
        if wrote(&done) {
            self.feed.committed();
        }
        Ok(done)
    }

    fn read<T>(
        &self,
        op: impl FnOnce(&dyn KnowledgeStore) -> Result<T, StoreError>,
    ) -> Result<T, ErrorReport> {
        let store = self.open()?;
        op(store.as_ref()).map_err(|e| e.report())
    }

    /// `memory_store`: a new entry.
    pub fn store(&self, actor: &str, entry: NewEntry) -> Result<Written<Entry>, ErrorReport> {
        self.write(|s| s.store(actor, entry), |_| true)
    }

    /// `memory_update`: a new version of an entry (none when the patch
    /// says what the entry already says).
    pub fn update(
        &self,
        actor: &str,
        id: &str,
        patch: EntryPatch,
    ) -> Result<Written<Entry>, ErrorReport> {
        self.write(|s| s.update(actor, id.trim(), patch), |w| w.changed)
    }

    /// `memory_delete`: the entry's tombstone; its transaction id.
    pub fn delete(&self, actor: &str, id: &str) -> Result<TxId, ErrorReport> {
        self.write(|s| s.delete(actor, id.trim()), |_| true)
    }

    /// `memory_relate`: a triple (none new when it already holds).
    pub fn relate(&self, actor: &str, triple: NewTriple) -> Result<Written<Triple>, ErrorReport> {
        self.write(|s| s.relate(actor, triple), |w| w.changed)
    }

    /// The triple `subject predicate object` retracted: its id and the
    /// transaction.
    pub fn unrelate(
        &self,
        actor: &str,
        subject: &str,
        predicate: &str,
        object: &str,
    ) -> Result<(String, TxId), ErrorReport> {
        self.write(|s| s.unrelate(actor, subject, predicate, object), |_| true)
    }

    /// `memory_undo`: the transaction's inverse, refused over later
    /// changes to the same rows unless `force`.
    pub fn undo(
        &self,
        actor: &str,
        target: UndoTarget,
        force: bool,
    ) -> Result<UndoResult, ErrorReport> {
        self.write(
            |s| {
                let tx_id = match target {
                    UndoTarget::Transaction(tx) => tx,
                    UndoTarget::IngestRun(run) => super::ingest::run_transaction(s, &run)?,
                };
                s.undo(actor, tx_id, force)
            },
            |_| true,
        )
    }

    /// `memory_history`: transactions, newest first.
    pub fn history(&self, query: &HistoryQuery) -> Result<Page<HistoryItem>, ErrorReport> {
        self.read(|s| s.history(query))
    }

    /// `memory_query_graph`: the triples around a node.
    pub fn query_graph(&self, query: &GraphQuery) -> Result<GraphResult, ErrorReport> {
        self.read(|s| s.query_graph(query))
    }

    /// `memory_query` as the store answers it: filters, listings, reads
    /// of the past, store cursors.
    pub fn entries(&self, query: &EntryQuery) -> Result<Page<Entry>, ErrorReport> {
        self.read(|s| s.query(query))
    }

    /// `memory_query` ranked by the search index, when it answers this
    /// query (text, the current state, no store cursor); `None` when the
    /// store should (then [`Memory::entries`]).
    pub fn ranked(&self, input: &QueryInput) -> Result<Option<QueryOutput>, ErrorReport> {
        let Some(search) = &self.search else {
            return Ok(None);
        };
        let store = self.open()?;
        search.query(store.as_ref(), input)
    }
}

/// The error for an undo that names neither a transaction nor a run.
pub fn undo_target(tx_id: Option<TxId>, run_id: Option<String>) -> Result<UndoTarget, ErrorReport> {
    match (tx_id, run_id) {
        (Some(tx), _) => Ok(UndoTarget::Transaction(tx)),
        (None, Some(run)) => Ok(UndoTarget::IngestRun(run)),
        (None, None) => Err(ErrorReport::new(
            ErrorCode::InvalidArguments,
            "give tx_id or run_id",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(dir: &std::path::Path) -> Memory {
        let store = Arc::new(StoreHandle::sqlite(dir.join("store.db")));
        let feed = Arc::new(ChangeFeed::new(Arc::clone(&store)));
        Memory::new(store, feed)
    }

    fn note(topic: &str, content: &str) -> NewEntry {
        NewEntry {
            topic: topic.into(),
            content: content.into(),
            confidence: None,
            tags: vec![],
            source: None,
            kind: None,
        }
    }

    #[test]
    fn a_patch_that_says_nothing_new_writes_nothing_and_undo_brings_back_a_deletion() {
        let dir = tempfile::tempdir().unwrap();
        let memory = memory(dir.path());
        let written = memory
            .store("cli:test", note("billing", "Invoices close monthly."))
            .unwrap();
        let id = written.value.id.clone();
        let same = EntryPatch {
            topic: None,
            content: Some("Invoices close monthly.".into()),
            confidence: None,
            tags: None,
            source: None,
            expected_version: None,
        };
        let unchanged = memory.update("cli:test", &format!(" {id} "), same).unwrap();
        assert!(!unchanged.changed);
        let history = memory
            .history(&HistoryQuery {
                id: Some(id.clone()),
                since_tx_id: None,
                limit: None,
                cursor: None,
                as_of_tx_id: None,
            })
            .unwrap();
        assert_eq!(history.items.len(), 1, "one write, not two");

        let tx = memory.delete("cli:test", &id).unwrap();
        let undone = memory
            .undo("cli:test", UndoTarget::Transaction(tx), false)
            .unwrap();
        assert_eq!(undone.changed_ids, vec![id.clone()]);
        let found = memory
            .entries(&EntryQuery {
                text: None,
                topic: Some("billing".into()),
                tags: vec![],
                min_confidence: None,
                kind: None,
                limit: None,
                cursor: None,
                as_of_tx_id: None,
            })
            .unwrap();
        assert_eq!(found.items.len(), 1);
        assert_eq!(found.items[0].id, id);
    }

    #[test]
    fn an_undo_names_a_transaction_or_a_run() {
        let refused = undo_target(None, None).unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidArguments);
        assert!(matches!(
            undo_target(None, Some("run-1".into())),
            Ok(UndoTarget::IngestRun(run)) if run == "run-1"
        ));
        let dir = tempfile::tempdir().unwrap();
        let unknown = memory(dir.path())
            .undo("cli:test", UndoTarget::IngestRun("run-none".into()), false)
            .unwrap_err();
        assert_eq!(unknown.code, ErrorCode::NotFound, "{}", unknown.message);
    }
}
