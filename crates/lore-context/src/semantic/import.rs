//! Writing an imported semantic model into a project: one file per
//! source, written through the semantic layer's files in one transaction,
//! refused when the model would not load; a file changed by hand since the
//! last import is reported as a conflict and left alone (the import's own
//! ledger, `.lore/sl-import-<connection>.json`, remembers what it wrote).
//! The readers (MetricFlow, Cube, LookML) are the `lore-import` crate's.

use std::collections::BTreeMap;

use lore_core::{ErrorCode, ErrorReport};
use lore_import::{
    ImportReport, Imported, Outcome, check_against_scan, leave_out_what_does_not_load, render,
};
use lore_warehouse::catalog::LoadedSnapshot;

use super::files::{SemanticFiles, SourceFile};

fn ledger_path(files: &SemanticFiles, connection: &str) -> std::path::PathBuf {
    files
        .state_dir()
        .join(format!("sl-import-{connection}.json"))
}

/// Writes `imported`'s sources for `connection` (unless `dry_run`): one
/// file per source, one transaction, the model checked to load first.
pub fn write(
    files: &SemanticFiles,
    actor: &str,
    connection: &str,
    mut imported: Imported,
    scan: Option<&LoadedSnapshot>,
    dry_run: bool,
) -> Result<ImportReport, ErrorReport> {
    let mut report = std::mem::take(&mut imported.report);
    report.connection = connection.to_string();
    report.dry_run = dry_run;
    leave_out_what_does_not_load(&mut imported.sources, &mut report);
    check_against_scan(&imported.sources, scan, &mut report);
    let ledger: BTreeMap<String, String> = std::fs::read_to_string(ledger_path(files, connection))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let mut writes: Vec<SourceFile> = Vec::new();
    let mut written_hashes = ledger.clone();
    for source in &imported.sources {
        let file = format!("{}.yaml", source.name);
        let text = render(source, &report.from)?;
        let path = SemanticFiles::path(connection, &file);
        let current = files.read(connection, &file);
        let hash = lore_core::hash::content_hash(&text);
        if let Some(current) = &current {
            let edited = ledger
                .get(&file)
                .is_none_or(|h| *h != lore_core::hash::content_hash(current));
            if edited && *current != text {
                report.conflicts.push(path.clone());
                report.push(
                    "file",
                    &path,
                    Outcome::Skipped,
                    "changed since the last import (or not written by one): left as it is; move it away to import it again",
                );
                continue;
            }
        }
        written_hashes.insert(file.clone(), hash);
        report.files.push(path);
        writes.push(SourceFile {
            file,
            content: Some(text),
            expected_version: None,
        });
    }
    if !dry_run && !writes.is_empty() {
        let summary = format!(
            "lore sl import --from {} ({} sources)",
            report.from,
            writes.len()
        );
        let written = files.write(actor, connection, &summary, writes, true)?;
        report.tx_id = written.changed.then_some(written.tx_id);
        lore_core::project::write_atomically(
            &ledger_path(files, connection),
            serde_json::to_string_pretty(&written_hashes).unwrap_or_default(),
        )
        .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("the import ledger: {e}")))?;
    } else if dry_run && !writes.is_empty() {
        files.check_model_after(connection, &writes)?;
    }
    report.count();
    Ok(report)
}
