//! Snowflake structure from the database's `INFORMATION_SCHEMA`: tables
//! (base, external, event, temporary) and views from `TABLES` and `VIEWS`,
//! columns with their types, nullability and comments from `COLUMNS`,
//! `ROW_COUNT` as the estimate, and the declared keys — primary, unique
//! and foreign, which Snowflake records but does not enforce — from `SHOW
//! PRIMARY|UNIQUE|IMPORTED KEYS IN SCHEMA`, one schema at a time.
//!
//! Names are the catalog's own (upper case for anything created without
//! quotes); the SQL Lore writes quotes them exactly. Without `schemas` in
//! `lore.yaml`, the url's `schemas=` is the scope, else every schema of the
//! connection's database but `INFORMATION_SCHEMA`. A `SHOW … KEYS` the
//! server cannot answer leaves the keys to relationship inference.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::{
    CHUNK_TABLES, INTERNAL_MAX_ROWS, ScanScope, group_rows, integer, rows, schema_and_name_filter,
    text, text_or_empty,
};
use crate::connector::{Connector, QueryResult};
use crate::dialect::SqlDialect;
use crate::error::WarehouseError;
use crate::schema::{DimensionType, ForeignKey, SchemaColumn, SchemaTable, TableKind, classify};

const SF: SqlDialect = SqlDialect::Snowflake;

/// A table as `TABLES` or `VIEWS` lists it: schema, name, kind, comment,
/// row count.
type Listed = (String, String, TableKind, Option<String>, Option<u64>);

