//! Lore's knowledge gateway: what agents working in a codebase ask of it.
//! Which code is this issue about, what does this subsystem hold, what
//! changed.
//!
//! A project lists the folders to read under `gateway.roots` in
//! `lore.yaml`. Four folders hold its parts:
//!
//! - [`ingest`] walks each root (honouring its ignore files, reporting
//!   binary and oversized files), classifies every file
//!   ([`ingest::classify`]: code, test, doc, config; its language; its
//!   subsystem from a [`ingest::subsystem`] catalog or its folders),
//!   outlines and splits it into chunks ([`ingest::chunk`]), and writes
//!   the index and the code graph incrementally; a running server keeps
//!   them fresh as files change ([`ingest::follow`], [`Gateway::follow`]);
//! - [`index`] is the chunk index and its embedding lane
//!   ([`index::vectors`]);
//! - [`graph`] is the code graph, read by [`graph::explore`] (nodes,
//!   subsystems, tests of) and [`graph::report`] (coverage, lifecycle);
//! - [`search`] ranks chunks for a query with filters applied before
//!   ranking, agents' feedback included ([`search::feedback`]);
//!
//! and [`recipe`] runs named sequences of gateway tool calls (checks,
//! reports, backups) over a caller the front end provides; [`backup`]
//! archives the gateway's state; [`read`] serves a file of a root, or
//! some of its lines, to read around a hit.
//!
//! Everything lives under `.lore/gateway/` (index, ledgers, run records):
//! derived from the files, rebuilt when lost. Nothing here knows MCP.
#![doc = include_str!("../README.md")]

pub mod backup;
pub mod graph;
pub mod index;
pub mod ingest;
pub mod read;
pub mod recipe;
pub mod search;

use graph::{explore, report};
use index::vectors;
use ingest::{chunk, project_files, subsystem, upload};

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lore_core::config::GatewayConfig;
use lore_core::config::render_editor_uri;
use lore_core::error::HasErrorCode;
use lore_core::project::Project;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::KnowledgeStore;
use lore_store::feed::StoreHandle;

pub use ingest::{IngestRequest, IngestRun, Root};
pub use search::{SearchFilters, SearchRequest, SearchResponse};
pub use upload::{StoreTextRequest, StoredFile, UploadRequest};

/// The gateway of one project.
pub struct Gateway {
    /// The project folder, and its files the gateway never serves or
    /// writes.
    files: project_files::ProjectFiles,
    state: PathBuf,
    /// The project's store file (what a backup restores).
    store_path: PathBuf,
    config: GatewayConfig,
    /// `limits.result_bytes`: what a recipe's outputs may take.
    result_bytes: usize,
    roots: Vec<Root>,
    index: Mutex<Option<Arc<index::GatewayIndex>>>,
    store: Option<Arc<StoreHandle>>,
    /// The embedding lane (`gateway.embeddings`).
    lane: Option<vectors::VectorLane>,
    /// The graph view and the links search ranks by, as last read.
    graph: Stamped<(Arc<explore::GraphView>, Arc<explore::GraphLinks>)>,
    /// Each root's graph ledger as last read, by file: when one root's
    /// ledger changes (an ingest of it), the view is made again from the
    /// others as they are and that one read again.
    ledgers: Mutex<HashMap<PathBuf, (FileStamp, Arc<graph::GraphLedger>)>>,
    /// The run id searches report (`runs.jsonl` grows to 200 runs: it is
    /// not read per search).
    run_id: Stamped<Option<String>>,
    /// The feedback read so far (the newer is read before each search).
    feedback: Mutex<Arc<search::feedback::FeedbackVotes>>,
    /// Writes search records off the search's path (started on the first
    /// search with a store).
    recorder: std::sync::OnceLock<search::feedback::Recorder>,
    /// The last record the recorder failed to write.
    record_failed: Arc<Mutex<Option<String>>>,
    /// What this process's follower of the roots publishes.
    board: ingest::follow::Board,
    /// One ingest at a time in this process (a tool's, the follower's).
    ingesting: Mutex<()>,
}

/// A value read from files, kept until one of them changes (its length or
/// modification time, so another process's writes count too).
struct Stamped<T> {
    slot: Mutex<Option<(Vec<FileStamp>, T)>>,
}

/// A file's length and modification time (none when it is absent).
type FileStamp = Option<(u64, std::time::SystemTime)>;

fn file_stamp(path: &Path) -> FileStamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

impl<T: Clone> Stamped<T> {
    fn new() -> Stamped<T> {
        Stamped {
            slot: Mutex::new(None),
        }
    }

