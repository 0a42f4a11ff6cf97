//! Ingest: walk each root, classify and chunk what changed, and commit
//! the index once. A content-hash ledger per root
//! (`.lore/gateway/ledger/<root>.json`) makes re-ingest incremental: a file
//! whose size and time are unchanged is not read, one whose text is
//! unchanged is not re-chunked, and the chunks of changed, deleted and
//! newly skipped files are removed. Every run is recorded
//! (`.lore/gateway/runs.jsonl`) whether it succeeded or not.

pub mod chunk;
pub mod classify;
pub mod follow;
pub mod followed;
pub mod outline;
pub mod project_files;
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
use lore_store::{KnowledgeStore, NewTriple, TripleKey};

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

/// What the ledger remembers of a file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// Its content hash.
    pub hash: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, ms since the epoch.
    pub modified_ms: i64,
    /// Its type.
    pub artifact_type: ArtifactType,
}

/// A file that was ingested once and is gone (deleted, or now skipped).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RemovedEntry {
    /// Its type when it was last ingested.
    pub artifact_type: ArtifactType,
    /// When the run that removed it started (RFC 3339).
    pub removed_at: String,
    /// That run.
    pub run_id: String,
}

/// The version of the rules of what is never served
/// ([`ProjectFiles::never_served`]); 1: the project's own files and
/// files holding credentials.
const SERVE_RULES: u32 = 1;

/// Removed files a ledger remembers at most (the newest).
const REMOVED_KEPT: usize = 1_000;

/// A root's ledger: what was ingested, and what was removed since.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Ledger {
    /// Whether its files are those other servers published to the
    /// store's file log ([`followed`]), not files this server read: its
    /// own first ingest of the root reads every file. First, so
    /// [`was_ingested`] tells without reading the rest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    from_store: bool,
    /// The subsystem catalog the files were classified with: a new one
    /// re-classifies every file.
    catalog: String,
    /// The index the files were written to ([`GatewayIndex::instance`]):
    /// another index holds none of them.
    #[serde(default)]
    index: String,
    /// The rules of what is never served the files were read under
    /// ([`SERVE_RULES`]): a run under newer ones reads every file again.
    #[serde(default)]
    rules: u32,
    /// The ingested files, by root-relative path.
    pub files: BTreeMap<String, LedgerEntry>,
    /// Files removed from the index, by root-relative path (until they
    /// come back; the newest 1,000).
    #[serde(default)]
    pub removed: BTreeMap<String, RemovedEntry>,
    /// The kind of records its files were last published with
    /// ([`SHARED_RECORDS`]; 0: none, or chunks only): a shared run under a
    /// newer kind publishes every file again.
    #[serde(default)]
    shared_records: u32,
}

/// The records a shared index publishes: 1, chunks with the graph's facts
/// and the file's text (`index::shared`).
const SHARED_RECORDS: u32 = 1;

impl Ledger {
    /// Whether its files came from the store's file log: other servers
    /// read them, this one never ingested the root.
    pub fn is_from_store(&self) -> bool {
        self.from_store
    }

    /// Forgets a file, remembering it as removed by `run`; whether it was
    /// known.
    fn forget(&mut self, path: &str, run: &IngestRun) -> bool {
        self.forget_as(path, &run.started_at, &run.run_id)
    }

    /// Forgets a file, remembering it as removed at `removed_at` by
    /// `run_id`; whether it was known.
    fn forget_as(&mut self, path: &str, removed_at: &str, run_id: &str) -> bool {
        let Some(entry) = self.files.remove(path) else {
            return false;
        };
        self.removed.insert(
            path.to_string(),
            RemovedEntry {
                artifact_type: entry.artifact_type,
                removed_at: removed_at.to_string(),
                run_id: run_id.to_string(),
            },
        );
        if self.removed.len() > REMOVED_KEPT {
            let oldest = self
                .removed
                .iter()
                .min_by(|a, b| (&a.1.removed_at, a.0).cmp(&(&b.1.removed_at, b.0)))
                .map(|(path, _)| path.clone());
            if let Some(oldest) = oldest {
                self.removed.remove(&oldest);
            }
        }
        true
    }
}

/// Where root `root`'s ledger is kept.
fn ledger_path(state: &Path, root: &str) -> PathBuf {
    state.join("ledger").join(format!("{root}.json"))
}

