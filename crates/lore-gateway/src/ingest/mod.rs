//! Ingest: walk each root, classify and chunk what changed, and commit
//! the index once. A content-hash ledger per root
//! (`.lore/gateway/ledger/<root>.json`) makes re-ingest incremental: a file
//! whose size and time are unchanged is not read, one whose text is
//! unchanged is not re-chunked, and the chunks of changed, deleted and
//! newly skipped files are removed. Every run is recorded
//! (`.lore/gateway/runs.jsonl`) whether it succeeded or not.

pub mod chunk;
pub mod classify;
mod files;
pub mod follow;
pub mod followed;
mod ledger;
pub mod outline;
pub mod project_files;
mod root_run;
pub mod runlog;
pub mod subsystem;
pub mod team;
pub mod upload;
pub mod walk;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use lore_core::config::{GatewayConfig, is_root_name};
use lore_core::error::HasErrorCode;
use lore_core::hash::content_hash;
use lore_core::time::UtcMillis;
use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::graph::call_index::{self, CALLS_VERSION, CallChanges};
use crate::graph::{Edge, FACTS_VERSION, GraphFile, GraphLedger};
use crate::index::{FileFacts, GatewayIndex};
use crate::ingest::chunk::{Chunk, chunk, chunk_code};
use crate::ingest::classify::{ArtifactType, Conventions, artifact_type, language};
use crate::ingest::outline::outline;
use crate::ingest::project_files::{ProjectFiles, resolved};
use crate::ingest::subsystem::{Catalog, FrontMatter};
use crate::ingest::walk::{FoundFile, SkipReason, is_ignored, modified_ms, read_text, walk};
use files::files_to_read;
pub use files::root_relative;
pub use ledger::{Ledger, LedgerEntry, RemovedEntry, ledger_is_current, read_ledger, was_ingested};
use ledger::{SERVE_RULES, SHARED_RECORDS, ledger_path};
use lore_store::{KnowledgeStore, NewTriple, TripleKey};
use root_run::{Reading, RootRun, write_graph};

/// A configured root, resolved.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Root {
    /// Its name (results and node ids of other roots never collide with it).
    pub name: String,
    /// The folder.
    pub path: PathBuf,
}

/// The roots of `config`, relative paths taken from `project_root`.
pub fn resolve_roots(project_root: &Path, config: &GatewayConfig) -> Vec<Root> {
    config
        .roots
        .iter()
        .map(|root| {
            let path = project_root.join(&root.path);
            let path = path.canonicalize().unwrap_or(path);
            let name = root
                .name
                .clone()
                .unwrap_or_else(|| default_root_name(&path));
            Root { name, path }
        })
        .collect()
}

/// A root's name from its folder (`my-repo`), made a valid name.
pub fn default_root_name(path: &Path) -> String {
    let raw = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("root")
        .to_string();
    let cleaned: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if is_root_name(&cleaned) {
        cleaned
    } else {
        "root".to_string()
    }
}

/// What an ingest should do.
#[derive(Debug, Clone, Default)]
pub struct IngestRequest {
    /// The label recorded with the run (default `manual`).
    pub profile: Option<String>,
    /// Read and count, but write nothing (no index, no ledger).
    pub dry_run: bool,
    /// Only these files (root-relative, or absolute inside a root);
    /// every file of every root when empty.
    pub paths: Vec<String>,
}

/// A file left out of a run (or a name in it left out of the graph), and
/// why.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Skipped {
    /// The root.
    pub root: String,
    /// Root-relative path.
    pub path: String,
    /// Why.
    pub reason: SkipReason,
    /// What exactly (the names left out, for `name_too_long`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Skipped {
    fn new(root: &str, path: &str, reason: SkipReason) -> Skipped {
        Skipped {
            root: root.to_string(),
            path: path.to_string(),
            reason,
            detail: None,
        }
    }
}

