//! `memory_ingest`: remember what was learned. A markdown note becomes
//! wiki pages (one per section, one per defined term), memory notes (its
//! `Note:`/`Gotcha:` remarks) and semantic-layer files (its Lore model
//! YAML, when the note names its connection), written in **one store
//! transaction** (so `undo` of the run's transaction takes back every
//! page, note and file), without an LLM: [`triage`] reads the note,
//! [`plan`] decides the writes against what is stored.
//!
//! A run is recorded in the store (`KnowledgeStore::save_ingest_run`)
//! from the moment it is accepted: `running` through the stages
//! `queued → triaging → writing`, then `done`, `cancelled` (a cancel that
//! came before it began writing: nothing written) or `error` with the
//! reason; a done run whose transaction was undone reads `undone`. A run
//! whose process died is settled from the transaction log ([`run`]):
//! `done` when its transaction committed, else `error` with the code
//! `interrupted` — never left `running`.

pub mod bounds;
mod filing;
pub mod llm;
mod measure_filing;
pub mod measures;
pub mod plan;
pub mod run;
pub mod triage;

use std::collections::BTreeMap;
use std::sync::Arc;

use lore_core::error::HasErrorCode;
use lore_core::hash::content_hash;
use lore_core::time::UtcMillis;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::feed::StoreHandle;
use lore_store::{IngestRunRecord, KnowledgeStore, TxId};
use lore_warehouse::catalog::Catalog;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::semantic::files::SemanticFiles;
use crate::wiki::Wiki;
use crate::wiki::page;

/// A run that has not reported for this long while its process cannot be
/// checked is taken to be interrupted.
pub const STALE_AFTER_SECONDS: i64 = 600;

pub use filing::WRITE_ATTEMPTS;

/// What to remember.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct IngestRequest {
    /// The note, in markdown.
    pub content: String,
    /// The connection the note is about (needed for semantic-layer
    /// changes).
    #[serde(default, rename = "connectionId")]
    pub connection_id: Option<String>,
}

/// One thing a run wrote (or found already there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CapturedItem {
    /// The wiki key, note topic or model file.
    pub id: String,
    /// What it is: `section`, `definition`, a note's label, `source`.
    pub what: String,
    /// `created`, `updated`, `stored` or `unchanged`.
    pub action: String,
}

impl CapturedItem {
    fn new(id: &str, what: &str, action: &str) -> CapturedItem {
        CapturedItem {
            id: id.to_string(),
            what: what.to_string(),
            action: action.to_string(),
        }
    }

    fn unchanged(id: &str, what: &str) -> CapturedItem {
        CapturedItem::new(id, what, "unchanged")
    }
}

/// A scanned table (and column) the note names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Xref {
    /// The table as scanned.
    pub table: String,
    /// The column, when the note names one (`table.column`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
}

/// What a run captured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Captured {
    /// Wiki pages (`key`s; glossary pages are `glossary/<term>`).
    pub wiki: Vec<CapturedItem>,
    /// Semantic-layer files of the connection.
    pub sl: Vec<CapturedItem>,
    /// Memory notes.
    pub memory: Vec<CapturedItem>,
    /// Scanned tables and columns the note names.
    pub xrefs: Vec<Xref>,
}

/// Something a run left out, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Skipped {
    /// The section it is in.
    pub section: String,
    /// What it is (`sql`, `dbt`, `lore_semantic_layer`, …).
    pub what: String,
    /// Why it was left out.
    pub reason: String,
}

impl Skipped {
    fn new(section: &str, kind: triage::BlockKind, reason: &str) -> Skipped {
        Skipped {
            section: section.to_string(),
            what: kind.as_str().to_string(),
            reason: reason.to_string(),
        }
    }
}

/// A run's error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunError {
    /// A stable code (`interrupted` for a run whose process died, else
    /// the failure's own code).
    pub code: String,
    /// What happened.
    pub message: String,
}

/// What a run found and did (kept in the run's record).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunReport {
    /// What it wrote.
    pub captured: Captured,
    /// What it left out.
    pub skipped: Vec<Skipped>,
    /// Contradictions and other things to look at.
    pub warnings: Vec<String>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
}

