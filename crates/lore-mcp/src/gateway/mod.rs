//! The `gateway` toolset (spec 004's names and snake_case fields): search
//! the chunks of the ingested repositories, and run and inspect ingests.
//! Each tool maps its arguments onto `lore_gateway::Gateway`.

use std::sync::Arc;

use lore_core::{ErrorCode, ErrorReport};
use lore_gateway::explore::{
    GraphSearchAnswer, NodeAnswer, Relationships, SubsystemAnswer, TestsOfAnswer,
};
use lore_gateway::report::{CoverageSummary, LifecycleReport};
use lore_gateway::search::{SearchFilters, SearchResponse};
use lore_gateway::{
    Gateway, IngestRequest, IngestRun, SearchRequest, StoreTextRequest, StoredFile, UploadRequest,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition, ToolRegistry};

mod help;
mod recipe;

pub use help::{GATEWAY_REFERENCE, KmHelp};
pub use recipe::{GatewaySteps, KmRecipeRun, step_tools};

/// Registers the gateway tools over `gateway`.
pub fn register_gateway_tools(registry: &mut ToolRegistry, gateway: Arc<Gateway>) {
    registry
        .register(KmSearch {
            gateway: Arc::clone(&gateway),
        })
        .register(KmIngestStatus {
            gateway: Arc::clone(&gateway),
        })
        .register(KmGraphNode {
            gateway: Arc::clone(&gateway),
        })
        .register(KmGraphSubsystem {
            gateway: Arc::clone(&gateway),
        })
        .register(KmGraphSearch {
            gateway: Arc::clone(&gateway),
        })
        .register(KmGraphTestsOf {
            gateway: Arc::clone(&gateway),
        })
        .register(KmCoverageSummary {
            gateway: Arc::clone(&gateway),
        })
        .register(KmLifecycleReport {
            gateway: Arc::clone(&gateway),
        })
        .register(KmFeedbackSubmit {
            gateway: Arc::clone(&gateway),
        })
        .register(KmBackupTrigger {
            gateway: Arc::clone(&gateway),
        })
        .register(KmUpload {
            gateway: Arc::clone(&gateway),
        })
        .register(KmStoreText {
            gateway: Arc::clone(&gateway),
        })
        .register(KmIngestTrigger {
            gateway: Arc::clone(&gateway),
        });
    // Recipes call the gateway's tools as an agent would, through the
    // registry (every other gateway tool is registered by now).
    let (recipes, steps) = KmRecipeRun::new(gateway);
    let _ = steps.set(recipe::step_tools(registry));
    registry.register(recipes);
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ErrorReport> + Send + 'static,
) -> Result<T, ErrorReport> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(ErrorReport::new(
            ErrorCode::Internal,
            format!("the gateway task failed: {e}"),
        ))
    })
}

/// `km-search`.
pub struct KmSearch {
    gateway: Arc<Gateway>,
}

/// `km-search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmSearchInput {
    /// What to find: words, identifiers, or a whole issue with its stack trace (up to 32,000 characters).
    pub query: String,
    /// Most results, 1 to 25 (default 10).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Add each result's file neighbours in the code graph: subsystem, tests, imports, importers, documents.
    #[serde(default)]
    pub include_graph: Option<bool>,
    /// Filters, combined with AND and applied before ranking.
    #[serde(default)]
    pub filters: Option<SearchFilters>,
    /// Rank by the embedding lane alone (gateway.embeddings); without one, a warning and lexical ranking.
    #[serde(default)]
    pub sort_by_vector: Option<bool>,
}

impl Tool for KmSearch {
    type Input = KmSearchInput;
    type Output = SearchResponse;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-search",
        title: "Knowledge Search",
        description: "Find the code, tests and docs an issue, a stack trace or a question is about, in the ingested repositories: chunks with path, lines, type, subsystem and why each ranks where it does. Paste the whole issue; named files and stack frames count most. Each chunk lists the symbols it defines; include_graph adds the file's tests, imports and documents. Filters (subsystems, artifact_types, namespaces, tags, symbols, symbol_kinds, symbol_languages, updated_after, max_age_days) apply before ranking. Example: {\"query\":\"ConnectionError raised in adapters.send when a proxy is set\",\"limit\":5}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmSearchInput,
        _ctx: ToolContext,
    ) -> Result<SearchResponse, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        let request = SearchRequest {
            query: input.query,
            limit: input.limit,
            filters: input.filters.unwrap_or_default(),
            sort_by_vector: input.sort_by_vector == Some(true),
        };
        let include_graph = input.include_graph == Some(true);
        let found = blocking(move || {
            let mut found = gateway.search(&request)?;
            if include_graph {
                gateway.add_graph_context(&mut found)?;
            }
            Ok(found)
        })
        .await?;
        Ok(found)
    }
}

