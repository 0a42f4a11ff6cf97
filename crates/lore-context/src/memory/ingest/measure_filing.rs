//! Filing a note's aggregate queries as measures: each query's proposed
//! measure is added to the model file of the source over its table, and
//! kept only if the connection's model still loads with it (and with the
//! run's new model files); the rest are skipped with why.

use std::collections::BTreeMap;

use lore_core::ErrorReport;
use lore_semantic::model::SourceSpec;
use lore_store::mirror::FileChange;

use super::{CapturedItem, MemoryIngest, Skipped, bounds, measures, plan, triage};
use crate::semantic::files::{SemanticFiles, SourceFile};

/// The connection's model files as a run's measures edit them.
struct ModelFiles {
    /// The files as stored: (file name, text).
    stored: Vec<(String, String)>,
    /// The run's new model files, part of every trial load.
    new_files: Vec<SourceFile>,
    /// The files edited so far: file name → new text.
    edited: BTreeMap<String, String>,
}

impl ModelFiles {
    /// The first file (as edited so far) with a source over `table`, and
    /// that source.
    fn owner(&self, table: &str) -> Option<(String, SourceSpec)> {
        for (file, text) in &self.stored {
            let current = self.edited.get(file).unwrap_or(text);
            let specs = lore_semantic::model::parse_file(std::path::Path::new(file), current)
                .unwrap_or_default();
            if let Some(spec) = specs.into_iter().find(|s| {
                s.table
                    .as_deref()
                    .is_some_and(|t| measures::same_table(t, table))
            }) {
                return Some((file.clone(), spec));
            }
        }
        None
    }

    /// `file`'s text as edited so far, else as stored.
    fn current(&self, file: &str) -> String {
        self.edited
            .get(file)
            .cloned()
            .or_else(|| {
                self.stored
                    .iter()
                    .find(|(f, _)| *f == file)
                    .map(|(_, t)| t.clone())
            })
            .unwrap_or_default()
    }

    /// The files to load the model with when `file` becomes `text`: the
    /// new files, the edited ones, and `file`.
    fn trial(&self, file: &str, text: &str) -> Vec<SourceFile> {
        let file = file.to_string();
        let text = text.to_string();
        let mut trial = self.new_files.clone();
        for (f, t) in self.edited.iter().chain(std::iter::once((&file, &text))) {
            trial.push(SourceFile {
                file: f.clone(),
                content: Some(t.clone()),
                expected_version: None,
            });
        }
        trial
    }
}

/// Skips a query the note holds, saying why it made no measure.
fn skip(planned: &mut plan::Plan, section: &str, reason: String) {
    planned.skipped.push(Skipped {
        section: section.to_string(),
        what: triage::BlockKind::Sql.as_str().to_string(),
        reason,
    });
}

/// Whether two filters read the same, ignoring spacing and case.
fn same_filter(a: Option<&str>, b: Option<&str>) -> bool {
    a.map(triage::squash).map(|f| f.to_lowercase())
        == b.map(triage::squash).map(|f| f.to_lowercase())
}

impl MemoryIngest {
    /// The note's aggregate queries as measures on the connection's
    /// sources: each proposal is kept only if the model still loads with
    /// it (and with the new model files); the rest are skipped with why.
    /// Returns the changed files.
    pub(super) fn measures(
        &self,
        connection: &str,
        source: &str,
        planned: &mut plan::Plan,
    ) -> Result<Vec<FileChange>, ErrorReport> {
        let queries = std::mem::take(&mut planned.queries);
        if queries.is_empty() {
            return Ok(Vec::new());
        }
        let versions: BTreeMap<String, i64> = self
            .semantic
            .mirror()
            .entries()?
            .1
            .into_iter()
            .map(|(path, entry)| (path, entry.version))
            .collect();
        let mut model = ModelFiles {
            stored: self
                .semantic
                .files_of(connection)
                .into_iter()
                .filter_map(|f| self.semantic.read(connection, &f).map(|t| (f, t)))
                .collect(),
            new_files: planned
                .models
                .iter()
                .map(|m| SourceFile {
                    file: m.file.clone(),
                    content: Some(m.content.clone()),
                    expected_version: Some(0),
                })
                .collect(),
            edited: BTreeMap::new(),
        };
        let mut left_out: Option<(String, usize)> = None;
        for query in queries {
            if planned.items_left == 0 {
                left_out.get_or_insert((query.section.clone(), 0)).1 += 1;
                continue;
            }
            self.file_measure(connection, source, &query, &mut model, planned);
        }
        if let Some((section, count)) = left_out {
            planned.skipped.push(bounds::left_out(
                &section,
                "query",
                count,
                "limits.ingest_items",
                self.limits.ingest_items,
            ));
        }
        Ok(model
            .edited
            .into_iter()
            .map(|(file, text)| {
                let path = SemanticFiles::path(connection, &file);
                FileChange {
                    expected_version: versions.get(&path).copied(),
                    path,
                    content: Some(text),
                }
            })
            .collect())
    }

