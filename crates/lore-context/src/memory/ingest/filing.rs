//! Filing a triaged note: the run waits for its turn, reads what is
//! stored, plans its pages, notes, model files and measures, and writes
//! them in one transaction, planning again when a writer outside the
//! turns changed a page meanwhile.

use std::collections::BTreeMap;
use std::sync::Arc;

use lore_core::{ErrorCode, ErrorReport};
use lore_store::mirror::{FileChange, write_together};
use lore_store::{IngestRunRecord, NewEntry, TopicWrite, TxId};

use super::{
    CapturedItem, IngestRequest, MemoryIngest, RunReport, Skipped, bounds, note_source, plan, run,
    triage,
};
use crate::semantic::files::{SemanticFiles, SourceFile};
use crate::wiki::page::{self, PageAddress, Scope};

/// How many times a run plans and writes when another writer changed a
/// page it read in the meantime (runs on one project take turns, so only
/// writers outside them cause this).
pub const WRITE_ATTEMPTS: usize = 5;

/// The lock file (in `.lore/`) runs take turns on.
pub(super) const TURN_LOCK: &str = "memory-ingest.lock";

/// What is stored when a run plans its writes.
pub(super) struct Snapshot {
    /// The live global pages, by key.
    pub(super) pages: BTreeMap<String, plan::ExistingPage>,
    /// The connection's scanned tables: lower-cased name → (name, columns).
    pub(super) tables: BTreeMap<String, (String, Vec<String>)>,
    /// The connection's model file names.
    pub(super) model_files: Vec<String>,
    /// The connection's latest scan.
    pub(super) scan: Option<Arc<lore_warehouse::catalog::LoadedSnapshot>>,
}

impl MemoryIngest {
    /// Waits for this run's turn to plan and write: an exclusive lock on
    /// `.lore/memory-ingest.lock`, held until the returned file is dropped
    /// (the system releases it when a process dies).
    pub(super) fn take_turn(&self) -> Result<std::fs::File, ErrorReport> {
        let failed = |e: std::io::Error| {
            ErrorReport::new(
                ErrorCode::Internal,
                format!("cannot lock .lore/{TURN_LOCK} for the run: {e}"),
            )
        };
        if let Some(folder) = self.turn_lock.parent() {
            std::fs::create_dir_all(folder).map_err(failed)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.turn_lock)
            .map_err(failed)?;
        file.lock().map_err(failed)?;
        Ok(file)
    }

    /// What is stored now (after importing edits made on disk): the
    /// global pages, and the connection's scan and model files.
    pub(super) fn snapshot(&self, request: &IngestRequest) -> Result<Snapshot, ErrorReport> {
        self.wiki.refresh()?;
        let pages: BTreeMap<String, plan::ExistingPage> = self
            .wiki
            .mirror()
            .entries()?
            .1
            .into_iter()
            .filter_map(|(_, entry)| {
                let address = PageAddress::from_topic(&entry.topic)?;
                if address.scope != Scope::Global {
                    return None;
                }
                let (front, body) = page::parse(&entry.content).ok()?;
                Some((
                    address.key.clone(),
                    plan::ExistingPage {
                        key: address.key,
                        front,
                        body,
                        version: entry.version,
                    },
                ))
            })
            .collect();
        let mut seen = Snapshot {
            pages,
            tables: BTreeMap::new(),
            model_files: Vec::new(),
            scan: None,
        };
        if let Some(connection) = &request.connection_id {
            seen.scan = self.catalog.latest(connection).ok().flatten();
            if let Some(snapshot) = &seen.scan {
                for table in &snapshot.tables {
                    seen.tables.insert(
                        table.name.to_lowercase(),
                        (
                            table.name.clone(),
                            table.columns.iter().map(|c| c.name.clone()).collect(),
                        ),
                    );
                }
            }
            seen.model_files = self.semantic.files_of(connection);
        }
        Ok(seen)
    }

    /// Plans the note's writes against `seen` and writes them in one
    /// transaction.
    pub(super) fn plan_and_write(
        &self,
        record: &mut IngestRunRecord,
        request: &IngestRequest,
        note: &triage::Triage,
        triage_warnings: &[String],
        seen: &Snapshot,
    ) -> Result<(RunReport, Option<TxId>), ErrorReport> {
        let source = note_source(&request.content).unwrap_or_else(|| note.title.clone());
        let source: String = source.chars().take(lore_store::MAX_SOURCE_CHARS).collect();
        let cx = plan::Context {
            run_id: &record.run_id,
            source: &source,
            connection: request.connection_id.as_deref(),
            pages: &seen.pages,
            tables: &seen.tables,
            model_files: &seen.model_files,
            limits: &self.limits,
        };
        let mut planned = plan::plan(note, &cx);
        planned
            .warnings
            .splice(0..0, triage_warnings.iter().cloned());
        let mut measure_changes: Vec<FileChange> = Vec::new();
        if let Some(connection) = &request.connection_id {
            self.plan_models(connection, seen, &mut planned);
            measure_changes = self.measures(connection, &source, &mut planned)?;
        }
        let mut report = RunReport {
            captured: planned.captured.clone(),
            skipped: planned.skipped.clone(),
            warnings: planned.warnings.clone(),
            error: None,
        };
        bounds::bound_report(&mut report);
        // From here the run writes: a cancellation comes too late, and a
        // run whose process dies is settled from the log with this report.
        if !run::gates().enter_writing(&record.run_id) {
            return Err(ErrorReport::new(
                ErrorCode::Unavailable,
                "the run was cancelled before it began writing",
            ));
        }
        record.report = serde_json::to_value(&report).unwrap_or_default();
        self.stage(record, "writing");
        self.write_planned(
            record,
            request,
            &note.title,
            &planned,
            measure_changes,
            report,
        )
    }