/// One ingest run, as `km-ingest-status` reports it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct IngestRun {
    /// Its id (sortable by time).
    pub run_id: String,
    /// The label it was started with.
    pub profile: String,
    /// When it started (ISO-8601 UTC).
    pub started_at: String,
    /// How long it took.
    pub duration_seconds: f64,
    /// Whether it finished and committed.
    pub success: bool,
    /// Whether it only counted (nothing written).
    pub dry_run: bool,
    /// The roots it read.
    pub roots: Vec<String>,
    /// The files it was asked to read (none: every file of the roots).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Files indexed afterwards, by artifact type.
    pub artifact_counts: BTreeMap<String, u64>,
    /// Chunks in the index afterwards.
    pub chunk_count: u64,
    /// Files looked at.
    pub files_seen: u64,
    /// Files (re)chunked because they were new or changed.
    pub files_changed: u64,
    /// Files whose chunks were removed (deleted, now ignored or skipped).
    pub files_removed: u64,
    /// Files left out, with the reason.
    pub skipped: Vec<Skipped>,
    /// The commit checked out in each root that is a git work tree.
    pub repo_head: BTreeMap<String, String>,
    /// Relations in the code graph of the roots afterwards.
    #[serde(default)]
    pub relation_count: u64,
    /// The store transaction that wrote the graph's changes (none when
    /// nothing changed); `undo` reverts it.
    #[serde(default)]
    pub graph_tx_id: Option<i64>,
    /// What the embedding lane did after the run (with
    /// `gateway.embeddings`; in the answer to the ingest, not in the
    /// recorded run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embeddings: Option<crate::index::vectors::EmbeddingReport>,
    /// Why it failed, when it did.
    pub error: Option<String>,
}

/// The gateway's state folder, `.lore/gateway/`.
pub fn state_dir(project_state: &Path) -> PathBuf {
    project_state.join("gateway")
}

/// Runs an ingest of `roots` into the index under `state` (the gateway's
/// state folder), reporting each file to `progress` (done, total). The
/// run is recorded even when it fails. The project's own files
/// ([`ProjectFiles::never_served`]) are left out, and listed.
pub fn ingest(
    project: &ProjectFiles,
    state: &Path,
    config: &GatewayConfig,
    roots: &[Root],
    request: &IngestRequest,
    store: Option<&dyn KnowledgeStore>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<IngestRun, ErrorReport> {
    let target = Target {
        store,
        publish_as: None,
    };
    ingest_into(project, state, config, roots, request, target, progress)
}

/// Where an ingest writes besides the index: the store's graph, and the
/// store's file log when the index is shared (`publish_as`: this server's
/// origin, see [`team`]).
#[derive(Clone, Copy)]
pub(crate) struct Target<'a> {
    pub store: Option<&'a dyn KnowledgeStore>,
    pub publish_as: Option<&'a str>,
}

/// [`ingest`], publishing each file whose chunks moved when the target
/// says so.
pub(crate) fn ingest_into(
    project: &ProjectFiles,
    state: &Path,
    config: &GatewayConfig,
    roots: &[Root],
    request: &IngestRequest,
    target: Target<'_>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<IngestRun, ErrorReport> {
    let store = target.store;
    let started = Instant::now();
    let started_at = UtcMillis::now();
    let mut run = IngestRun {
        run_id: format!("run-{}", started_at.to_compact()),
        profile: request.profile.clone().unwrap_or_else(|| "manual".into()),
        started_at: started_at.to_iso(),
        duration_seconds: 0.0,
        success: false,
        dry_run: request.dry_run,
        roots: roots.iter().map(|r| r.name.clone()).collect(),
        paths: request.paths.clone(),
        artifact_counts: BTreeMap::new(),
        chunk_count: 0,
        files_seen: 0,
        files_changed: 0,
        files_removed: 0,
        skipped: Vec::new(),
        repo_head: BTreeMap::new(),
        relation_count: 0,
        graph_tx_id: None,
        embeddings: None,
        error: None,
    };
    if roots.is_empty() {
        return Err(ErrorReport::new(
            ErrorCode::InvalidRequest,
            "no gateway roots: run `lore gateway ingest PATH` to add a folder, or list it under gateway.roots in lore.yaml",
        ));
    }
    check_paths(roots, &request.paths)?;
    let job = Job {
        project,
        state,
        config,
        roots,
        request,
        store,
        publish_as: target.publish_as.filter(|_| store.is_some()),
    };
    let outcome = run_roots(&job, &mut run, progress);
    run.duration_seconds = started.elapsed().as_secs_f64();
    match outcome {
        Ok(()) => run.success = true,
        Err(e) => run.error = Some(e.message.clone()),
    }
    if !request.dry_run {
        record_run(state, &run)?;
    }
    Ok(run)
}

