//! The `gateway` toolset (spec 004's names and snake_case fields): search
//! the chunks of the ingested repositories, and run and inspect ingests.
//! Each tool publishes a call of `lore_gateway::recipe::calls` (arguments,
//! their mapping onto the gateway's service, and the by-name dispatch
//! recipe steps use), so an agent's call and a recipe step's are one.

use std::sync::Arc;

use lore_core::ErrorReport;
use lore_gateway::Gateway;
use lore_gateway::graph::explore::{GraphSearchAnswer, NodeAnswer, SubsystemAnswer, TestsOfAnswer};
use lore_gateway::graph::references::ReferencesAnswer;
use lore_gateway::graph::report::{CoverageSummary, LifecycleReport};
use lore_gateway::read::ReadAnswer;
use lore_gateway::recipe::calls::IngestStatusAnswer;
use lore_gateway::recipe::calls::{
    self, FeedbackAnswer, KmBackupTriggerInput, KmCoverageSummaryInput, KmFeedbackSubmitInput,
    KmGraphNodeInput, KmGraphReferencesInput, KmGraphSearchInput, KmGraphSubsystemInput,
    KmGraphTestsOfInput, KmIngestStatusInput, KmIngestTriggerInput, KmLifecycleReportInput,
    KmReadInput, KmSearchInput, KmStoreTextInput, KmUploadInput, blocking,
};
use lore_gateway::search::SearchResponse;
use lore_gateway::{IngestRun, StoredFile};

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition, ToolRegistry};

mod help;
mod recipe;

pub use help::{GATEWAY_REFERENCE, KmHelp};
pub use recipe::KmRecipeRun;

/// Registers the gateway tools over `gateway`, each needing the scope of
/// the gateway specification's table (spec 004 §2) unless `scopes`
/// (`gateway.tool_scopes`) says otherwise.
pub fn register_gateway_tools(
    registry: &mut ToolRegistry,
    gateway: Arc<Gateway>,
    scopes: &lore_core::config::ToolScopes,
) {
    registry
        .register(KmSearch {
            gateway: Arc::clone(&gateway),
        })
        .register(KmRead {
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
        .register(KmGraphReferences {
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
    registry.register(KmRecipeRun::new(gateway));
    for (tool, scope) in scopes.changed() {
        registry.set_scope(tool, scope);
    }
}

/// `km-search`.
pub struct KmSearch {
    gateway: Arc<Gateway>,
}

impl Tool for KmSearch {
    type Input = KmSearchInput;
    type Output = SearchResponse;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-search",
        title: "Knowledge Search",
        description: "Find the code, tests and docs an issue, a stack trace or a question is about, in the ingested repositories: chunks with path, lines, type, subsystem and why each ranks where it does. Paste the whole issue; named files and stack frames count most. Each chunk lists the symbols it defines; include_graph adds the file's tests, imports and documents. Filters (roots, subsystems, artifact_types, namespaces, tags, symbols, symbol_kinds, symbol_languages, updated_after, max_age_days) apply before ranking. Example: {\"query\":\"ConnectionError raised in adapters.send when a proxy is set\",\"limit\":5}",
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
        blocking(move || calls::search(&gateway, input)).await
    }
}

/// `km-read`.
pub struct KmRead {
    gateway: Arc<Gateway>,
}

impl Tool for KmRead {
    type Input = KmReadInput;
    type Output = ReadAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-read",
        title: "Read File",
        description: "Read a file of an ingested repository, or a range of its lines, to see around a km-search hit: path and root as the result names them. Only files the gateway serves (inside its roots, not ignored, never credentials); a long range ends early with next_start_line. Example: {\"path\":\"src/billing/invoice.py\",\"start_line\":40,\"end_line\":90}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(&self, input: KmReadInput, _ctx: ToolContext) -> Result<ReadAnswer, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || calls::read(&gateway, input)).await
    }
}

/// `km-ingest-status`.
pub struct KmIngestStatus {
    gateway: Arc<Gateway>,
}

impl Tool for KmIngestStatus {
    type Input = KmIngestStatusInput;
    type Output = IngestStatusAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-ingest-status",
        title: "Ingest Status",
        description: "The last ingest run of the repositories (run_id, profile, started_at, duration_seconds, success, artifact_counts by type, chunk_count, files skipped and why, repo_head) and each root's freshness: whether a running server follows it (inotify, walk, off, none; store: answered from a shared store as ingested_by another server), fresh, pending files, changed_at, ingested_at; with a store several servers share, ingested_elsewhere: the roots another server ingested last (by, started_at, until, running). Example: {}",
        read_only: true,
        scope: Scope::Admin,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmIngestStatusInput,
        _ctx: ToolContext,
    ) -> Result<IngestStatusAnswer, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || calls::ingest_status(&gateway, input)).await
    }
}

/// `km-ingest-trigger`.
pub struct KmIngestTrigger {
    gateway: Arc<Gateway>,
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
        blocking(move || calls::ingest_trigger(&gateway, input, &mut |_, _| {})).await
    }
}

/// `km-graph-node`.
pub struct KmGraphNode {
    gateway: Arc<Gateway>,
}

