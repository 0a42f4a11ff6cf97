//! The double's SQLite database: one attached schema per dataset, with
//! the fixture's tables, their `INFORMATION_SCHEMA` views, `__TABLES__`,
//! and the functions BigQuery has and SQLite lacks.

use std::collections::HashMap;

use base64::Engine;
use lore_core::time::{days_from_civil, format_date};
use rusqlite::functions::FunctionFlags;
use rusqlite::types::Value as Cell;
use serde_json::Value;

use super::PROJECT;
use super::fixture::{self, FieldType};

/// The SQLite database: one attached schema per dataset, with the
/// fixture's tables, their `INFORMATION_SCHEMA` views and `__TABLES__`.
pub(super) fn build_database() -> (
    Vec<FieldType>,
    HashMap<(String, String), fixture::Table>,
    rusqlite::Connection,
) {
    let db = rusqlite::Connection::open_in_memory().expect("an in-memory database");
    register_functions(&db);
    let mut types: Vec<FieldType> = Vec::new();
    let mut declare = |bq_type: &str| -> String {
        let parsed = FieldType::parse(bq_type);
        let affinity = parsed.affinity();
        let index = match types.iter().position(|t| *t == parsed) {
            Some(i) => i,
            None => {
                types.push(parsed);
                types.len() - 1
            }
        };
        format!("{affinity}_T{index}")
    };
    let tables = fixture::tables();
    let mut datasets: Vec<&str> = tables.iter().map(|t| t.dataset).collect();
    datasets.sort();
    datasets.dedup();
    let mut script = String::new();
    for dataset in &datasets {
        script.push_str(&format!("ATTACH DATABASE ':memory:' AS `{dataset}`;\n"));
        for (view, columns) in fixture::INFORMATION_SCHEMA {
            let columns: Vec<String> = columns
                .iter()
                .map(|(name, t)| format!("`{name}` {}", declare(t)))
                .collect();
            script.push_str(&format!(
                "CREATE TABLE `{dataset}`.`INFORMATION_SCHEMA_{view}` ({});\n",
                columns.join(", ")
            ));
        }
        let columns: Vec<String> = fixture::META_TABLES
            .iter()
            .map(|(name, t)| format!("`{name}` {}", declare(t)))
            .collect();
        script.push_str(&format!(
            "CREATE TABLE `{dataset}`.`__TABLES__` ({});\n",
            columns.join(", ")
        ));
    }
    for table in &tables {
        let (ds, name) = (table.dataset, table.name);
        if table.kind == "VIEW" {
            script.push_str(&format!("CREATE VIEW `{ds}`.`{name}` AS {};\n", table.rows));
        } else {
            let columns: Vec<String> = table
                .columns
                .iter()
                .map(|c| format!("`{}` {}", c.name, declare(c.bq_type)))
                .collect();
            script.push_str(&format!(
                "CREATE TABLE `{ds}`.`{name}` ({});\nINSERT INTO `{ds}`.`{name}` VALUES {};\n",
                columns.join(", "),
                table.rows
            ));
        }
    }
    db.execute_batch(&script).expect("the fixture loads");
    let insert = |sql: &str, values: Vec<Cell>| {
        db.execute(sql, rusqlite::params_from_iter(values))
            .expect("metadata row");
    };
    let text = |s: &str| Cell::Text(s.to_string());
    for table in &tables {
        let (ds, name) = (table.dataset, table.name);
        let at = |view: &str, n: usize| {
            format!(
                "INSERT INTO `{ds}`.`INFORMATION_SCHEMA_{view}` VALUES ({})",
                vec!["?"; n].join(", ")
            )
        };
        insert(
            &at("TABLES", 5),
            vec![
                text(PROJECT),
                text(ds),
                text(name),
                text(table.kind),
                text("2024-01-01 00:00:00"),
            ],
        );
        if let Some(description) = table.description {
            insert(
                &at("TABLE_OPTIONS", 6),
                vec![
                    text(PROJECT),
                    text(ds),
                    text(name),
                    text("description"),
                    text("STRING"),
                    text(&fixture::sql_string(description)),
                ],
            );
        }
        for (index, column) in table.columns.iter().enumerate() {
            insert(
                &at("COLUMNS", 7),
                vec![
                    text(PROJECT),
                    text(ds),
                    text(name),
                    text(column.name),
                    Cell::Integer(index as i64 + 1),
                    text(if column.nullable { "YES" } else { "NO" }),
                    text(column.bq_type),
                ],
            );
            let mut paths = vec![(
                column.name.to_string(),
                column.bq_type.to_string(),
                column.description,
            )];
            let parsed = FieldType::parse(column.bq_type);
            if !parsed.repeated {
                for (field, kind) in &parsed.fields {
                    paths.push((format!("{}.{field}", column.name), kind.kind.clone(), None));
                }
            }
            for (path, kind, description) in paths {
                insert(
                    &at("COLUMN_FIELD_PATHS", 7),
                    vec![
                        text(PROJECT),
                        text(ds),
                        text(name),
                        text(column.name),
                        text(&path),
                        text(&kind),
                        description.map(text).unwrap_or(Cell::Null),
                    ],
                );
            }
        }
        let mut constraints: Vec<Constraint> = Vec::new();
        if !table.primary_key.is_empty() {
            constraints.push((
                format!("{name}.pk$"),
                "PRIMARY KEY",
                table.primary_key.iter().map(|c| (*c, None)).collect(),
                None,
            ));
        }
        for fk in &table.foreign_keys {
            let target = tables
                .iter()
                .find(|t| t.dataset == ds && t.name == fk.to_table)
                .expect("a foreign key's table");
            let columns = fk
                .columns
                .iter()
                .zip(fk.to_columns)
                .map(|(c, to)| {
                    let position = target.primary_key.iter().position(|p| p == to);
                    (*c, position.map(|p| p as i64 + 1))
                })
                .collect();
            constraints.push((fk.name.to_string(), "FOREIGN KEY", columns, Some(fk)));
        }
        for (constraint, kind, columns, fk) in constraints {
            insert(
                &at("TABLE_CONSTRAINTS", 10),
                vec![
                    text(PROJECT),
                    text(ds),
                    text(&constraint),
                    text(PROJECT),
                    text(ds),
                    text(name),
                    text(kind),
                    text("NO"),
                    text("NO"),
                    text("NO"),
                ],
            );
            for (ordinal, (column, position)) in columns.iter().enumerate() {
                insert(
                    &at("KEY_COLUMN_USAGE", 9),
                    vec![
                        text(PROJECT),
                        text(ds),
                        text(&constraint),
                        text(PROJECT),
                        text(ds),
                        text(name),
                        text(column),
                        Cell::Integer(ordinal as i64 + 1),
                        position.map(Cell::Integer).unwrap_or(Cell::Null),
                    ],
                );
            }
            let used: Vec<(&str, &str)> = match fk {
                Some(fk) => fk.to_columns.iter().map(|c| (fk.to_table, *c)).collect(),
                None => columns.iter().map(|(c, _)| (name, *c)).collect(),
            };
            for (used_table, column) in used {
                insert(
                    &at("CONSTRAINT_COLUMN_USAGE", 7),
                    vec![
                        text(PROJECT),
                        text(ds),
                        text(used_table),
                        text(column),
                        text(PROJECT),
                        text(ds),
                        text(&constraint),
                    ],
                );
            }
        }
        let rows: i64 = db
            .query_row(&format!("SELECT count(*) FROM `{ds}`.`{name}`"), [], |r| {
                r.get(0)
            })
            .expect("a count");
        insert(
            &format!("INSERT INTO `{ds}`.`__TABLES__` VALUES (?, ?, ?, ?, ?, ?)"),
            vec![
                text(PROJECT),
                text(ds),
                text(name),
                Cell::Integer(rows),
                Cell::Integer(table.logical_bytes as i64),
                Cell::Integer(if table.kind == "VIEW" { 2 } else { 1 }),
            ],
        );
    }
    let tables = tables
        .into_iter()
        .map(|t| ((t.dataset.to_string(), t.name.to_string()), t))
        .collect();
    (types, tables, db)
}

