//! SQLite structure from `sqlite_master` and the `pragma_table_xinfo`,
//! `pragma_foreign_key_list`, `pragma_index_list` / `pragma_index_info`
//! table functions. SQLite has no `COMMENT ON`, but it keeps the text of
//! every `CREATE TABLE`, so `-- comments` written beside a column are read
//! back as that column's comment.

use std::collections::HashMap;

use serde_json::Value;

use super::{CHUNK_TABLES, group_rows, integer, rows, text, text_or_empty, truthy};
use crate::connector::Connector;
use crate::dialect::SqlDialect;
use crate::error::WarehouseError;
use crate::schema::{ForeignKey, SchemaColumn, SchemaTable, TableKind, normalize_sqlite_type};

/// Rows of one chunk's catalog queries, by table name.
type ByTable = HashMap<String, Vec<Vec<Value>>>;

/// What the `pragma_*` functions say about one chunk of tables.
struct ChunkCatalog {
    /// `pragma_table_xinfo` rows: each table's columns in order.
    columns: ByTable,
    /// `pragma_foreign_key_list` rows: foreign key column pairs.
    foreign_keys: ByTable,
    /// The columns of single-column unique indexes.
    unique: ByTable,
}

/// Reads every table and view, its columns, keys and comments, a chunk of
/// tables at a time.
pub(super) async fn introspect(connector: &Connector) -> Result<Vec<SchemaTable>, WarehouseError> {
    let listed = rows(
        connector,
        "SELECT type, name, sql FROM sqlite_master \
         WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite^_%' ESCAPE '^' ORDER BY name",
    )
    .await?;
    let estimates = row_estimates(connector).await?;
    let mut tables = Vec::with_capacity(listed.len());
    for chunk in listed.chunks(CHUNK_TABLES) {
        let names: Vec<String> = chunk.iter().map(|r| text_or_empty(&r[1])).collect();
        let in_list = names
            .iter()
            .map(|n| SqlDialect::Sqlite.quote_literal(n))
            .collect::<Vec<_>>()
            .join(", ");
        let mut catalog = ChunkCatalog {
            columns: read_columns(connector, &in_list).await?,
            foreign_keys: read_foreign_keys(connector, &in_list).await?,
            unique: read_unique_indexes(connector, &in_list).await?,
        };
        for row in chunk {
            tables.push(schema_table(row, &mut catalog, &estimates));
        }
    }
    resolve_implicit_targets(&mut tables);
    mark_single_column_keys_unique(&mut tables);
    Ok(tables)
}

/// The columns (generated ones included) of the tables in `in_list`, in
/// declaration order.
async fn read_columns(connector: &Connector, in_list: &str) -> Result<ByTable, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT m.name, p.name, p.type, p.\"notnull\", p.pk FROM sqlite_master m \
                 JOIN pragma_table_xinfo(m.name) p \
                 WHERE m.name IN ({in_list}) AND p.hidden IN (0, 2, 3) ORDER BY m.name, p.cid"
            ),
        )
        .await?,
        |r| text_or_empty(&r[0]),
    ))
}

/// The foreign key column pairs of the tables in `in_list`, in key order.
async fn read_foreign_keys(
    connector: &Connector,
    in_list: &str,
) -> Result<ByTable, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT m.name, f.id, f.\"table\", f.\"from\", f.\"to\" FROM sqlite_master m \
                 JOIN pragma_foreign_key_list(m.name) f \
                 WHERE m.type = 'table' AND m.name IN ({in_list}) ORDER BY m.name, f.id, f.seq"
            ),
        )
        .await?,
        |r| text_or_empty(&r[0]),
    ))
}

/// The columns that alone carry a full unique index (or `UNIQUE`
/// constraint) in the tables in `in_list`.
async fn read_unique_indexes(
    connector: &Connector,
    in_list: &str,
) -> Result<ByTable, WarehouseError> {
    Ok(group_rows(
        rows(
            connector,
            &format!(
                "SELECT m.name, max(ii.name) FROM sqlite_master m \
                 JOIN pragma_index_list(m.name) il JOIN pragma_index_info(il.name) ii \
                 WHERE m.type = 'table' AND m.name IN ({in_list}) AND il.\"unique\" = 1 AND il.partial = 0 \
                 GROUP BY m.name, il.name HAVING count(*) = 1"
            ),
        )
        .await?,
        |r| text_or_empty(&r[0]),
    ))
}

