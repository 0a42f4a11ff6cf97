//! LookML views → Lore sources: refinements and `extends` resolved first
//! (later definitions of a field or property replace earlier ones, as in
//! Looker), then each view's relation, dimensions, dimension groups and
//! measures (Looker `filters` turned into SQL).

use std::path::Path;

use lore_semantic::model::{ColumnSpec, ColumnType, MeasureSpec, SourceSpec, Visibility};

use super::native::NativeTable;
use super::{Items, Lkml, extended, filter_sql, get, get_text, overlay, plain_sql};
use crate::{ImportReport, Outcome};

/// The views to import: each defined once, refinements (`view: +orders`)
/// merged into it in the order read, `extends` resolved; a base marked
/// `extension: required` is only a base.
pub(super) fn merge_views(
    views: Vec<(String, Items, &Path)>,
    report: &mut ImportReport,
) -> Vec<(String, Items)> {
    let mut merged: Vec<(String, Items)> = Vec::new();
    let mut defined_in: Vec<(String, &Path)> = Vec::new();
    let (refinements, bases): (Vec<_>, Vec<_>) =
        views.into_iter().partition(|(n, ..)| n.starts_with('+'));
    for (name, items, file) in bases {
        if let Some((_, first)) = defined_in.iter().find(|(n, _)| *n == name) {
            report.push(
                "view",
                &name,
                Outcome::Skipped,
                format!(
                    "defined again in {} (first in {}); Looker allows one per model: import one model file (PATH=….model.lkml) to read only what it includes",
                    file.display(),
                    first.display()
                ),
            );
            continue;
        }
        defined_in.push((name.clone(), file));
        merged.push((name, items));
    }
    for (name, items, _) in refinements {
        match name.strip_prefix('+') {
            Some(base) => match merged.iter_mut().find(|(n, _)| n == base) {
                Some((_, base_items)) => {
                    overlay(base_items, items);
                    report.push(
                        "view",
                        &name,
                        Outcome::Imported,
                        format!("refinement merged into {base}"),
                    );
                }
                None => report.push(
                    "view",
                    &name,
                    Outcome::Skipped,
                    format!("refines view {base}, which is not in the project"),
                ),
            },
            None => merged.push((name, items)),
        }
    }
    let mut resolved: Vec<(String, Items)> = Vec::new();
    for (name, _) in &merged {
        match extended(name, &merged, &mut Vec::new()) {
            Ok(items) => {
                if get_text(&items, "extension") == Some("required") {
                    report.push(
                        "view",
                        name,
                        Outcome::Imported,
                        "extension: required — its fields are imported into the views that extend it",
                    );
                    continue;
                }
                resolved.push((name.clone(), items));
            }
            Err(why) => report.push("view", name, Outcome::Skipped, why),
        }
    }
    resolved
}

/// One view as a source: its relation (`sql_table_name`, a derived
/// table's SQL, else the table named as the view) and its fields. A
/// native derived table is queued in `native` for its SQL to be written
/// later; `None` when the view has nothing to read.
pub(super) fn view_source(
    name: &str,
    items: &Items,
    native: &mut Vec<NativeTable>,
    report: &mut ImportReport,
) -> Option<SourceSpec> {
    let table = get_text(items, "sql_table_name").map(|t| t.trim_matches('`').to_string());
    let derived = get(items, "derived_table")
        .and_then(Lkml::block)
        .and_then(|(_, d)| get_text(d, "sql"))
        .map(|s| plain_sql(s, name));
    // Without either, Looker reads the table named as the view.
    let table = match (&table, &derived) {
        (None, None) => Some(name.to_string()),
        _ => table,
    };
    let explore_source = get(items, "derived_table")
        .and_then(Lkml::block)
        .and_then(|(_, d)| get(d, "explore_source"))
        .and_then(Lkml::block)
        .and_then(|(explore, body)| Some((explore.clone()?, body.clone())));
    if get(items, "derived_table").is_some() && derived.is_none() {
        match explore_source {
            // Its SQL is written once the explores' views are sources.
            Some((explore, body)) => native.push(NativeTable {
                view: name.to_string(),
                explore,
                body,
            }),
            None => {
                report.push(
                    "view",
                    name,
                    Outcome::Skipped,
                    "a derived table with neither `sql` nor `explore_source` has nothing to read",
                );
                return None;
            }
        }
    }
    let sql = if table.is_some() { None } else { derived };
    let mut spec = crate::source(name, None, table, sql);
    for (key, value) in items {
        let Some((Some(field), body)) = value.block() else {
            continue;
        };
        let full = format!("{name}.{field}");
        match key.as_str() {
            "dimension" => {
                if let Some(column) = dimension(name, field, body, &full, report) {
                    if get_text(body, "primary_key") == Some("yes") {
                        spec.grain.push(field.clone());
                    }
                    spec.columns.push(column);
                    report.push("dimension", &full, Outcome::Imported, "column");
                }
            }
            "dimension_group" => {
                if let Some(column) = dimension_group(name, field, body, &full, report) {
                    spec.columns.push(column);
                }
            }
            "measure" => {
                if let Some(measure) = measure(name, field, body, &full, report) {
                    spec.measures.push(measure);
                    report.push(
                        "measure",
                        &full,
                        Outcome::Imported,
                        format!("measure {full}"),
                    );
                }
            }
            _ => {}
        }
    }
    Some(spec)
}