/// `memory_ingest_status`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestStatus {
    /// The run.
    pub run_id: String,
    /// `running`; then `done`, `undone` (its transaction was taken back:
    /// `undoneByTxId`), `cancelled` (before it wrote anything) or `error`.
    pub status: String,
    /// `queued`, `triaging`, `writing`, `done`, `cancelled` or `error`.
    pub stage: String,
    /// True once the run ended.
    pub done: bool,
    /// What it wrote.
    pub captured: Captured,
    /// What it left out, each with the reason.
    pub skipped: Vec<Skipped>,
    /// Contradictions and other things to look at.
    pub warnings: Vec<String>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    /// The transaction holding its writes (`undo` takes it back); null
    /// when it wrote nothing.
    pub tx_id: Option<TxId>,
    /// The transaction that took the run's writes back (an undo of
    /// `txId`), while they stand undone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undone_by_tx_id: Option<TxId>,
    /// When it started.
    pub started_at: String,
    /// When it ended.
    pub finished_at: Option<String>,
}

impl IngestStatus {
    fn of(record: IngestRunRecord, undone_by_tx_id: Option<TxId>) -> IngestStatus {
        let report: RunReport = serde_json::from_value(record.report).unwrap_or_default();
        IngestStatus {
            done: record.status != "running",
            run_id: record.run_id,
            status: match undone_by_tx_id {
                Some(_) => "undone".to_string(),
                None => record.status,
            },
            stage: record.stage,
            captured: report.captured,
            skipped: report.skipped,
            warnings: report.warnings,
            error: report.error,
            tx_id: record.tx_id,
            undone_by_tx_id,
            started_at: record.started_at,
            finished_at: record.finished_at,
        }
    }
}

/// The chat model a project triages with (`llm:`), if it has one.
struct LlmSetup {
    /// The client, or why it cannot be made (an API key that does not
    /// resolve).
    chat: Result<lore_llm::Chat, String>,
    max_steps: u32,
    fallback: bool,
}

/// The ingest service of one project.
pub struct MemoryIngest {
    llm: Option<LlmSetup>,
    store: Arc<StoreHandle>,
    wiki: Arc<Wiki>,
    semantic: Arc<SemanticFiles>,
    catalog: Arc<Catalog>,
    /// The project's connections and the dialect of each.
    connections: BTreeMap<String, lore_semantic::dialect::Dialect>,
    /// `limits:` of `lore.yaml`: note size, SQL size and depth, pages and
    /// items per run.
    limits: lore_core::limits::SqlLimits,
    /// `.lore/memory-ingest.lock`, which runs take turns on.
    turn_lock: std::path::PathBuf,
}

fn refuse(message: impl Into<String>) -> ErrorReport {
    ErrorReport::new(ErrorCode::InvalidArguments, message)
}

impl MemoryIngest {
    /// The service over the project's store, wiki, model files and scans.
    pub fn new(
        project: &lore_core::project::Project,
        store: Arc<StoreHandle>,
        wiki: Arc<Wiki>,
        semantic: Arc<SemanticFiles>,
        catalog: Arc<Catalog>,
    ) -> MemoryIngest {
        let llm = project.config.llm.as_ref().map(|config| LlmSetup {
            chat: config
                .api_key
                .as_ref()
                .map(|k| k.resolve("llm.api_key", &project.root))
                .transpose()
                .map(|key| lore_llm::Chat::new(config, key))
                .map_err(|e| e.to_string()),
            max_steps: config.max_steps(),
            fallback: config.fallback(),
        });
        MemoryIngest {
            llm,
            store,
            wiki,
            semantic,
            catalog,
            connections: project
                .config
                .connections
                .iter()
                .map(|(id, c)| (id.clone(), crate::semantic::dialect(c.driver)))
                .collect(),
            limits: project.config.limits,
            turn_lock: project.state_dir().join(filing::TURN_LOCK),
        }
    }