/// A constraint of a fixture table: name, type, columns with their
/// position in the referenced key, and the foreign key it declares.
type Constraint<'a> = (
    String,
    &'a str,
    Vec<(&'a str, Option<i64>)>,
    Option<&'a fixture::ForeignKeyDef>,
);

fn register_functions(db: &rusqlite::Connection) {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let _ = db.create_scalar_function("regexp_contains", 2, flags, |ctx| {
        let (Some(text), Some(pattern)) =
            (ctx.get::<Option<String>>(0)?, ctx.get::<Option<String>>(1)?)
        else {
            return Ok(None);
        };
        let regex = regex::Regex::new(&pattern)
            .map_err(|e| rusqlite::Error::UserFunctionError(Box::new(e)))?;
        Ok(Some(regex.is_match(&text)))
    });
    let _ = db.create_scalar_function("bq_date_trunc", 2, flags, |ctx| {
        let (Some(value), Some(part)) =
            (ctx.get::<Option<String>>(0)?, ctx.get::<Option<String>>(1)?)
        else {
            return Ok(None);
        };
        Ok(date_trunc(&value, &part))
    });
    let _ = db.create_scalar_function("bq_safe_divide", 2, flags, |ctx| {
        let (a, b) = (ctx.get::<Option<f64>>(0)?, ctx.get::<Option<f64>>(1)?);
        Ok(match (a, b) {
            (Some(a), Some(b)) if b != 0.0 => Some(a / b),
            _ => None,
        })
    });
    let _ = db.create_scalar_function("bq_to_json_string", 1, flags, |ctx| {
        Ok(match ctx.get_raw(0) {
            rusqlite::types::ValueRef::Null => "null".to_string(),
            rusqlite::types::ValueRef::Integer(i) => i.to_string(),
            rusqlite::types::ValueRef::Real(f) => f.to_string(),
            rusqlite::types::ValueRef::Text(t) => {
                let t = String::from_utf8_lossy(t).to_string();
                match serde_json::from_str::<Value>(&t) {
                    Ok(v @ (Value::Array(_) | Value::Object(_))) => v.to_string(),
                    _ => Value::String(t).to_string(),
                }
            }
            rusqlite::types::ValueRef::Blob(b) => {
                Value::String(base64::engine::general_purpose::STANDARD.encode(b)).to_string()
            }
        })
    });
}

