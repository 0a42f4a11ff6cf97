//! BigQuery structure from each dataset's `INFORMATION_SCHEMA`: tables,
//! views, materialized views, external tables and snapshots (`TABLES`),
//! their descriptions (`TABLE_OPTIONS`), columns with their Standard SQL
//! types (`COLUMNS`) and descriptions (`COLUMN_FIELD_PATHS`), declared
//! primary and foreign keys (`TABLE_CONSTRAINTS`, `KEY_COLUMN_USAGE`,
//! `CONSTRAINT_COLUMN_USAGE`; BigQuery does not enforce them, but
//! declares them for the optimizer), and row counts from the dataset's
//! `__TABLES__` meta-table.
//!
//! The datasets are the connection's `schemas` in lore.yaml, else the
//! url's `datasets=`, else every dataset of the project in the
//! connection's location. Every view is read dataset by
//! dataset, in one query per view: BigQuery bills each query at least
//! 10 MB, so fewer, larger queries cost less than chunks.
//!
//! A dataset of another project (`datasets=other-project.sales`) is
//! recorded with `db` = `other-project.sales`, which is how SQL names it.

use std::collections::HashMap;

use serde_json::Value;

use super::{ScanScope, group_rows, integer, rows, text, text_or_empty, truthy};
use crate::connector::Connector;
use crate::connector::bigquery::quote_ident;
use crate::connector::bigquery::settings::DatasetRef;
use crate::error::WarehouseError;
use crate::schema::{ForeignKey, SchemaColumn, SchemaTable, TableKind, normalize_bigquery_type};

pub(super) async fn introspect(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<SchemaTable>, WarehouseError> {
    let Connector::Bigquery(bigquery) = connector else {
        return Ok(Vec::new());
    };
    let project = bigquery.settings()?.project;
    let datasets = match &scope.schemas {
        Some(names) => names
            .iter()
            .map(|name| {
                DatasetRef::parse(name).ok_or_else(|| WarehouseError::InvalidRequest {
                    message: format!(
                        "`{name}` in `schemas` is not a BigQuery dataset (letters, digits and `_`, optionally after `project.`)"
                    ),
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => bigquery.datasets().await?,
    };
    let mut tables = Vec::new();
    for dataset in datasets {
        let dataset_project = dataset.project.as_deref().unwrap_or(&project);
        let db = match &dataset.project {
            Some(other) => format!("{other}.{}", dataset.dataset),
            None => dataset.dataset.clone(),
        };
        let prefix = format!(
            "{}.{}",
            quote_ident(dataset_project),
            quote_ident(&dataset.dataset)
        );
        tables.extend(read_dataset(connector, &prefix, &db).await?);
    }
    Ok(tables)
}

/// What a dataset's `INFORMATION_SCHEMA` and `__TABLES__` say about its
/// tables beyond their listing.
struct DatasetCatalog {
    /// Table descriptions by table name.
    descriptions: HashMap<String, String>,
    /// `COLUMNS` rows (with descriptions) by table name, in order.
    columns: HashMap<String, Vec<Vec<Value>>>,
    /// Primary and foreign key columns by table name.
    keys: HashMap<String, Vec<Vec<Value>>>,
    /// The referenced side of each foreign key, by constraint name.
    referenced: HashMap<String, Vec<Vec<Value>>>,
    /// Row counts by table name.
    counts: HashMap<String, u64>,
    /// Primary key columns by table name, in key order.
    primary_keys: HashMap<String, Vec<String>>,
}

/// Reads every table and view of the dataset `prefix` names (recorded
/// with `db`), its columns and its declared keys.
async fn read_dataset(
    connector: &Connector,
    prefix: &str,
    db: &str,
) -> Result<Vec<SchemaTable>, WarehouseError> {
    let listed = rows(
        connector,
        &format!(
            "SELECT table_name, table_type FROM {prefix}.INFORMATION_SCHEMA.TABLES ORDER BY table_name"
        ),
    )
    .await?;
    if listed.is_empty() {
        return Ok(Vec::new());
    }
    let descriptions = read_descriptions(connector, prefix).await?;
    let columns = read_columns(connector, prefix).await?;
    let keys = read_key_columns(connector, prefix).await?;
    let referenced = read_referenced_columns(connector, prefix).await?;
    let counts = read_row_counts(connector, prefix).await;
    let primary_keys = primary_keys(&keys);
    let mut catalog = DatasetCatalog {
        descriptions,
        columns,
        keys,
        referenced,
        counts,
        primary_keys,
    };
    let mut tables = Vec::with_capacity(listed.len());
    for row in listed {
        tables.push(schema_table(&row, &mut catalog, db));
    }
    Ok(tables)
}

/// Table descriptions (`TABLE_OPTIONS`), unquoted, by table name.
async fn read_descriptions(
    connector: &Connector,
    prefix: &str,
) -> Result<HashMap<String, String>, WarehouseError> {
    Ok(rows(
        connector,
        &format!(
            "SELECT table_name, option_value FROM {prefix}.INFORMATION_SCHEMA.TABLE_OPTIONS \
             WHERE option_name = 'description'"
        ),
    )
    .await?
    .into_iter()
    .filter_map(|r| Some((text(&r[0])?, option_text(&text(&r[1])?))))
    .collect())
}

/// Every column of the dataset with its description, by table name, in
/// declaration order.
async fn read_columns(
    connector: &Connector,
    prefix: &str,
) -> Result<HashMap<String, Vec<Vec<Value>>>, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, p.description \
                 FROM {prefix}.INFORMATION_SCHEMA.COLUMNS AS c \
                 LEFT JOIN {prefix}.INFORMATION_SCHEMA.COLUMN_FIELD_PATHS AS p \
                 ON p.table_name = c.table_name AND p.column_name = c.column_name AND p.field_path = c.column_name \
                 ORDER BY c.table_name, c.ordinal_position"
            ),
        )
        .await?,
        |r| text_or_empty(&r[0]),
    ))
}