/// `km-ingest-status`.
pub struct KmIngestStatus {
    gateway: Arc<Gateway>,
}

/// `km-ingest-status` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmIngestStatusInput {
    /// Only runs of this profile (default: the latest run of any).
    #[serde(default)]
    pub profile: Option<String>,
}

impl Tool for KmIngestStatus {
    type Input = KmIngestStatusInput;
    type Output = IngestRun;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-ingest-status",
        title: "Ingest Status",
        description: "The last ingest run of the repositories: run_id, profile, started_at, duration_seconds, success, artifact_counts by type, chunk_count, files skipped and why, repo_head. Example: {}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmIngestStatusInput,
        _ctx: ToolContext,
    ) -> Result<IngestRun, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || {
            gateway.last_run(input.profile.as_deref()).ok_or_else(|| {
                ErrorReport::new(
                    ErrorCode::NotFound,
                    match &input.profile {
                        Some(p) => format!(
                            "no ingest run of profile `{p}`; start one with km-ingest-trigger"
                        ),
                        None => {
                            "no ingest has run yet; start one with km-ingest-trigger".to_string()
                        }
                    },
                )
            })
        })
        .await
    }
}

/// `km-ingest-trigger`.
pub struct KmIngestTrigger {
    gateway: Arc<Gateway>,
}

/// `km-ingest-trigger` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmIngestTriggerInput {
    /// The label recorded with the run (default `manual`).
    #[serde(default)]
    pub profile: Option<String>,
    /// Read and count without writing anything.
    #[serde(default)]
    pub dry_run: Option<bool>,
    /// Only these files (root-relative paths); every file when omitted.
    #[serde(default)]
    pub paths: Option<Vec<String>>,
    /// Accepted for compatibility and ignored (the embedding lane is configured by gateway.embeddings).
    #[serde(default)]
    pub use_dummy_embeddings: Option<bool>,
}

impl Tool for KmIngestTrigger {
    type Input = KmIngestTriggerInput;
    type Output = IngestRun;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-ingest-trigger",
        title: "Ingest Trigger",
        description: "Ingest the configured repositories now (incremental: only changed files are read again; deleted files leave the index) and answer the run, as km-ingest-status does. paths limits it to those files. Example: {\"profile\":\"manual\",\"dry_run\":true}",
        read_only: false,
        scope: Scope::Admin,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmIngestTriggerInput,
        _ctx: ToolContext,
    ) -> Result<IngestRun, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        let request = IngestRequest {
            profile: input.profile,
            dry_run: input.dry_run.unwrap_or(false),
            paths: input.paths.unwrap_or_default(),
        };
        let run = blocking(move || gateway.ingest(&request, &mut |_, _| {})).await?;
        if !run.success {
            return Err(ErrorReport::new(
                ErrorCode::UpstreamError,
                format!(
                    "ingest {} failed: {}",
                    run.run_id,
                    run.error.as_deref().unwrap_or("unknown")
                ),
            ));
        }
        Ok(run)
    }
}

/// `km-graph-node`.
pub struct KmGraphNode {
    gateway: Arc<Gateway>,
}

/// `km-graph-node` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmGraphNodeInput {
    /// The node: Code:<path>, TestCase:<path>, DesignDoc:<path>, Config:<path>, Symbol:<path>::<qualified_name> or Subsystem:<name>.
    pub node_id: String,
    /// Which relations to list: outgoing, incoming, all (default) or none.
    #[serde(default)]
    pub relationships: Option<Relationships>,
    /// Most relations, 1 to 200 (default 50).
    #[serde(default)]
    pub limit: Option<usize>,
}

