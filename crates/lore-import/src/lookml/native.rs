//! Native derived tables (`derived_table: { explore_source: … }`): the
//! explore's query compiled by Lore's planner over the views imported so
//! far, renamed to the table's columns, with its `derived_column`s.

use std::path::PathBuf;

use lore_core::limits::SqlLimits;
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{ColumnType, SourceSpec};
use lore_semantic::query::{DimensionRef, MeasureRef, OrderRef, SemanticQuery};
use lore_warehouse::catalog::LoadedSnapshot;

use super::{Items, Lkml, filter_sql, get_text, plain_sql};
use crate::{ImportReport, Outcome};

/// A view whose table is an explore query (`derived_table: { explore_source:
/// … }`), waiting for the explores' views to be sources.
pub(super) struct NativeTable {
    pub(super) view: String,
    pub(super) explore: String,
    pub(super) body: Items,
}

/// Looker's timeframe suffixes of a `dimension_group` field
/// (`ordered_month`) and the granularity each is in Lore.
const TIMEFRAMES: [(&str, Option<&str>); 9] = [
    ("_raw", None),
    ("_time", None),
    ("_date", Some("day")),
    ("_day", Some("day")),
    ("_week", Some("week")),
    ("_month", Some("month")),
    ("_quarter", Some("quarter")),
    ("_year", Some("year")),
    ("", None),
];

/// Writes each native derived table's SQL: the explore's query (its
/// `column`s as dimensions or measures, its `filters`, `sorts` and
/// `limit`) compiled by Lore's planner over the sources imported so far,
/// in the connection's dialect, then renamed to the table's columns, with
/// `derived_column`s computed over them. A table Lore cannot write is
/// removed and reported with the reason.
pub(super) fn native_derived_tables(
    native: Vec<NativeTable>,
    sources: &mut Vec<SourceSpec>,
    explores: &[(String, Items)],
    scan: Option<&LoadedSnapshot>,
    dialect: Dialect,
    report: &mut ImportReport,
) {
    let pending: Vec<String> = native.iter().map(|n| n.view.clone()).collect();
    // The model the explore queries run on: every other view, as it will
    // be written (its read columns declared, what Lore refuses left out),
    // without joins to the tables still pending.
    let mut base: Vec<SourceSpec> = sources
        .iter()
        .filter(|s| !pending.contains(&s.name))
        .cloned()
        .collect();
    let names: Vec<String> = base.iter().map(|s| s.name.clone()).collect();
    for source in &mut base {
        source.joins.retain(|j| names.contains(&j.to));
        crate::declare_read_columns(source, scan);
        // An explore query may group by fields hidden from users.
        for column in &mut source.columns {
            column.visibility = None;
        }
    }
    crate::leave_out_what_does_not_load(&mut base, &mut ImportReport::default());
    let files: Vec<(PathBuf, String)> = base
        .iter()
        .filter_map(|s| {
            crate::render(s, "")
                .ok()
                .map(|t| (PathBuf::from(format!("{}.yaml", s.name)), t))
        })
        .collect();
    let model = lore_semantic::model::load_sources(files);
    for table in native {
        let written = match &model {
            Ok(model) => native_sql(&table, &base, explores, model, dialect),
            Err(e) => Err(format!("the views it queries do not load as a model: {e}")),
        };
        match written {
            Ok((sql, approximations)) => {
                if let Some(source) = sources.iter_mut().find(|s| s.name == table.view) {
                    source.sql = Some(sql);
                    source.table = None;
                }
                let (outcome, detail) = if approximations.is_empty() {
                    (
                        Outcome::Imported,
                        format!(
                            "native derived table: the SQL Lore's planner writes for its query of explore {}",
                            table.explore
                        ),
                    )
                } else {
                    (
                        Outcome::Approximated,
                        format!(
                            "native derived table over explore {}, written by Lore's planner; {}",
                            table.explore,
                            approximations.join("; ")
                        ),
                    )
                };
                report.push("native_derived_table", &table.view, outcome, detail);
            }
            Err(why) => {
                sources.retain(|s| s.name != table.view);
                let prefix = format!("{}.", table.view);
                for item in report
                    .items
                    .iter_mut()
                    .filter(|i| i.name.starts_with(&prefix))
                {
                    item.outcome = Outcome::Skipped;
                    item.detail = format!(
                        "its view {} is a native derived table Lore could not write",
                        table.view
                    );
                }
                report.push(
                    "native_derived_table",
                    &table.view,
                    Outcome::Skipped,
                    format!("explore_source {}: {why}", table.explore),
                );
            }
        }
    }
}