fn literals(names: &[String]) -> String {
    names
        .iter()
        .map(|s| SF.quote_literal(s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads every table and view in scope, its columns and its declared
/// keys, a chunk of tables at a time.
pub(super) async fn introspect(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<SchemaTable>, WarehouseError> {
    let schemas = match (&scope.schemas, connector) {
        (Some(schemas), _) => schemas.clone(),
        (None, Connector::Snowflake(c)) => c.url_schemas()?,
        (None, _) => Vec::new(),
    };
    let filter = if schemas.is_empty() {
        "TABLE_SCHEMA <> 'INFORMATION_SCHEMA'".to_string()
    } else {
        format!("TABLE_SCHEMA IN ({})", literals(&schemas))
    };
    let database = current_database(connector).await?;
    let listed = list_tables(connector, &filter).await?;
    let in_scope: Vec<String> = {
        let mut seen: Vec<String> = listed.iter().map(|t| t.0.clone()).collect();
        seen.dedup();
        seen
    };
    let keys = declared_keys(connector, &database, &in_scope).await;

    let mut tables = Vec::with_capacity(listed.len());
    for chunk in listed.chunks(CHUNK_TABLES) {
        let column_filter = schema_and_name_filter(
            SF,
            chunk.iter().map(|t| (t.0.clone(), t.1.clone())),
            "TABLE_SCHEMA",
            "TABLE_NAME",
        );
        let mut columns = read_columns(connector, &column_filter).await?;
        for listed in chunk {
            let key = (listed.0.clone(), listed.1.clone());
            let table_columns = columns.remove(&key).unwrap_or_default();
            tables.push(schema_table(listed, table_columns, &keys));
        }
    }
    Ok(tables)
}

/// The session's database, which `INFORMATION_SCHEMA` and `SHOW … KEYS`
/// describe.
async fn current_database(connector: &Connector) -> Result<String, WarehouseError> {
    rows(connector, "SELECT CURRENT_DATABASE()")
        .await?
        .first()
        .and_then(|r| r.first())
        .and_then(text)
        .ok_or_else(|| WarehouseError::InvalidRequest {
            message: "the Snowflake session has no current database; name one in the url (snowflake://USER@ACCOUNT/DATABASE)".to_string(),
        })
}

/// The tables and views `filter` (on `TABLE_SCHEMA`) keeps, from `TABLES`
/// and `VIEWS`, sorted by schema and name.
async fn list_tables(connector: &Connector, filter: &str) -> Result<Vec<Listed>, WarehouseError> {
    let mut listed: Vec<Listed> = rows(
        connector,
        &format!(
            "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, COMMENT, ROW_COUNT \
             FROM INFORMATION_SCHEMA.TABLES WHERE {filter} ORDER BY TABLE_SCHEMA, TABLE_NAME"
        ),
    )
    .await?
    .into_iter()
    .map(|r| listed_table(&r))
    .collect();
    // Snowflake lists views in TABLES too; VIEWS catches servers that do not.
    let known: HashSet<(String, String)> =
        listed.iter().map(|t| (t.0.clone(), t.1.clone())).collect();
    for r in rows(
        connector,
        &format!(
            "SELECT TABLE_SCHEMA, TABLE_NAME, COMMENT FROM INFORMATION_SCHEMA.VIEWS WHERE {filter}"
        ),
    )
    .await?
    {
        let key = (text_or_empty(&r[0]), text_or_empty(&r[1]));
        if !known.contains(&key) {
            listed.push((key.0, key.1, TableKind::View, text(&r[2]), None));
        }
    }
    listed.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    Ok(listed)
}

/// A table from its `TABLES` row; only base tables have a row estimate.
fn listed_table(r: &[Value]) -> Listed {
    let kind = match text_or_empty(&r[2]).to_ascii_uppercase().as_str() {
        "VIEW" | "MATERIALIZED VIEW" => TableKind::View,
        "EXTERNAL TABLE" => TableKind::External,
        "EVENT TABLE" => TableKind::EventStream,
        _ => TableKind::Table,
    };
    let estimate = match kind {
        TableKind::Table => integer(&r[4]).and_then(|n| u64::try_from(n).ok()),
        _ => None,
    };
    (
        text_or_empty(&r[0]),
        text_or_empty(&r[1]),
        kind,
        text(&r[3]),
        estimate,
    )
}

/// The columns of the tables `filter` matches, in declaration order, by
/// `(schema, table)`.
async fn read_columns(
    connector: &Connector,
    filter: &str,
) -> Result<HashMap<(String, String), Vec<Vec<Value>>>, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE, IS_NULLABLE, COMMENT, \
                 NUMERIC_PRECISION, NUMERIC_SCALE, CHARACTER_MAXIMUM_LENGTH \
                 FROM INFORMATION_SCHEMA.COLUMNS WHERE {filter} \
                 ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION"
            ),
        )
        .await?,
        |r| (text_or_empty(&r[0]), text_or_empty(&r[1])),
    ))
}

/// A listed table with its columns (their `COLUMNS` rows) marked with its
/// declared keys.
fn schema_table(listed: &Listed, columns: Vec<Vec<Value>>, keys: &DeclaredKeys) -> SchemaTable {
    let (schema, name, kind, comment, estimated_rows) = listed;
    let key = (schema.clone(), name.clone());
    let primary = keys.primary.get(&key);
    let unique = keys.unique.get(&key);
    let table_columns: Vec<SchemaColumn> = columns
        .into_iter()
        .map(|c| {
            let column_name = text_or_empty(&c[2]);
            let data_type = text_or_empty(&c[3]).to_ascii_uppercase();
            let scale = integer(&c[7]);
            let (normalized, dimension) = normalize_snowflake_type(&data_type, scale);
            let is_primary = primary.is_some_and(|k| k.contains(&column_name));
            SchemaColumn {
                native_type: native_type(&data_type, integer(&c[6]), scale, integer(&c[8])),
                normalized_type: normalized.to_string(),
                dimension_type: dimension,
                nullable: text_or_empty(&c[4]).eq_ignore_ascii_case("YES"),
                primary_key: is_primary,
                unique: unique.is_some_and(|u| u.contains(&column_name))
                    || (is_primary && primary.is_some_and(|k| k.len() == 1)),
                comment: text(&c[5]),
                name: column_name,
            }
        })
        .collect();
    SchemaTable {
        catalog: None,
        db: Some(schema.clone()),
        name: name.clone(),
        kind: *kind,
        comment: comment.clone(),
        estimated_rows: *estimated_rows,
        columns: table_columns,
        foreign_keys: keys.foreign.get(&key).cloned().unwrap_or_default(),
    }
}

