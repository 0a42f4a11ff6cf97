//! The steps a recipe may call, by tool name: each `km-…` tool's
//! arguments (their JSON Schema comes from these types; field docs become
//! descriptions), how they map onto [`Gateway`]'s methods, and the
//! by-name dispatch ([`GatewayCalls`]) both front ends hand to the recipe
//! runner (`km-recipe-run` and `lore gateway recipe run`), with arguments
//! prepared exactly as an agent's are (`lore_core::arguments`). Recipes
//! are programs over tool names, so this is the one place below the
//! adapter that names tools; the MCP adapter publishes these same types.

use std::sync::Arc;
use std::time::Duration;

use lore_core::arguments::{JsonObject, prepare, schema_of};
use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::StepCaller;
use crate::graph::explore::{
    GraphSearchAnswer, NodeAnswer, Relationships, SubsystemAnswer, TestsOfAnswer,
};
use crate::graph::references::ReferencesAnswer;
use crate::graph::report::{CoverageSummary, LifecycleReport, LifecycleRequest};
use crate::ingest::follow::IngestStatus;
use crate::ingest::team::IngestedElsewhere;
use crate::read::{ReadAnswer, ReadRequest};
use crate::search::{Detail, SearchFilters, SearchResponse};
use crate::{
    Gateway, IngestRequest, IngestRun, SearchRequest, StoreTextRequest, StoredFile, UploadRequest,
};

/// The tools a recipe's steps may call: every gateway tool but
/// `km-recipe-run` itself.
pub const STEP_TOOLS: [&str; 15] = [
    "km-search",
    "km-read",
    "km-ingest-status",
    "km-ingest-trigger",
    "km-graph-node",
    "km-graph-subsystem",
    "km-graph-search",
    "km-graph-tests-of",
    "km-graph-references",
    "km-coverage-summary",
    "km-lifecycle-report",
    "km-feedback-submit",
    "km-backup-trigger",
    "km-upload",
    "km-storetext",
];

/// Calls gateway tool `tool` with JSON `arguments` on behalf of `voter`
/// (`token:<name>`, `mcp:<client>`, `cli:<user>`): its answer as JSON, or
/// its error. Arguments are prepared as an agent's are; blocking work runs
/// on the calling thread.
pub fn call(
    gateway: &Gateway,
    tool: &str,
    arguments: JsonObject,
    voter: &str,
) -> Result<Value, ErrorReport> {
    match tool {
        "km-search" => answer(tool, arguments, |input| search(gateway, input)),
        "km-read" => answer(tool, arguments, |input| read(gateway, input)),
        "km-ingest-status" => answer(tool, arguments, |input| ingest_status(gateway, input)),
        "km-ingest-trigger" => answer(tool, arguments, |input| {
            ingest_trigger(gateway, input, &mut |_, _| {})
        }),
        "km-graph-node" => answer(tool, arguments, |input| graph_node(gateway, input)),
        "km-graph-subsystem" => answer(tool, arguments, |input| graph_subsystem(gateway, input)),
        "km-graph-search" => answer(tool, arguments, |input| graph_search(gateway, input)),
        "km-graph-tests-of" => answer(tool, arguments, |input| graph_tests_of(gateway, input)),
        "km-graph-references" => answer(tool, arguments, |input| graph_references(gateway, input)),
        "km-coverage-summary" => answer(tool, arguments, |input| coverage_summary(gateway, input)),
        "km-lifecycle-report" => answer(tool, arguments, |input| lifecycle_report(gateway, input)),
        "km-feedback-submit" => answer(tool, arguments, |input| {
            feedback_submit(gateway, input, voter)
        }),
        "km-backup-trigger" => answer(tool, arguments, |input| backup_trigger(gateway, input)),
        "km-upload" => answer(tool, arguments, |input| upload(gateway, input)),
        "km-storetext" => answer(tool, arguments, |input| store_text(gateway, input)),
        other => Err(ErrorReport::new(
            ErrorCode::NotFound,
            format!(
                "unknown gateway tool `{other}`; the gateway's tools are {}",
                STEP_TOOLS.join(", ")
            ),
        )),
    }
}

/// The arguments prepared as `I`, the call, its answer as JSON.
fn answer<I, O>(
    tool: &str,
    arguments: JsonObject,
    run: impl FnOnce(I) -> Result<O, ErrorReport>,
) -> Result<Value, ErrorReport>
where
    I: DeserializeOwned + JsonSchema + 'static,
    O: Serialize,
{
    let input = prepare::<I>(tool, &schema_of::<I>(), arguments)?;
    let output = run(input)?;
    serde_json::to_value(&output).map_err(|e| {
        ErrorReport::new(
            ErrorCode::Internal,
            format!("{tool} produced an unserializable result: {e}"),
        )
    })
}

