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
use lore_store::feed::{ChangeFeed, StoreHandle};
use tools::Memory;

/// The memory toolset's shared state: the memory service, and the store
/// and change feed its resources and subscriptions read.
#[derive(Clone)]
pub struct MemoryToolset {
    /// The project's knowledge store.
    pub store: Arc<StoreHandle>,
    /// Its change feed.
    pub feed: Arc<ChangeFeed>,
    /// The service the tools call.
    pub service: Arc<lore_context::memory::service::Memory>,
}

impl MemoryToolset {
    /// The toolset over `service`.
    pub fn new(service: Arc<lore_context::memory::service::Memory>) -> MemoryToolset {
        MemoryToolset {
            store: Arc::clone(service.store_handle()),
            feed: Arc::clone(service.feed()),
            service,
        }
    }

    /// Registers the eight memory tools.
    pub fn register_tools(&self, registry: &mut ToolRegistry) {
        let memory = Memory(Arc::clone(&self.service));
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