/// Keys as `SHOW … KEYS` reports them, by `(schema, table)`.
#[derive(Default)]
struct DeclaredKeys {
    primary: HashMap<(String, String), Vec<String>>,
    /// Columns that alone make a unique key.
    unique: HashMap<(String, String), Vec<String>>,
    foreign: HashMap<(String, String), Vec<ForeignKey>>,
}

async fn declared_keys(connector: &Connector, database: &str, schemas: &[String]) -> DeclaredKeys {
    let mut keys = DeclaredKeys::default();
    for schema in schemas {
        let scope = format!("{}.{}", SF.quote_ident(database), SF.quote_ident(schema));
        if let Some(result) = show(connector, &format!("SHOW PRIMARY KEYS IN SCHEMA {scope}")).await
        {
            for row in ordered(&result, "key_sequence") {
                let (Some(table), Some(column)) = (
                    cell(&result, &row, "table_name"),
                    cell(&result, &row, "column_name"),
                ) else {
                    continue;
                };
                let schema = cell(&result, &row, "schema_name").unwrap_or_else(|| schema.clone());
                keys.primary
                    .entry((schema, table))
                    .or_default()
                    .push(column);
            }
        }
        if let Some(result) = show(connector, &format!("SHOW UNIQUE KEYS IN SCHEMA {scope}")).await
        {
            let mut by_constraint: HashMap<(String, String, String), Vec<String>> = HashMap::new();
            for row in ordered(&result, "key_sequence") {
                let (Some(table), Some(column)) = (
                    cell(&result, &row, "table_name"),
                    cell(&result, &row, "column_name"),
                ) else {
                    continue;
                };
                let schema = cell(&result, &row, "schema_name").unwrap_or_else(|| schema.clone());
                let name = cell(&result, &row, "constraint_name").unwrap_or_default();
                by_constraint
                    .entry((schema, table, name))
                    .or_default()
                    .push(column);
            }
            for ((schema, table, _), columns) in by_constraint {
                if let [column] = columns.as_slice() {
                    keys.unique
                        .entry((schema, table))
                        .or_default()
                        .push(column.clone());
                }
            }
        }
        if let Some(result) =
            show(connector, &format!("SHOW IMPORTED KEYS IN SCHEMA {scope}")).await
        {
            for row in ordered(&result, "key_sequence") {
                let get = |name: &str| cell(&result, &row, name);
                // Keys into another database cannot be followed from this
                // connection; rows without a target say nothing.
                let (Some(fk_table), Some(fk_column), Some(pk_table), Some(pk_column)) = (
                    get("fk_table_name"),
                    get("fk_column_name"),
                    get("pk_table_name"),
                    get("pk_column_name"),
                ) else {
                    continue;
                };
                if get("pk_database_name").is_some_and(|d| d != database) {
                    continue;
                }
                let fk_schema = get("fk_schema_name").unwrap_or_else(|| schema.clone());
                keys.foreign
                    .entry((fk_schema, fk_table))
                    .or_default()
                    .push(ForeignKey {
                        from_column: fk_column,
                        to_catalog: None,
                        to_db: get("pk_schema_name"),
                        to_table: pk_table,
                        to_column: pk_column,
                        constraint_name: get("fk_name"),
                    });
            }
        }
    }
    keys
}

/// A `SHOW` command's result, or `None` (logged) when the server refuses it.
async fn show(connector: &Connector, sql: &str) -> Option<QueryResult> {
    match connector.run(sql, INTERNAL_MAX_ROWS).await {
        Ok(result) => Some(result),
        Err(e) => {
            tracing::warn!(statement = sql, error = %e, "declared keys not read; relationships will be inferred");
            None
        }
    }
}