    /// Checks a request: text, within the limit, no NUL, a known
    /// connection.
    pub fn check(&self, request: &IngestRequest) -> Result<(), ErrorReport> {
        if request.content.trim().is_empty() {
            return Err(refuse(
                "content is empty: give the markdown to remember (the finding and where it came from)",
            ));
        }
        if request.content.len() > self.limits.ingest_bytes {
            return Err(refuse(format!(
                "content is {} bytes; at most {} are ingested at once (limits.ingest_bytes): split the note",
                request.content.len(),
                self.limits.ingest_bytes
            )));
        }
        if request.content.contains('\0') {
            return Err(refuse(
                "content holds a NUL byte: it looks binary; give markdown text",
            ));
        }
        let controls = request
            .content
            .chars()
            .filter(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
            .count();
        if controls * 100 > request.content.chars().count().max(1) {
            return Err(refuse(
                "content is mostly control characters: it looks binary; give markdown text",
            ));
        }
        if let Some(id) = &request.connection_id
            && !self.connections.contains_key(id)
        {
            return Err(refuse(format!(
                "unknown connectionId `{id}`; the connections are {}",
                if self.connections.is_empty() {
                    "none (omit connectionId for knowledge that is not about a warehouse)"
                        .to_string()
                } else {
                    self.connections
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )));
        }
        Ok(())
    }

    fn open(&self) -> Result<Arc<dyn KnowledgeStore>, ErrorReport> {
        self.store.open()
    }

    fn save(&self, record: &IngestRunRecord) -> Result<(), ErrorReport> {
        self.open()?.save_ingest_run(record).map_err(|e| e.report())
    }

    /// Records a new run (queued), open in this process's gates, and
    /// returns it.
    fn accept(&self, request: &IngestRequest, actor: &str) -> Result<IngestRunRecord, ErrorReport> {
        self.check(request)?;
        let now = UtcMillis::now();
        let record = IngestRunRecord {
            run_id: format!("run-{}-{:04x}", now.to_compact(), rand_suffix()),
            status: "running".into(),
            stage: "queued".into(),
            connection_id: request.connection_id.clone(),
            content_hash: content_hash(&request.content),
            actor: actor.to_string(),
            pid: std::process::id(),
            started_at: now.to_iso(),
            heartbeat_at: now.to_iso(),
            finished_at: None,
            tx_id: None,
            report: serde_json::to_value(RunReport::default()).unwrap_or_default(),
        };
        // Open before the record exists, so no one sees it running here
        // without this process knowing it.
        run::gates().open(&record.run_id);
        if let Err(e) = self.save(&record) {
            run::gates().close(&record.run_id);
            return Err(e);
        }
        Ok(record)
    }

    /// Starts a run on a thread of its own and answers its id at once.
    pub fn start(
        self: &Arc<Self>,
        request: IngestRequest,
        actor: &str,
    ) -> Result<String, ErrorReport> {
        let record = self.accept(&request, actor)?;
        let run_id = record.run_id.clone();
        let service = Arc::clone(self);
        std::thread::Builder::new()
            .name("lore-memory-ingest".into())
            .spawn(move || {
                let run_id = record.run_id.clone();
                let started = record.clone();
                // Everything a run parses and walks (markdown, YAML, model
                // files, SQL, the model check) runs inside the stack budget
                // `sql_execution` and `lore sl import` have; what could
                // need more is refused before it is parsed.
                let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    lore_core::limits::with_stack_budget(|| service.execute(record, &request))
                }));
                if ran.is_err() {
                    // A bug must not leave the run `running`.
                    let mut failed = started;
                    failed.status = "error".into();
                    failed.stage = "error".into();
                    failed.finished_at = Some(UtcMillis::now().to_iso());
                    failed.report = serde_json::to_value(RunReport {
                        error: Some(RunError {
                            code: "internal".into(),
                            message: format!(
                                "run {run_id} failed inside Lore; nothing was written"
                            ),
                        }),
                        ..RunReport::default()
                    })
                    .unwrap_or_default();
                    let _ = service.save(&failed);
                }
                run::gates().close(&run_id);
            })
            .map_err(|e| {
                run::gates().close(&run_id);
                ErrorReport::new(ErrorCode::Internal, format!("cannot start the run: {e}"))
            })?;
        Ok(run_id)
    }

    /// A run's status: `not_found` for an unknown id; a run whose process
    /// died is recorded (and answered) as `error`/`interrupted`.
    pub fn status(&self, run_id: &str) -> Result<IngestStatus, ErrorReport> {
        let store = self.open()?;
        let Some(record) = store.ingest_run(run_id).map_err(|e| e.report())? else {
            return Err(ErrorReport::new(
                ErrorCode::NotFound,
                format!("no memory_ingest run `{run_id}`: give the runId memory_ingest answered"),
            ));
        };
        let record = run::settle(store.as_ref(), record).map_err(|e| e.report())?;
        let undone = match (record.status.as_str(), record.tx_id) {
            ("done", Some(tx)) => run::undone_by(store.as_ref(), tx).map_err(|e| e.report())?,
            _ => None,
        };
        Ok(IngestStatus::of(record, undone))
    }

    /// Cancels a run of this process that has not begun writing (it then
    /// writes nothing and ends `cancelled`); a run already writing runs
    /// to its end. `None` when the run does not run in this process.
    pub fn cancel(&self, run_id: &str) -> Option<run::CancelOutcome> {
        run::gates().cancel(run_id)
    }

    /// Settles every run whose process died from the transaction log
    /// (a server calls it when it starts). Returns how many.
    pub fn sweep(&self) -> Result<usize, ErrorReport> {
        let store = self.open()?;
        let running = store.running_ingest_runs().map_err(|e| e.report())?;
        let mut swept = 0;
        for record in running {
            let settled = run::settle(store.as_ref(), record).map_err(|e| e.report())?;
            if settled.status != "running" {
                swept += 1;
            }
        }
        Ok(swept)
    }

    /// Moves a run to `stage` (and reports that it is alive).
    fn stage(&self, record: &mut IngestRunRecord, stage: &str) {
        record.stage = stage.to_string();
        record.heartbeat_at = UtcMillis::now().to_iso();
        if let Err(e) = self.save(record) {
            tracing::warn!(run = %record.run_id, error = %e.message, "a memory_ingest run's stage was not recorded");
        }
    }

    fn execute(&self, mut record: IngestRunRecord, request: &IngestRequest) -> IngestRunRecord {
        let outcome = self.triage_and_write(&mut record, request);
        let mut report: RunReport =
            serde_json::from_value(record.report.clone()).unwrap_or_default();
        match outcome {
            Ok((done, tx)) => {
                // Fault injection for the crash tests (debug builds only):
                // the process ends as `kill -9` ends it, right after the
                // run's transaction committed and before its record ends.
                #[cfg(debug_assertions)]
                if tx.is_some() && std::env::var_os("LORE_TEST_KILL_AFTER_COMMIT").is_some() {
                    std::process::abort();
                }
                report = done;
                record.status = "done".into();
                record.stage = "done".into();
                record.tx_id = tx;
            }
            Err(_) if run::gates().was_cancelled(&record.run_id) => {
                report.error = Some(RunError {
                    code: "cancelled".into(),
                    message: "the run was cancelled before it began writing: nothing was written"
                        .into(),
                });
                record.status = "cancelled".into();
                record.stage = "cancelled".into();
            }
            Err(error) => {
                report.error = Some(RunError {
                    code: error.code.as_str().to_string(),
                    message: error.message,
                });
                record.status = "error".into();
                record.stage = "error".into();
            }
        }
        record.finished_at = Some(UtcMillis::now().to_iso());
        record.heartbeat_at = UtcMillis::now().to_iso();
        record.report = serde_json::to_value(&report).unwrap_or_default();
        if let Err(e) = self.save(&record) {
            tracing::error!(run = %record.run_id, error = %e.message, "a memory_ingest run's end was not recorded");
        }
        record
    }

    fn triage_and_write(
        &self,
        record: &mut IngestRunRecord,
        request: &IngestRequest,
    ) -> Result<(RunReport, Option<TxId>), ErrorReport> {
        self.stage(record, "triaging");
        // The model reads what is stored to file the note; the
        // deterministic triage needs nothing but the note.
        let (note, triage_warnings) = match &self.llm {
            Some(_) => {
                let seen = self.snapshot(request)?;
                self.triage(request, &seen.pages, &seen.tables)?
            }
            None => (triage::triage(&request.content), Vec::new()),
        };
        // One run at a time plans against what is stored and writes it,
        // in this process and in any other on the project: concurrent
        // notes defining one term add to its page one after the other
        // instead of failing on each other's page versions.
        let _turn = self.take_turn()?;
        filing::retry_on_conflict(|| {
            let seen = self.snapshot(request)?;
            self.plan_and_write(record, request, &note, &triage_warnings, &seen)
        })
    }

    /// The note read by the model when `llm:` is configured (falling back
    /// to the deterministic triage with a warning when the model fails and
    /// `llm.fallback` allows it), else deterministically.
    fn triage(
        &self,
        request: &IngestRequest,
        pages: &BTreeMap<String, plan::ExistingPage>,
        tables: &BTreeMap<String, (String, Vec<String>)>,
    ) -> Result<(triage::Triage, Vec<String>), ErrorReport> {
        let Some(setup) = &self.llm else {
            return Ok((triage::triage(&request.content), Vec::new()));
        };
        let outcome = match &setup.chat {
            Err(why) => Err(format!("the llm settings cannot be used: {why}")),
            Ok(chat) => {
                let cx = llm::LlmContext {
                    pages: pages
                        .values()
                        .map(|p| {
                            (
                                page::title(&p.body).unwrap_or_else(|| p.key.clone()),
                                p.front.summary.clone().unwrap_or_default(),
                            )
                        })
                        .collect(),
                    connection: request.connection_id.as_deref(),
                    tables: tables.values().map(|(name, _)| name.clone()).collect(),
                    limits: &self.limits,
                };
                llm::llm_triage(chat, setup.max_steps, &request.content, &cx)
                    .map_err(|e| e.to_string())
            }
        };
        match outcome {
            Ok(done) => Ok(done),
            Err(failure) if setup.fallback => Ok((
                triage::triage(&request.content),
                vec![format!(
                    "the LLM triage failed, so the note was filed by the deterministic triage: {failure}"
                )],
            )),
            Err(failure) => Err(ErrorReport::new(
                ErrorCode::UpstreamError,
                format!(
                    "the LLM triage failed (llm.fallback is false, so nothing was filed): {failure}"
                ),
            )),
        }
    }
}