/// The gateway's tools as a recipe's steps see them, on behalf of one
/// voter: what `km-recipe-run` and `lore gateway recipe run` hand to
/// [`run_named`](crate::recipe::run_named). Each call runs on tokio's
/// blocking pool.
#[derive(Clone)]
pub struct GatewayCalls {
    gateway: Arc<Gateway>,
    voter: String,
}

impl GatewayCalls {
    /// Calls on `gateway` for `voter`.
    pub fn new(gateway: Arc<Gateway>, voter: impl Into<String>) -> GatewayCalls {
        GatewayCalls {
            gateway,
            voter: voter.into(),
        }
    }

    /// The tools steps may call.
    pub fn names(&self) -> Vec<String> {
        STEP_TOOLS.iter().map(|name| name.to_string()).collect()
    }

    /// Who the steps run for.
    pub fn voter(&self) -> &str {
        &self.voter
    }
}

impl StepCaller for GatewayCalls {
    fn call(
        &self,
        tool: &str,
        params: JsonObject,
    ) -> impl Future<Output = Result<Value, ErrorReport>> + Send {
        let gateway = Arc::clone(&self.gateway);
        let voter = self.voter.clone();
        let tool = tool.to_string();
        blocking(move || call(&gateway, &tool, params, &voter))
    }

    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

/// `work` on tokio's blocking pool; a panic in it is an `internal` error.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ErrorReport> + Send + 'static,
) -> Result<T, ErrorReport> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(ErrorReport::new(
            ErrorCode::Internal,
            format!("the gateway task failed: {e}"),
        ))
    })
}

/// `km-search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmSearchInput {
    /// What to find: words, identifiers, or a whole issue with its stack trace (up to 32,000 characters).
    pub query: String,
    /// Most results, 1 to 25 (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 25))]
    pub limit: Option<usize>,
    /// Add each result's file neighbours in the code graph: subsystem, tests, imports, importers, documents.
    #[serde(default)]
    pub include_graph: Option<bool>,
    /// compact (default): each chunk's place and a snippet of the lines that match (read more with km-read); full: each chunk's whole text.
    #[serde(default)]
    pub detail: Option<Detail>,
    /// Filters, combined with AND and applied before ranking.
    #[serde(default)]
    pub filters: Option<SearchFilters>,
    /// Rank by the embedding lane alone (gateway.embeddings); without one, a warning and lexical ranking.
    #[serde(default)]
    pub sort_by_vector: Option<bool>,
}

/// `km-ingest-status` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmIngestStatusInput {
    /// Only runs of this profile (default: the latest run of any).
    #[serde(default)]
    pub profile: Option<String>,
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

/// `km-graph-node` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmGraphNodeInput {
    /// The node: Code:<root>/<path> (TestCase:, DesignDoc:, Config: alike), Symbol:<root>/<path>::<qualified_name> or Subsystem:<name>; a path without its root when one root has it.
    pub node_id: String,
    /// Which relations to list: outgoing, incoming, all (default) or none.
    #[serde(default)]
    pub relationships: Option<Relationships>,
    /// Most relations, 1 to 200 (default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<usize>,
    /// Only these roots, by name.
    #[serde(default)]
    pub roots: Option<Vec<String>>,
}

/// `km-graph-subsystem` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmGraphSubsystemInput {
    /// The subsystem, as the catalog or the folders name it.
    pub name: String,
    /// Hops of DEPENDS_ON to follow both ways, 1 to 5 (default 1).
    #[serde(default)]
    #[schemars(range(min = 1, max = 5))]
    pub depth: Option<usize>,
    /// Also list its files (default true).
    #[serde(default)]
    pub include_artifacts: Option<bool>,
    /// From a previous answer's next_cursor.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Page size, 1 to 100 (default 25).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
    /// Only these roots, by name.
    #[serde(default)]
    pub roots: Option<Vec<String>>,
}

/// `km-graph-search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmGraphSearchInput {
    /// A subsystem, file or symbol name, or words of one.
    pub term: String,
    /// Most results, 1 to 50 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<usize>,
    /// Only these roots, by name.
    #[serde(default)]
    pub roots: Option<Vec<String>>,
}

/// `km-graph-tests-of` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmGraphTestsOfInput {
    /// A path (<root>/src/app.py, or src/app.py when one root has it) or a node id (Code:…, Symbol:…, TestCase:…).
    pub target: String,
    /// Only these roots, by name.
    #[serde(default)]
    pub roots: Option<Vec<String>>,
}

/// `km-graph-references` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmGraphReferencesInput {
    /// A name (Invoice.total, total), path::name (<root>/src/billing.py::Invoice.total) or a Symbol: node id.
    pub symbol: String,
    /// Only definitions in this root.
    #[serde(default)]
    pub root: Option<String>,
    /// Only definitions in these roots.
    #[serde(default)]
    pub roots: Option<Vec<String>>,

    /// Most callers and most callees, 1 to 200 (default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<usize>,
}