/// BigQuery's `DATE_TRUNC(date, part)` on `YYYY-MM-DD…` text.
pub(super) fn date_trunc(value: &str, part: &str) -> Option<String> {
    let date = value.get(..10)?;
    let mut fields = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (fields.next()??, fields.next()??, fields.next()??);
    let days = days_from_civil(y, m, d);
    // 1970-01-01 was a Thursday.
    let weekday_from_monday = (days + 3).rem_euclid(7);
    let start = match part {
        "DAY" => days,
        "ISOWEEK" | "WEEK(MONDAY)" => days - weekday_from_monday,
        "WEEK" => days - (days + 4).rem_euclid(7),
        "MONTH" => days_from_civil(y, m, 1),
        "QUARTER" => days_from_civil(y, (m - 1) / 3 * 3 + 1, 1),
        "YEAR" => days_from_civil(y, 1, 1),
        _ => return None,
    };
    Some(format_date(start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_trunc_starts_the_period() {
        for (part, start) in [
            ("DAY", "2025-08-14"),
            ("ISOWEEK", "2025-08-11"),
            ("WEEK", "2025-08-10"),
            ("MONTH", "2025-08-01"),
            ("QUARTER", "2025-07-01"),
            ("YEAR", "2025-01-01"),
        ] {
            assert_eq!(
                date_trunc("2025-08-14 13:45:00", part).as_deref(),
                Some(start),
                "{part}"
            );
        }
    }
}
