//! DuckDB structure from its catalog functions: `duckdb_tables()` and
//! `duckdb_views()` (with `COMMENT ON` text and the tables' row counts),
//! `duckdb_columns()` (types as DuckDB spells them, nullability, comments)
//! and `duckdb_constraints()` (primary keys, single-column unique
//! constraints, foreign keys with their column pairs; DuckDB keeps a
//! foreign key within its schema). Only the opened file's own database is
//! read, every schema of it unless `schemas:` names some.

use super::{CHUNK_TABLES, ScanScope, group_rows, integer, rows, text, text_or_empty, truthy};
use crate::connector::Connector;
use crate::dialect::SqlDialect;
use crate::error::WarehouseError;
use crate::schema::{ForeignKey, SchemaColumn, SchemaTable, TableKind, normalize_duckdb_type};

fn scope_filter(scope: &ScanScope) -> String {
    match &scope.schemas {
        Some(schemas) => format!(
            "schema_name IN ({})",
            schemas
                .iter()
                .map(|s| SqlDialect::Duckdb.quote_literal(s))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "schema_name NOT IN ('information_schema', 'pg_catalog')".to_string(),
    }
}

/// The text items of a list cell.
fn names(value: &serde_json::Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| items.iter().filter_map(text).collect())
        .unwrap_or_default()
}

/// Every table and view of the opened database in `scope`, with columns,
/// keys and comments.
pub(super) async fn introspect(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<SchemaTable>, WarehouseError> {
    let filter = scope_filter(scope);
    let listed = rows(
        connector,
        &format!(
            "SELECT table_oid, schema_name, table_name, 'table', comment, estimated_size \
             FROM duckdb_tables() \
             WHERE database_name = current_database() AND NOT internal AND NOT temporary AND {filter} \
             UNION ALL \
             SELECT view_oid, schema_name, view_name, 'view', comment, NULL \
             FROM duckdb_views() \
             WHERE database_name = current_database() AND NOT internal AND NOT temporary AND {filter} \
             ORDER BY 2, 3"
        ),
    )
    .await?;
    let mut tables = Vec::with_capacity(listed.len());
    for chunk in listed.chunks(CHUNK_TABLES) {
        tables.extend(read_chunk(connector, chunk).await?);
    }
    Ok(tables)
}

type Rows = std::collections::HashMap<i64, Vec<Vec<serde_json::Value>>>;

/// The tables of one chunk of listed rows (`table_oid`, schema, name,
/// kind, comment, size): their columns and constraints in two queries.
async fn read_chunk(
    connector: &Connector,
    chunk: &[Vec<serde_json::Value>],
) -> Result<Vec<SchemaTable>, WarehouseError> {
    let oids = chunk
        .iter()
        .filter_map(|r| integer(&r[0]))
        .map(|oid| oid.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let mut columns = group_rows(
        rows(
            connector,
            &format!(
                "SELECT table_oid, column_name, data_type, is_nullable, comment \
                 FROM duckdb_columns() WHERE table_oid IN ({oids}) \
                 ORDER BY table_oid, column_index"
            ),
        )
        .await?,
        |r| integer(&r[0]).unwrap_or_default(),
    );
    let mut constraints = group_rows(
        rows(
            connector,
            &format!(
                "SELECT table_oid, constraint_type, constraint_name, constraint_column_names, \
                 referenced_table, referenced_column_names \
                 FROM duckdb_constraints() WHERE table_oid IN ({oids}) \
                 AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY', 'UNIQUE') \
                 ORDER BY table_oid, constraint_index"
            ),
        )
        .await?,
        |r| integer(&r[0]).unwrap_or_default(),
    );
    Ok(chunk
        .iter()
        .map(|row| table_of(row, &mut columns, &mut constraints))
        .collect())
}

/// One listed table or view, with the columns and constraints read for
/// it (taken out of `columns` and `constraints`).
fn table_of(row: &[serde_json::Value], columns: &mut Rows, constraints: &mut Rows) -> SchemaTable {
    let oid = integer(&row[0]).unwrap_or_default();
    let db = text(&row[1]);
    let table_constraints = constraints.remove(&oid).unwrap_or_default();
    let of_type = |kind: &'static str| {
        table_constraints
            .iter()
            .filter(move |c| text_or_empty(&c[1]) == kind)
    };
    let primary_key: Vec<String> = of_type("PRIMARY KEY").flat_map(|c| names(&c[3])).collect();
    // A single-column primary key is unique; composite keys and
    // unique constraints are not, per column.
    let unique_columns: Vec<String> = of_type("UNIQUE")
        .chain(of_type("PRIMARY KEY"))
        .map(|c| names(&c[3]))
        .filter(|columns| columns.len() == 1)
        .flatten()
        .collect();
    let foreign_keys: Vec<ForeignKey> = of_type("FOREIGN KEY")
        .flat_map(|c| {
            names(&c[3])
                .into_iter()
                .zip(names(&c[5]))
                .map(|(from_column, to_column)| ForeignKey {
                    from_column,
                    to_catalog: None,
                    to_db: db.clone(),
                    to_table: text_or_empty(&c[4]),
                    to_column,
                    constraint_name: text(&c[2]),
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let table_columns = columns
        .remove(&oid)
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            let name = text_or_empty(&c[1]);
            let native_type = text_or_empty(&c[2]);
            let (normalized, dimension) = normalize_duckdb_type(&native_type);
            SchemaColumn {
                normalized_type: normalized.to_string(),
                dimension_type: dimension,
                nullable: truthy(&c[3]),
                primary_key: primary_key.contains(&name),
                unique: unique_columns.contains(&name),
                comment: text(&c[4]),
                native_type,
                name,
            }
        })
        .collect();
    let kind = match text_or_empty(&row[3]).as_str() {
        "view" => TableKind::View,
        _ => TableKind::Table,
    };
    SchemaTable {
        catalog: None,
        db,
        name: text_or_empty(&row[2]),
        kind,
        comment: text(&row[4]),
        estimated_rows: integer(&row[5]).and_then(|n| u64::try_from(n).ok()),
        columns: table_columns,
        foreign_keys,
    }
}