/// The ledger of root `root` (empty before its first ingest).
pub fn read_ledger(state: &Path, root: &str) -> Ledger {
    std::fs::read(ledger_path(state, root))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Whether root `root` was ever ingested here (its ledger exists, and
/// is not one kept from other servers' versions, which starts with
/// `{"from_store":true`).
pub fn was_ingested(state: &Path, root: &str) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(ledger_path(state, root)) else {
        return false;
    };
    let mut head = Vec::with_capacity(32);
    if file.take(32).read_to_end(&mut head).is_err() {
        return false;
    }
    !head.starts_with(br#"{"from_store":true"#)
}

/// Whether a run over some files of `root` keeps the rest of its index:
/// the ledger was written to the index `index_instance`, under today's
/// rules of what is served, catalog and conventions. Otherwise the next
/// run reads every file of the root again, and a run over some files only
/// would leave the root with those alone.
pub fn ledger_is_current(
    project_root: &Path,
    root: &Root,
    ledger: &Ledger,
    index_instance: &str,
) -> bool {
    let conventions = Conventions::read(&root.path);
    ledger.index == index_instance
        && ledger.rules == SERVE_RULES
        && ledger.catalog == catalog_stamp(project_root, &root.path, &conventions)
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
    for root in roots.iter() {
        let bytes = serde_json::to_vec(&root.books.ledger)
            .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("ledger: {e}")))?;
        lore_core::project::write_atomically(&root.ledger_path, bytes).map_err(|e| e.report())?;
    }
    index.compact(writer)
}

/// One root's ingest: its catalog, ledger and graph as they are brought
/// up to date.
struct RootRun {
    name: String,
    catalog: Catalog,
    conventions: Conventions,
    ledger_path: PathBuf,
    graph_path: PathBuf,
    books: Books,
}

/// What a root's ingest keeps track of: its ledger and graph.
struct Books {
    ledger: Ledger,
    graph: GraphLedger,
    /// Whether a file's facts changed (else the graph is what was written
    /// last time, and is not computed again).
    dirty: bool,
    /// What changed for the call edges.
    calls: CallChanges,
}

impl RootRun {
    /// The root's catalog, ledger and graph; a ledger that does not match
    /// the index or the catalog (or a graph of older facts) makes every
    /// file read again.
    fn open(
        job: &Job<'_>,
        index: &GatewayIndex,
        writer: Option<&tantivy::IndexWriter>,
        root: &Root,
    ) -> Result<RootRun, ErrorReport> {
        if !root.path.is_dir() {
            return Err(ErrorReport::new(
                ErrorCode::NotFound,
                format!(
                    "gateway root `{}` ({}) is not a folder; fix gateway.roots in lore.yaml",
                    root.name,
                    root.path.display()
                ),
            ));
        }
        let project_root = job.project.root();
        let catalog = Catalog::load(project_root, &root.path)?;
        let conventions = Conventions::read(&root.path);
        let catalog_stamp = catalog_stamp(project_root, &root.path, &conventions);
        let mut ledger = read_ledger(job.state, &root.name);
        let current = !index.rebuilt && ledger.index == index.instance;
        // A run over some files of a root only other servers ingested (an
        // upload into it) reads those files and keeps the rest as the
        // store's file log has them: the root stays theirs until a full run.
        let into_store_copy = current && ledger.from_store && !job.request.paths.is_empty();
        if !current || (ledger.from_store && !into_store_copy) {
            // The index does not hold what the ledger lists (it was
            // rebuilt, by this run or by a search that found it outdated):
            // every file is read again. Removed files stay known. So is a
            // root only other servers ingested: a full run reads it whole.
            ledger.files.clear();
            ledger.catalog.clear();
            ledger.index = index.instance.clone();
            ledger.from_store = false;
        }
        if ledger.catalog != catalog_stamp && !into_store_copy {
            // Subsystems may have moved, or the repository's conventions
            // changed: every file is classified again.
            ledger.files.clear();
            ledger.catalog = catalog_stamp;
            if let Some(writer) = writer {
                writer.delete_term(tantivy::Term::from_field_text(
                    index.fields.root,
                    &root.name,
                ));
            }
        }
        let graph_path = job.state.join("graph").join(format!("{}.json", root.name));
        let mut graph = GraphLedger::load(&graph_path);
        let mut dirty = false;
        if graph.facts_version != FACTS_VERSION && job.request.paths.is_empty() {
            // Facts of an older format: every file is read again (a run
            // over some files only keeps the others' until a full one).
            graph.files.clear();
            graph.facts_version = FACTS_VERSION;
            dirty = true;
        }
        // Calls never resolved, or of an older format, are resolved now.
        dirty |= graph.calls_version != CALLS_VERSION && !graph.files.is_empty();
        Ok(RootRun {
            name: root.name.clone(),
            catalog,
            conventions,
            ledger_path: ledger_path(job.state, &root.name),
            graph_path,
            books: Books {
                ledger,
                graph,
                dirty,
                calls: CallChanges::default(),
            },
        })
    }