    /// The value, read with `load` when `files` changed since.
    fn get(
        &self,
        files: &[PathBuf],
        load: impl FnOnce() -> Result<T, ErrorReport>,
    ) -> Result<T, ErrorReport> {
        let stamps: Vec<FileStamp> = files.iter().map(|path| file_stamp(path)).collect();
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, value)) = slot.as_ref()
            && *seen == stamps
        {
            return Ok(value.clone());
        }
        let value = load()?;
        *slot = Some((stamps, value.clone()));
        Ok(value)
    }

    /// Forgets the value (the next `get` reads it).
    fn clear(&self) {
        *self.slot.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

impl Gateway {
    /// The gateway of a loaded project.
    pub fn for_project(project: &Project) -> Gateway {
        Gateway {
            files: project_files::ProjectFiles::for_project(project),
            state: ingest::state_dir(&project.state_dir()),
            store_path: project.store_path(),
            config: project.config.gateway.clone(),
            result_bytes: project.config.limits.result_bytes,
            roots: ingest::resolve_roots(&project.root, &project.config.gateway),
            index: Mutex::new(None),
            store: None,
            lane: vectors::VectorLane::for_project(project),
            graph: Stamped::new(),
            ledgers: Mutex::new(HashMap::new()),
            run_id: Stamped::new(),
            feedback: Mutex::new(Arc::new(search::feedback::FeedbackVotes::default())),
            recorder: std::sync::OnceLock::new(),
            record_failed: Arc::new(Mutex::new(None)),
            board: ingest::follow::Board::default(),
            ingesting: Mutex::new(()),
        }
    }

    /// Keeps the code graph in `store` (without one, ingest indexes
    /// chunks only and the graph tools answer that there is no graph).
    pub fn with_store(mut self, store: Arc<StoreHandle>) -> Gateway {
        self.store = Some(store);
        self
    }

    /// The store the graph lives in, opened.
    fn graph_store(&self) -> Result<Option<Arc<dyn KnowledgeStore>>, ErrorReport> {
        self.store.as_ref().map(|handle| handle.open()).transpose()
    }

    /// The configured roots.
    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    /// Whether the project has any root to read.
    pub fn is_configured(&self) -> bool {
        !self.roots.is_empty()
    }

    /// Follows the roots (`gateway.follow`): files saved, created, deleted
    /// or renamed are re-ingested within a second or two until the
    /// follower is dropped. None when following is off or there is no
    /// root. See [`ingest::follow`].
    pub fn follow(self: &Arc<Self>) -> Option<ingest::follow::Follower> {
        ingest::follow::start(Arc::clone(self))
    }

    /// How fresh each root is: the follower's view, or a walk of the roots
    /// against their ledgers when no server follows them. Blocking.
    pub fn freshness(&self) -> Vec<ingest::follow::RootFreshness> {
        ingest::follow::freshness(self)
    }

    /// Ingests every root (or the files `request.paths` names), reporting
    /// (done, total) files per root; one at a time in this process.
    /// Blocking.
    pub fn ingest(
        &self,
        request: &IngestRequest,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<IngestRun, ErrorReport> {
        let _one = self.ingesting.lock().unwrap_or_else(|p| p.into_inner());
        let store = if request.dry_run {
            None
        } else {
            self.graph_store()?
        };
        // A store shared by several servers: one ingest of a root at a
        // time among them, and the files published for the others.
        let shared = !request.dry_run && ingest::team::is_shared(self);
        let _leases = match &store {
            Some(store) if shared => Some(ingest::team::take_leases(
                Arc::clone(store),
                &self.roots,
                &ingest::team::holder(self),
            )?),
            _ => None,
        };
        let origin = shared.then(|| ingest::team::origin(self));
        let target = ingest::Target {
            store: store.as_deref(),
            publish_as: origin.as_deref(),
        };
        let run = ingest::ingest_into(
            &self.files,
            &self.state,
            &self.config,
            &self.roots,
            request,
            target,
            progress,
        )?;
        // The next search opens the index anew (a rebuilt one included).
        *self.index.lock().unwrap_or_else(|p| p.into_inner()) = None;
        self.graph.clear();
        let mut run = run;
        if let Some(lane) = &self.lane
            && run.success
            && !request.dry_run
        {
            // Every chunk without a vector is embedded now.
            let searcher = vectors::searcher_of(self.open_index()?.as_ref())?;
            run.embeddings = Some(lane.sync(&searcher, store.as_deref(), usize::MAX)?);
        }
        Ok(run)
    }

    fn place(&self) -> upload::Place<'_> {
        upload::Place {
            project: &self.files,
            state: &self.state,
            config: &self.config,
            roots: &self.roots,
        }
    }

    /// Copies a text file into a root (`km-upload`), then ingests it when
    /// asked. Blocking.
    pub fn upload(&self, request: &UploadRequest) -> Result<StoredFile, ErrorReport> {
        let place = self.place();
        let file = place.prepare_upload(request)?;
        self.store_file(&place, &file)
    }

    /// Writes text as a document in a root (`km-storetext`), then ingests
    /// it when asked. Blocking.
    pub fn store_text(&self, request: &StoreTextRequest) -> Result<StoredFile, ErrorReport> {
        let place = self.place();
        let file = place.prepare_text(request)?;
        self.store_file(&place, &file)
    }

    fn store_file(
        &self,
        place: &upload::Place<'_>,
        file: &upload::Prepared<'_>,
    ) -> Result<StoredFile, ErrorReport> {
        let previous = place.write(file)?;
        let mut stored = place.stored(file, previous);
        // A file the walk leaves out would be dropped again by the next
        // full ingest: it is not ingested.
        if !file.ingest || !stored.warnings.is_empty() {
            return Ok(stored);
        }
        let request = IngestRequest {
            profile: Some("upload".to_string()),
            dry_run: false,
            paths: vec![file.absolute.display().to_string()],
        };
        stored.ingest_triggered = true;
        match self.ingest(&request, &mut |_, _| {}) {
            Ok(run) => {
                if !run.success {
                    stored.status = "stored".to_string();
                    stored.warnings.push(format!(
                        "the file is stored but its ingest failed ({}); run km-ingest-trigger",
                        run.error.as_deref().unwrap_or("no reason given")
                    ));
                }
                stored.ingest_run = Some(run);
            }
            Err(e) => {
                stored.status = "stored".to_string();
                stored.warnings.push(format!(
                    "the file is stored but could not be ingested ({}); run km-ingest-trigger",
                    e.message
                ));
            }
        }
        Ok(stored)
    }

    /// The chunk index, opened once.
    fn open_index(&self) -> Result<Arc<index::GatewayIndex>, ErrorReport> {
        let mut slot = self.index.lock().unwrap_or_else(|p| p.into_inner());
        match slot.as_ref() {
            Some(index) => Ok(Arc::clone(index)),
            None => {
                let index = Arc::new(index::GatewayIndex::open(&self.state.join("index"))?);
                *slot = Some(Arc::clone(&index));
                Ok(index)
            }
        }
    }

    /// The embedding lane's part in a search, or none (with the reason
    /// among `warnings`) when it cannot run.
    fn vector_search<'a>(
        &self,
        lane: &'a vectors::VectorLane,
        index: &index::GatewayIndex,
        request: &SearchRequest,
        warnings: &mut Vec<String>,
    ) -> Option<search::VectorSearch<'a>> {
        let store = self.graph_store().ok().flatten();
        let synced = vectors::searcher_of(index)
            // A few chunks a concurrent ingest left are embedded now.
            .and_then(|searcher| lane.sync(&searcher, store.as_deref(), 64));
        match synced {
            Ok(report) if report.pending > 0 => warnings.push(format!(
                "embedding lane: {} chunk(s) are not embedded yet (the next ingest embeds them)",
                report.pending
            )),
            Ok(_) => {}
            Err(e) => warnings.push(format!("embedding lane skipped: {}", e.message)),
        }
        let text = search::clean_query(&request.query);
        let text: String = text.chars().take(chunk::MAX_EMBED_CHARS * 2).collect();
        match lane.query(&text) {
            Ok(query) => Some(search::VectorSearch { lane, query }),
            Err(reason) => {
                warnings.push(format!(
                    "embedding lane skipped: {reason}; results are ranked lexically"
                ));
                None
            }
        }
    }

    /// The id of the newest run when it succeeded (what the index holds),
    /// read again only when `runs.jsonl` changed.
    fn index_run_id(&self) -> Option<String> {
        let log = [self.state.join("runs.jsonl")];
        let read = || Ok(self.last_run(None).filter(|r| r.success).map(|r| r.run_id));
        self.run_id.get(&log, read).unwrap_or_default()
    }

    /// The votes, with those stored since the last read (by this process
    /// or another).
    fn fresh_votes(
        &self,
        store: &dyn KnowledgeStore,
    ) -> Result<Arc<search::feedback::FeedbackVotes>, ErrorReport> {
        let mut votes = self.feedback.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let mut newer = store
                .feedback_since(votes.last_id, 1_000)
                .map_err(|e| e.report())?;
            if newer.is_empty() {
                return Ok(Arc::clone(&votes));
            }
            // Votes given before chunk ids named their root are kept, under
            // the root that holds their file.
            if !self.votes_name_their_roots(&newer) {
                let files = self.root_files();
                for vote in &mut newer {
                    vote.chunk_id = files.chunk_id(&vote.chunk_id);
                }
            }
            let more = newer.len() == 1_000;
            // Searches still ranking by the older votes keep them.
            Arc::make_mut(&mut votes).extend(newer);
            if !more {
                return Ok(Arc::clone(&votes));
            }
        }
    }

    /// Whether every vote's chunk id starts with the name of a root that
    /// holds the rest of its path (`<root>/<path>::<key>`), reading only
    /// the ledgers of the roots named (roots known from a shared store
    /// too): a root named `src` holding `src/app.py` does not make the
    /// older `src/app.py::k` rooted.
    fn votes_name_their_roots(&self, votes: &[lore_store::Feedback]) -> bool {
        let mut held: HashMap<&str, HashSet<String>> = HashMap::new();
        let store_roots = self.store_roots();
        votes.iter().all(|vote| {
            let Some((path, _)) = vote.chunk_id.split_once("::") else {
                // No chunk id of any format: nothing to map.
                return true;
            };
            let Some((name, rest)) = path.split_once('/') else {
                return false;
            };
            // A root of this project, or one known from the shared store
            // alone (its ledger is kept from the store's file log).
            let known =
                self.roots.iter().any(|r| r.name == name) || store_roots.iter().any(|r| r == name);
            if !known {
                return false;
            }
            held.entry(name)
                .or_insert_with(|| {
                    ingest::read_ledger(&self.state, name)
                        .files
                        .into_keys()
                        .collect()
                })
                .contains(rest)
        })
    }

    /// Each root's indexed files, from its ledger (roots known from a
    /// shared store alone too).
    fn root_files(&self) -> search::feedback::RootFiles {
        let names = self
            .roots
            .iter()
            .map(|root| root.name.clone())
            .chain(self.store_roots());
        search::feedback::RootFiles::new(
            names
                .map(|name| {
                    let ledger = ingest::read_ledger(&self.state, &name);
                    (name, ledger.files.into_keys().collect())
                })
                .collect(),
        )
    }

    /// `km-feedback-submit`: a vote on a result of a recorded search, by
    /// `voter`; later searches with alike words rank by it. Blocking.
    pub fn submit_feedback(
        &self,
        feedback: lore_store::NewFeedback,
    ) -> Result<lore_store::Feedback, ErrorReport> {
        if !(-1..=1).contains(&feedback.vote) {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                format!(
                    "vote must be -1 (not useful), 0 (withdraw an earlier vote) or 1 (useful), got {}",
                    feedback.vote
                ),
            ));
        }
        if feedback
            .note
            .as_ref()
            .is_some_and(|n| n.chars().count() > 2_000)
        {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                "note is longer than 2,000 characters; keep what made the result useful or not",
            ));
        }
        if feedback.request_id.trim().is_empty() || feedback.chunk_id.trim().is_empty() {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                "request_id and chunk_id are required: quote metadata.request_id and a result's chunk.chunk_id from km-search",
            ));
        }
        let store = match &self.store {
            Some(handle) if handle.exists() => handle.open()?,
            _ => {
                return Err(ErrorReport::new(
                    ErrorCode::NotFound,
                    format!(
                        "no recorded search `{}`: this project has no searches yet; search with km-search first",
                        feedback.request_id
                    ),
                ));
            }
        };
        // The searches this process answered are written first.
        if let Some(recorder) = self.recorder.get() {
            recorder.flush();
        }
        store.submit_feedback(feedback).map_err(|e| {
            let mut report = e.report();
            let failed = self.record_failed.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(failed) = failed.as_ref()
                && report.code == ErrorCode::NotFound
            {
                report.message.push_str(&format!(
                    " (a search record could not be written: {failed})"
                ));
            }
            report
        })
    }

    fn backup_place(&self) -> backup::BackupPlace<'_> {
        backup::BackupPlace {
            project_root: self.files.root(),
            state_dir: self.state.parent().unwrap_or(&self.state),
            gateway_state: &self.state,
            store_path: &self.store_path,
            roots: self.roots.iter().map(|r| r.path.clone()).collect(),
            dir: self.config.backups.dir.as_deref(),
            keep: self.config.backups.keep,
            restore_max_bytes: self.config.backups.restore_max_bytes,
        }
    }

    /// `km-backup-trigger`, `lore backup create`: a consistent archive of
    /// the store and the gateway's state while writes go on (an ingest
    /// running is waited for). Blocking.
    pub fn backup(&self, destination: Option<&str>) -> Result<backup::BackupWritten, ErrorReport> {
        let store = match &self.store {
            Some(handle) if handle.exists() => Some(handle.open()?),
            _ => None,
        };
        let index_dir = self.state.join("index");
        let lock = || -> Result<Option<backup::HeldIndex>, ErrorReport> {
            if !index_dir.join("meta.json").exists() {
                return Ok(None);
            }
            let index = self.open_index()?;
            let writer = index.writer()?;
            // Read under the writer lock: no commit changes them meanwhile.
            let live_files = index.live_files(&index_dir)?;
            Ok(Some(backup::HeldIndex {
                lock: Box::new(writer),
                live_files,
            }))
        };
        backup::create(&self.backup_place(), store.as_deref(), &lock, destination)
    }

    /// `limits.result_bytes`: the most bytes of JSON a recipe's outputs
    /// may take.
    pub fn result_bytes(&self) -> usize {
        self.result_bytes
    }

    /// `lore backup list`: this project's archives, newest first.
    pub fn backups(&self, folder: Option<&str>) -> Result<Vec<backup::BackupListed>, ErrorReport> {
        backup::list(&self.backup_place(), folder)
    }

    /// `lore backup restore`: checks the whole archive, then replaces the
    /// store and the gateway's state (a project with data only with
    /// `force`, keeping it under `.lore/replaced/`; another project's
    /// archive only with `foreign`). Refused while a server serves the
    /// project. Blocking.
    pub fn restore(
        &self,
        archive: &std::path::Path,
        options: backup::RestoreOptions,
    ) -> Result<backup::Restored, ErrorReport> {
        // A backup holds the store as an SQLite file: it restores into the
        // embedded store, never over a database other servers share.
        if let Some(store) = self.store.as_ref().filter(|s| s.is_server()) {
            return Err(ErrorReport::new(
                lore_core::ErrorCode::UnsupportedOperation,
                format!(
                    "this project's knowledge store is {} (store.url), which other servers may share; a backup restores into the embedded SQLite store: remove `store:` from lore.yaml to restore it here, or restore the database with pg_restore",
                    store.describe()
                ),
            ));
        }
        // This process lets go of the index it may hold.
        *self.index.lock().unwrap_or_else(|p| p.into_inner()) = None;
        backup::restore(&self.backup_place(), archive, options)
    }

    /// `km-coverage-summary`: what the index holds, what was left out or
    /// removed, what the catalog expects and is missing. Blocking.
    pub fn coverage(&self) -> Result<report::CoverageSummary, ErrorReport> {
        let index = self.open_index()?;
        index.reload()?;
        let store_roots = self.store_roots();
        let states = self.root_states(&store_roots);
        let view = self.graph_view()?;
        Ok(report::coverage(
            &states,
            &view,
            &ingest::runs(&self.state),
            index.chunk_count(),
        ))
    }

    /// `km-lifecycle-report`: isolated files, stale documents (older than
    /// `stale_after_days`, default `gateway.lifecycle.stale_after_days`,
    /// or older than the code they describe), subsystems without tests,
    /// documents mentioning removed files; test fixtures and web assets
    /// left out unless `include_fixtures`, at most `limit` (default 50) per
    /// list. Blocking (reads git history).
    pub fn lifecycle(
        &self,
        request: &report::LifecycleRequest,
    ) -> Result<report::LifecycleReport, ErrorReport> {
        let stale_after_days = request.stale_after_days;
        if stale_after_days == Some(0) {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                "stale_after_days must be at least 1 (the days a document may stay unchanged)",
            ));
        }
        let limit = request.limit.unwrap_or(report::DEFAULT_LISTED);
        if !(1..=report::MAX_LISTED).contains(&limit) {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                format!("limit must be 1 to {}, got {limit}", report::MAX_LISTED),
            ));
        }
        if self.last_run(None).is_none() && !self.follows_any_root() {
            return Err(ErrorReport::new(
                ErrorCode::NotFound,
                "nothing is ingested yet: run `lore gateway ingest PATH` (or km-ingest-trigger) first",
            ));
        }
        let days = stale_after_days.unwrap_or(self.config.lifecycle.stale_after_days);
        let store_roots = self.store_roots();
        let states = self.root_states(&store_roots);
        let view = self.graph_view()?;
        let mut exclude = globset::GlobSetBuilder::new();
        for pattern in &self.config.lifecycle.exclude {
            let glob = globset::GlobBuilder::new(pattern)
                .case_insensitive(true)
                .literal_separator(false)
                .build()
                .map_err(|e| {
                    ErrorReport::new(
                        ErrorCode::ConfigError,
                        format!("gateway.lifecycle.exclude: `{pattern}` is not a glob: {e}"),
                    )
                })?;
            exclude.add(glob);
        }
        let exclude = exclude.build().map_err(|e| {
            ErrorReport::new(
                ErrorCode::ConfigError,
                format!("gateway.lifecycle.exclude: {e}"),
            )
        })?;
        let scope = report::LifecycleScope {
            stale_after_days: days,
            exclude,
            include_fixtures: request.include_fixtures,
            limit,
        };
        Ok(report::lifecycle(
            &states,
            &view,
            &scope,
            lore_core::time::UtcMillis::now().0,
        ))
    }

    /// Every root's name, folder (none for a root known from the store
    /// alone) and ledger.
    fn root_states<'a>(&'a self, store_roots: &'a [String]) -> Vec<report::RootState<'a>> {
        let configured = self.roots.iter().map(|root| report::RootState {
            name: &root.name,
            path: Some(&root.path),
            ledger: ingest::read_ledger(&self.state, &root.name),
        });
        let from_store = store_roots.iter().map(|name| report::RootState {
            name,
            path: None,
            ledger: ingest::read_ledger(&self.state, name),
        });
        configured.chain(from_store).collect()
    }

    /// `km-read`: a file of a root, or some of its lines, bounded by
    /// `limits.result_bytes` (see [`read`]); with a shared store, a root
    /// only other servers ingested is read from the store's file log.
    pub fn read(&self, request: &read::ReadRequest) -> Result<read::ReadAnswer, ErrorReport> {
        if !ingest::team::is_shared(self) {
            return read::read(&self.roots, &self.files, request, self.result_bytes);
        }
        let mut sources: Vec<read::Source<'_>> = Vec::new();
        for root in &self.roots {
            let ledger = ingest::read_ledger(&self.state, &root.name);
            sources.push(if ledger.is_from_store() {
                read::Source::Store {
                    name: &root.name,
                    ledger,
                }
            } else {
                read::Source::Folder(root)
            });
        }
        let store_roots = self.store_roots();
        for name in &store_roots {
            sources.push(read::Source::Store {
                name,
                ledger: ingest::read_ledger(&self.state, name),
            });
        }
        let stored = |root: &str, path: &str| self.stored_text(root, path);
        read::read_from(&sources, &stored, &self.files, request, self.result_bytes)
    }

    /// The text another server published of `root`'s file `path`.
    fn stored_text(&self, root: &str, path: &str) -> Result<String, ErrorReport> {
        let store = self.graph_reader()?;
        let version = store.shared_file(root, path).map_err(|e| e.report())?;
        let not_found = || {
            ErrorReport::new(
                ErrorCode::NotFound,
                format!("root `{root}` has no file {path}"),
            )
        };
        let Some(version) = version else {
            return Err(not_found());
        };
        match index::shared::text_of(&version) {
            Ok(Some(text)) => Ok(text),
            Ok(None) => Err(not_found()),
            Err(reason) => Err(ErrorReport::new(
                ErrorCode::NotFound,
                format!(
                    "{root}/{path} cannot be read on this server: {reason}; read it on {} (which ingested it), or ingest it again there",
                    version.origin
                ),
            )),
        }
    }

    /// The newest run (of `profile`, when given).
    pub fn last_run(&self, profile: Option<&str>) -> Option<IngestRun> {
        ingest::last_run(&self.state, profile)
    }

    /// The recipes this project can run: the built-in ones and those of
    /// its `recipes/` folder.
    pub fn recipes(&self) -> recipe::RecipeBook {
        recipe::RecipeBook::load(self.files.root())
    }

    /// Logs a finished recipe run (`.lore/gateway/recipes.jsonl`).
    pub fn log_recipe_run(&self, run: &recipe::RecipeRun, actor: &str) -> Result<(), ErrorReport> {
        recipe::log_run(&self.state, run, actor)
    }

    /// The logged recipe runs, oldest first (the newest 200).
    pub fn recipe_runs(&self) -> Vec<recipe::RecipeLogEntry> {
        recipe::logged_runs(&self.state)
    }

    /// The graph as the last ingest left it.
    pub fn graph_view(&self) -> Result<Arc<explore::GraphView>, ErrorReport> {
        Ok(self.graph_cache()?.0)
    }

    /// The graph view and the search links, read again only when a
    /// ledger or a catalog changed on disk (an ingest, by this process or
    /// another).
    fn graph_cache(
        &self,
    ) -> Result<(Arc<explore::GraphView>, Arc<explore::GraphLinks>), ErrorReport> {
        let store_roots = self.store_roots();
        let files: Vec<PathBuf> = [
            self.files.root().join(subsystem::CATALOG_FILE),
            ingest::followed::list_path(&self.state),
        ]
        .into_iter()
        .chain(self.roots.iter().flat_map(|root| {
            [
                ingest::followed::graph_path(&self.state, &root.name),
                root.path.join(".metadata").join("subsystems.json"),
            ]
        }))
        .chain(
            store_roots
                .iter()
                .map(|name| ingest::followed::graph_path(&self.state, name)),
        )
        .collect();
        self.graph.get(&files, || {
            let mut roots = Vec::with_capacity(self.roots.len() + store_roots.len());
            for root in &self.roots {
                let ledger = self.graph_ledger(&root.name);
                let catalog = subsystem::Catalog::load(self.files.root(), &root.path)?;
                roots.push((root.name.clone(), ledger, catalog));
            }
            // Roots other servers ingested, known from the store alone.
            for name in &store_roots {
                let ledger = self.graph_ledger(name);
                let catalog = subsystem::Catalog::of_project(self.files.root())?;
                roots.push((name.clone(), ledger, catalog));
            }
            let view = explore::GraphView::new(roots);
            let links = view.search_links();
            Ok((Arc::new(view), Arc::new(links)))
        })
    }

    /// Root `root`'s graph ledger: the one read last while its file is
    /// unchanged, else read again.
    fn graph_ledger(&self, root: &str) -> Arc<graph::GraphLedger> {
        let path = ingest::followed::graph_path(&self.state, root);
        let stamp = file_stamp(&path);
        let mut ledgers = self.ledgers.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, ledger)) = ledgers.get(&path)
            && *seen == stamp
            && stamp.is_some()
        {
            return Arc::clone(ledger);
        }
        let ledger = Arc::new(graph::GraphLedger::load(&path));
        ledgers.insert(path, (stamp, Arc::clone(&ledger)));
        ledger
    }

    /// The store the graph is read from; a project whose gateway has no
    /// store, or that never ingested, is told what to do.
    fn graph_reader(&self) -> Result<Arc<dyn KnowledgeStore>, ErrorReport> {
        let handle = self.store.as_ref().ok_or_else(|| {
            ErrorReport::new(
                ErrorCode::UnsupportedOperation,
                "this gateway keeps no graph (it was opened without a store)",
            )
        })?;
        if !handle.exists() || (self.last_run(None).is_none() && !self.follows_any_root()) {
            return Err(ErrorReport::new(
                ErrorCode::NotFound,
                "the code graph is empty: run `lore gateway ingest PATH` (or km-ingest-trigger) first",
            ));
        }
        handle.open()
    }

    /// Refuses names in `roots` (the `roots` filter of a tool) that are
    /// not roots of the project.
    pub fn check_roots(&self, roots: &[String]) -> Result<(), ErrorReport> {
        self.check_root_names(roots, "roots")
    }

    /// Refuses names in `asked` (the argument `field`) that are neither
    /// roots of the project nor roots known from a shared store.
    fn check_root_names(&self, asked: &[String], field: &str) -> Result<(), ErrorReport> {
        if asked.is_empty() {
            return Ok(());
        }
        let store_roots = self.store_roots();
        let known: Vec<&str> = self
            .roots
            .iter()
            .map(|r| r.name.as_str())
            .chain(store_roots.iter().map(String::as_str))
            .collect();
        graph::ids::check_roots(&known, asked, field)
    }

    /// Whether this server holds files of some root from a shared
    /// store's file log (it answers for them though it may never have
    /// run an ingest).
    fn follows_any_root(&self) -> bool {
        ingest::team::is_shared(self)
            && ingest::followed::load(&self.state)
                .values()
                .any(|root| root.files > 0)
    }

    /// The roots this server knows from a shared store alone: other
    /// servers ingested them, and this project does not list them
    /// (none unless the store is a server's). See [`ingest::followed`].
    pub fn store_roots(&self) -> Vec<String> {
        if !ingest::team::is_shared(self) {
            return Vec::new();
        }
        ingest::followed::store_only_roots(&self.state, &self.roots)
    }

    /// A graph node and its relations; a bare path is taken when one root
    /// (of `roots`, when given) holds it. Blocking.
    pub fn node(
        &self,
        id: &str,
        relationships: explore::Relationships,
        limit: Option<usize>,
        roots: &[String],
    ) -> Result<explore::NodeAnswer, ErrorReport> {
        explore::parse_id(id)?;
        self.check_roots(roots)?;
        let store = self.graph_reader()?;
        self.graph_view()?
            .node(store.as_ref(), id, relationships, limit, roots)
    }

    /// A subsystem, the subsystems around it and its artifacts (of
    /// `roots`, when given). Blocking.
    pub fn subsystem(
        &self,
        name: &str,
        depth: Option<usize>,
        include_artifacts: bool,
        cursor: Option<&str>,
        limit: Option<usize>,
        roots: &[String],
    ) -> Result<explore::SubsystemAnswer, ErrorReport> {
        self.check_roots(roots)?;
        let store = self.graph_reader()?;
        self.graph_view()?.subsystem(
            store.as_ref(),
            name,
            depth,
            include_artifacts.then_some(roots),
            cursor,
            limit,
        )
    }

    /// Graph nodes by name (of `roots`, when given). Blocking.
    pub fn graph_search(
        &self,
        term: &str,
        limit: Option<usize>,
        roots: &[String],
    ) -> Result<explore::GraphSearchAnswer, ErrorReport> {
        self.check_roots(roots)?;
        self.graph_reader()?;
        self.graph_view()?.search(term, limit, roots)
    }

    /// The tests of a file or symbol, or the code a test covers (of
    /// `roots`, when given). Blocking.
    pub fn tests_of(
        &self,
        target: &str,
        roots: &[String],
    ) -> Result<explore::TestsOfAnswer, ErrorReport> {
        self.check_roots(roots)?;
        let store = self.graph_reader()?;
        self.graph_view()?.tests_of(store.as_ref(), target, roots)
    }

    /// A symbol's definitions (in `roots`, when given), callers, type
    /// uses and callees, with the line of each site and how it was
    /// resolved.
    /// Blocking.
    pub fn references(
        &self,
        symbol: &str,
        roots: &[String],
        limit: Option<usize>,
    ) -> Result<graph::references::ReferencesAnswer, ErrorReport> {
        self.graph_reader()?;
        self.graph_view()?.references(symbol, roots, limit)
    }

    /// Adds each result's graph context (its file's tests, imports,
    /// importers, documents). Blocking.
    pub fn add_graph_context(&self, response: &mut SearchResponse) -> Result<(), ErrorReport> {
        let store = match self.graph_reader() {
            Ok(store) => store,
            Err(e) => {
                response
                    .metadata
                    .warnings
                    .push(format!("include_graph: {}", e.message));
                return Ok(());
            }
        };
        let view = self.graph_view()?;
        for result in &mut response.results {
            let chunk = &result.chunk;
            result.graph_context =
                view.context(store.as_ref(), &chunk.root, &chunk.artifact_path)?;
        }
        Ok(())
    }

    /// Removes the results from files never served: an index written
    /// before those rules may still hold their chunks until the next
    /// ingest removes them.
    fn drop_never_served(&self, response: &mut SearchResponse) {
        let before = response.results.len();
        response.results.retain(|result| {
            let chunk = &result.chunk;
            let Some(root) = self.roots.iter().find(|r| r.name == chunk.root) else {
                return true;
            };
            let path = project_files::resolved(&root.path.join(&chunk.artifact_path));
            // A key file is known by its text too; only JSON is read.
            let text = chunk
                .artifact_path
                .to_lowercase()
                .ends_with(".json")
                .then(|| std::fs::read_to_string(&path).ok())
                .flatten();
            self.files.never_served(&path, text.as_deref()).is_none()
        });
        if response.results.len() != before {
            response.metadata.result_count = response.results.len();
            response.metadata.warnings.push(
                "results from files the gateway never serves (Lore's own files, files holding credentials) were left out; the next ingest removes them from the index"
                    .to_string(),
            );
        }
    }

    /// Searches the chunks (what `km-search` and `lore gateway search`
    /// answer), with each result's graph context when the request asks.
    /// Blocking.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResponse, ErrorReport> {
        search::check_request(request)?;
        self.check_root_names(&request.filters.roots, "filters.roots")?;
        let index = self.open_index()?;
        let run_id = self.index_run_id();
        let mut warnings = Vec::new();
        let vector = match &self.lane {
            Some(lane) => self.vector_search(lane, &index, request, &mut warnings),
            None => {
                if request.sort_by_vector {
                    warnings.push("sort_by_vector: this gateway has no embedding lane (set gateway.embeddings: true with a provider under search.embeddings); results are ranked lexically".to_string());
                }
                None
            }
        };
        // The graph's links, when ingest wrote a graph (a gateway without
        // a store has none; an unreadable catalog only loses the signal).
        let links = match self.store {
            Some(_) => self.graph_cache().ok().map(|(_, links)| links),
            None => None,
        };
        // The store, when ingest made one: feedback ranks, and the search
        // is recorded so feedback can name it.
        let store = match &self.store {
            Some(handle) if handle.exists() => handle.open().ok(),
            _ => None,
        };
        let votes = store.as_deref().map(|store| self.fresh_votes(store));
        let votes = match &votes {
            Some(Ok(votes)) => Some(votes),
            Some(Err(e)) => {
                warnings.push(format!(
                    "feedback is left out of this ranking: {}",
                    e.message
                ));
                None
            }
            None => None,
        };
        let signals = search::Signals {
            links: links.as_deref(),
            feedback: votes.map(|v| v.as_ref()),
        };
        let mut response = search::search_with(&index, request, run_id, vector, &signals)?;
        self.drop_never_served(&mut response);
        response.metadata.warnings.extend(warnings);
        if let Some(store) = &store {
            let record = lore_store::SearchRecord {
                request_id: response.metadata.request_id.clone(),
                query: request.query.clone(),
                chunk_ids: response
                    .results
                    .iter()
                    .map(|r| r.chunk.chunk_id.clone())
                    .collect(),
                created_at: lore_core::time::UtcMillis::now().to_iso(),
            };
            let recorder = self.recorder.get_or_init(|| {
                search::feedback::Recorder::start(
                    Arc::clone(store),
                    Arc::clone(&self.record_failed),
                )
            });
            if !recorder.record(record) {
                response.metadata.warnings.push(
                    "this search was not recorded, so km-feedback-submit cannot name it"
                        .to_string(),
                );
            }
        }
        if let Some(template) = &self.config.editor_uri_template {
            for result in &mut response.results {
                let chunk = &mut result.chunk;
                let Some(root) = self.roots.iter().find(|r| r.name == chunk.root) else {
                    continue;
                };
                let absolute = root.path.join(&chunk.artifact_path);
                let absolute = absolute.to_string_lossy();
                for symbol in &mut chunk.symbols {
                    symbol.editor_uri = Some(render_editor_uri(
                        template,
                        &absolute,
                        &chunk.artifact_path,
                        &chunk.root,
                        symbol.start_line,
                    ));
                }
            }
        }
        if request.include_graph {
            self.add_graph_context(&mut response)?;
        }
        if request.detail == search::Detail::Compact {
            search::snippet::compact(&mut response, &request.query);
        }
        Ok(response)
    }
}