/// A dimension as a column (`yesno` a boolean, `hidden: yes` hidden).
fn dimension(
    view: &str,
    field: &str,
    body: &Items,
    full: &str,
    report: &mut ImportReport,
) -> Option<ColumnSpec> {
    let sql = plain_sql(
        get_text(body, "sql").unwrap_or(&format!("${{TABLE}}.{field}")),
        view,
    );
    let column_type = match get_text(body, "type").unwrap_or("string") {
        "number" => ColumnType::Number,
        "yesno" => ColumnType::Boolean,
        "date" | "date_time" | "time" => ColumnType::Time,
        "string" | "tier" | "zipcode" => ColumnType::String,
        other => {
            report.push(
                "dimension",
                full,
                Outcome::Skipped,
                format!("dimension type `{other}` has no Lore equivalent"),
            );
            return None;
        }
    };
    Some(ColumnSpec {
        name: field.to_string(),
        column_type,
        expr: (sql != field).then_some(sql),
        visibility: (get_text(body, "hidden") == Some("yes")).then_some(Visibility::Hidden),
        role: None,
        description: get_text(body, "description")
            .or(get_text(body, "label"))
            .map(str::to_string),
        descriptions: None,
    })
}

/// A time dimension group as one time column: its timeframes are Lore's
/// granularities.
fn dimension_group(
    view: &str,
    field: &str,
    body: &Items,
    full: &str,
    report: &mut ImportReport,
) -> Option<ColumnSpec> {
    if get_text(body, "type") != Some("time") {
        report.push(
            "dimension_group",
            full,
            Outcome::Skipped,
            "only dimension groups of type time are imported",
        );
        return None;
    }
    let sql = plain_sql(
        get_text(body, "sql").unwrap_or(&format!("${{TABLE}}.{field}")),
        view,
    );
    report.push(
        "dimension_group",
        full,
        Outcome::Approximated,
        format!("one time column `{field}`: its timeframes are Lore's granularities (`{view}.{field}:month`), not fields of their own"),
    );
    Some(ColumnSpec {
        name: field.to_string(),
        column_type: ColumnType::Time,
        expr: (sql != field).then_some(sql),
        visibility: None,
        role: None,
        description: get_text(body, "description").map(str::to_string),
        descriptions: None,
    })
}

/// A measure: its aggregate (or a `number` over other measures) and its
/// filters as SQL.
fn measure(
    view: &str,
    field: &str,
    body: &Items,
    full: &str,
    report: &mut ImportReport,
) -> Option<MeasureSpec> {
    let kind = get_text(body, "type").unwrap_or("count");
    let sql = get_text(body, "sql").map(|s| plain_sql(s, view));
    let arg = sql.clone().unwrap_or_else(|| "*".to_string());
    let expr = match kind {
        "count" => format!("count({arg})"),
        "count_distinct" => format!("count_distinct({arg})"),
        "sum" => format!("sum({arg})"),
        "average" => format!("avg({arg})"),
        "min" => format!("min({arg})"),
        "max" => format!("max({arg})"),
        "median" => format!("median({arg})"),
        "percentile" => match get_text(body, "percentile") {
            Some(p) => format!(
                "percentile({arg}, {})",
                p.parse::<f64>().map_or(0.5, |p| p / 100.0)
            ),
            None => {
                report.push(
                    "measure",
                    full,
                    Outcome::Skipped,
                    "a percentile measure without percentile:",
                );
                return None;
            }
        },
        "number" => match sql {
            Some(s) => s,
            None => {
                report.push(
                    "measure",
                    full,
                    Outcome::Skipped,
                    "a number measure without sql",
                );
                return None;
            }
        },
        other => {
            report.push(
                "measure",
                full,
                Outcome::Skipped,
                format!("measure type `{other}` has no Lore equivalent"),
            );
            return None;
        }
    };
    let filter = match measure_filter(body) {
        Ok(filter) => filter,
        Err(why) => {
            report.push("measure", full, Outcome::Skipped, why);
            return None;
        }
    };
    Some(MeasureSpec {
        name: field.to_string(),
        expr,
        filter,
        cumulative: None,
        offset: None,
        non_additive: None,
        conversion: None,
        description: get_text(body, "description")
            .or(get_text(body, "label"))
            .map(str::to_string),
        descriptions: None,
    })
}

/// A measure's `filters: [field: "value", …]` (or the older `filters:
/// {field: f value: "v"}`, once or repeated) as one SQL condition, or why
/// one of them cannot be translated.
fn measure_filter(body: &Items) -> Result<Option<String>, String> {
    let mut pairs: Vec<String> = Vec::new();
    for (_, value) in body.iter().filter(|(k, _)| k == "filters") {
        match value {
            Lkml::List(list) => pairs.extend(list.iter().cloned()),
            Lkml::Block(_, items) => {
                if let (Some(f), Some(v)) = (get_text(items, "field"), get_text(items, "value")) {
                    pairs.push(format!("{f}: \"{v}\""));
                }
            }
            Lkml::Text(_) => {}
        }
    }
    let mut filters = Vec::new();
    let mut unsupported = None;
    for pair in &pairs {
        let Some((field, value)) = pair.split_once(':') else {
            continue;
        };
        let field = field.trim().rsplit('.').next().unwrap_or(field).to_string();
        match filter_sql(&field, value) {
            Some(f) => filters.push(f),
            None => unsupported = Some(format!("filter `{pair}` is not translated")),
        }
    }
    match unsupported {
        Some(why) => Err(why),
        None => Ok((!filters.is_empty()).then(|| filters.join(" AND "))),
    }
}