/// One native derived table's SQL, and what it approximates.
fn native_sql(
    table: &NativeTable,
    sources: &[SourceSpec],
    explores: &[(String, Items)],
    model: &lore_semantic::model::SemanticModel,
    dialect: Dialect,
) -> Result<(String, Vec<String>), String> {
    let explore_items = explores
        .iter()
        .find(|(name, _)| *name == table.explore)
        .map(|(_, items)| items)
        .ok_or_else(|| "no explore of that name is in the project".to_string())?;
    let base = get_text(explore_items, "from")
        .or(get_text(explore_items, "view_name"))
        .unwrap_or(&table.explore)
        .to_string();
    let fields = Fields {
        explore: &table.explore,
        base: &base,
    };
    let mut approximations = Vec::new();
    let mut query = SemanticQuery {
        limit: None,
        ..SemanticQuery::default()
    };
    // (output column, kind, index among its kind)
    let mut columns: Vec<(String, &'static str, usize)> = Vec::new();
    let mut derived: Vec<(String, String)> = Vec::new();
    for (key, value) in &table.body {
        match key.as_str() {
            "column" => {
                let Some((Some(alias), body)) = value.block() else {
                    return Err("a `column` without a name".into());
                };
                let kind = add_column(&mut query, &fields, sources, alias, body)?;
                let index = match kind {
                    "measure" => query.measures.len() - 1,
                    _ => query.dimensions.len() - 1,
                };
                columns.push((alias.clone(), kind, index));
            }
            "derived_column" => {
                let Some((Some(alias), body)) = value.block() else {
                    return Err("a `derived_column` without a name".into());
                };
                let sql = get_text(body, "sql")
                    .ok_or_else(|| format!("derived_column {alias} has no sql"))?;
                derived.push((alias.clone(), plain_sql(sql, &table.view)));
            }
            "filters" => query.filters.extend(filters(value, &fields)?),
            "sorts" => query.order_by.extend(sorts(value, &fields)?),
            "limit" => {
                let limit = value
                    .text()
                    .and_then(|t| t.trim().parse::<u64>().ok())
                    .filter(|l| *l > 0)
                    .ok_or("limit: is not a positive number")?;
                query.limit = Some(limit);
            }
            "bind_filters" | "bind_all_filters" => approximations.push(format!(
                "`{key}` passes the filters of a Looker query into the table at query time; Lore's table is computed without them"
            )),
            "timezone" => approximations.push(
                "`timezone` is not applied: times are grouped as the warehouse stores them".into(),
            ),
            other => return Err(format!("`{other}` in explore_source is not read by Lore")),
        }
    }
    if columns.is_empty() {
        return Err("it has no `column`".into());
    }
    let compiled = lore_semantic::planner::compile(model, &query, dialect, &SqlLimits::default())
        .map_err(|e| format!("Lore's planner cannot write its query: {e}"))?;
    let sql = table_sql(compiled, query.limit.is_some(), &columns, &derived, dialect)?;
    Ok((sql, approximations))
}

/// How an explore's fields are named: `explore.field` names the
/// explore's own view (`base`).
struct Fields<'a> {
    explore: &'a str,
    base: &'a str,
}

impl Fields<'_> {
    /// `view.field` for a field as written.
    fn of(&self, text: &str) -> String {
        let text = text.trim().trim_matches('"');
        match text.split_once('.') {
            Some((view, field)) if view == self.explore => format!("{}.{field}", self.base),
            Some(_) => text.to_string(),
            None => format!("{}.{text}", self.base),
        }
    }
}

