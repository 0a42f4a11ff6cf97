//! The `memory` toolset: a versioned knowledge memory over the project's
//! knowledge store (`.lore/store.db`).
//!
//! - [`tools`]: `store`, `update`, `query`, `delete`, `relate`,
//!   `query_graph`, `undo`, `history`.
//! - [`resources`]: `knowledge://entries`, `knowledge://graph/triples`,
//!   `knowledge://history/transactions`, paged and pinned to a transaction.
//! - [`subscriptions`]: per-session resource subscriptions over the
//!   store's change feed (own writes at once, other processes' within a
//!   poll interval).
//! - [`prompts`]: ingest, retrieve, correct.
//! - [`completion`]: `completion/complete` for the prompts' arguments and
//!   the resource templates' variables.

pub mod completion;
pub mod prompts;
pub mod resources;
pub mod subscriptions;
pub mod tools;

use std::sync::Arc;

use crate::toolkit::ToolRegistry;
use lore_context::memory::query::MemorySearch;
use lore_store::feed::{ChangeFeed, StoreHandle};
use tools::Memory;

/// The memory toolset's shared state: the store and its change feed.
#[derive(Clone)]
pub struct MemoryService {
    /// The project's knowledge store.
    pub store: Arc<StoreHandle>,
    /// Its change feed.
    pub feed: Arc<ChangeFeed>,
    /// Text queries through the shared index.
    pub search: Option<Arc<MemorySearch>>,
}

impl MemoryService {
    /// The service over `store` (opened on first use).
    pub fn new(store: StoreHandle) -> MemoryService {
        let store = Arc::new(store);
        let feed = Arc::new(ChangeFeed::new(Arc::clone(&store)));
        MemoryService {
            store,
            feed,
            search: None,
        }
    }

    /// Registers the eight memory tools.
    pub fn register_tools(&self, registry: &mut ToolRegistry) {
        let memory = Memory {
            store: Arc::clone(&self.store),
            feed: Arc::clone(&self.feed),
            search: self.search.clone(),
        };
        registry
            .register(tools::Store(memory.clone()))
            .register(tools::Update(memory.clone()))
            .register(tools::Query(memory.clone()))
            .register(tools::Delete(memory.clone()))
            .register(tools::Relate(memory.clone()))
            .register(tools::QueryGraph(memory.clone()))
            .register(tools::Undo(memory.clone()))
            .register(tools::History(memory));
    }
}
