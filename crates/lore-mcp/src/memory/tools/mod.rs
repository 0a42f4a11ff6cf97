//! The eight memory tools. Each is a thin mapping from its MCP input to a
//! store operation; every success answers with a one-line text summary, the
//! result as an embedded `application/json` resource, and the same result
//! as `structuredContent`.

mod delete;
mod history;
mod query;
mod query_graph;
mod relate;
mod store;
mod undo;
mod update;

use crate::memory::resources::{ENTRIES_URI, HISTORY_URI, TRIPLES_URI, uri_with_query};
use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};
use lore_context::memory::query::{QueryInput, QueryOutput};
use lore_context::memory::results::{
    DeleteOutput, EntryOutput, HistoryOutput, QueryGraphOutput, RelateOutput, UndoOutput,
};
use lore_core::{ErrorCode, ErrorReport};
use lore_store::{
    Direction, EntryKind, EntryPatch, EntryQuery, GraphQuery, HistoryQuery, NewEntry, NewTriple,
    TxId,
};
use rmcp::model::{ContentBlock, ResourceContents};
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;

/// What every memory tool holds: the memory service.
#[derive(Clone)]
pub struct Memory(pub(crate) Arc<lore_context::memory::service::Memory>);

impl Memory {
    /// Runs `work` on the service, on tokio's blocking pool (the store is
    /// blocking); a panic in it is an `internal` error.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&lore_context::memory::service::Memory) -> Result<T, ErrorReport>
        + Send
        + 'static,
    ) -> Result<T, ErrorReport> {
        let service = Arc::clone(&self.0);
        tokio::task::spawn_blocking(move || work(&service))
            .await
            .unwrap_or_else(|_| {
                Err(ErrorReport::new(
                    ErrorCode::Internal,
                    "the memory operation was interrupted",
                ))
            })
    }
}

/// The text block and the embedded resource of a memory result.
fn blocks(summary: String, uri: String, structured: &serde_json::Value) -> Vec<ContentBlock> {
    vec![
        ContentBlock::text(summary),
        ContentBlock::resource(
            ResourceContents::text(structured.to_string(), uri).with_mime_type("application/json"),
        ),
    ]
}

fn entry_uri(id: &str) -> String {
    format!("{ENTRIES_URI}/{id}")
}

fn triple_uri(id: &str) -> String {
    format!("{TRIPLES_URI}/{id}")
}

fn quote(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        line
    } else {
        format!("{}…", line.chars().take(max).collect::<String>())
    }
}

pub use delete::{Delete, DeleteInput};
pub use history::{History, HistoryInput};
pub use query::Query;
pub use query_graph::{QueryGraph, QueryGraphInput};
pub use relate::{Relate, RelateInput};
pub use store::{Store, StoreInput};
pub use undo::{Undo, UndoInput};
pub use update::{Update, UpdateInput};