    /// One query as a measure on the source over its table: added (and
    /// counted against the run's items) when the model still loads with
    /// it, else skipped with why.
    fn file_measure(
        &self,
        connection: &str,
        source: &str,
        query: &plan::QueryPlan,
        model: &mut ModelFiles,
        planned: &mut plan::Plan,
    ) {
        let proposal = match measures::propose(&query.sql, &query.section, &self.limits) {
            Ok(p) => p,
            Err(why) => {
                skip(
                    planned,
                    &query.section,
                    format!("kept in the wiki page, not made a measure: {why}"),
                );
                return;
            }
        };
        let Some((file, spec)) = model.owner(&proposal.table) else {
            skip(
                planned,
                &query.section,
                format!(
                    "no semantic-layer source of {connection} reads table {} (lore sl generate makes one)",
                    proposal.table
                ),
            );
            return;
        };
        let id = format!("{file}#{}", proposal.name);
        if let Some(existing) = spec.measures.iter().find(|m| m.name == proposal.name) {
            compare_existing(
                existing,
                &proposal,
                &spec,
                &id,
                source,
                &query.section,
                planned,
            );
            return;
        }
        let text =
            measures::add_measure(&model.current(&file), &proposal, &format!("From {source}"));
        match self
            .semantic
            .check_model_after(connection, &model.trial(&file, &text))
        {
            Ok(()) => {
                planned.items_left -= 1;
                model.edited.insert(file.clone(), text);
                planned
                    .captured
                    .sl
                    .push(CapturedItem::new(&id, "measure", "created"));
            }
            Err(problem) => skip(
                planned,
                &query.section,
                format!(
                    "measure `{}` on source {} would not load: {}",
                    proposal.name, spec.name, problem.message
                ),
            ),
        }
    }
}

/// A proposal named like a measure the source already has: the same
/// measure is captured as unchanged; a different one is left as it is,
/// with a warning, and the query skipped.
fn compare_existing(
    existing: &lore_semantic::model::MeasureSpec,
    proposal: &measures::MeasureProposal,
    spec: &SourceSpec,
    id: &str,
    source: &str,
    section: &str,
    planned: &mut plan::Plan,
) {
    let same = triage::squash(&existing.expr).eq_ignore_ascii_case(&triage::squash(&proposal.expr))
        && same_filter(existing.filter.as_deref(), proposal.filter.as_deref());
    if same {
        planned
            .captured
            .sl
            .push(CapturedItem::unchanged(id, "measure"));
        return;
    }
    planned.warnings.push(format!(
        "measure `{}` of source {} is `{}`{}; the note ({source}) says `{}`{} — the model was left as it is",
        proposal.name,
        spec.name,
        existing.expr,
        existing.filter.as_deref().map(|f| format!(" where {f}")).unwrap_or_default(),
        proposal.expr,
        proposal.filter.as_deref().map(|f| format!(" where {f}")).unwrap_or_default(),
    ));
    skip(
        planned,
        section,
        format!(
            "source {} already has a different measure `{}`",
            spec.name, proposal.name
        ),
    );
}