/// The columns of every declared key (primary and foreign), by table name,
/// in key order.
async fn read_key_columns(
    connector: &Connector,
    prefix: &str,
) -> Result<HashMap<String, Vec<Vec<Value>>>, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT k.table_name, t.constraint_type, k.constraint_name, k.column_name, \
                 k.ordinal_position, k.position_in_unique_constraint \
                 FROM {prefix}.INFORMATION_SCHEMA.KEY_COLUMN_USAGE AS k \
                 JOIN {prefix}.INFORMATION_SCHEMA.TABLE_CONSTRAINTS AS t \
                 ON t.constraint_name = k.constraint_name AND t.table_name = k.table_name \
                 ORDER BY k.table_name, k.constraint_name, k.ordinal_position"
            ),
        )
        .await?,
        |r| text_or_empty(&r[0]),
    ))
}

/// The referenced side of each foreign key: its table and columns, by
/// constraint name.
async fn read_referenced_columns(
    connector: &Connector,
    prefix: &str,
) -> Result<HashMap<String, Vec<Vec<Value>>>, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT u.constraint_name, u.table_schema, u.table_name, u.column_name \
                 FROM {prefix}.INFORMATION_SCHEMA.CONSTRAINT_COLUMN_USAGE AS u \
                 JOIN {prefix}.INFORMATION_SCHEMA.TABLE_CONSTRAINTS AS t \
                 ON t.constraint_name = u.constraint_name \
                 WHERE t.constraint_type = 'FOREIGN KEY' ORDER BY u.constraint_name"
            ),
        )
        .await?,
        |r| text_or_empty(&r[0]),
    ))
}

/// Row counts from the dataset's `__TABLES__` meta-table, by table name.
async fn read_row_counts(connector: &Connector, prefix: &str) -> HashMap<String, u64> {
    // Row counts are a nicety: a dataset where __TABLES__ cannot be read
    // is still scanned.
    rows(
        connector,
        &format!("SELECT table_id, row_count FROM {prefix}.__TABLES__"),
    )
    .await
    .unwrap_or_default()
    .into_iter()
    .filter_map(|r| Some((text(&r[0])?, u64::try_from(integer(&r[1])?).ok()?)))
    .collect()
}

/// Each table's primary key columns, from its key column rows.
fn primary_keys(keys: &HashMap<String, Vec<Vec<Value>>>) -> HashMap<String, Vec<String>> {
    keys.iter()
        .map(|(table, rows)| {
            let columns = rows
                .iter()
                .filter(|r| text_or_empty(&r[1]) == "PRIMARY KEY")
                .map(|r| text_or_empty(&r[3]))
                .collect();
            (table.clone(), columns)
        })
        .collect()
}

