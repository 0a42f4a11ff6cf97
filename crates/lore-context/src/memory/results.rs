//! What the memory operations answer, shared by the memory tools and `lore memory`.

use lore_store::{
    Entry, GraphNode, GraphResult, HistoryItem, Page, Triple, TxId, UndoResult, Written,
};
use schemars::JsonSchema;
use serde::Serialize;

/// Result of `store`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EntryOutput {
    /// The entry as now stored.
    pub entry: Entry,
    /// The transaction that wrote it (pass it to `undo` to revert).
    pub tx_id: TxId,
    /// False when an update changed nothing (no transaction was written).
    pub changed: bool,
}

/// Result of `delete`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DeleteOutput {
    /// The deleted entry or triple.
    pub id: String,
    /// The transaction that deleted it (undo it to restore).
    pub tx_id: TxId,
}

/// Result of `relate`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RelateOutput {
    /// The relation as now stored.
    pub triple: Triple,
    /// The transaction that wrote it (for an unchanged relation, the one that last did).
    pub tx_id: TxId,
    /// False when the relation already existed as given (nothing was written).
    pub changed: bool,
}

/// Result of `query_graph`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryGraphOutput {
    /// Every node reached with its distance; empty when the node has no relations.
    pub nodes: Vec<GraphNode>,
    /// Every relation followed.
    pub edges: Vec<Triple>,
    /// The state read.
    pub as_of_tx_id: TxId,
    /// True when limit cut the walk short.
    pub truncated: bool,
}

/// Result of `undo`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct UndoOutput {
    /// The transaction that was reverted.
    pub undone_tx_id: TxId,
    /// The new transaction that reverted it (undo this one to redo).
    pub tx_id: TxId,
    /// The entries and relations restored.
    pub changed_ids: Vec<String>,
}

/// Result of `history`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryOutput {
    /// Transactions: newest first, or oldest first with since_tx_id.
    pub items: Vec<HistoryItem>,
    /// Pass as cursor for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// The newest transaction this answer covers.
    pub as_of_tx_id: TxId,
}

impl From<Written<Entry>> for EntryOutput {
    fn from(written: Written<Entry>) -> Self {
        EntryOutput {
            entry: written.value,
            tx_id: written.tx_id,
            changed: written.changed,
        }
    }
}

impl From<Written<Triple>> for RelateOutput {
    fn from(written: Written<Triple>) -> Self {
        RelateOutput {
            triple: written.value,
            tx_id: written.tx_id,
            changed: written.changed,
        }
    }
}

impl From<GraphResult> for QueryGraphOutput {
    fn from(graph: GraphResult) -> Self {
        QueryGraphOutput {
            nodes: graph.nodes,
            edges: graph.edges,
            as_of_tx_id: graph.as_of_tx_id,
            truncated: graph.truncated,
        }
    }
}

impl From<UndoResult> for UndoOutput {
    fn from(undone: UndoResult) -> Self {
        UndoOutput {
            undone_tx_id: undone.undone_tx_id,
            tx_id: undone.tx_id,
            changed_ids: undone.changed_ids,
        }
    }
}

impl From<Page<HistoryItem>> for HistoryOutput {
    fn from(page: Page<HistoryItem>) -> Self {
        HistoryOutput {
            items: page.items,
            next_cursor: page.next_cursor,
            as_of_tx_id: page.as_of_tx_id,
        }
    }
}