/// The rows of `result`, ordered by the numeric column `by`.
fn ordered(result: &QueryResult, by: &str) -> Vec<Vec<Value>> {
    let mut rows = result.rows.clone();
    if let Some(index) = column_index(result, by) {
        rows.sort_by_key(|r| integer(&r[index]).unwrap_or(0));
    }
    rows
}

fn column_index(result: &QueryResult, name: &str) -> Option<usize> {
    result
        .headers
        .iter()
        .position(|h| h.eq_ignore_ascii_case(name))
}

/// A text cell of `row` by its column's name (SHOW's column names are
/// lower case).
fn cell(result: &QueryResult, row: &[Value], name: &str) -> Option<String> {
    column_index(result, name)
        .and_then(|i| row.get(i))
        .and_then(text)
}

/// The declared type as Snowflake writes it: `NUMBER(10,2)`, `VARCHAR(100)`.
fn native_type(
    data_type: &str,
    precision: Option<i64>,
    scale: Option<i64>,
    length: Option<i64>,
) -> String {
    match data_type {
        "NUMBER" | "DECIMAL" | "NUMERIC" => match (precision, scale) {
            (Some(p), Some(s)) => format!("NUMBER({p},{s})"),
            _ => "NUMBER".to_string(),
        },
        "TEXT" | "VARCHAR" | "STRING" => match length {
            Some(n) if n < 16_777_216 => format!("VARCHAR({n})"),
            _ => "VARCHAR".to_string(),
        },
        other => other.to_string(),
    }
}

/// Normalises a Snowflake `DATA_TYPE` (with its scale, for `NUMBER`).
pub(crate) fn normalize_snowflake_type(
    data_type: &str,
    scale: Option<i64>,
) -> (&'static str, DimensionType) {
    let normalized = match data_type.to_ascii_uppercase().as_str() {
        "NUMBER" | "DECIMAL" | "NUMERIC" | "DECFLOAT" => {
            if scale.unwrap_or(0) == 0 {
                "integer"
            } else {
                "decimal"
            }
        }
        "INT" | "INTEGER" | "BIGINT" | "SMALLINT" | "TINYINT" | "BYTEINT" => "integer",
        "FLOAT" | "FLOAT4" | "FLOAT8" | "DOUBLE" | "DOUBLE PRECISION" | "REAL" => "float",
        "TEXT" | "VARCHAR" | "CHAR" | "CHARACTER" | "STRING" => "text",
        "BOOLEAN" => "boolean",
        "DATE" => "date",
        "TIMESTAMP_NTZ" | "DATETIME" | "TIMESTAMP" => "timestamp",
        "TIMESTAMP_LTZ" | "TIMESTAMP_TZ" => "timestamptz",
        "TIME" => "time",
        "VARIANT" | "OBJECT" | "MAP" => "json",
        "ARRAY" => "array",
        "BINARY" | "VARBINARY" => "binary",
        _ => "other",
    };
    classify(normalized)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snowflake_types_normalise_by_name_and_scale() {
        assert_eq!(normalize_snowflake_type("NUMBER", Some(0)).0, "integer");
        assert_eq!(normalize_snowflake_type("NUMBER", Some(2)).0, "decimal");
        assert_eq!(
            normalize_snowflake_type("TEXT", None),
            ("text", DimensionType::String)
        );
        assert_eq!(
            normalize_snowflake_type("TIMESTAMP_TZ", None),
            ("timestamptz", DimensionType::Time)
        );
        assert_eq!(normalize_snowflake_type("VARIANT", None).0, "json");
        assert_eq!(
            native_type("NUMBER", Some(10), Some(2), None),
            "NUMBER(10,2)"
        );
        assert_eq!(native_type("TEXT", None, None, Some(100)), "VARCHAR(100)");
        assert_eq!(native_type("TEXT", None, None, Some(16_777_216)), "VARCHAR");
    }
}