    /// Reads what changed in the root, forgets what is gone, and counts.
    fn ingest(
        &mut self,
        job: &Job<'_>,
        root: &Root,
        reading: &Reading<'_>,
        run: &mut IngestRun,
        started_ms: i64,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), ErrorReport> {
        let (files, gone) = files_to_read(
            job.project,
            root,
            job.config,
            job.request,
            &self.books.ledger,
            run,
        )?;
        // Files ingested before the rules of what is served changed are
        // read again (a key file among them is removed from the index).
        let reread = self.books.ledger.rules != SERVE_RULES;
        if job.request.paths.is_empty() {
            self.books.ledger.rules = SERVE_RULES;
        }
        if let Some(head) = git_head(&root.path) {
            run.repo_head.insert(self.name.clone(), head);
        }
        // A shared run publishes every file again when the root's files
        // were published with older records (without the graph's facts).
        let republish =
            reading.outbox.is_some() && self.books.ledger.shared_records != SHARED_RECORDS;
        if reading.outbox.is_some() && job.request.paths.is_empty() {
            self.books.ledger.shared_records = SHARED_RECORDS;
        }
        let wanted = self.wanted(&files, reread || republish, republish, run, started_ms);
        let total = files.len() as u64;
        self.read(job.project, wanted, reading, total, run, progress)?;
        progress(total, total);
        let books = &mut self.books;
        for path in gone {
            books.forget(&self.name, &path, reading, run);
        }
        report_left_out_names(&self.name, &books.graph, &books.ledger, run);
        for entry in books.ledger.files.values() {
            *run.artifact_counts
                .entry(entry.artifact_type.as_str().to_string())
                .or_default() += 1;
        }
        // Files the graph knows but the ledger does not (left by a crash,
        // or published by another server and not in this server's copy:
        // a full run's view of the root wins, in the log too).
        let ledger = &books.ledger;
        let unlisted: Vec<String> = books
            .graph
            .files
            .keys()
            .filter(|path| !ledger.files.contains_key(*path))
            .cloned()
            .collect();
        for path in &unlisted {
            books.graph.files.remove(path);
            if let Some(writer) = reading.writer {
                reading.index.remove_file(writer, &self.name, path);
            }
            if let Some(outbox) = reading.outbox.filter(|_| job.request.paths.is_empty()) {
                outbox.close(&self.name, path);
            }
        }
        if !unlisted.is_empty() {
            books.dirty = true;
            books.calls.removed();
        }
        // A graph never written to a store (ingested without one before).
        books.dirty |=
            job.store.is_some() && books.graph.written.is_empty() && !books.graph.files.is_empty();
        Ok(())
    }

    /// The files to read; the others are kept as they are. Stamps are
    /// trusted only for files older than a moment (one rewritten within
    /// the same clock tick keeps its size and time), and a file the graph
    /// has no facts of is read again.
    fn wanted<'f>(
        &self,
        files: &'f [FoundFile],
        reread: bool,
        refacts: bool,
        run: &mut IngestRun,
        started_ms: i64,
    ) -> Vec<Wanted<'f>> {
        let mut wanted = Vec::new();
        for file in files {
            run.files_seen += 1;
            let settled = file.modified_ms < started_ms - 2_000;
            let entry = self.books.ledger.files.get(&file.path);
            let unchanged = settled
                && !reread
                && entry.is_some_and(|e| e.size == file.size && e.modified_ms == file.modified_ms);
            let known = !refacts && self.books.graph.files.contains_key(&file.path);
            if !(unchanged && known) {
                wanted.push(Wanted {
                    file,
                    previous_hash: entry.map(|e| e.hash.clone()),
                    known,
                });
            }
        }
        wanted
    }

    /// Reads, outlines and chunks the wanted files on every core, and
    /// applies each here as it comes (the index writer, the ledgers and
    /// the run are this thread's).
    fn read(
        &mut self,
        project: &ProjectFiles,
        wanted: Vec<Wanted<'_>>,
        reading: &Reading<'_>,
        total: u64,
        run: &mut IngestRun,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), ErrorReport> {
        let mut done = total - wanted.len() as u64;
        progress(done, total);
        let RootRun {
            name,
            catalog,
            conventions,
            books,
            ..
        } = self;
        let shared = Shared {
            project,
            root: name,
            catalog,
            conventions,
            chunks: reading.writer.is_some(),
            keep_text: reading.outbox.is_some(),
        };
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(wanted.len().max(1));
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| -> Result<(), ErrorReport> {
            let (sender, receiver) = std::sync::mpsc::sync_channel::<Prepared>(64);
            for _ in 0..workers {
                let sender = sender.clone();
                let (next, wanted, shared) = (&next, &wanted, &shared);
                scope.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = wanted.get(i) else { break };
                        if sender.send(prepare(job, shared)).is_err() {
                            // The run stopped on an error.
                            break;
                        }
                    }
                });
            }
            drop(sender);
            for prepared in receiver {
                done += 1;
                progress(done, total);
                books.apply(name, prepared, reading, run)?;
            }
            Ok(())
        })
    }
}