/// A `column` of the table added to `query` as the measure or the
/// dimension (a timeframe read at its granularity) it reads; its kind.
fn add_column(
    query: &mut SemanticQuery,
    fields: &Fields<'_>,
    sources: &[SourceSpec],
    alias: &str,
    body: &Items,
) -> Result<&'static str, String> {
    let field = fields.of(get_text(body, "field").unwrap_or(alias));
    let (view, name) = field.split_once('.').unwrap_or((fields.base, &field));
    let source = sources
        .iter()
        .find(|s| s.name == view)
        .ok_or_else(|| format!("column {alias} reads view {view}, which was not imported"))?;
    if source.measures.iter().any(|m| m.name == name) {
        query.measures.push(MeasureRef::Name(field.clone()));
        return Ok("measure");
    }
    let dimension = TIMEFRAMES.iter().find_map(|(suffix, granularity)| {
        let column = name.strip_suffix(suffix)?;
        let found = source.columns.iter().find(|c| c.name == column)?;
        match granularity {
            Some(g) if found.column_type == ColumnType::Time => Some(DimensionRef::Field {
                field: format!("{view}.{column}"),
                granularity: Some(g.to_string()),
            }),
            Some(_) => None,
            None => Some(DimensionRef::Name(format!("{view}.{column}"))),
        }
    });
    let Some(dimension) = dimension else {
        return Err(format!(
            "column {alias} reads {field}, which is no imported dimension or measure"
        ));
    };
    query.dimensions.push(dimension);
    Ok("dimension")
}

/// `filters: [view.field: "value", …]`, or the older `filters: { field:
/// view.field value: "value" }`, as SQL conditions.
fn filters(value: &Lkml, fields: &Fields<'_>) -> Result<Vec<String>, String> {
    let pairs: Vec<String> = match value {
        Lkml::List(pairs) => pairs.clone(),
        Lkml::Block(_, items) => match (get_text(items, "field"), get_text(items, "value")) {
            (Some(field), Some(value)) => vec![format!("{field}: \"{value}\"")],
            _ => return Err("a `filters` block without field and value".into()),
        },
        Lkml::Text(text) => return Err(format!("filters: {text} is not a list of field: value")),
    };
    pairs
        .iter()
        .map(|pair| {
            let (field, filter) = pair
                .split_once(':')
                .ok_or_else(|| format!("filter `{pair}` names no field"))?;
            filter_sql(&fields.of(field), filter)
                .ok_or_else(|| format!("filter `{pair}` is not translated"))
        })
        .collect()
}

/// `sorts: [view.field: asc|desc, …]` as the query's order.
fn sorts(value: &Lkml, fields: &Fields<'_>) -> Result<Vec<OrderRef>, String> {
    let Lkml::List(pairs) = value else {
        return Err("sorts: is not a list of field: asc|desc".into());
    };
    Ok(pairs
        .iter()
        .map(|pair| {
            let (field, direction) = pair.split_once(':').unwrap_or((pair, "asc"));
            let field = fields.of(field);
            let desc = direction
                .trim()
                .trim_matches('"')
                .eq_ignore_ascii_case("desc");
            OrderRef::Name(if desc { format!("{field} desc") } else { field })
        })
        .collect())
}

/// The table's SQL: the planner's query (without its default row limit
/// when the table set none) with its columns renamed to the table's, then
/// the derived columns over it.
fn table_sql(
    compiled: lore_semantic::planner::CompiledQuery,
    limited: bool,
    columns: &[(String, &'static str, usize)],
    derived: &[(String, String)],
    dialect: Dialect,
) -> Result<String, String> {
    let mut sql = compiled.sql;
    if !limited {
        // The planner always ends with the default row limit; the table
        // has every row.
        let trimmed = sql.trim_end();
        let limit_at = trimmed.rfind("LIMIT ").filter(|at| {
            trimmed[at + 6..].chars().all(|c| c.is_ascii_digit())
                && trimmed[..*at].ends_with(char::is_whitespace)
        });
        match limit_at {
            Some(at) => sql.truncate(at),
            None => return Err("the planner's SQL does not end with its row limit".into()),
        }
    }
    let by_kind = |kind: &str, index: usize| -> Option<String> {
        compiled
            .columns
            .iter()
            .filter(|c| c.kind == kind)
            .nth(index)
            .map(|c| dialect.quote(&dialect.output_name(&c.name)))
    };
    let mut select = Vec::new();
    for (alias, kind, index) in columns {
        let column = by_kind(kind, *index)
            .ok_or_else(|| format!("the planner's SQL has no column for {alias}"))?;
        select.push(format!("q.{column} AS {}", dialect.quote(alias)));
    }
    let mut out = format!("SELECT {} FROM ({}) q", select.join(", "), sql.trim_end());
    if !derived.is_empty() {
        let extra: Vec<String> = derived
            .iter()
            .map(|(alias, sql)| format!("{sql} AS {}", dialect.quote(alias)))
            .collect();
        out = format!("SELECT d.*, {} FROM ({out}) d", extra.join(", "));
    }
    Ok(out)
}
