//! A starting model from a connection's latest scan (`lore sl generate`):
//! one source per table, joins from declared and accepted inferred
//! relationships, written through the store as one transaction. Files that
//! exist are kept as they are, so hand edits survive a regeneration, and
//! one undo takes the whole generation back.

use lore_core::{ErrorCode, ErrorReport};
use lore_semantic::generate::{
    ColumnShape, LinkShape, TableShape, generate_sources, name_as_modelled, render_sources,
};
use lore_semantic::model::ColumnType;
use lore_store::TxId;
use lore_warehouse::catalog::Catalog;
use lore_warehouse::scan::relationships::{RelationshipKind, RelationshipStatus};
use lore_warehouse::schema::DimensionType;
use serde::Serialize;

use super::files::{SemanticFiles, SourceFile};

/// What [`generate_model`] did.
#[derive(Debug, Clone, Serialize)]
pub struct GeneratedModel {
    /// The connection.
    pub connection: String,
    /// The scan it was generated from.
    pub sync_id: String,
    /// Files written (paths relative to the project).
    pub written: Vec<String>,
    /// Files that existed and were kept as they are.
    pub kept: Vec<String>,
    /// Relationships left out, and why.
    pub skipped: Vec<String>,
    /// The transaction holding the written files (undo it to take the
    /// generation back); `None` when nothing was written.
    pub tx_id: Option<TxId>,
}

/// Generates a starting model for `connection` from its latest scan and
/// writes the files that do not exist yet, as one transaction. Blocking.
pub fn generate_model(
    catalog: &Catalog,
    files: &SemanticFiles,
    connection: &str,
    actor: &str,
) -> Result<GeneratedModel, ErrorReport> {
    let Some(snapshot) = catalog.latest(connection).map_err(|e| {
        use lore_core::error::HasErrorCode;
        e.report()
    })?
    else {
        return Err(ErrorReport::new(
            ErrorCode::NotFound,
            format!(
                "`{connection}` has not been scanned yet; run `lore scan -c {connection}` first"
            ),
        ));
    };
    // A ClickHouse primary key is a sorting prefix, not a unique key: it is
    // a grain only when it is one column and unique in the scan's sample.
    let keys_enforced = snapshot.manifest.dialect != "clickhouse";
    let unique_in_sample = |t: usize, c: usize| {
        snapshot.column_stats(t, c).is_some_and(|s| {
            let present = s.sampled_rows.saturating_sub(s.null_count);
            present > 0 && s.distinct_count == present
        })
    };
    let tables: Vec<TableShape> = snapshot
        .tables
        .iter()
        .enumerate()
        .map(|(index, t)| TableShape {
            db: t.db.clone(),
            name: t.name.clone(),
            comment: t.comment.clone(),
            columns: t
                .columns
                .iter()
                .map(|c| ColumnShape {
                    name: c.name.clone(),
                    column_type: match c.dimension_type {
                        DimensionType::Time => ColumnType::Time,
                        DimensionType::String => ColumnType::String,
                        DimensionType::Number => ColumnType::Number,
                        DimensionType::Boolean => ColumnType::Boolean,
                    },
                    comment: c.comment.clone(),
                })
                .collect(),
            primary_key: {
                let key: Vec<usize> = (0..t.columns.len())
                    .filter(|&c| t.columns[c].primary_key)
                    .collect();
                let trusted = keys_enforced || (key.len() == 1 && unique_in_sample(index, key[0]));
                if trusted {
                    key.iter().map(|&c| t.columns[c].name.clone()).collect()
                } else {
                    Vec::new()
                }
            },
        })
        .collect();
    let links: Vec<LinkShape> = snapshot
        .relationships
        .iter()
        .filter(|r| r.status == RelationshipStatus::Accepted)
        .map(|r| LinkShape {
            from: (r.from.db.clone(), r.from.table.clone()),
            from_columns: r.from.columns.clone(),
            to: (r.to.db.clone(), r.to.table.clone()),
            to_columns: r.to.columns.clone(),
            declared: r.kind == RelationshipKind::Formal,
        })
        .collect();
    let (mut tables, mut links) = (tables, links);
    if let Some(dialect) = lore_semantic::dialect::Dialect::from_name(&snapshot.manifest.dialect) {
        name_as_modelled(dialect, &mut tables, &mut links);
    }
    let (specs, skipped) = generate_sources(&tables, &links);
    let sync_id = snapshot.manifest.sync_id.to_string();
    // Edits made since the last sync are recorded before anything is
    // decided, so "exists" means what is on disk now.
    files.refresh()?;
    let mut written = Vec::new();
    let mut kept = Vec::new();
    let mut new_files = Vec::new();
    for (file, text) in render_sources(&specs, &format!("scan {sync_id}")) {
        let path = SemanticFiles::path(connection, &file);
        if files.exists(&path) {
            kept.push(path);
        } else {
            written.push(path);
            new_files.push(SourceFile {
                file,
                content: Some(text),
                // Another writer creating the same file meanwhile is a
                // conflict, not an overwrite.
                expected_version: Some(0),
            });
        }
    }
    let tx_id = if new_files.is_empty() {
        None
    } else {
        let summary = format!(
            "lore sl generate: {} sources for {connection} from scan {sync_id}",
            new_files.len()
        );
        let write = files.write(actor, connection, &summary, new_files, false)?;
        write.changed.then_some(write.tx_id)
    };
    Ok(GeneratedModel {
        connection: connection.to_string(),
        sync_id,
        written,
        kept,
        skipped,
        tx_id,
    })
}