impl Books {
    /// One file as a worker left it: skipped (and forgotten), or its
    /// facts, chunks and ledger entry.
    fn apply(
        &mut self,
        root: &str,
        prepared: Prepared,
        reading: &Reading<'_>,
        run: &mut IngestRun,
    ) -> Result<(), ErrorReport> {
        let Prepared {
            path,
            file,
            outcome,
        } = prepared;
        let read = match outcome {
            Ok(read) => read,
            Err(reason) => {
                run.skipped.push(Skipped::new(root, &path, reason));
                self.forget(root, &path, reading, run);
                return Ok(());
            }
        };
        if read.changed {
            run.files_changed += 1;
        }
        if let Some(facts) = read.facts {
            if let Some(writer) = reading.writer {
                reading
                    .index
                    .put_file(writer, &facts.index, &facts.chunks)?;
            }
            if let Some(outbox) = reading.outbox {
                outbox.put(&crate::index::shared::Published {
                    facts: &facts.index,
                    chunks: &facts.chunks,
                    graph: &facts.graph,
                    text: facts.text.as_deref().unwrap_or_default(),
                    text_hash: &read.hash,
                })?;
            }
            let before = self.graph.files.insert(path.clone(), facts.graph);
            if let Some(after) = self.graph.files.get(&path) {
                self.calls.replaced(&path, before.as_ref(), after);
            }
            self.dirty = true;
        }
        self.ledger.removed.remove(&path);
        self.ledger.files.insert(
            path,
            LedgerEntry {
                hash: read.hash,
                size: file.size,
                modified_ms: file.modified_ms,
                artifact_type: read.kind,
            },
        );
        Ok(())
    }

    /// A file gone or no longer served: out of the graph, the ledger and
    /// the index.
    fn forget(&mut self, root: &str, path: &str, reading: &Reading<'_>, run: &mut IngestRun) {
        if self.graph.files.remove(path).is_some() {
            self.dirty = true;
            self.calls.removed();
        }
        if self.ledger.forget(path, run) {
            run.files_removed += 1;
            if let Some(writer) = reading.writer {
                reading.index.remove_file(writer, root, path);
            }
            if let Some(outbox) = reading.outbox {
                outbox.close(root, path);
            }
        }
    }
}

/// The index files go to (no writer in a dry run).
struct Reading<'a> {
    index: &'a GatewayIndex,
    writer: Option<&'a tantivy::IndexWriter>,
    /// The files to publish (a shared index's run).
    outbox: Option<&'a team::Outbox>,
}

/// Lists the names in indexed files that the graph leaves out (too long
/// for the store), every run: an unchanged file keeps its facts.
fn report_left_out_names(root: &str, graph: &GraphLedger, ledger: &Ledger, run: &mut IngestRun) {
    for (path, file) in &graph.files {
        if !file.left_out.is_empty() && ledger.files.contains_key(path) {
            run.skipped.push(Skipped {
                detail: Some(format!(
                    "left out of the graph (its node id would pass {} characters): {}",
                    crate::graph::MAX_NODE_CHARS,
                    file.left_out.join("; ")
                )),
                ..Skipped::new(root, path, SkipReason::NameTooLong)
            });
        }
    }
}

