//! PostgreSQL structure from `pg_catalog`: tables (partitioned parents, not
//! their partitions), views and materialized views, foreign tables,
//! columns with domains resolved to their base type, `COMMENT ON` text,
//! primary keys, single-column unique constraints and indexes, foreign keys
//! with their target schema, and `reltuples` estimates.

use std::collections::HashMap;

use serde_json::Value;

use super::{
    CHUNK_TABLES, ScanScope, foreign_key, group_rows, integer, rows, text, text_or_empty, truthy,
};
use crate::connector::Connector;
use crate::dialect::SqlDialect;
use crate::error::WarehouseError;
use crate::schema::{SchemaColumn, SchemaTable, TableKind, normalize_postgres_type};

fn scope_filter(scope: &ScanScope) -> String {
    match &scope.schemas {
        Some(schemas) => format!(
            "n.nspname IN ({})",
            schemas
                .iter()
                .map(|s| SqlDialect::Postgres.quote_literal(s))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'".to_string(),
    }
}

/// Catalog rows of one chunk of tables, by table oid.
type ByOid = HashMap<i64, Vec<Vec<Value>>>;

/// What the catalog says about one chunk of tables beyond their listing.
struct ChunkCatalog {
    /// `pg_attribute` rows: each table's columns in order.
    columns: ByOid,
    /// `pg_constraint` rows: primary and foreign key columns.
    constraints: ByOid,
    /// Single-column unique indexes (unique constraints included).
    unique: ByOid,
}

/// Reads every relation in scope, its columns and its keys, a chunk of
/// tables at a time.
pub(super) async fn introspect(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<SchemaTable>, WarehouseError> {
    let listed = list_relations(connector, scope).await?;
    let mut tables = Vec::with_capacity(listed.len());
    for chunk in listed.chunks(CHUNK_TABLES) {
        let oids = chunk
            .iter()
            .filter_map(|r| integer(&r[0]))
            .map(|oid| oid.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let mut catalog = ChunkCatalog {
            columns: read_columns(connector, &oids).await?,
            constraints: read_constraints(connector, &oids).await?,
            unique: read_unique_indexes(connector, &oids).await?,
        };
        for row in chunk {
            tables.push(schema_table(row, &mut catalog));
        }
    }
    Ok(tables)
}

/// Tables (partitioned parents, not their partitions), views, materialized
/// views and foreign tables in scope: oid, schema, name, `relkind`,
/// comment and `reltuples`.
async fn list_relations(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<Vec<Value>>, WarehouseError> {
    rows(
        connector,
        &format!(
            "SELECT c.oid::int8, n.nspname, c.relname, c.relkind::text, obj_description(c.oid, 'pg_class'), c.reltuples::float8 \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition AND {} \
             ORDER BY n.nspname, c.relname",
            scope_filter(scope)
        ),
    )
    .await
}

/// The columns of the tables `oids` lists, with domains resolved to their
/// base type, in declaration order.
async fn read_columns(connector: &Connector, oids: &str) -> Result<ByOid, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT a.attrelid::int8, a.attname, format_type(a.atttypid, a.atttypmod), \
                 bt.typname::text, bt.typtype::text, bt.typcategory::text, NOT a.attnotnull, \
                 col_description(a.attrelid, a.attnum) \
                 FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid \
                 JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END \
                 WHERE a.attrelid IN ({oids}) AND a.attnum > 0 AND NOT a.attisdropped \
                 ORDER BY a.attrelid, a.attnum"
            ),
        )
        .await?,
        |r| integer(&r[0]).unwrap_or_default(),
    ))
}