/// One listed table or view (its `sqlite_master` row) with its columns,
/// foreign keys and the comments of its `CREATE TABLE`, taken out of
/// `catalog`.
fn schema_table(
    row: &[Value],
    catalog: &mut ChunkCatalog,
    estimates: &HashMap<String, u64>,
) -> SchemaTable {
    let name = text_or_empty(&row[1]);
    let create_sql = text(&row[2]).unwrap_or_default();
    let comments = column_comments(&create_sql);
    let unique_columns: Vec<String> = catalog
        .unique
        .get(&name)
        .map(|rows| rows.iter().filter_map(|r| text(&r[1])).collect())
        .unwrap_or_default();
    let table_columns = catalog
        .columns
        .remove(&name)
        .unwrap_or_default()
        .into_iter()
        .map(|c| schema_column(&c, &comments, &unique_columns))
        .collect::<Vec<_>>();
    let table_foreign_keys = catalog
        .foreign_keys
        .remove(&name)
        .unwrap_or_default()
        .into_iter()
        .map(|f| ForeignKey {
            from_column: text_or_empty(&f[3]),
            to_catalog: None,
            to_db: None,
            to_table: text_or_empty(&f[2]),
            // Empty until resolved: NULL means "the parent's primary key".
            to_column: text(&f[4]).unwrap_or_default(),
            constraint_name: integer(&f[1]).map(|id| format!("fk_{name}_{id}")),
        })
        .collect();
    let kind = if text_or_empty(&row[0]) == "view" {
        TableKind::View
    } else {
        TableKind::Table
    };
    SchemaTable {
        catalog: None,
        db: None,
        estimated_rows: estimates.get(&name).copied(),
        comment: comments.table,
        name,
        kind,
        columns: table_columns,
        foreign_keys: table_foreign_keys,
    }
}

/// A column from its `pragma_table_xinfo` row, with its comment from the
/// `CREATE TABLE` text.
fn schema_column(
    c: &[Value],
    comments: &CreateComments,
    unique_columns: &[String],
) -> SchemaColumn {
    let column = text_or_empty(&c[1]);
    let native_type = text(&c[2]).unwrap_or_default();
    let (normalized, dimension) = normalize_sqlite_type(&native_type);
    let primary_key = integer(&c[4]).unwrap_or(0) > 0;
    SchemaColumn {
        comment: comments.columns.get(&column.to_ascii_lowercase()).cloned(),
        unique: unique_columns.contains(&column),
        nullable: !truthy(&c[3]) && !primary_key,
        name: column,
        native_type,
        normalized_type: normalized.to_string(),
        dimension_type: dimension,
        primary_key,
    }
}

/// A single-column primary key is unique; composite keys are not per column.
fn mark_single_column_keys_unique(tables: &mut [SchemaTable]) {
    for table in tables {
        let keys = table.columns.iter().filter(|c| c.primary_key).count();
        for column in &mut table.columns {
            column.unique = column.unique || (column.primary_key && keys == 1);
        }
    }
}

/// Row counts from `sqlite_stat1` when `ANALYZE` has run.
async fn row_estimates(connector: &Connector) -> Result<HashMap<String, u64>, WarehouseError> {
    let has_stats = rows(
        connector,
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'",
    )
    .await?;
    if has_stats.first().and_then(|r| integer(&r[0])) != Some(1) {
        return Ok(HashMap::new());
    }
    let stats = rows(
        connector,
        "SELECT tbl, max(CAST(stat AS INTEGER)) FROM sqlite_stat1 GROUP BY tbl",
    )
    .await?;
    Ok(stats
        .iter()
        .filter_map(|r| Some((text(&r[0])?, u64::try_from(integer(&r[1])?).ok()?)))
        .collect())
}

/// A foreign key without target columns refers to the parent's primary key.
fn resolve_implicit_targets(tables: &mut [SchemaTable]) {
    let primary_keys: HashMap<String, Vec<String>> = tables
        .iter()
        .map(|t| {
            (
                t.name.to_ascii_lowercase(),
                t.primary_key().into_iter().map(str::to_string).collect(),
            )
        })
        .collect();
    for table in tables.iter_mut() {
        let mut position: HashMap<String, usize> = HashMap::new();
        for fk in &mut table.foreign_keys {
            let index = position
                .entry(fk.constraint_name.clone().unwrap_or_default())
                .or_insert(0);
            if fk.to_column.is_empty()
                && let Some(key) = primary_keys.get(&fk.to_table.to_ascii_lowercase())
                && let Some(column) = key.get(*index)
            {
                fk.to_column = column.clone();
            }
            *index += 1;
        }
    }
}

/// Comments found in a `CREATE TABLE` statement.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct CreateComments {
    /// A comment on the line of the opening parenthesis.
    pub table: Option<String>,
    /// Column comments by lower-cased column name.
    pub columns: HashMap<String, String>,
}

#[derive(Default)]
struct Segment {
    text: String,
    last_line: Option<usize>,
    comments: Vec<String>,
}