/// One listed table (its `TABLES` row) with its columns and keys, taken
/// out of `catalog`.
fn schema_table(row: &[Value], catalog: &mut DatasetCatalog, db: &str) -> SchemaTable {
    let name = text_or_empty(&row[0]);
    let kind = match text_or_empty(&row[1]).as_str() {
        "VIEW" | "MATERIALIZED VIEW" => TableKind::View,
        "EXTERNAL" => TableKind::External,
        _ => TableKind::Table,
    };
    let primary_key = catalog.primary_keys.get(&name).cloned().unwrap_or_default();
    let table_columns = catalog
        .columns
        .remove(&name)
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            let column = text_or_empty(&c[1]);
            let native = text_or_empty(&c[2]);
            let (normalized, dimension) = normalize_bigquery_type(&native);
            SchemaColumn {
                primary_key: primary_key.contains(&column),
                unique: primary_key.len() == 1 && primary_key[0] == column,
                nullable: truthy(&c[3]),
                comment: text(&c[4]),
                native_type: native,
                normalized_type: normalized.to_string(),
                dimension_type: dimension,
                name: column,
            }
        })
        .collect();
    let foreign_keys = foreign_keys(
        catalog
            .keys
            .get(&name)
            .map(Vec::as_slice)
            .unwrap_or_default(),
        &catalog.referenced,
        &catalog.primary_keys,
        db,
    );
    SchemaTable {
        catalog: None,
        db: Some(db.to_string()),
        estimated_rows: match kind {
            TableKind::Table => catalog.counts.get(&name).copied(),
            _ => None,
        },
        comment: catalog.descriptions.get(&name).cloned(),
        name,
        kind,
        columns: table_columns,
        foreign_keys,
    }
}

/// The column pairs of a table's foreign keys: the referenced column is
/// the referenced table's primary-key column at the key column's
/// `position_in_unique_constraint`, else the referenced column listed at
/// the same position.
fn foreign_keys(
    key_rows: &[Vec<Value>],
    referenced: &HashMap<String, Vec<Vec<Value>>>,
    primary_keys: &HashMap<String, Vec<String>>,
    db: &str,
) -> Vec<ForeignKey> {
    let mut out = Vec::new();
    for (index_in_constraint, row) in key_rows
        .iter()
        .filter(|r| text_or_empty(&r[1]) == "FOREIGN KEY")
        .enumerate()
    {
        let constraint = text_or_empty(&row[2]);
        let Some(targets) = referenced.get(&constraint) else {
            continue;
        };
        let Some(first) = targets.first() else {
            continue;
        };
        let to_table = text_or_empty(&first[2]);
        let to_db = text(&first[1]);
        let position = integer(&row[5]).and_then(|p| usize::try_from(p).ok());
        let same_dataset = to_db.as_deref().is_none_or(|d| db.ends_with(d));
        let to_column = position
            .filter(|_| same_dataset)
            .and_then(|p| primary_keys.get(&to_table)?.get(p.checked_sub(1)?).cloned())
            .or_else(|| {
                let ordinal = integer(&row[4]).and_then(|o| usize::try_from(o).ok())?;
                targets
                    .get(ordinal.checked_sub(1)?)
                    .map(|t| text_or_empty(&t[3]))
            })
            .or_else(|| {
                targets
                    .get(index_in_constraint)
                    .map(|t| text_or_empty(&t[3]))
            })
            .unwrap_or_default();
        out.push(ForeignKey {
            from_column: text_or_empty(&row[3]),
            to_catalog: None,
            to_db: Some(if same_dataset {
                db.to_string()
            } else {
                to_db.unwrap_or_default()
            }),
            to_table,
            to_column,
            constraint_name: Some(constraint),
        });
    }
    out
}

/// `TABLE_OPTIONS.option_value` is the option as a SQL literal
/// (`"Orders placed"`): the text inside.
fn option_text(literal: &str) -> String {
    let trimmed = literal.trim();
    let Some(inner) = trimmed
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| {
            trimmed
                .strip_prefix('\'')
                .and_then(|t| t.strip_suffix('\''))
        })
    else {
        return trimmed.to_string();
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_values_are_unquoted() {
        assert_eq!(option_text("\"Orders placed\""), "Orders placed");
        assert_eq!(
            option_text(r#""A \"quoted\" line\nand more""#),
            "A \"quoted\" line\nand more"
        );
        assert_eq!(option_text("plain"), "plain");
    }
}
