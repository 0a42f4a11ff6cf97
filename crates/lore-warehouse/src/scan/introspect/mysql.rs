//! MySQL and MariaDB structure from `information_schema`: base tables and
//! views, columns (`tinyint(1)` read as boolean), comments, primary and
//! unique keys, foreign keys with their target database (cross-database
//! keys are kept), and `table_rows` estimates.
//!
//! Without `schemas` in `lore.yaml`, the scan reads the URL's database, or
//! every non-system database when the URL names none.

use std::collections::HashMap;

use serde_json::Value;

use super::{
    CHUNK_TABLES, ScanScope, foreign_key, group_rows, integer, rows, schema_and_name_filter, text,
    text_or_empty,
};
use crate::connector::Connector;
use crate::dialect::SqlDialect;
use crate::error::WarehouseError;
use crate::schema::{ForeignKey, SchemaColumn, SchemaTable, TableKind, normalize_mysql_type};

const SYSTEM_DATABASES: &str = "'mysql', 'information_schema', 'performance_schema', 'sys'";

fn scope_filter(scope: &ScanScope, column: &str) -> String {
    match &scope.schemas {
        Some(schemas) => format!(
            "{column} IN ({})",
            schemas
                .iter()
                .map(|s| SqlDialect::Mysql.quote_literal(s))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!(
            "((DATABASE() IS NOT NULL AND {column} = DATABASE()) \
             OR (DATABASE() IS NULL AND {column} NOT IN ({SYSTEM_DATABASES})))"
        ),
    }
}

/// Rows of one chunk's catalog queries, by `(schema, table)`.
type BySchemaAndName = HashMap<(String, String), Vec<Vec<Value>>>;

/// Reads every base table and view in scope, its columns and its foreign
/// keys, a chunk of tables at a time.
pub(super) async fn introspect(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<SchemaTable>, WarehouseError> {
    let listed = list_tables(connector, scope).await?;
    let mut tables = Vec::with_capacity(listed.len());
    for chunk in listed.chunks(CHUNK_TABLES) {
        let filter = schema_and_name_filter(
            SqlDialect::Mysql,
            chunk
                .iter()
                .map(|row| (text_or_empty(&row[0]), text_or_empty(&row[1]))),
            "table_schema",
            "table_name",
        );
        let mut columns = read_columns(connector, &filter).await?;
        let mut keys = read_foreign_keys(connector, &filter).await?;
        for row in chunk {
            let key = (text_or_empty(&row[0]), text_or_empty(&row[1]));
            let table_columns = schema_columns(columns.remove(&key).unwrap_or_default());
            let foreign_keys = keys
                .remove(&key)
                .unwrap_or_default()
                .into_iter()
                .map(|k| foreign_key(&k))
                .collect();
            tables.push(schema_table(row, table_columns, foreign_keys));
        }
    }
    Ok(tables)
}

/// Base tables, system-versioned tables and views in scope: schema, name,
/// type, comment and `table_rows`.
async fn list_tables(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<Vec<Value>>, WarehouseError> {
    rows(
        connector,
        &format!(
            "SELECT table_schema, table_name, table_type, table_comment, table_rows \
             FROM information_schema.tables WHERE {} AND table_type IN ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED') \
             ORDER BY table_schema, table_name",
            scope_filter(scope, "table_schema")
        ),
    )
    .await
}

/// The columns of the tables `filter` matches, in declaration order.
async fn read_columns(
    connector: &Connector,
    filter: &str,
) -> Result<BySchemaAndName, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT table_schema, table_name, column_name, column_type, data_type, is_nullable, \
                 column_key, column_comment FROM information_schema.columns WHERE {filter} \
                 ORDER BY table_schema, table_name, ordinal_position"
            ),
        )
        .await?,
        |r| (text_or_empty(&r[0]), text_or_empty(&r[1])),
    ))
}

/// The foreign key columns of the tables `filter` matches, in key order
/// (the shape [`foreign_key`] reads).
async fn read_foreign_keys(
    connector: &Connector,
    filter: &str,
) -> Result<BySchemaAndName, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT table_schema, table_name, constraint_name, column_name, \
                 referenced_table_schema, referenced_table_name, referenced_column_name \
                 FROM information_schema.key_column_usage \
                 WHERE ({filter}) AND referenced_table_name IS NOT NULL \
                 ORDER BY table_schema, table_name, constraint_name, ordinal_position"
            ),
        )
        .await?,
        |r| (text_or_empty(&r[0]), text_or_empty(&r[1])),
    ))
}

/// A table's columns from their `information_schema.columns` rows; the
/// column of a single-column primary key is unique.
fn schema_columns(rows: Vec<Vec<Value>>) -> Vec<SchemaColumn> {
    let table_columns = rows
        .into_iter()
        .map(|c| {
            let (normalized, dimension) =
                normalize_mysql_type(&text_or_empty(&c[4]), &text_or_empty(&c[3]));
            let column_key = text_or_empty(&c[6]);
            SchemaColumn {
                name: text_or_empty(&c[2]),
                native_type: text_or_empty(&c[3]),
                normalized_type: normalized.to_string(),
                dimension_type: dimension,
                nullable: text_or_empty(&c[5]).eq_ignore_ascii_case("YES"),
                primary_key: column_key == "PRI",
                unique: column_key == "UNI",
                comment: text(&c[7]),
            }
        })
        .collect::<Vec<_>>();
    let primary_keys = table_columns.iter().filter(|c| c.primary_key).count();
    table_columns
        .into_iter()
        .map(|mut c| {
            c.unique = c.unique || (c.primary_key && primary_keys == 1);
            c
        })
        .collect()
}

/// A listed table (its `information_schema.tables` row) with its columns
/// and foreign keys.
fn schema_table(
    row: &[Value],
    columns: Vec<SchemaColumn>,
    foreign_keys: Vec<ForeignKey>,
) -> SchemaTable {
    let kind = if text_or_empty(&row[2]) == "VIEW" {
        TableKind::View
    } else {
        TableKind::Table
    };
    // Views carry the comment "VIEW"; it says nothing.
    let comment = text(&row[3]).filter(|c| kind == TableKind::Table || c != "VIEW");
    SchemaTable {
        catalog: None,
        db: Some(text_or_empty(&row[0])),
        name: text_or_empty(&row[1]),
        kind,
        comment,
        estimated_rows: match kind {
            TableKind::Table => integer(&row[4]).and_then(|n| u64::try_from(n).ok()),
            _ => None,
        },
        columns,
        foreign_keys,
    }
}
