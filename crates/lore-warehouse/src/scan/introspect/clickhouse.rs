//! ClickHouse structure from `system.tables`, `system.columns` and
//! `system.parts`: tables (every engine but views), views and materialized
//! views, columns with their types (`Nullable(…)` read as nullable),
//! comments, the primary key of MergeTree tables, and row counts of
//! active parts.
//!
//! ClickHouse declares no foreign keys and does not enforce its primary
//! key's uniqueness (it is the sorting prefix): columns are marked
//! `primaryKey` as the table declares them, and relationship inference
//! checks uniqueness on the data instead of trusting the key (see
//! [`crate::scan::relationships`]). Table comments exist from 21.x on and
//! are read where `system.tables` has them.
//!
//! Without `schemas` in `lore.yaml`, the scan reads the url's database (or
//! the user's default one).

use std::collections::HashMap;

use serde_json::Value;

use super::{
    CHUNK_TABLES, ScanScope, group_rows, integer, rows, schema_and_name_filter, text,
    text_or_empty, truthy,
};
use crate::connector::Connector;
use crate::dialect::SqlDialect;
use crate::error::WarehouseError;
use crate::schema::{DimensionType, SchemaColumn, SchemaTable, TableKind};

fn scope_filter(scope: &ScanScope, column: &str) -> String {
    match &scope.schemas {
        Some(schemas) => format!(
            "{column} IN ({})",
            schemas
                .iter()
                .map(|s| SqlDialect::Clickhouse.quote_literal(s))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!("{column} = currentDatabase()"),
    }
}

/// Reads every table and view in scope and its columns, a chunk of tables
/// at a time.
pub(super) async fn introspect(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<SchemaTable>, WarehouseError> {
    let listed = list_tables(connector, scope).await?;
    let part_rows = active_part_rows(connector, scope).await?;
    let mut tables = Vec::with_capacity(listed.len());
    for chunk in listed.chunks(CHUNK_TABLES) {
        let filter = schema_and_name_filter(
            SqlDialect::Clickhouse,
            chunk
                .iter()
                .map(|row| (text_or_empty(&row[0]), text_or_empty(&row[1]))),
            "database",
            "table",
        );
        let mut columns = read_columns(connector, &filter).await?;
        for row in chunk {
            let key = (text_or_empty(&row[0]), text_or_empty(&row[1]));
            let table_columns = columns
                .remove(&key)
                .unwrap_or_default()
                .into_iter()
                .map(|c| schema_column(&c))
                .collect();
            tables.push(schema_table(row, table_columns, &part_rows));
        }
    }
    Ok(tables)
}

/// Tables and views in scope (not temporary tables, nor the inner tables
/// of materialized views): database, name, engine, comment and
/// `total_rows`, the last two where the server's `system.tables` has them.
async fn list_tables(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<Vec<Value>>, WarehouseError> {
    // Columns of system.tables that only newer servers have.
    let optional: Vec<String> = rows(
        connector,
        "SELECT name FROM system.columns WHERE database = 'system' AND table = 'tables' \
         AND name IN ('comment', 'total_rows')",
    )
    .await?
    .iter()
    .filter_map(|r| text(&r[0]))
    .collect();
    let has = |name: &str| optional.iter().any(|o| o == name);
    rows(
        connector,
        &format!(
            "SELECT database, name, engine, {}, {} FROM system.tables \
             WHERE {} AND is_temporary = 0 AND name NOT LIKE '.inner%' \
             ORDER BY database, name",
            if has("comment") { "comment" } else { "''" },
            if has("total_rows") {
                "total_rows"
            } else {
                "CAST(NULL AS Nullable(UInt64))"
            },
            scope_filter(scope, "database")
        ),
    )
    .await
}

/// Rows in the active parts of each table in scope, by `(database, table)`.
async fn active_part_rows(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<HashMap<(String, String), u64>, WarehouseError> {
    Ok(rows(
        connector,
        &format!(
            "SELECT database, table, sum(rows) FROM system.parts WHERE active AND {} \
             GROUP BY database, table",
            scope_filter(scope, "database")
        ),
    )
    .await?
    .iter()
    .filter_map(|r| {
        let count = integer(&r[2]).and_then(|n| u64::try_from(n).ok())?;
        Some(((text_or_empty(&r[0]), text_or_empty(&r[1])), count))
    })
    .collect())
}

/// The columns of the tables `filter` matches, by `(database, table)`.
async fn read_columns(
    connector: &Connector,
    filter: &str,
) -> Result<HashMap<(String, String), Vec<Vec<Value>>>, WarehouseError> {
    // system.columns lists each table's columns in declaration order.
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT database, table, name, type, comment, is_in_primary_key \
                 FROM system.columns WHERE {filter}"
            ),
        )
        .await?,
        |r| (text_or_empty(&r[0]), text_or_empty(&r[1])),
    ))
}

/// A column from its `system.columns` row.
fn schema_column(c: &[Value]) -> SchemaColumn {
    let native = text_or_empty(&c[3]);
    let (normalized, dimension) = normalize_clickhouse_type(&native);
    SchemaColumn {
        name: text_or_empty(&c[2]),
        nullable: is_nullable(&native),
        normalized_type: normalized.to_string(),
        dimension_type: dimension,
        native_type: native,
        primary_key: truthy(&c[5]),
        unique: false,
        comment: text(&c[4]),
    }
}

