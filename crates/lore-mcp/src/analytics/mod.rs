//! The `analytics` toolset: the context layer for data agents. Connections
//! and read-only SQL, plus what the latest scan knows: table structure
//! (`entity_details`) and which column holds a value (`dictionary_search`).
//! The rest of the surface (discovery, semantic layer, memory) registers
//! here the same way.

mod connection_list;
mod dictionary_search;
mod discover_data;
mod entity_details;
mod memory_ingest;
mod semantic;
mod sql_execution;
mod wiki;

use std::sync::Arc;

use lore_semantic::model::ModelCache;
use lore_warehouse::catalog::Catalog;
use lore_warehouse::execute::Warehouses;

pub use connection_list::{
    ConnectionList, ConnectionListInput, ConnectionListOutput, ConnectionSummary, ScanSummary,
};
pub use dictionary_search::{DictionarySearch, DictionarySearchInput, DictionarySearchOutput};
pub use discover_data::DiscoverData;
pub use entity_details::{EntityDetails, EntityDetailsInput, EntityDetailsOutput};
pub use memory_ingest::{
    MemoryIngestInput, MemoryIngestOutput, MemoryIngestStatusInput, MemoryIngestStatusTool,
    MemoryIngestTool,
};
pub use semantic::{
    SlQuery, SlQueryInput, SlQueryOutput, SlReadSource, SlReadSourceInput, SlReadSourceOutput,
};
pub use sql_execution::{SqlExecution, SqlExecutionInput, SqlExecutionOutput};
pub use wiki::{WikiRead, WikiSearch, WikiWrite};

use crate::toolkit::ToolRegistry;

/// Registers the analytics tools over the project's warehouses, catalog
/// and semantic models.
pub fn register_analytics_tools(
    registry: &mut ToolRegistry,
    warehouses: Arc<Warehouses>,
    catalog: Arc<Catalog>,
    models: Arc<ModelCache>,
) {
    registry
        .register(ConnectionList {
            warehouses: Arc::clone(&warehouses),
            catalog: Arc::clone(&catalog),
        })
        .register(EntityDetails {
            warehouses: Arc::clone(&warehouses),
            catalog: Arc::clone(&catalog),
        })
        .register(DictionarySearch {
            warehouses: Arc::clone(&warehouses),
            catalog,
        })
        .register(SlReadSource {
            warehouses: Arc::clone(&warehouses),
            models: Arc::clone(&models),
        })
        .register(SlQuery {
            warehouses: Arc::clone(&warehouses),
            models,
        })
        .register(SqlExecution { warehouses });
}