/// `km-read` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmReadInput {
    /// The file, root-relative as results name it (chunk.artifact_path).
    pub path: String,
    /// Its root (chunk.root); may be left out when one root holds the path.
    #[serde(default)]
    pub root: Option<String>,
    /// First line, from 1 (default 1).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub start_line: Option<usize>,
    /// Last line, inclusive (default the file's last); a long range ends early with next_start_line.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub end_line: Option<usize>,
}

/// `km-coverage-summary` arguments (none).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmCoverageSummaryInput {}

/// `km-lifecycle-report` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmLifecycleReportInput {
    /// Days after which an unchanged document is stale (default gateway.lifecycle.stale_after_days in lore.yaml, 180).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub stale_after_days: Option<u32>,
    /// Most entries per list, 1 to 200 (default 50); the summary counts them all.
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<usize>,
    /// Also report test fixtures (documents in test folders) and web assets (stylesheets, pages, scripts under static/), left out by default.
    #[serde(default)]
    pub include_fixtures: Option<bool>,
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

/// `km-backup-trigger` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmBackupTriggerInput {
    /// The folder to write to (default gateway.backups.dir, else the user's data folder); never inside a gateway root or .lore/.
    #[serde(default)]
    pub destination: Option<String>,
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

/// `km-feedback-submit`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedbackAnswer {
    /// `recorded`.
    pub status: String,
    /// The feedback as stored (with its id and timestamp).
    pub feedback: lore_store::Feedback,
}

/// `km-search`: the chunks `input.query` is about, with graph context
/// when asked (the service call `lore gateway search` makes too).
pub fn search(gateway: &Gateway, input: KmSearchInput) -> Result<SearchResponse, ErrorReport> {
    gateway.search(&SearchRequest {
        query: input.query,
        limit: input.limit,
        filters: input.filters.unwrap_or_default(),
        sort_by_vector: input.sort_by_vector == Some(true),
        include_graph: input.include_graph == Some(true),
        detail: input.detail.unwrap_or_default(),
    })
}

/// What `km-ingest-status` answers: the last run and each root's
/// freshness, and with a store several servers share, the roots another
/// server ingested last.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct IngestStatusAnswer {
    /// This server's last run and its roots' freshness.
    #[serde(flatten)]
    pub status: IngestStatus,
    /// Roots whose last ingest ran on another server sharing the store
    /// (their chunks reach this server's index through the store).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ingested_elsewhere: Vec<IngestedElsewhere>,
}

/// `km-ingest-status`: the last run (of a profile), how fresh each root
/// is, and the roots another server sharing the store ingested last. A
/// server that never ran an ingest itself but answers roots from the
/// store reports those roots (and no run); with nothing to report, or no
/// run of the asked profile, it is `not_found`.
pub fn ingest_status(
    gateway: &Gateway,
    input: KmIngestStatusInput,
) -> Result<IngestStatusAnswer, ErrorReport> {
    let elsewhere = gateway.ingested_elsewhere().unwrap_or_default();
    let run = gateway.last_run(input.profile.as_deref());
    let freshness = gateway.freshness();
    let from_store = freshness
        .iter()
        .any(|root| root.follow == crate::ingest::follow::FollowMode::Store);
    if run.is_none() && (input.profile.is_some() || !from_store) {
        return Err(no_run(input.profile.as_deref(), &elsewhere));
    }
    Ok(IngestStatusAnswer {
        status: IngestStatus { run, freshness },
        ingested_elsewhere: elsewhere,
    })
}

/// `not_found` for a status with no run (of `profile`), naming the roots
/// other servers ingested.
fn no_run(profile: Option<&str>, elsewhere: &[IngestedElsewhere]) -> ErrorReport {
    let others: Vec<String> = elsewhere
        .iter()
        .map(|e| {
            format!(
                "root `{}` was last ingested by {} ({}{})",
                e.root,
                e.by,
                if e.running {
                    "running, since "
                } else {
                    "ended "
                },
                if e.running { &e.started_at } else { &e.until }
            )
        })
        .collect();
    let mut message = match profile {
        Some(p) => format!("no ingest run of profile `{p}`; start one with km-ingest-trigger"),
        None => "no ingest has run yet; start one with km-ingest-trigger".to_string(),
    };
    if !others.is_empty() {
        message = format!(
            "{message} (on this server; {}, and its chunks are searchable here through the store)",
            others.join("; ")
        );
    }
    ErrorReport::new(ErrorCode::NotFound, message)
}