impl Tool for KmGraphNode {
    type Input = KmGraphNodeInput;
    type Output = NodeAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-graph-node",
        title: "Graph Node",
        description: "A node of the code graph and its relations: what a file or symbol is (type, language, subsystem, lines) and what it imports, declares, tests, is tested by, is described by. An unknown id names the closest ones. Example: {\"node_id\":\"Code:src/billing/invoice.py\",\"relationships\":\"incoming\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmGraphNodeInput,
        _ctx: ToolContext,
    ) -> Result<NodeAnswer, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || {
            gateway.node(
                &input.node_id,
                input.relationships.unwrap_or_default(),
                input.limit,
            )
        })
        .await
    }
}

/// `km-graph-subsystem`.
pub struct KmGraphSubsystem {
    gateway: Arc<Gateway>,
}

/// `km-graph-subsystem` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmGraphSubsystemInput {
    /// The subsystem, as the catalog or the folders name it.
    pub name: String,
    /// Hops of DEPENDS_ON to follow both ways, 1 to 5 (default 1).
    #[serde(default)]
    pub depth: Option<usize>,
    /// Also list its files (default true).
    #[serde(default)]
    pub include_artifacts: Option<bool>,
    /// From a previous answer's next_cursor.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Page size, 1 to 100 (default 25).
    #[serde(default)]
    pub limit: Option<usize>,
}

impl Tool for KmGraphSubsystem {
    type Input = KmGraphSubsystemInput;
    type Output = SubsystemAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-graph-subsystem",
        title: "Graph Subsystem",
        description: "A subsystem: its catalog entry, the subsystems it depends on or that depend on it (with hops and path), and its files, paged. Example: {\"name\":\"Billing\",\"depth\":2}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmGraphSubsystemInput,
        _ctx: ToolContext,
    ) -> Result<SubsystemAnswer, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || {
            gateway.subsystem(
                &input.name,
                input.depth,
                input.include_artifacts.unwrap_or(true),
                input.cursor.as_deref(),
                input.limit,
            )
        })
        .await
    }
}

/// `km-graph-search`.
pub struct KmGraphSearch {
    gateway: Arc<Gateway>,
}

/// `km-graph-search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmGraphSearchInput {
    /// A subsystem, file or symbol name, or words of one.
    pub term: String,
    /// Most results, 1 to 50 (default 20).
    #[serde(default)]
    pub limit: Option<usize>,
}

impl Tool for KmGraphSearch {
    type Input = KmGraphSearchInput;
    type Output = GraphSearchAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-graph-search",
        title: "Graph Search",
        description: "Find graph nodes by name: subsystems, files, symbols (id, label, score, snippet); pass an id to km-graph-node. Example: {\"term\":\"invoice\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmGraphSearchInput,
        _ctx: ToolContext,
    ) -> Result<GraphSearchAnswer, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || gateway.graph_search(&input.term, input.limit)).await
    }
}

/// `km-graph-tests-of`.
pub struct KmGraphTestsOf {
    gateway: Arc<Gateway>,
}

/// `km-graph-tests-of` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmGraphTestsOfInput {
    /// A root-relative path (src/app.py) or a node id (Code:…, Symbol:…, TestCase:…).
    pub target: String,
}

impl Tool for KmGraphTestsOf {
    type Input = KmGraphTestsOfInput;
    type Output = TestsOfAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-graph-tests-of",
        title: "Tests Of",
        description: "The tests of a source file or symbol (tests that import it or are named after it), or, for a test, the code it covers: what to run after a change. Example: {\"target\":\"src/billing/invoice.py\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmGraphTestsOfInput,
        _ctx: ToolContext,
    ) -> Result<TestsOfAnswer, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || gateway.tests_of(&input.target)).await
    }
}

/// `km-coverage-summary`.
pub struct KmCoverageSummary {
    gateway: Arc<Gateway>,
}

/// `km-coverage-summary` arguments (none).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmCoverageSummaryInput {}

impl Tool for KmCoverageSummary {
    type Input = KmCoverageSummaryInput;
    type Output = CoverageSummary;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-coverage-summary",
        title: "Coverage Summary",
        description: "What the gateway holds: files indexed by type and by subsystem, chunks, files left out with the reason (binary, too large), catalog globs no file matches, files removed since they were ingested, and how fresh the index is (oldest and newest file, last run). Example: {}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        _input: KmCoverageSummaryInput,
        _ctx: ToolContext,
    ) -> Result<CoverageSummary, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || gateway.coverage()).await
    }
}