/// The transaction a run wrote (what `undo {run_id}` reverts):
/// `NotFound` for an unknown run, `Invalid` for a run that wrote nothing
/// or has not finished.
pub fn run_transaction(
    store: &dyn KnowledgeStore,
    run_id: &str,
) -> Result<TxId, lore_store::StoreError> {
    let Some(record) = store.ingest_run(run_id)? else {
        return Err(lore_store::StoreError::NotFound(format!(
            "no memory_ingest run `{run_id}`"
        )));
    };
    let record = run::settle(store, record)?;
    match (record.status.as_str(), record.tx_id) {
        (_, Some(tx)) => match run::undone_by(store, tx)? {
            Some(undo) => Err(lore_store::StoreError::Refused(format!(
                "run `{run_id}` was already undone by transaction {undo}; undo transaction {undo} to put it back"
            ))),
            None => Ok(tx),
        },
        ("running", None) => Err(lore_store::StoreError::Refused(format!(
            "run `{run_id}` is still running; undo it once memory_ingest_status says done"
        ))),
        _ => Err(lore_store::StoreError::Refused(format!(
            "run `{run_id}` wrote nothing (status {}), so there is nothing to undo",
            record.status
        ))),
    }
}

/// The note's own `source:` front matter, if it has one.
fn note_source(content: &str) -> Option<String> {
    let (front, _) = content
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---"))?;
    let value: serde_json::Value = serde_saphyr::from_str(front).ok()?;
    value
        .get("source")
        .and_then(|s| s.as_str())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn rand_suffix() -> u16 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    hasher.finish() as u16
}