/// Writes the difference between a root's graph and what was written last
/// time to the store, in one transaction.
fn write_graph(
    store: Option<&dyn KnowledgeStore>,
    root: &str,
    graph: &mut GraphLedger,
    catalog: &Catalog,
    run: &mut IngestRun,
) -> Result<(), ErrorReport> {
    let Some(store) = store else {
        return Ok(());
    };
    let edges = crate::graph::build(root, &graph.files, catalog);
    let mut relate = Vec::new();
    let edges: BTreeMap<String, Option<String>> =
        edges.into_iter().map(|(e, p)| (e.key(), p)).collect();
    for (key, properties) in &edges {
        if graph.written.get(key) != Some(properties) {
            let Some(edge) = Edge::from_key(key) else {
                continue;
            };
            relate.push(NewTriple {
                subject: edge.0.clone(),
                predicate: edge.1.clone(),
                object: edge.2.clone(),
                confidence: None,
                properties: properties
                    .as_deref()
                    .and_then(|p| serde_json::from_str(p).ok()),
            });
        }
    }
    let unrelate: Vec<TripleKey> = graph
        .written
        .keys()
        .filter(|key| !edges.contains_key(*key))
        .filter_map(|key| Edge::from_key(key))
        .map(|edge| TripleKey {
            subject: edge.0.clone(),
            predicate: edge.1.clone(),
            object: edge.2.clone(),
        })
        .collect();
    if !relate.is_empty() || !unrelate.is_empty() {
        let summary = format!(
            "gateway ingest of {root}: {} relations written, {} removed",
            relate.len(),
            unrelate.len()
        );
        let written = store
            .relate_many("gateway", &summary, relate, unrelate)
            .map_err(|e| e.report())?;
        run.graph_tx_id = Some(written.tx_id).filter(|_| written.changed);
    }
    run.relation_count += edges.len() as u64;
    graph.written = edges;
    Ok(())
}

/// A file ingest reads: what the ledger knew of it.
struct Wanted<'a> {
    file: &'a FoundFile,
    previous_hash: Option<String>,
    /// Whether the graph has its facts.
    known: bool,
}

/// What every worker reads of a root.
struct Shared<'a> {
    project: &'a ProjectFiles,
    root: &'a str,
    catalog: &'a Catalog,
    /// What the repository's configuration says its files are.
    conventions: &'a Conventions,
    /// Whether chunks are wanted (not in a dry run).
    chunks: bool,
    /// Whether each file's text is kept (to publish it).
    keep_text: bool,
}

/// A file as a worker left it.
struct Prepared {
    path: String,
    file: FileStamps,
    outcome: Result<Read, SkipReason>,
}

/// A file's size and time as the walk saw them.
struct FileStamps {
    size: u64,
    modified_ms: i64,
}

/// A file read.
struct Read {
    hash: String,
    kind: ArtifactType,
    /// Its text differs from the ledger's.
    changed: bool,
    /// Its facts, when its text changed or the graph lacks them.
    facts: Option<Facts>,
}

struct Facts {
    graph: GraphFile,
    index: FileFacts,
    chunks: Vec<Chunk>,
    /// Its text, when it is published.
    text: Option<String>,
}

/// Reads, classifies, outlines and chunks one file (on a worker).
fn prepare(job: &Wanted<'_>, shared: &Shared<'_>) -> Prepared {
    let file = job.file;
    let outcome = read_text(&file.absolute).and_then(|text| {
        // A key file is known by its text too (a service-account key).
        match shared.project.never_served(&file.absolute, Some(&text)) {
            Some(fenced) => Err(fenced.reason),
            None => Ok(text),
        }
    });
    let outcome = outcome.map(|text| {
        let hash = content_hash(&text);
        let lang = language(&file.path);
        let kind = shared.conventions.classify(&file.path, lang, Some(&text));
        let same_text = job.previous_hash.as_deref() == Some(hash.as_str());
        let facts = (!same_text || !job.known).then(|| {
            // Documents may say what they are about in front matter.
            let front = if kind == ArtifactType::Doc {
                FrontMatter::of(&text)
            } else {
                FrontMatter::default()
            };
            let subsystem = shared.catalog.subsystem_for(&file.path, &front);
            let outline = outline(&text, lang);
            let chunks = match (&outline, shared.chunks) {
                (_, false) => Vec::new(),
                (Some(outline), true) => chunk_code(&text, outline),
                (None, true) => chunk(&text, lang),
            };
            Facts {
                graph: GraphFile::new(
                    shared.root,
                    &file.path,
                    kind,
                    lang,
                    subsystem.clone(),
                    outline.as_ref(),
                    &text,
                ),
                index: FileFacts {
                    root: shared.root.to_string(),
                    path: file.path.clone(),
                    artifact_type: kind,
                    language: lang.map(str::to_string),
                    subsystem,
                    modified_ms: file.modified_ms,
                    tags: shared.catalog.tags_of(&file.path, &front),
                },
                chunks,
                text: shared.keep_text.then(|| text.clone()),
            }
        });
        Read {
            hash,
            kind,
            changed: !same_text,
            facts,
        }
    });
    Prepared {
        path: file.path.clone(),
        file: FileStamps {
            size: file.size,
            modified_ms: file.modified_ms,
        },
        outcome,
    }
}