/// The primary and foreign key columns of the tables `oids` lists, one row
/// per column pair in key order (the shape [`foreign_key`] reads).
async fn read_constraints(connector: &Connector, oids: &str) -> Result<ByOid, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT con.conrelid::int8, con.contype::text, con.conname::text, a.attname::text, \
                 fn.nspname::text, fc.relname::text, fa.attname::text \
                 FROM pg_constraint con \
                 CROSS JOIN LATERAL unnest(con.conkey, coalesce(con.confkey, con.conkey)) WITH ORDINALITY AS k(attnum, fattnum, ord) \
                 JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum \
                 LEFT JOIN pg_class fc ON fc.oid = con.confrelid \
                 LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace \
                 LEFT JOIN pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attnum = k.fattnum \
                 WHERE con.conrelid IN ({oids}) AND con.contype IN ('p', 'f') \
                 ORDER BY con.conrelid, con.conname, k.ord"
            ),
        )
        .await?,
        |r| integer(&r[0]).unwrap_or_default(),
    ))
}

/// The columns that alone carry a full, plain unique index (unique
/// constraints included) in the tables `oids` lists.
async fn read_unique_indexes(connector: &Connector, oids: &str) -> Result<ByOid, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT i.indrelid::int8, a.attname::text FROM pg_index i \
                 JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] \
                 WHERE i.indrelid IN ({oids}) AND i.indisunique AND i.indnkeyatts = 1 \
                 AND i.indpred IS NULL AND i.indexprs IS NULL"
            ),
        )
        .await?,
        |r| integer(&r[0]).unwrap_or_default(),
    ))
}

/// One listed relation with its columns and keys, taken out of `catalog`.
fn schema_table(row: &[Value], catalog: &mut ChunkCatalog) -> SchemaTable {
    let oid = integer(&row[0]).unwrap_or_default();
    let table_constraints = catalog.constraints.remove(&oid).unwrap_or_default();
    let primary_key: Vec<String> = table_constraints
        .iter()
        .filter(|c| text_or_empty(&c[1]) == "p")
        .map(|c| text_or_empty(&c[3]))
        .collect();
    let unique_columns: Vec<String> = catalog
        .unique
        .get(&oid)
        .map(|rows| rows.iter().map(|r| text_or_empty(&r[1])).collect())
        .unwrap_or_default();
    let table_columns = catalog
        .columns
        .remove(&oid)
        .unwrap_or_default()
        .into_iter()
        .map(|c| schema_column(&c, &primary_key, &unique_columns))
        .collect();
    let foreign_keys = table_constraints
        .iter()
        .filter(|c| text_or_empty(&c[1]) == "f")
        .map(|c| foreign_key(c))
        .collect();
    let kind = match text_or_empty(&row[3]).as_str() {
        "v" | "m" => TableKind::View,
        "f" => TableKind::External,
        _ => TableKind::Table,
    };
    // reltuples is -1 (PostgreSQL 14+) or 0 before the first ANALYZE.
    let estimated_rows = match (&row[5], kind) {
        (Value::Number(n), TableKind::Table) => {
            n.as_f64().filter(|r| *r >= 0.0).map(|r| r.round() as u64)
        }
        _ => None,
    };
    SchemaTable {
        catalog: None,
        db: text(&row[1]),
        name: text_or_empty(&row[2]),
        kind,
        comment: text(&row[4]),
        estimated_rows,
        columns: table_columns,
        foreign_keys,
    }
}

/// A column from its `pg_attribute` row, marked with the table's primary
/// key and single-column unique indexes.
fn schema_column(c: &[Value], primary_key: &[String], unique_columns: &[String]) -> SchemaColumn {
    let name = text_or_empty(&c[1]);
    let (normalized, dimension) = normalize_postgres_type(
        &text_or_empty(&c[3]),
        &text_or_empty(&c[4]),
        &text_or_empty(&c[5]),
    );
    SchemaColumn {
        native_type: text_or_empty(&c[2]),
        normalized_type: normalized.to_string(),
        dimension_type: dimension,
        nullable: truthy(&c[6]),
        primary_key: primary_key.contains(&name),
        unique: unique_columns.contains(&name),
        comment: text(&c[7]),
        name,
    }
}
