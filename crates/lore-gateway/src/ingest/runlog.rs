//! Append-only JSON-lines logs (the ingest runs, the recipe runs), each
//! kept to its newest lines and replaced whole on every append.

use std::path::Path;

use lore_core::ErrorReport;
use lore_core::error::HasErrorCode;
use serde::Serialize;

/// Appends `record` as one JSON line to the log at `path`, keeping its
/// newest `kept` lines; the file is replaced whole, so a reader never
/// sees half a line.
pub fn append_kept(path: &Path, record: &impl Serialize, kept: usize) -> Result<(), ErrorReport> {
    let mut lines: Vec<String> = std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    lines.push(serde_json::to_string(record).unwrap_or_default());
    let keep = lines.len().saturating_sub(kept);
    let text = lines[keep..].join("\n") + "\n";
    lore_core::project::write_atomically(path, text).map_err(|e| e.report())
}
