//! What changed between two snapshots: tables added and removed, and for
//! tables in both, columns added, removed or changed (type, nullability,
//! keys, comments, dimension type) and table-level changes (kind, comment).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::schema::{SchemaColumn, SchemaTable, TableRef};

/// Changes from the previous snapshot to this one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SchemaDiff {
    /// Tables new in this snapshot.
    pub tables_added: Vec<String>,
    /// Tables gone since the previous snapshot.
    pub tables_removed: Vec<String>,
    /// Tables present in both that changed.
    pub tables_modified: Vec<TableChange>,
}

/// How one table changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TableChange {
    /// The table.
    pub table: String,
    /// Table-level changes, e.g. `comment: "a" → "b"`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<String>,
    /// Columns added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns_added: Vec<String>,
    /// Columns removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns_removed: Vec<String>,
    /// Columns changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns_modified: Vec<ColumnChange>,
}

/// How one column changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ColumnChange {
    /// The column.
    pub column: String,
    /// What changed, e.g. `nativeType: integer → bigint`.
    pub changes: Vec<String>,
}

/// Counts of the changes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiffSummary {
    /// Tables added.
    pub tables_added: usize,
    /// Tables modified.
    pub tables_modified: usize,
    /// Tables removed.
    pub tables_deleted: usize,
    /// Tables unchanged.
    pub tables_unchanged: usize,
    /// Columns added (in modified tables and new tables).
    pub columns_added: usize,
    /// Columns changed.
    pub columns_modified: usize,
    /// Columns removed (in modified tables and removed tables).
    pub columns_deleted: usize,
}

fn quoted(value: &Option<String>) -> String {
    match value {
        Some(v) => format!("{v:?}"),
        None => "none".to_string(),
    }
}

fn column_changes(before: &SchemaColumn, after: &SchemaColumn) -> Vec<String> {
    let mut changes = Vec::new();
    if before.native_type != after.native_type {
        changes.push(format!(
            "nativeType: {} → {}",
            before.native_type, after.native_type
        ));
    }
    if before.dimension_type != after.dimension_type {
        changes.push(format!(
            "dimensionType: {:?} → {:?}",
            before.dimension_type, after.dimension_type
        ));
    }
    if before.nullable != after.nullable {
        changes.push(format!(
            "nullable: {} → {}",
            before.nullable, after.nullable
        ));
    }
    if before.primary_key != after.primary_key {
        changes.push(format!(
            "primaryKey: {} → {}",
            before.primary_key, after.primary_key
        ));
    }
    if before.unique != after.unique {
        changes.push(format!("unique: {} → {}", before.unique, after.unique));
    }
    if before.comment != after.comment {
        changes.push(format!(
            "comment: {} → {}",
            quoted(&before.comment),
            quoted(&after.comment)
        ));
    }
    changes
}

/// Compares two snapshots' tables.
pub fn diff_tables(previous: &[SchemaTable], current: &[SchemaTable]) -> (SchemaDiff, DiffSummary) {
    let before: BTreeMap<TableRef, &SchemaTable> =
        previous.iter().map(|t| (t.table_ref(), t)).collect();
    let after: BTreeMap<TableRef, &SchemaTable> =
        current.iter().map(|t| (t.table_ref(), t)).collect();
    let mut diff = SchemaDiff::default();
    let mut summary = DiffSummary::default();
    for (key, table) in &after {
        let Some(old) = before.get(key) else {
            diff.tables_added.push(key.display());
            summary.tables_added += 1;
            summary.columns_added += table.columns.len();
            continue;
        };
        let mut change = TableChange {
            table: key.display(),
            changes: Vec::new(),
            columns_added: Vec::new(),
            columns_removed: Vec::new(),
            columns_modified: Vec::new(),
        };
        if old.kind != table.kind {
            change
                .changes
                .push(format!("kind: {:?} → {:?}", old.kind, table.kind));
        }
        if old.comment != table.comment {
            change.changes.push(format!(
                "comment: {} → {}",
                quoted(&old.comment),
                quoted(&table.comment)
            ));
        }
        for column in &table.columns {
            match old.column(&column.name) {
                None => change.columns_added.push(column.name.clone()),
                Some(previous) => {
                    let changes = column_changes(previous, column);
                    if !changes.is_empty() {
                        change.columns_modified.push(ColumnChange {
                            column: column.name.clone(),
                            changes,
                        });
                    }
                }
            }
        }
        for column in &old.columns {
            if table.column(&column.name).is_none() {
                change.columns_removed.push(column.name.clone());
            }
        }
        let changed = !(change.changes.is_empty()
            && change.columns_added.is_empty()
            && change.columns_removed.is_empty()
            && change.columns_modified.is_empty());
        if changed {
            summary.tables_modified += 1;
            summary.columns_added += change.columns_added.len();
            summary.columns_deleted += change.columns_removed.len();
            summary.columns_modified += change.columns_modified.len();
            diff.tables_modified.push(change);
        } else {
            summary.tables_unchanged += 1;
        }
    }
    for (key, table) in &before {
        if !after.contains_key(key) {
            diff.tables_removed.push(key.display());
            summary.tables_deleted += 1;
            summary.columns_deleted += table.columns.len();
        }
    }
    (diff, summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::DimensionType;

    fn column(name: &str, native: &str) -> SchemaColumn {
        SchemaColumn {
            name: name.into(),
            native_type: native.into(),
            normalized_type: "integer".into(),
            dimension_type: DimensionType::Number,
            nullable: true,
            primary_key: false,
            unique: false,
            comment: None,
        }
    }

    fn table(name: &str, columns: Vec<SchemaColumn>) -> SchemaTable {
        SchemaTable {
            estimated_rows: Some(1),
            columns,
            ..SchemaTable::named(None, name)
        }
    }

    #[test]
    fn added_removed_and_changed_columns_and_tables_are_reported() {
        let previous = vec![
            table("a", vec![column("id", "integer"), column("gone", "text")]),
            table("b", vec![column("id", "integer")]),
            table("old", vec![column("id", "integer")]),
        ];
        let mut changed = column("id", "bigint");
        changed.comment = Some("the key".into());
        let current = vec![
            table("a", vec![changed, column("fresh", "text")]),
            table("b", vec![column("id", "integer")]),
            table("new", vec![column("id", "integer"), column("x", "text")]),
        ];
        let (diff, summary) = diff_tables(&previous, &current);
        assert_eq!(diff.tables_added, ["new"]);
        assert_eq!(diff.tables_removed, ["old"]);
        let a = &diff.tables_modified[0];
        assert_eq!(a.columns_added, ["fresh"]);
        assert_eq!(a.columns_removed, ["gone"]);
        assert_eq!(
            a.columns_modified[0].changes,
            [
                "nativeType: integer → bigint",
                "comment: none → \"the key\""
            ]
        );
        assert_eq!(
            summary,
            DiffSummary {
                tables_added: 1,
                tables_modified: 1,
                tables_deleted: 1,
                tables_unchanged: 1,
                columns_added: 3,
                columns_modified: 1,
                columns_deleted: 2,
            }
        );
    }
}