/// Why a file of `root` at root-relative `path`, resolved to `real`, is
/// not read: one of the project's own files, or a path whose graph node
/// the store cannot keep.
fn left_out(project: &ProjectFiles, root: &str, path: &str, real: &Path) -> Option<SkipReason> {
    if let Some(fenced) = project.never_served(real, None) {
        return Some(fenced.reason);
    }
    let kind = artifact_type(path, language(path));
    let node =
        crate::graph::file_node(kind, root, path).unwrap_or_else(|| format!("Code:{root}/{path}"));
    (!crate::graph::fits(&node)).then_some(SkipReason::PathTooLong)
}

/// The files of `root` to look at, and the ledger's paths that are gone
/// (deleted, or now left out: their chunks are removed).
fn files_to_read(
    project: &ProjectFiles,
    root: &Root,
    config: &GatewayConfig,
    request: &IngestRequest,
    ledger: &Ledger,
    run: &mut IngestRun,
) -> Result<(Vec<FoundFile>, Vec<String>), ErrorReport> {
    if request.paths.is_empty() {
        let mut found = walk(&root.path, config.max_file_bytes);
        for skipped in found.skipped {
            run.skipped
                .push(Skipped::new(&root.name, &skipped.path, skipped.reason));
        }
        // The walk's paths are resolved already (a link's is its target).
        found.files.retain(|file| {
            let reason = left_out(project, &root.name, &file.path, &file.absolute);
            if let Some(reason) = reason {
                run.skipped
                    .push(Skipped::new(&root.name, &file.path, reason));
            }
            reason.is_none()
        });
        let present: std::collections::BTreeSet<&str> =
            found.files.iter().map(|f| f.path.as_str()).collect();
        let gone = ledger
            .files
            .keys()
            .filter(|p| !present.contains(p.as_str()))
            .cloned()
            .collect();
        return Ok((found.files, gone));
    }
    let mut files = Vec::new();
    let mut gone = Vec::new();
    for asked in &request.paths {
        let Some(path) = root_relative(&root.path, asked) else {
            continue;
        };
        let absolute = root.path.join(&path);
        // What the walk leaves out, a file asked by path is not let in by.
        if is_ignored(&root.path, &path) {
            gone.push(path);
            continue;
        }
        if let Some(reason) = left_out(project, &root.name, &path, &resolved(&absolute)) {
            run.skipped.push(Skipped::new(&root.name, &path, reason));
            gone.push(path);
            continue;
        }
        match std::fs::symlink_metadata(&absolute) {
            Ok(meta) if meta.is_file() => {
                if meta.len() > config.max_file_bytes {
                    run.skipped
                        .push(Skipped::new(&root.name, &path, SkipReason::TooLarge));
                    gone.push(path);
                    continue;
                }
                files.push(FoundFile {
                    path,
                    absolute,
                    size: meta.len(),
                    modified_ms: modified_ms(&meta),
                });
            }
            Ok(_) => {}
            Err(_) => gone.push(path),
        }
    }
    Ok((files, gone))
}

/// `asked` as a path inside `root` (`/`-separated), or `None` when it
/// leads elsewhere.
pub fn root_relative(root: &Path, asked: &str) -> Option<String> {
    let candidate = Path::new(asked);
    let joined = if candidate.is_absolute() {
        candidate.to_path_buf()
    } else {
        root.join(candidate)
    };
    // Resolve `..` without touching the disk (the file may be gone).
    let mut parts: Vec<String> = Vec::new();
    let relative = joined.strip_prefix(root).ok()?;
    for component in relative.components() {
        match component {
            std::path::Component::Normal(part) => parts.push(part.to_str()?.to_string()),
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                parts.pop()?;
            }
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
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
