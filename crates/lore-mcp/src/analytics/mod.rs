//! The `analytics` toolset: the context layer for data agents. This issue
//! ships its first two tools; the rest of the surface (discovery, semantic
//! layer, memory) registers here the same way.

mod connection_list;
mod sql_execution;

use std::sync::Arc;

use lore_warehouse::execute::Warehouses;

pub use connection_list::{
    ConnectionList, ConnectionListInput, ConnectionListOutput, ConnectionSummary,
};
pub use sql_execution::{SqlExecution, SqlExecutionInput, SqlExecutionOutput};

use crate::toolkit::ToolRegistry;

/// Registers the analytics tools over the project's warehouses.
pub fn register_analytics_tools(registry: &mut ToolRegistry, warehouses: Arc<Warehouses>) {
    registry
        .register(ConnectionList {
            warehouses: Arc::clone(&warehouses),
        })
        .register(SqlExecution { warehouses });
}