/// A listed table (its `system.tables` row) with its columns; its row
/// estimate is `total_rows`, else the rows of its active parts.
fn schema_table(
    row: &[Value],
    columns: Vec<SchemaColumn>,
    part_rows: &HashMap<(String, String), u64>,
) -> SchemaTable {
    let database = text_or_empty(&row[0]);
    let name = text_or_empty(&row[1]);
    let kind = table_kind(&text_or_empty(&row[2]));
    let estimated_rows = match kind {
        TableKind::View => None,
        _ => integer(&row[4])
            .and_then(|n| u64::try_from(n).ok())
            .or_else(|| part_rows.get(&(database.clone(), name.clone())).copied()),
    };
    SchemaTable {
        catalog: None,
        db: Some(database),
        name,
        kind,
        comment: text(&row[3]),
        estimated_rows,
        columns,
        foreign_keys: Vec::new(),
    }
}

/// What kind of relation a table of `engine` is.
fn table_kind(engine: &str) -> TableKind {
    match engine {
        "View" | "MaterializedView" | "LiveView" | "WindowView" => TableKind::View,
        "Kafka" | "RabbitMQ" | "NATS" | "FileLog" => TableKind::EventStream,
        "MySQL"
        | "PostgreSQL"
        | "MaterializedPostgreSQL"
        | "ODBC"
        | "JDBC"
        | "URL"
        | "S3"
        | "HDFS"
        | "File"
        | "MongoDB"
        | "Redis"
        | "SQLite"
        | "AzureBlobStorage"
        | "Iceberg"
        | "DeltaLake"
        | "Hudi" => TableKind::External,
        _ => TableKind::Table,
    }
}

/// Whether values of a type may be NULL (`Nullable(…)`, possibly inside
/// `LowCardinality(…)`).
fn is_nullable(native: &str) -> bool {
    let inner = native
        .strip_prefix("LowCardinality(")
        .unwrap_or(native)
        .trim_start();
    inner.starts_with("Nullable(") || inner == "Nothing"
}

/// Normalises a ClickHouse type (`LowCardinality(Nullable(String))`,
/// `DateTime('UTC')`, `Decimal(18, 2)` …) to Lore's shared vocabulary.
pub fn normalize_clickhouse_type(native: &str) -> (&'static str, DimensionType) {
    let mut t = native.trim();
    loop {
        let stripped = ["LowCardinality(", "Nullable("]
            .iter()
            .find_map(|w| t.strip_prefix(w).and_then(|rest| rest.strip_suffix(')')));
        match stripped {
            Some(inner) => t = inner.trim(),
            None => break,
        }
    }
    let head = t.split('(').next().unwrap_or(t);
    let normalized = match head {
        "UInt8" | "UInt16" | "UInt32" | "UInt64" | "UInt128" | "UInt256" | "Int8" | "Int16"
        | "Int32" | "Int64" | "Int128" | "Int256" => "integer",
        "Float32" | "Float64" | "BFloat16" => "float",
        "Bool" | "Boolean" => "boolean",
        "String" | "FixedString" => "text",
        "Enum8" | "Enum16" | "Enum" => "enum",
        "Date" | "Date32" => "date",
        "DateTime" | "DateTime64" => "timestamp",
        "UUID" => "uuid",
        "Array" | "Nested" => "array",
        "JSON" | "Object" | "Map" | "Tuple" => "json",
        "IntervalSecond" | "IntervalMinute" | "IntervalHour" | "IntervalDay" | "IntervalWeek"
        | "IntervalMonth" | "IntervalQuarter" | "IntervalYear" => "interval",
        _ if head.starts_with("Decimal") => "decimal",
        _ => "other",
    };
    let dimension = match normalized {
        "integer" | "decimal" | "float" => DimensionType::Number,
        "boolean" => DimensionType::Boolean,
        "date" | "timestamp" => DimensionType::Time,
        _ => DimensionType::String,
    };
    (normalized, dimension)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_normalise_through_nullable_and_low_cardinality() {
        assert_eq!(
            normalize_clickhouse_type("LowCardinality(Nullable(String))"),
            ("text", DimensionType::String)
        );
        assert_eq!(
            normalize_clickhouse_type("Nullable(Decimal(18, 2))"),
            ("decimal", DimensionType::Number)
        );
        assert_eq!(
            normalize_clickhouse_type("DateTime('Europe/Berlin')"),
            ("timestamp", DimensionType::Time)
        );
        assert_eq!(
            normalize_clickhouse_type("Enum8('a' = 1, 'b' = 2)"),
            ("enum", DimensionType::String)
        );
        assert_eq!(
            normalize_clickhouse_type("Array(UInt64)"),
            ("array", DimensionType::String)
        );
        assert!(is_nullable("LowCardinality(Nullable(String))"));
        assert!(!is_nullable("Array(Nullable(String))"));
    }

    #[test]
    fn engines_map_to_table_kinds() {
        assert_eq!(table_kind("MergeTree"), TableKind::Table);
        assert_eq!(table_kind("ReplacingMergeTree"), TableKind::Table);
        assert_eq!(table_kind("MaterializedView"), TableKind::View);
        assert_eq!(table_kind("Kafka"), TableKind::EventStream);
        assert_eq!(table_kind("MySQL"), TableKind::External);
    }
}