/// Refuses a file asked for that is in no root (`/etc/passwd`, `../x`),
/// as the CLI does, rather than answer a run that read nothing.
fn check_paths(roots: &[Root], paths: &[String]) -> Result<(), ErrorReport> {
    let names: Vec<&str> = roots.iter().map(|r| r.name.as_str()).collect();
    for asked in paths {
        if asked.trim().trim_end_matches('/').is_empty() || asked.trim() == "." {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                format!(
                    "paths: `{asked}` names no file; give files by their root-relative path (src/app.py), or leave paths out to ingest every file"
                ),
            ));
        }
        if !roots
            .iter()
            .any(|root| root_relative(&root.path, asked).is_some())
        {
            return Err(ErrorReport::new(
                ErrorCode::Forbidden,
                format!(
                    "paths: `{asked}` is not inside a gateway root ({}): give files by their root-relative path (src/app.py); folders outside the roots are added with `lore gateway ingest PATH`",
                    names.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// What one ingest works on.
struct Job<'a> {
    project: &'a ProjectFiles,
    state: &'a Path,
    config: &'a GatewayConfig,
    roots: &'a [Root],
    request: &'a IngestRequest,
    store: Option<&'a dyn KnowledgeStore>,
    /// This server's origin, when its index is shared through the store.
    publish_as: Option<&'a str>,
}

/// Ingests every root into one index writer (none in a dry run), then
/// writes the graphs, commits the index and writes the ledgers.
fn run_roots(
    job: &Job<'_>,
    run: &mut IngestRun,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), ErrorReport> {
    let started_ms = UtcMillis::now().0;
    let index = GatewayIndex::open(&job.state.join("index"))?;
    let mut writer = if job.request.dry_run {
        None
    } else {
        Some(index.writer()?)
    };
    let outbox = job.publish_as.map(|_| team::Outbox::default());
    let mut done = Vec::with_capacity(job.roots.len());
    for root in job.roots {
        if !holds_asked(root, &job.request.paths) {
            count_untouched(job.state, root, run);
            continue;
        }
        let mut root_run = RootRun::open(job, &index, writer.as_ref(), root)?;
        let reading = Reading {
            index: &index,
            writer: writer.as_ref(),
            outbox: outbox.as_ref().filter(|_| writer.is_some()),
        };
        root_run.ingest(job, root, &reading, run, started_ms, progress)?;
        done.push(root_run);
    }
    if let Some(writer) = &mut writer {
        let publish = job.store.zip(job.publish_as).zip(outbox.as_ref());
        commit(job.store, &index, writer, &mut done, run, publish)?;
    }
    // Workers finish in any order: the report does not.
    run.skipped
        .sort_by(|a, b| (&a.root, &a.path).cmp(&(&b.root, &b.path)));
    run.chunk_count = index.chunk_count();
    Ok(())
}

/// Whether a run over `paths` reads files of `root` (a run over every
/// file, with no paths, reads every root).
fn holds_asked(root: &Root, paths: &[String]) -> bool {
    paths.is_empty() || paths.iter().any(|p| root_relative(&root.path, p).is_some())
}

/// What a run over other roots' files reports of `root`, from its ledger
/// alone (its graph is neither read nor written): its files by type, its
/// graph's relations and its commit.
fn count_untouched(state: &Path, root: &Root, run: &mut IngestRun) {
    let ledger = read_ledger(state, &root.name);
    for entry in ledger.files.values() {
        *run.artifact_counts
            .entry(entry.artifact_type.as_str().to_string())
            .or_default() += 1;
    }
    run.relation_count += if ledger.relations > 0 || ledger.files.is_empty() {
        ledger.relations
    } else {
        // A ledger written before it counted them.
        GraphLedger::load(&followed::graph_path(state, &root.name))
            .written
            .len() as u64
    };
    if let Some(head) = git_head(&root.path) {
        run.repo_head.insert(root.name.clone(), head);
    }
}

/// The graph first (its writes are idempotent), then the files published
/// to the store's log (when the index is shared), then the index, then
/// the ledgers: a crash in between reads a few files again next time,
/// never loses one. Segments merge last, so a merge that fails loses no
/// run's work.
fn commit(
    store: Option<&dyn KnowledgeStore>,
    index: &GatewayIndex,
    writer: &mut tantivy::IndexWriter,
    roots: &mut [RootRun],
    run: &mut IngestRun,
    publish: Option<((&dyn KnowledgeStore, &str), &team::Outbox)>,
) -> Result<(), ErrorReport> {
    for root in roots.iter_mut() {
        if !root.books.dirty && store.is_some() {
            run.relation_count += root.books.graph.written.len() as u64;
            continue;
        }
        call_index::update(&mut root.books.graph, &root.books.calls);
        write_graph(store, &root.name, &mut root.books.graph, &root.catalog, run)?;
        let bytes = serde_json::to_vec(&root.books.graph)
            .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("graph ledger: {e}")))?;
        lore_core::project::write_atomically(&root.graph_path, bytes).map_err(|e| e.report())?;
    }
    if let Some(((store, origin), outbox)) = publish {
        outbox.publish(store, origin)?;
    }
    index.commit(writer)?;
    for root in roots.iter_mut() {
        root.books.ledger.relations = root.books.graph.written.len() as u64;
        let bytes = serde_json::to_vec(&root.books.ledger)
            .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("ledger: {e}")))?;
        lore_core::project::write_atomically(&root.ledger_path, bytes).map_err(|e| e.report())?;
    }
    index.compact(writer)
}

