//! Reading the code graph: a node and its relations, a subsystem with its
//! neighbours and artifacts, a search over node names, the tests of a
//! file or symbol (or the code a test covers), a search result's graph
//! context, and the links search ranks by.
//!
//! Relations come from the store (so relations an agent added with
//! `relate` show too); what a node is (its type, language, subsystem, a
//! symbol's kind and lines) comes from the graph ledgers ingest keeps.
//!
//! `GraphView` and the tools' limits are here; `types` holds what the
//! tools take and answer, `ids` node ids, limits and store paging, and
//! each other file one question: `nodes` (a node, its relations, a
//! subsystem), `search`, `tests_of` with `coverage`, `context`, `links`.

use std::sync::{Arc, OnceLock};

use crate::graph::GraphLedger;
use crate::graph::call_index::RootCalls;
use crate::ingest::subsystem::Catalog;

mod context;
mod coverage;
mod ids;
mod links;
mod nodes;
mod search;
mod tests_of;
mod types;

pub use context::GraphContext;
pub use ids::parse_id;
pub use links::GraphLinks;
pub use types::{
    ArtifactOut, CoverageOut, GraphHit, GraphSearchAnswer, NodeAnswer, NodeOut, RelatedOut,
    RelationOut, Relationships, SubsystemAnswer, TestsOfAnswer,
};

/// Most relations a node lists.
pub const MAX_NODE_LIMIT: usize = 200;
/// Most related nodes or artifacts a subsystem page holds.
pub const MAX_SUBSYSTEM_LIMIT: usize = 100;
/// Deepest subsystem walk.
pub const MAX_DEPTH: usize = 5;
/// Most graph search results.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// The graph as ingest left it: per root, its ledger and catalog.
pub struct GraphView {
    /// (root name, ledger, catalog) per root.
    pub roots: Vec<(String, Arc<GraphLedger>, Catalog)>,
    /// Each root's call edges, indexed when a question first reaches it.
    calls: Vec<OnceLock<RootCalls>>,
}

impl GraphView {
    /// The view of these roots' ledgers and catalogs.
    pub fn new(roots: Vec<(String, Arc<GraphLedger>, Catalog)>) -> GraphView {
        GraphView {
            calls: roots.iter().map(|_| OnceLock::new()).collect(),
            roots,
        }
    }

    /// The call edges (`CALLS`) of the root at `root` (an index into
    /// `roots`), indexed on first use.
    pub fn calls(&self, root: usize) -> Option<&RootCalls> {
        let (_, ledger, _) = self.roots.get(root)?;
        Some(self.calls.get(root)?.get_or_init(|| RootCalls::new(ledger)))
    }
}