    /// The connection's new model files: MetricFlow, LookML and Cube
    /// blocks through `lore sl import`'s readers, then every file checked
    /// with the others (a file that would break the model is skipped with
    /// why).
    fn plan_models(&self, connection: &str, seen: &Snapshot, planned: &mut plan::Plan) {
        if let Some(dialect) = self.connections.get(connection).copied() {
            for block in std::mem::take(&mut planned.imports) {
                import_block(
                    &block,
                    seen.scan.as_deref(),
                    dialect,
                    &seen.model_files,
                    &self.limits,
                    planned,
                );
            }
        }
        let mut kept: Vec<SourceFile> = Vec::new();
        for model in std::mem::take(&mut planned.models) {
            let candidate = SourceFile {
                file: model.file.clone(),
                content: Some(model.content.clone()),
                expected_version: Some(0),
            };
            let mut trial = kept.clone();
            trial.push(candidate.clone());
            match self.semantic.check_model_after(connection, &trial) {
                Ok(()) => kept.push(candidate),
                Err(problem) => {
                    planned.captured.sl.retain(|c| c.id != model.file);
                    planned.skipped.push(Skipped {
                        section: model.file.clone(),
                        what: triage::BlockKind::LoreModel.as_str().to_string(),
                        reason: format!("the model would not load with it: {}", problem.message),
                    });
                }
            }
        }
        planned.models = kept
            .into_iter()
            .map(|f| plan::ModelPlan {
                file: f.file,
                content: f.content.unwrap_or_default(),
            })
            .collect();
    }

    /// Writes the planned pages, model files and notes in one
    /// transaction: the report as written, and the transaction if
    /// anything changed.
    fn write_planned(
        &self,
        record: &IngestRunRecord,
        request: &IngestRequest,
        title: &str,
        planned: &plan::Plan,
        measure_changes: Vec<FileChange>,
        report: RunReport,
    ) -> Result<(RunReport, Option<TxId>), ErrorReport> {
        let page_changes: Vec<FileChange> = planned
            .pages
            .iter()
            .map(|p| FileChange {
                path: PageAddress {
                    scope: Scope::Global,
                    key: p.key.clone(),
                }
                .path(),
                content: Some(p.content.clone()),
                expected_version: Some(p.expected_version),
            })
            .collect();
        let mut model_changes: Vec<FileChange> = match &request.connection_id {
            Some(connection) => planned
                .models
                .iter()
                .map(|m| FileChange {
                    path: SemanticFiles::path(connection, &m.file),
                    content: Some(m.content.clone()),
                    expected_version: Some(0),
                })
                .collect(),
            None => Vec::new(),
        };
        model_changes.extend(measure_changes);
        let notes: Vec<TopicWrite> = planned
            .notes
            .iter()
            .map(|n| TopicWrite {
                entry: NewEntry {
                    topic: n.topic.clone(),
                    content: n.content.clone(),
                    tags: n.tags.clone(),
                    source: Some(n.source.clone()),
                    ..NewEntry::default()
                },
                expected_version: None,
                remove: false,
            })
            .collect();
        if page_changes.is_empty() && model_changes.is_empty() && notes.is_empty() {
            return Ok((report, None));
        }
        let summary = format!("{} {title}", run::stamp(&record.run_id));
        let summary: String = summary.chars().take(200).collect();
        // The wiki's mirror names the store even when no page changes.
        let mut parts = vec![(self.wiki.mirror(), page_changes)];
        if !model_changes.is_empty() {
            parts.push((self.semantic.mirror(), model_changes));
        }
        let written = write_together(&record.actor, &summary, parts, notes)?;
        let mut report = report;
        // Notes that said nothing new.
        for (item, written) in report.captured.memory.iter_mut().zip(&written.entries) {
            if !written.changed {
                item.action = "unchanged".into();
            }
        }
        Ok((report, written.changed.then_some(written.tx_id)))
    }
}