/// Reads `-- …` and `/* … */` comments out of a `CREATE TABLE` text and
/// attaches each to the column definition it sits beside: the definition
/// with text on the comment's line (before or after its comma), or else the
/// next definition (a comment on a line of its own leads it).
pub(crate) fn column_comments(create_sql: &str) -> CreateComments {
    let chars: Vec<char> = create_sql.chars().collect();
    let mut result = CreateComments::default();
    let mut segments: Vec<Segment> = vec![Segment::default()];
    let mut depth = 0usize;
    let mut line = 0usize;
    let mut open_line = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        // Comments (anywhere): read to their end.
        let comment = if c == '-' && next == Some('-') {
            let end = chars[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |p| i + p);
            let body: String = chars[i + 2..end].iter().collect();
            i = end;
            Some(body)
        } else if c == '/' && next == Some('*') {
            let rest: String = chars[i + 2..].iter().collect();
            let len = rest.find("*/").unwrap_or(rest.len());
            let body = rest[..len].to_string();
            line += body.matches('\n').count();
            i += 2 + len + 2;
            Some(body)
        } else {
            None
        };
        if let Some(body) = comment {
            let body = body.split_whitespace().collect::<Vec<_>>().join(" ");
            if depth == 1 && !body.is_empty() {
                attach_comment(&mut segments, &mut result, open_line, line, body);
            }
            continue;
        }
        match c {
            '\n' => line += 1,
            '\'' | '"' | '`' | '[' => {
                // Quoted text or identifier: copy it whole.
                let close = if c == '[' { ']' } else { c };
                let start = i;
                i += 1;
                while i < chars.len() {
                    if chars[i] == close {
                        if chars.get(i + 1) == Some(&close) && close != ']' {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                if depth >= 1 {
                    let quoted: String = chars[start..(i + 1).min(chars.len())].iter().collect();
                    let segment = segments.last_mut().expect("one segment at least");
                    segment.text.push_str(&quoted);
                    segment.last_line = Some(line);
                }
            }
            '(' => {
                depth += 1;
                if depth == 1 {
                    open_line = Some(line);
                    i += 1;
                    continue;
                }
            }
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => {
                segments.push(Segment::default());
                i += 1;
                continue;
            }
            _ => {}
        }
        if depth >= 1 && !(c == ')' && depth == 0) {
            let segment = segments.last_mut().expect("one segment at least");
            segment.text.push(c);
            if !c.is_whitespace() {
                segment.last_line = Some(line);
            }
        }
        i += 1;
    }
    for segment in segments {
        let Some(name) = column_name(&segment.text) else {
            continue;
        };
        if !segment.comments.is_empty() {
            result
                .columns
                .insert(name.to_ascii_lowercase(), segment.comments.join(" "));
        }
    }
    result
}

fn attach_comment(
    segments: &mut [Segment],
    result: &mut CreateComments,
    open_line: Option<usize>,
    line: usize,
    body: String,
) {
    let count = segments.len();
    let current_has_text = segments[count - 1].last_line.is_some();
    if current_has_text {
        segments[count - 1].comments.push(body);
    } else if count >= 2 && segments[count - 2].last_line == Some(line) {
        segments[count - 2].comments.push(body);
    } else if count == 1 && open_line == Some(line) {
        result.table = Some(body);
    } else {
        segments[count - 1].comments.push(body);
    }
}

/// The column a definition declares, or `None` for table constraints.
fn column_name(definition: &str) -> Option<String> {
    let trimmed = definition.trim_start();
    let first = if let Some(rest) = trimmed.strip_prefix(['"', '`', '[']) {
        let close = match trimmed.chars().next() {
            Some('[') => ']',
            Some(q) => q,
            None => return None,
        };
        rest.split(close).next()?.to_string()
    } else {
        trimmed
            .split(|c: char| c.is_whitespace() || c == '(')
            .next()?
            .to_string()
    };
    let keyword = first.to_ascii_uppercase();
    if first.is_empty()
        || matches!(
            keyword.as_str(),
            "CONSTRAINT" | "PRIMARY" | "UNIQUE" | "CHECK" | "FOREIGN"
        ) && !trimmed.starts_with(['"', '`', '['])
    {
        return None;
    }
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_attach_to_the_column_beside_them() {
        let sql = "CREATE TABLE plans ( -- price plans\n  id INTEGER PRIMARY KEY,\n  code TEXT NOT NULL UNIQUE,   -- stable plan code, e.g. 'growth'\n  -- leads the next column\n  name TEXT NOT NULL,\n  \"is active\" INTEGER NOT NULL  /* 0 for retired plans */\n)";
        let comments = column_comments(sql);
        assert_eq!(comments.table.as_deref(), Some("price plans"));
        assert_eq!(comments.columns["code"], "stable plan code, e.g. 'growth'");
        assert_eq!(comments.columns["name"], "leads the next column");
        assert_eq!(comments.columns["is active"], "0 for retired plans");
        assert!(!comments.columns.contains_key("id"));
    }

    #[test]
    fn commas_inside_types_and_strings_do_not_split_columns() {
        let sql = "CREATE TABLE t (\n  amount DECIMAL(10, 2), -- in dollars\n  label TEXT DEFAULT 'a,b', -- with a comma\n  PRIMARY KEY (amount, label) -- composite\n)";
        let comments = column_comments(sql);
        assert_eq!(comments.columns["amount"], "in dollars");
        assert_eq!(comments.columns["label"], "with a comma");
        assert_eq!(comments.columns.len(), 2, "{comments:?}");
    }
}