impl Tool for KmGraphNode {
    type Input = KmGraphNodeInput;
    type Output = NodeAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-graph-node",
        title: "Graph Node",
        description: "A node of the code graph and its relations: what a file or symbol is (type, language, subsystem, lines) and what it imports, declares, tests, is tested by, is described by. Ids name their root (Code:<root>/<path>); a path in one root only may leave it out. An unknown id names the closest ones. Example: {\"node_id\":\"Code:app/src/billing/invoice.py\",\"relationships\":\"incoming\"}",
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
        blocking(move || calls::graph_node(&gateway, input)).await
    }
}

/// `km-graph-subsystem`.
pub struct KmGraphSubsystem {
    gateway: Arc<Gateway>,
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
        blocking(move || calls::graph_subsystem(&gateway, input)).await
    }
}

/// `km-graph-search`.
pub struct KmGraphSearch {
    gateway: Arc<Gateway>,
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
        blocking(move || calls::graph_search(&gateway, input)).await
    }
}

/// `km-graph-tests-of`.
pub struct KmGraphTestsOf {
    gateway: Arc<Gateway>,
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
        blocking(move || calls::graph_tests_of(&gateway, input)).await
    }
}

/// `km-graph-references`.
pub struct KmGraphReferences {
    gateway: Arc<Gateway>,
}

impl Tool for KmGraphReferences {
    type Input = KmGraphReferencesInput;
    type Output = ReferencesAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-graph-references",
        title: "References",
        description: "Go to definition, find callers and callees of a symbol: its definitions (path, lines, kind), who calls it, where it is named as a type (type_uses) and what it calls, each with path, line of the site and resolution (import, same_file, same_module, name_only, ambiguous: most to least trusted). A bare name defined twice answers every definition. Example: {\"symbol\":\"Invoice.total\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmGraphReferencesInput,
        _ctx: ToolContext,
    ) -> Result<ReferencesAnswer, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || calls::graph_references(&gateway, input)).await
    }
}

/// `km-coverage-summary`.
pub struct KmCoverageSummary {
    gateway: Arc<Gateway>,
}

impl Tool for KmCoverageSummary {
    type Input = KmCoverageSummaryInput;
    type Output = CoverageSummary;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-coverage-summary",
        title: "Coverage Summary",
        description: "What the gateway holds: files indexed by type and by subsystem, chunks, files left out with the reason (binary, too large, Lore's own files, files holding credentials), catalog globs no file matches, files removed since they were ingested, and how fresh the index is (oldest and newest file, last run). Example: {}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmCoverageSummaryInput,
        _ctx: ToolContext,
    ) -> Result<CoverageSummary, ErrorReport> {
        let gateway = Arc::clone(&self.gateway);
        blocking(move || calls::coverage_summary(&gateway, input)).await
    }
}

/// `km-lifecycle-report`.
pub struct KmLifecycleReport {
    gateway: Arc<Gateway>,
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
        blocking(move || calls::lifecycle_report(&gateway, input)).await
    }
}

/// `km-feedback-submit`.
pub struct KmFeedbackSubmit {
    gateway: Arc<Gateway>,
}

impl Tool for KmFeedbackSubmit {
    type Input = KmFeedbackSubmitInput;
    type Output = FeedbackAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-feedback-submit",
        title: "Feedback Submit",
        description: "Say whether a km-search result was useful: later searches with the same or similar words rank it higher (1) or lower (-1); 0 withdraws your vote. Each voter counts once per result, and votes fade over a month. Example: {\"request_id\":\"req-20260101T000000Z-1\",\"chunk_id\":\"app/src/app.py::App.run\",\"vote\":1,\"note\":\"the bug was here\"}",
        read_only: false,
        scope: Scope::Admin,
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
        let voter = ctx.voter();
        blocking(move || calls::feedback_submit(&gateway, input, &voter)).await
    }
}

/// `km-backup-trigger`.
pub struct KmBackupTrigger {
    gateway: Arc<Gateway>,
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
        blocking(move || calls::backup_trigger(&gateway, input)).await
    }
}

/// `km-upload`.
pub struct KmUpload {
    gateway: Arc<Gateway>,
}

impl Tool for KmUpload {
    type Input = KmUploadInput;
    type Output = StoredFile;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-upload",
        title: "Upload File",
        description: "Copy a text file the server can read (inside the project or its roots) into a root and ingest it, so km-search finds it. Refuses binary files, paths leading out of the root, the project's own files and files holding credentials (forbidden), and replacing a file unless overwrite is true (conflict). Example: {\"source_path\":\"notes/design.md\",\"destination\":\"docs/uploads/\"}",
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
        blocking(move || calls::upload(&gateway, input)).await
    }
}

/// `km-storetext`.
pub struct KmStoreText {
    gateway: Arc<Gateway>,
}

impl Tool for KmStoreText {
    type Input = KmStoreTextInput;
    type Output = StoredFile;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-storetext",
        title: "Store Text",
        description: "Write text as a markdown document in a root, with front matter (title, subsystem, tags, metadata), and ingest it so km-search finds it. Never replaces a file unless overwrite is true, and never writes the project's own files (lore.yaml, .lore/, a connection's database, wiki/, semantic-layer/, recipes/, subsystems.yaml: forbidden, naming the tool that writes them). Example: {\"title\":\"Release Notes\",\"content\":\"## Summary\\nPayments retry twice.\",\"tags\":[\"release\"]}",
        read_only: false,
        scope: Scope::Admin,
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
        blocking(move || calls::store_text(&gateway, input)).await
    }
}
