//! MySQL and MariaDB structure from `information_schema`: base tables and
//! views, columns (`tinyint(1)` read as boolean), comments, primary and
//! unique keys, foreign keys with their target database (cross-database
//! keys are kept), and `table_rows` estimates.
//!
//! Without `schemas` in `lore.yaml`, the scan reads the URL's database, or
//! every non-system database when the URL names none.

use std::collections::HashMap;

use super::{CHUNK_TABLES, ScanScope, foreign_key, group_rows, integer, rows, text, text_or_empty};
use crate::connector::Connector;
use crate::dialect::SqlDialect;
use crate::error::WarehouseError;
use crate::schema::{SchemaColumn, SchemaTable, TableKind, normalize_mysql_type};

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

pub(super) async fn introspect(
    connector: &Connector,
    scope: &ScanScope,
) -> Result<Vec<SchemaTable>, WarehouseError> {
    let listed = rows(
        connector,
        &format!(
            "SELECT table_schema, table_name, table_type, table_comment, table_rows \
             FROM information_schema.tables WHERE {} AND table_type IN ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED') \
             ORDER BY table_schema, table_name",
            scope_filter(scope, "table_schema")
        ),
    )
    .await?;
    let mut tables = Vec::with_capacity(listed.len());
    for chunk in listed.chunks(CHUNK_TABLES) {
        // information_schema answers fastest when filtered by schema and name.
        let mut by_schema: HashMap<String, Vec<String>> = HashMap::new();
        for row in chunk {
            by_schema
                .entry(text_or_empty(&row[0]))
                .or_default()
                .push(SqlDialect::Mysql.quote_literal(&text_or_empty(&row[1])));
        }
        let filter = |schema_column: &str, table_column: &str| -> String {
            by_schema
                .iter()
                .map(|(schema, names)| {
                    format!(
                        "({schema_column} = {} AND {table_column} IN ({}))",
                        SqlDialect::Mysql.quote_literal(schema),
                        names.join(", ")
                    )
                })
                .collect::<Vec<_>>()
                .join(" OR ")
        };
        let mut columns = group_rows(
            rows(
                connector,
                &format!(
                    "SELECT table_schema, table_name, column_name, column_type, data_type, is_nullable, \
                     column_key, column_comment FROM information_schema.columns WHERE {} \
                     ORDER BY table_schema, table_name, ordinal_position",
                    filter("table_schema", "table_name")
                ),
            )
            .await?, |r| (text_or_empty(&r[0]), text_or_empty(&r[1])),
        );
        let mut keys = group_rows(
            rows(
                connector,
                &format!(
                    "SELECT table_schema, table_name, constraint_name, column_name, \
                     referenced_table_schema, referenced_table_name, referenced_column_name \
                     FROM information_schema.key_column_usage \
                     WHERE ({}) AND referenced_table_name IS NOT NULL \
                     ORDER BY table_schema, table_name, constraint_name, ordinal_position",
                    filter("table_schema", "table_name")
                ),
            )
            .await?,
            |r| (text_or_empty(&r[0]), text_or_empty(&r[1])),
        );
        for row in chunk {
            let schema = text_or_empty(&row[0]);
            let name = text_or_empty(&row[1]);
            let key = (schema.clone(), name.clone());
            let table_columns = columns
                .remove(&key)
                .unwrap_or_default()
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
            let table_columns = table_columns
                .into_iter()
                .map(|mut c| {
                    c.unique = c.unique || (c.primary_key && primary_keys == 1);
                    c
                })
                .collect();
            let foreign_keys = keys
                .remove(&key)
                .unwrap_or_default()
                .into_iter()
                .map(|k| foreign_key(&k))
                .collect();
            let kind = if text_or_empty(&row[2]) == "VIEW" {
                TableKind::View
            } else {
                TableKind::Table
            };
            // Views carry the comment "VIEW"; it says nothing.
            let comment = text(&row[3]).filter(|c| kind == TableKind::Table || c != "VIEW");
            tables.push(SchemaTable {
                catalog: None,
                db: Some(schema),
                name,
                kind,
                comment,
                estimated_rows: match kind {
                    TableKind::Table => integer(&row[4]).and_then(|n| u64::try_from(n).ok()),
                    _ => None,
                },
                columns: table_columns,
                foreign_keys,
            });
        }
    }
    Ok(tables)
}
