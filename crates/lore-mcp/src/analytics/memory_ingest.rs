//! `memory_ingest` and `memory_ingest_status` over
//! `lore_context::memory::ingest`: a run starts at once and is polled.

use std::sync::Arc;

use lore_context::memory::ingest::{IngestRequest, IngestStatus, MemoryIngest};
use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorReport> + Send + 'static,
) -> Result<T, ErrorReport> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ErrorReport::new(ErrorCode::Internal, "the ingest call was interrupted"))?
}

/// `memory_ingest` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryIngestInput {
    /// Markdown to remember: the finding plus its context (source, why it came up).
    pub content: String,
    /// REQUIRED for warehouse-specific knowledge (measures, schema gotchas): only then are queries made measures and tables linked. Omit for global knowledge.
    #[serde(default, rename = "connectionId")]
    pub connection_id: Option<String>,
}

/// What `memory_ingest` answers.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemoryIngestOutput {
    /// The run; poll memory_ingest_status with it.
    pub run_id: String,
}

/// `memory_ingest`.
pub struct MemoryIngestTool {
    pub(crate) ingest: Arc<MemoryIngest>,
}

impl Tool for MemoryIngestTool {
    type Input = MemoryIngestInput;
    type Output = MemoryIngestOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "memory_ingest",
        title: "Memory Ingest",
        description: "Remember what a turn learned (definitions, rules, gotchas) or what the user asks to remember, as wiki pages, glossary pages, notes and measures in one transaction. Answers {runId}; poll memory_ingest_status. Example: {\"content\":\"**Revenue** is paid invoices.\",\"connectionId\":\"warehouse\"} → {\"runId\":\"run-1\"}",
        read_only: false,
        scope: Scope::Writer,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: MemoryIngestInput,
        ctx: ToolContext,
    ) -> Result<MemoryIngestOutput, ErrorReport> {
        let ingest = Arc::clone(&self.ingest);
        let actor = ctx.actor();
        let request = IngestRequest {
            content: input.content,
            connection_id: input.connection_id,
        };
        let run_id = blocking(move || ingest.start(request, &actor)).await?;
        Ok(MemoryIngestOutput { run_id })
    }
}

/// `memory_ingest_status` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryIngestStatusInput {
    /// What memory_ingest answered.
    #[serde(rename = "runId")]
    pub run_id: String,
}

/// `memory_ingest_status`.
pub struct MemoryIngestStatusTool {
    pub(crate) ingest: Arc<MemoryIngest>,
}

impl Tool for MemoryIngestStatusTool {
    type Input = MemoryIngestStatusInput;
    type Output = IngestStatus;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "memory_ingest_status",
        title: "Memory Ingest Status",
        description: "A memory_ingest run: status, stage, captured {wiki, sl, memory, xrefs}, skipped with reasons, warnings (contradictions), error, txId (undo {run_id} reverts it). Poll until done. Example: {\"runId\":\"run-1\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: None,
        open_world: false,
    };

    fn check_input(input: &MemoryIngestStatusInput) -> Result<(), String> {
        if input.run_id.trim().is_empty() {
            return Err("runId must not be empty: give the runId memory_ingest answered".into());
        }
        Ok(())
    }

    async fn call(
        &self,
        input: MemoryIngestStatusInput,
        _ctx: ToolContext,
    ) -> Result<IngestStatus, ErrorReport> {
        let ingest = Arc::clone(&self.ingest);
        blocking(move || ingest.status(input.run_id.trim())).await
    }
}