/// `km-lifecycle-report`.
pub struct KmLifecycleReport {
    gateway: Arc<Gateway>,
}

/// `km-lifecycle-report` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmLifecycleReportInput {
    /// Days after which an unchanged document is stale (default gateway.lifecycle.stale_after_days in lore.yaml, 180).
    #[serde(default)]
    pub stale_after_days: Option<u32>,
}

impl Tool for KmLifecycleReport {
    type Input = KmLifecycleReportInput;
    type Output = LifecycleReport;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-lifecycle-report",
        title: "Lifecycle Report",
        description: "What went stale: documents unchanged for longer than the threshold or older than the code they describe (by git history when the root is a git work tree), subsystems with code but no tests, files linked to no other file (isolated nodes by label), and documents that still name removed files. Example: {\"stale_after_days\":90}",
        read_only: true,
        scope: Scope::Admin,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmLifecycleReportInput,
        _ctx: ToolContext,
    ) -> Result<LifecycleReport, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || gateway.lifecycle(input.stale_after_days)).await
    }
}

/// `km-feedback-submit`.
pub struct KmFeedbackSubmit {
    gateway: Arc<Gateway>,
}

/// `km-feedback-submit` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmFeedbackSubmitInput {
    /// metadata.request_id of the km-search answer.
    pub request_id: String,
    /// chunk.chunk_id of one of its results.
    pub chunk_id: String,
    /// 1 (useful), -1 (not useful) or 0 (withdraw your earlier vote).
    pub vote: i8,
    /// Why (at most 2,000 characters).
    #[serde(default)]
    pub note: Option<String>,
    /// What you were doing (any JSON object), kept with the vote.
    #[serde(default)]
    pub context: Option<serde_json::Map<String, serde_json::Value>>,
}

/// `km-feedback-submit`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedbackAnswer {
    /// `recorded`.
    pub status: String,
    /// The feedback as stored (with its id and timestamp).
    pub feedback: lore_store::Feedback,
}

impl Tool for KmFeedbackSubmit {
    type Input = KmFeedbackSubmitInput;
    type Output = FeedbackAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-feedback-submit",
        title: "Feedback Submit",
        description: "Say whether a km-search result was useful: later searches with the same or similar words rank it higher (1) or lower (-1); 0 withdraws your vote. Each voter counts once per result, and votes fade over a month. Example: {\"request_id\":\"req-20260101T000000Z-1\",\"chunk_id\":\"src/app.py::App.run\",\"vote\":1,\"note\":\"the bug was here\"}",
        read_only: false,
        scope: Scope::Writer,
        destructive: false,
        idempotent: Some(false),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmFeedbackSubmitInput,
        ctx: ToolContext,
    ) -> Result<FeedbackAnswer, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        let feedback = lore_store::NewFeedback {
            request_id: input.request_id,
            chunk_id: input.chunk_id,
            vote: input.vote,
            note: input.note,
            context: input.context,
            voter: ctx.voter(),
        };
        let stored = blocking(move || gateway.submit_feedback(feedback)).await?;
        Ok(FeedbackAnswer {
            status: "recorded".to_string(),
            feedback: stored,
        })
    }
}

/// `km-backup-trigger`.
pub struct KmBackupTrigger {
    gateway: Arc<Gateway>,
}

/// `km-backup-trigger` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmBackupTriggerInput {
    /// The folder to write to (default gateway.backups.dir, else the user's data folder); never inside a gateway root or .lore/.
    #[serde(default)]
    pub destination: Option<String>,
}

impl Tool for KmBackupTrigger {
    type Input = KmBackupTriggerInput;
    type Output = lore_gateway::backup::BackupWritten;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-backup-trigger",
        title: "Backup Trigger",
        description: "Archive the knowledge store and the gateway's index now, consistently, while other writes go on (a running ingest is waited for): a zip with a SHA-256 manifest, outside every root and .lore/; the oldest beyond gateway.backups.keep are removed. `lore backup restore ARCHIVE` restores one. Example: {}",
        read_only: false,
        scope: Scope::Admin,
        destructive: false,
        idempotent: Some(false),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmBackupTriggerInput,
        _ctx: ToolContext,
    ) -> Result<lore_gateway::backup::BackupWritten, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || gateway.backup(input.destination.as_deref())).await
    }
}