/// `km-ingest-trigger`: an ingest run, `progress` told of each file; a
/// failed run is an `upstream_error`.
pub fn ingest_trigger(
    gateway: &Gateway,
    input: KmIngestTriggerInput,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<IngestRun, ErrorReport> {
    let request = IngestRequest {
        profile: input.profile,
        dry_run: input.dry_run.unwrap_or(false),
        paths: input.paths.unwrap_or_default(),
    };
    let run = gateway.ingest(&request, progress)?;
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

/// `km-graph-node`.
pub fn graph_node(gateway: &Gateway, input: KmGraphNodeInput) -> Result<NodeAnswer, ErrorReport> {
    gateway.node(
        &input.node_id,
        input.relationships.unwrap_or_default(),
        input.limit,
        &input.roots.unwrap_or_default(),
    )
}

/// `km-graph-subsystem`.
pub fn graph_subsystem(
    gateway: &Gateway,
    input: KmGraphSubsystemInput,
) -> Result<SubsystemAnswer, ErrorReport> {
    gateway.subsystem(
        &input.name,
        input.depth,
        input.include_artifacts.unwrap_or(true),
        input.cursor.as_deref(),
        input.limit,
        &input.roots.unwrap_or_default(),
    )
}

/// `km-graph-search`.
pub fn graph_search(
    gateway: &Gateway,
    input: KmGraphSearchInput,
) -> Result<GraphSearchAnswer, ErrorReport> {
    gateway.graph_search(&input.term, input.limit, &input.roots.unwrap_or_default())
}

/// `km-read`.
pub fn read(gateway: &Gateway, input: KmReadInput) -> Result<ReadAnswer, ErrorReport> {
    gateway.read(&ReadRequest {
        path: input.path,
        root: input.root,
        start_line: input.start_line,
        end_line: input.end_line,
    })
}

/// `km-graph-tests-of`.
pub fn graph_tests_of(
    gateway: &Gateway,
    input: KmGraphTestsOfInput,
) -> Result<TestsOfAnswer, ErrorReport> {
    gateway.tests_of(&input.target, &input.roots.unwrap_or_default())
}

/// `km-graph-references`.
pub fn graph_references(
    gateway: &Gateway,
    input: KmGraphReferencesInput,
) -> Result<ReferencesAnswer, ErrorReport> {
    // `root` and `roots` both narrow: the definitions of either.
    let roots: Vec<String> = input
        .root
        .into_iter()
        .chain(input.roots.unwrap_or_default())
        .collect();
    gateway.references(&input.symbol, &roots, input.limit)
}

/// `km-coverage-summary`.
pub fn coverage_summary(
    gateway: &Gateway,
    _input: KmCoverageSummaryInput,
) -> Result<CoverageSummary, ErrorReport> {
    gateway.coverage()
}

/// `km-lifecycle-report`.
pub fn lifecycle_report(
    gateway: &Gateway,
    input: KmLifecycleReportInput,
) -> Result<LifecycleReport, ErrorReport> {
    gateway.lifecycle(&LifecycleRequest {
        stale_after_days: input.stale_after_days,
        limit: input.limit,
        include_fixtures: input.include_fixtures.unwrap_or(false),
    })
}

/// `km-feedback-submit`: `voter`'s vote on a search result.
pub fn feedback_submit(
    gateway: &Gateway,
    input: KmFeedbackSubmitInput,
    voter: &str,
) -> Result<FeedbackAnswer, ErrorReport> {
    let stored = gateway.submit_feedback(lore_store::NewFeedback {
        request_id: input.request_id,
        chunk_id: input.chunk_id,
        vote: input.vote,
        note: input.note,
        context: input.context,
        voter: voter.to_string(),
    })?;
    Ok(FeedbackAnswer {
        status: "recorded".to_string(),
        feedback: stored,
    })
}

/// `km-backup-trigger`.
pub fn backup_trigger(
    gateway: &Gateway,
    input: KmBackupTriggerInput,
) -> Result<crate::backup::BackupWritten, ErrorReport> {
    gateway.backup(input.destination.as_deref())
}

/// `km-upload`.
pub fn upload(gateway: &Gateway, input: KmUploadInput) -> Result<StoredFile, ErrorReport> {
    gateway.upload(&UploadRequest {
        source_path: input.source_path,
        destination: input.destination,
        root: input.root,
        overwrite: input.overwrite.unwrap_or(false),
        ingest: input.ingest,
    })
}

/// `km-storetext`.
pub fn store_text(gateway: &Gateway, input: KmStoreTextInput) -> Result<StoredFile, ErrorReport> {
    gateway.store_text(&StoreTextRequest {
        content: input.content,
        title: input.title,
        destination: input.destination,
        root: input.root,
        subsystem: input.subsystem,
        tags: input.tags.unwrap_or_default(),
        metadata: input.metadata,
        overwrite: input.overwrite.unwrap_or(false),
        ingest: input.ingest,
    })
}