/// A MetricFlow, LookML or Cube block (what it is, its section, its text)
/// as new model files (existing files are left to `lore sl import`); the
/// importer's approximations become warnings and what it skipped is
/// listed with why. A source whose SQL is past `limits`, or that does not
/// fit in the run's `limits.ingest_items`, is skipped naming the limit.
fn import_block(
    (kind, section, text): &(triage::BlockKind, String, String),
    scan: Option<&lore_warehouse::catalog::LoadedSnapshot>,
    dialect: lore_semantic::dialect::Dialect,
    existing: &[String],
    limits: &lore_core::limits::SqlLimits,
    planned: &mut plan::Plan,
) {
    let kind = *kind;
    use lore_import::{Outcome, cube, lookml, metricflow, render};
    let skip = |planned: &mut plan::Plan, reason: String| {
        planned.skipped.push(Skipped {
            section: section.to_string(),
            what: kind.as_str().to_string(),
            reason,
        });
    };
    let imported = match kind {
        triage::BlockKind::LookMl => lookml::read_text(text, scan, dialect),
        triage::BlockKind::Cube => cube::read_text(text, scan),
        _ => metricflow::read_text(text, scan),
    };
    let imported = match imported {
        Ok(imported) => imported,
        Err(e) => return skip(planned, e.message),
    };
    for item in &imported.report.items {
        match item.outcome {
            Outcome::Imported => {}
            Outcome::Approximated => planned.warnings.push(format!(
                "{} {} {}: {}",
                kind.label(),
                item.kind,
                item.name,
                item.detail
            )),
            Outcome::Skipped => skip(
                planned,
                format!("{} {}: {}", item.kind, item.name, item.detail),
            ),
        }
    }
    for source in &imported.sources {
        let file = format!("{}.yaml", source.name);
        if let Some(why) = bounds::expression_limit(source, limits) {
            skip(planned, why);
            continue;
        }
        // The source and each of its measures.
        let items = 1 + source.measures.len();
        if items > planned.items_left {
            skip(
                planned,
                format!(
                    "source {} ({items} items: the source and its measures) was not filed: limits.ingest_items in lore.yaml allows {} per memory_ingest run and {} are left; split the note, or raise limits.ingest_items",
                    source.name, limits.ingest_items, planned.items_left
                ),
            );
            continue;
        }
        if existing.contains(&file) {
            skip(
                planned,
                format!(
                    "semantic-layer file {file} exists already; update it with lore sl import --from {}",
                    kind.as_str()
                ),
            );
            continue;
        }
        match render(source, kind.as_str()) {
            Ok(content) => {
                planned.items_left -= items;
                planned
                    .captured
                    .sl
                    .push(CapturedItem::new(&file, "source", "created"));
                planned.models.push(plan::ModelPlan { file, content });
            }
            Err(e) => skip(planned, e.message),
        }
    }
}

/// Runs `plan_and_write` again while it fails with `conflict`, at most
/// [`WRITE_ATTEMPTS`] times: runs take turns, so a conflict means a
/// writer outside them (a wiki edit, a server on another machine sharing
/// the store) changed a page after the run read it, and planning again
/// against the new version merges the run's paragraphs into it.
pub(super) fn retry_on_conflict<T>(
    mut plan_and_write: impl FnMut() -> Result<T, ErrorReport>,
) -> Result<T, ErrorReport> {
    let mut attempt = 1;
    loop {
        match plan_and_write() {
            Err(error) if error.code == ErrorCode::Conflict && attempt < WRITE_ATTEMPTS => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(25 * attempt as u64));
            }
            Err(error) if error.code == ErrorCode::Conflict => {
                return Err(ErrorReport::new(
                    ErrorCode::Conflict,
                    format!(
                        "{} (the run planned again {WRITE_ATTEMPTS} times against what other writers changed meanwhile; ingest the note again)",
                        error.message
                    ),
                ));
            }
            outcome => return outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conflicting_write_is_planned_again_a_bounded_number_of_times() {
        let conflict = || ErrorReport::new(ErrorCode::Conflict, "page churn is at version 3");
        let mut calls = 0;
        let landed = retry_on_conflict(|| {
            calls += 1;
            if calls < 3 {
                Err(conflict())
            } else {
                Ok(calls)
            }
        });
        assert_eq!(landed.unwrap(), 3);
        let mut calls = 0;
        let err = retry_on_conflict::<()>(|| {
            calls += 1;
            Err(conflict())
        })
        .unwrap_err();
        assert_eq!((calls, err.code), (WRITE_ATTEMPTS, ErrorCode::Conflict));
        assert!(
            err.message
                .starts_with("page churn is at version 3 (the run planned again")
        );
        // Other failures are not retried.
        let mut calls = 0;
        let err = retry_on_conflict::<()>(|| {
            calls += 1;
            Err(ErrorReport::new(ErrorCode::InvalidRequest, "bad"))
        })
        .unwrap_err();
        assert_eq!((calls, err.code), (1, ErrorCode::InvalidRequest));
    }
}