/// A fingerprint of the catalog files and the repository conventions a
/// root is classified with.
fn catalog_stamp(project_root: &Path, root: &Path, conventions: &Conventions) -> String {
    let mut texts: Vec<String> = [
        project_root.join(crate::ingest::subsystem::CATALOG_FILE),
        root.join(".metadata").join("subsystems.json"),
    ]
    .iter()
    .map(|p| std::fs::read_to_string(p).unwrap_or_default())
    .collect();
    texts.push(conventions.stamp().to_string());
    content_hash(texts.join("\u{1f}"))
}

/// The commit `HEAD` names in a git work tree (reading `.git` directly).
pub fn git_head(root: &Path) -> Option<String> {
    let git = root.join(".git");
    let head = std::fs::read_to_string(git.join("HEAD")).ok()?;
    let head = head.trim();
    let Some(reference) = head.strip_prefix("ref: ") else {
        return Some(head.to_string());
    };
    if let Ok(commit) = std::fs::read_to_string(git.join(reference)) {
        return Some(commit.trim().to_string());
    }
    let packed = std::fs::read_to_string(git.join("packed-refs")).ok()?;
    packed.lines().find_map(|line| {
        let (commit, name) = line.split_once(' ')?;
        (name == reference).then(|| commit.to_string())
    })
}

const RUNS_KEPT: usize = 200;

fn record_run(state: &Path, run: &IngestRun) -> Result<(), ErrorReport> {
    crate::ingest::runlog::append_kept(&state.join("runs.jsonl"), run, RUNS_KEPT)
}

/// The recorded runs, oldest first (the newest 200).
pub fn runs(state: &Path) -> Vec<IngestRun> {
    std::fs::read_to_string(state.join("runs.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<IngestRun>(line).ok())
        .collect()
}

/// The newest recorded run (of `profile`, when given).
pub fn last_run(state: &Path, profile: Option<&str>) -> Option<IngestRun> {
    runs(state)
        .into_iter()
        .rev()
        .find(|run| profile.is_none_or(|p| run.profile == p))
}
