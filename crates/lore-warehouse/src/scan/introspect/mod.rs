//! Reading a warehouse's structure: tables and views, columns with their
//! types, nullability, keys and comments, declared foreign keys and row
//! estimates.
//!
//! Each driver answers from its own catalog (`sqlite_master` and the
//! `pragma_*` table functions, `pg_catalog`, `information_schema`,
//! Snowflake's `INFORMATION_SCHEMA` and `SHOW … KEYS`, DuckDB's
//! `duckdb_tables()` and kin) with a
//! handful of bulk queries: one listing the tables, then columns and keys
//! for chunks of [`CHUNK_TABLES`] tables at a time, so ten thousand tables
//! cost a few dozen round trips and bounded memory. All of it runs through
//! the same read-only sessions as agents' queries.

mod bigquery;
mod clickhouse;
mod duckdb;
mod mysql;
mod postgres;
mod snowflake;
mod sqlite;

use std::collections::HashMap;

use serde_json::Value;

use crate::connector::Connector;
use crate::dialect::SqlDialect;
use crate::error::WarehouseError;
use crate::schema::{ForeignKey, SchemaTable};

/// Tables whose columns and keys are read in one query.
pub(crate) const CHUNK_TABLES: usize = 500;
/// Row cap for Lore's own catalog queries (effectively none).
pub(crate) const INTERNAL_MAX_ROWS: usize = 50_000_000;

/// Which schemas (PostgreSQL) or databases (MySQL) to read; `None` means the
/// driver's default.
#[derive(Debug, Clone, Default)]
pub struct ScanScope {
    /// Schema or database names.
    pub schemas: Option<Vec<String>>,
}

/// Reads every table and view in scope, sorted by schema and name.
pub(crate) async fn introspect(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<SchemaTable>, WarehouseError> {
    let mut tables = match connector {
        Connector::Sqlite(_) => sqlite::introspect(connector).await?,
        Connector::Postgres(_) => postgres::introspect(connector, scope).await?,
        Connector::Mysql(_) => mysql::introspect(connector, scope).await?,
        Connector::Clickhouse(_) => clickhouse::introspect(connector, scope).await?,
        Connector::Snowflake(_) => snowflake::introspect(connector, scope).await?,
        Connector::Bigquery(_) => bigquery::introspect(connector, scope).await?,
        Connector::Duckdb(_) => duckdb::introspect(connector, scope).await?,
    };
    tables.sort_by(|a, b| (&a.db, &a.name).cmp(&(&b.db, &b.name)));
    Ok(tables)
}

/// Runs one of Lore's catalog queries.
pub(crate) async fn rows(
    connector: &Connector,
    sql: &str,
) -> Result<Vec<Vec<Value>>, WarehouseError> {
    Ok(connector.run(sql, INTERNAL_MAX_ROWS).await?.rows)
}

/// Rows grouped by a key taken from each row (a table's name or id).
pub(crate) fn group_rows<K: Eq + std::hash::Hash>(
    rows: Vec<Vec<Value>>,
    key: impl Fn(&[Value]) -> K,
) -> std::collections::HashMap<K, Vec<Vec<Value>>> {
    let mut grouped: std::collections::HashMap<K, Vec<Vec<Value>>> =
        std::collections::HashMap::new();
    for row in rows {
        grouped.entry(key(&row)).or_default().push(row);
    }
    grouped
}

/// A filter matching a chunk's tables, given as `(schema, name)`, by
/// schema and name: `(schema_column = 's' AND table_column IN ('a', 'b'))
/// OR …` (`information_schema` and kin answer fastest filtered so).
pub(crate) fn schema_and_name_filter(
    dialect: SqlDialect,
    tables: impl IntoIterator<Item = (String, String)>,
    schema_column: &str,
    table_column: &str,
) -> String {
    let mut by_schema: HashMap<String, Vec<String>> = HashMap::new();
    for (schema, name) in tables {
        by_schema
            .entry(schema)
            .or_default()
            .push(dialect.quote_literal(&name));
    }
    by_schema
        .iter()
        .map(|(schema, names)| {
            format!(
                "({schema_column} = {} AND {table_column} IN ({}))",
                dialect.quote_literal(schema),
                names.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// A text cell (`None` for NULL and empty strings).
pub(crate) fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A text cell that must be present.
pub(crate) fn text_or_empty(value: &Value) -> String {
    text(value).unwrap_or_default()
}

/// An integer cell (numbers, or integers sent as text).
pub(crate) fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// A foreign-key column pair from a row whose cells 2 to 6 are the
/// constraint name, the column, and the target schema, table and column
/// (the shape both the PostgreSQL and the MySQL introspection queries use).
pub(crate) fn foreign_key(row: &[Value]) -> ForeignKey {
    ForeignKey {
        from_column: text_or_empty(&row[3]),
        to_catalog: None,
        to_db: text(&row[4]),
        to_table: text_or_empty(&row[5]),
        to_column: text_or_empty(&row[6]),
        constraint_name: text(&row[2]),
    }
}

/// A truth cell: `true`, non-zero, `YES`.
pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_i64().is_some_and(|i| i != 0),
        Value::String(s) => matches!(s.to_ascii_uppercase().as_str(), "YES" | "TRUE" | "T" | "1"),
        _ => false,
    }
}