/// `km-upload`.
pub struct KmUpload {
    gateway: Arc<Gateway>,
}

/// `km-upload` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmUploadInput {
    /// The text file to copy: relative to the project directory, or absolute; it must be inside the project, a root or a folder of gateway.uploads.sources.
    pub source_path: String,
    /// Where in the root: a folder ending in `/` or a file path (default: gateway.uploads.folder, `docs/uploads/`).
    #[serde(default)]
    pub destination: Option<String>,
    /// The root to write into, by name (default: the first).
    #[serde(default)]
    pub root: Option<String>,
    /// Replace a file already there (default false; its old text is kept under .lore/gateway/replaced/).
    #[serde(default)]
    pub overwrite: Option<bool>,
    /// Ingest the file at once (default gateway.uploads.ingest: true).
    #[serde(default)]
    pub ingest: Option<bool>,
}

impl Tool for KmUpload {
    type Input = KmUploadInput;
    type Output = StoredFile;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-upload",
        title: "Upload File",
        description: "Copy a text file the server can read (inside the project or its roots) into a root and ingest it, so km-search finds it. Refuses binary files, paths leading out of the root (forbidden) and replacing a file unless overwrite is true (conflict). Example: {\"source_path\":\"notes/design.md\",\"destination\":\"docs/uploads/\"}",
        read_only: false,
        scope: Scope::Admin,
        destructive: false,
        idempotent: Some(false),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmUploadInput,
        _ctx: ToolContext,
    ) -> Result<StoredFile, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        let request = UploadRequest {
            source_path: input.source_path,
            destination: input.destination,
            root: input.root,
            overwrite: input.overwrite.unwrap_or(false),
            ingest: input.ingest,
        };
        blocking(move || gateway.upload(&request)).await
    }
}

/// `km-storetext`.
pub struct KmStoreText {
    gateway: Arc<Gateway>,
}

/// `km-storetext` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmStoreTextInput {
    /// The document's text (markdown); a trailing newline is added.
    pub content: String,
    /// Its title: front matter, and the file name (`Release Notes` → release-notes.md).
    #[serde(default)]
    pub title: Option<String>,
    /// Where in the root: a folder ending in `/` or a file path (default: gateway.uploads.folder).
    #[serde(default)]
    pub destination: Option<String>,
    /// The root to write into, by name (default: the first).
    #[serde(default)]
    pub root: Option<String>,
    /// The subsystem it belongs to (front matter; search filters and the graph use it).
    #[serde(default)]
    pub subsystem: Option<String>,
    /// Tags (front matter; the tags filter finds them).
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// More front matter fields, kept under `metadata:`.
    #[serde(default)]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// Replace a file already there (default false).
    #[serde(default)]
    pub overwrite: Option<bool>,
    /// Ingest it at once (default gateway.uploads.ingest: true).
    #[serde(default)]
    pub ingest: Option<bool>,
}

impl Tool for KmStoreText {
    type Input = KmStoreTextInput;
    type Output = StoredFile;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-storetext",
        title: "Store Text",
        description: "Write text as a markdown document in a root, with front matter (title, subsystem, tags, metadata), and ingest it so km-search finds it. Never replaces a file unless overwrite is true. Example: {\"title\":\"Release Notes\",\"content\":\"## Summary\\nPayments retry twice.\",\"tags\":[\"release\"]}",
        read_only: false,
        scope: Scope::Writer,
        destructive: false,
        idempotent: Some(false),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmStoreTextInput,
        _ctx: ToolContext,
    ) -> Result<StoredFile, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        let request = StoreTextRequest {
            content: input.content,
            title: input.title,
            destination: input.destination,
            root: input.root,
            subsystem: input.subsystem,
            tags: input.tags.unwrap_or_default(),
            metadata: input.metadata,
            overwrite: input.overwrite.unwrap_or(false),
            ingest: input.ingest,
        };
        blocking(move || gateway.store_text(&request)).await
    }
}
