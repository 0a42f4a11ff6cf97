//! Importing the semantic models teams already have into Lore's semantic
//! layer, deterministically, with a report naming every model, entity,
//! dimension, measure and metric once: imported, approximated (and how)
//! or skipped (and why). [`metricflow`] reads dbt MetricFlow projects,
//! [`cube`] Cube projects' YAML cubes, [`lookml`] LookML views and
//! explores.
//!
//! Each reader returns an [`Imported`]: the sources, in Lore's own
//! format, and the report so far. [`render`] turns a source into its model
//! file's text, and [`leave_out_what_does_not_load`] and
//! [`check_against_scan`] finish the report. Reading is all this crate
//! does: it writes nothing. The service that writes an import into a
//! project (one transaction through the semantic layer's files, with a
//! ledger of what it wrote so hand edits are kept) is
//! `lore_context::semantic::import`.
//!
//! Knows nothing of MCP, the store or terminals; its input is files and
//! the latest scan, its output domain types.
#![doc = include_str!("../README.md")]

pub mod cube;
pub mod cube_js;
pub mod lookml;
pub mod metricflow;
pub mod nesting;

use lore_core::{ErrorCode, ErrorReport};
use lore_semantic::model::{ColumnType, SourceSpec};
use lore_warehouse::catalog::LoadedSnapshot;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How one item of the input came across.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// As it is.
    Imported,
    /// With a difference the detail names.
    Approximated,
    /// Left out, for the reason the detail gives.
    Skipped,
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReportItem {
    /// `semantic_model`, `entity`, `dimension`, `measure`, `metric`,
    /// `file` or `check`.
    pub kind: String,
    /// Its name (`orders.order_total`).
    pub name: String,
    /// How it came across.
    pub outcome: Outcome,
    /// How it was approximated, why it was skipped, or what it became.
    pub detail: String,
}

/// What an import did (or, with `dry_run`, would do).
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct ImportReport {
    /// The format read (`metricflow`).
    pub from: String,
    /// The connection written to.
    pub connection: String,
    /// Nothing was written.
    pub dry_run: bool,
    /// The files written (or that would be), relative to the project.
    pub files: Vec<String>,
    /// Files changed by hand since the last import: left alone.
    pub conflicts: Vec<String>,
    /// The transaction (null for a dry run or when nothing changed).
    pub tx_id: Option<i64>,
    /// Every item of the input, once.
    pub items: Vec<ReportItem>,
    /// Counts by outcome.
    pub imported: usize,
    /// Counts by outcome.
    pub approximated: usize,
    /// Counts by outcome.
    pub skipped: usize,
}

impl ImportReport {
    pub fn push(&mut self, kind: &str, name: &str, outcome: Outcome, detail: impl Into<String>) {
        self.items.push(ReportItem {
            kind: kind.to_string(),
            name: name.to_string(),
            outcome,
            detail: detail.into(),
        });
    }

    /// Sets the counts by outcome from the items.
    pub fn count(&mut self) {
        self.imported = self
            .items
            .iter()
            .filter(|i| i.outcome == Outcome::Imported)
            .count();
        self.approximated = self
            .items
            .iter()
            .filter(|i| i.outcome == Outcome::Approximated)
            .count();
        self.skipped = self
            .items
            .iter()
            .filter(|i| i.outcome == Outcome::Skipped)
            .count();
    }
}

/// The model a reader produced: sources, and the report so far.
#[derive(Debug)]
pub struct Imported {
    /// The sources, one file each.
    pub sources: Vec<SourceSpec>,
    /// What became of each item.
    pub report: ImportReport,
}

/// The unqualified columns an SQL expression names (a name qualified
/// with another source is that source's business).
pub(crate) fn identifiers(expr: &str) -> Vec<String> {
    qualified(expr)
        .into_iter()
        .filter(|parts| parts.len() == 1)
        .map(|mut parts| parts.remove(0))
        .collect()
}

/// Every name an SQL expression uses, with its qualifiers
/// (`["customers", "id"]`). An expression past the default
/// [`SqlLimits`](lore_core::limits::SqlLimits) names nothing here: the
/// model check refuses it, naming the limit.
pub(crate) fn qualified(expr: &str) -> Vec<Vec<String>> {
    use lore_core::limits::{SqlLimits, check_sql, with_stack_budget};
    let dialect = sqlparser::dialect::GenericDialect {};
    if check_sql(expr, &dialect, &SqlLimits::default()).is_err() {
        return Vec::new();
    }
    // The tree is parsed, walked and dropped inside the stack budget.
    with_stack_budget(|| names_in(expr, &dialect))
}

fn names_in(expr: &str, dialect: &sqlparser::dialect::GenericDialect) -> Vec<Vec<String>> {
    use sqlparser::ast::{Expr, visit_expressions};
    let Ok(parsed) = sqlparser::parser::Parser::new(dialect)
        .try_with_sql(expr)
        .and_then(|mut p| p.parse_expr())
    else {
        return Vec::new();
    };
    let mut out: Vec<Vec<String>> = Vec::new();
    let _ = visit_expressions(&parsed, |e: &Expr| {
        match e {
            Expr::Identifier(ident) => out.push(vec![ident.value.clone()]),
            Expr::CompoundIdentifier(parts) => {
                out.push(parts.iter().map(|p| p.value.clone()).collect());
            }
            _ => {}
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    out.sort();
    out.dedup();
    out
}

/// Declares (hidden) every column `source`'s expressions read that it does
/// not declare yet: Lore checks that measures, filters, joins and
/// segments name declared columns, where other tools read the table's.
pub(crate) fn declare_read_columns(source: &mut SourceSpec, scan: Option<&LoadedSnapshot>) {
    let table = source.table.clone().unwrap_or_default();
    let measures: Vec<String> = source.measures.iter().map(|m| m.name.clone()).collect();
    let mut read: Vec<String> = Vec::new();
    let own = |parts: &[String]| -> Option<String> {
        match parts {
            [column] => Some(column.clone()),
            [qualifier, column] if *qualifier == source.name => Some(column.clone()),
            _ => None,
        }
    };
    // Each expression, and whether a name in it may be a measure (only in
    // a measure combining others: inside an aggregate, `sum(number)`
    // reads the column even beside a measure named `number`).
    let mut exprs: Vec<(String, bool)> = Vec::new();
    for m in &source.measures {
        let combines = lore_semantic::model::SqlExpr::parse(&m.expr, &Default::default())
            .is_ok_and(|e| !lore_semantic::model::expr::is_aggregate(&e));
        exprs.push((m.expr.clone(), combines));
        exprs.extend(m.filter.iter().map(|f| (f.clone(), false)));
    }
    exprs.extend(source.joins.iter().map(|j| (j.on.clone(), false)));
    exprs.extend(source.segments.iter().map(|s| (s.expr.clone(), false)));
    exprs.extend(
        source
            .columns
            .iter()
            .filter_map(|c| c.expr.clone().map(|e| (e, false))),
    );
    for (expr, measures_here) in exprs {
        for parts in qualified(&expr) {
            if let Some(column) = own(&parts)
                && !(measures_here && measures.contains(&column))
                && !read.contains(&column)
            {
                read.push(column);
            }
        }
    }
    for column in read {
        if source.columns.iter().any(|c| c.name == column) || column == "*" {
            continue;
        }
        source.columns.push(lore_semantic::model::ColumnSpec {
            name: column.clone(),
            column_type: scanned_type(scan, &table, &column).unwrap_or(ColumnType::Number),
            expr: None,
            visibility: Some(lore_semantic::model::Visibility::Hidden),
            role: None,
            description: None,
            descriptions: None,
        });
    }
}

/// A source with nothing in it yet but its name, description and relation.
pub(crate) fn source(
    name: &str,
    description: Option<String>,
    table: Option<String>,
    sql: Option<String>,
) -> SourceSpec {
    SourceSpec {
        name: name.to_string(),
        description,
        descriptions: None,
        table,
        sql,
        grain: Vec::new(),
        time_spine: None,
        columns: Vec::new(),
        joins: Vec::new(),
        measures: Vec::new(),
        segments: Vec::new(),
    }
}

/// A column's type from the latest scan, if the scan has the table.
pub(crate) fn scanned_type(
    scan: Option<&LoadedSnapshot>,
    table: &str,
    column: &str,
) -> Option<ColumnType> {
    let scan = scan?;
    let wanted = table
        .rsplit('.')
        .next()
        .unwrap_or(table)
        .trim_matches('"')
        .to_lowercase();
    let table = scan
        .tables
        .iter()
        .find(|t| t.name.to_lowercase() == wanted)?;
    let column = table
        .columns
        .iter()
        .find(|c| c.name.eq_ignore_ascii_case(column))?;
    Some(match column.normalized_type.as_str() {
        "integer" | "number" | "decimal" | "float" | "numeric" | "bigint" | "real" | "double" => {
            ColumnType::Number
        }
        "boolean" | "bool" => ColumnType::Boolean,
        "date" | "timestamp" | "datetime" | "time" | "timestamptz" => ColumnType::Time,
        _ => ColumnType::String,
    })
}

/// Checks the sources against the latest scan: tables and physical
/// columns exist.
pub fn check_against_scan(
    sources: &[SourceSpec],
    scan: Option<&LoadedSnapshot>,
    report: &mut ImportReport,
) {
    let Some(scan) = scan else {
        report.push(
            "check",
            &report.connection.clone(),
            Outcome::Approximated,
            "the connection has no scan yet, so tables and columns were not checked (run lore scan)",
        );
        return;
    };
    for source in sources {
        let Some(table) = &source.table else { continue };
        let wanted = table
            .rsplit('.')
            .next()
            .unwrap_or(table)
            .trim_matches('"')
            .to_lowercase();
        let Some(found) = scan.tables.iter().find(|t| t.name.to_lowercase() == wanted) else {
            report.push(
                "check",
                &source.name,
                Outcome::Skipped,
                format!("table {table} is not in the latest scan: build the dbt models into this connection, then lore scan"),
            );
            continue;
        };
        for column in source.columns.iter().filter(|c| c.expr.is_none()) {
            if !found
                .columns
                .iter()
                .any(|c| c.name.eq_ignore_ascii_case(&column.name))
            {
                report.push(
                    "check",
                    &format!("{}.{}", source.name, column.name),
                    Outcome::Skipped,
                    format!(
                        "column {} is not in table {table} of the latest scan",
                        column.name
                    ),
                );
            }
        }
    }
}

/// Leaves out what Lore's model loader refuses (a dimension whose SQL does
/// not parse, a measure reading a column that is not there, …), item by
/// item, until the imported sources load: each item left out is reported
/// skipped with the loader's own reason, instead of the whole import
/// failing on one construct. What cannot be pinned to one item stays, and
/// the write's own check then refuses the import with every reason.
pub fn leave_out_what_does_not_load(sources: &mut [SourceSpec], report: &mut ImportReport) {
    use lore_semantic::SemanticError;
    // Each round removes at least one item, so this ends; the bound only
    // keeps a pathological input from taking long.
    for _ in 0..64 {
        let files: Vec<(std::path::PathBuf, String)> = sources
            .iter()
            .filter_map(|s| {
                render(s, "")
                    .ok()
                    .map(|t| (std::path::PathBuf::from(format!("{}.yaml", s.name)), t))
            })
            .collect();
        let issues = match lore_semantic::model::load_sources(files) {
            Err(SemanticError::InvalidModel { issues }) => issues,
            _ => return,
        };
        let mut removed = false;
        for issue in issues {
            let (Some(source), Some(field)) = (&issue.source, &issue.field) else {
                continue;
            };
            let Some(spec) = sources.iter_mut().find(|s| &s.name == source) else {
                continue;
            };
            let Some((kind, item)) = remove_field(spec, field) else {
                continue;
            };
            removed = true;
            let detail = format!("Lore's model refuses it: {}", issue.message);
            let full = format!("{source}.{item}");
            match report.items.iter_mut().find(|i| {
                (i.name == full || (i.kind == "metric" && i.name == item))
                    && i.outcome != Outcome::Skipped
            }) {
                Some(found) => {
                    found.outcome = Outcome::Skipped;
                    found.detail = detail;
                }
                None => report.push(kind, &full, Outcome::Skipped, detail),
            }
        }
        if !removed {
            return;
        }
    }
}

/// Removes the item a model issue's field names (`columns.x.expr`,
/// `measures.m.filter`, `joins[2].on`, `segments.s.expr`, `grain`):
/// its kind and name, or `None` when the field names no one item.
fn remove_field(spec: &mut SourceSpec, field: &str) -> Option<(&'static str, String)> {
    let (head, rest) = field.split_once('.').unwrap_or((field, ""));
    let name = rest.split('.').next().unwrap_or_default().to_string();
    let indexed = |h: &str, key: &str| -> Option<usize> {
        h.strip_prefix(key)?
            .strip_prefix('[')?
            .strip_suffix(']')?
            .parse()
            .ok()
    };
    if let Some(i) = indexed(head, "columns").filter(|i| *i < spec.columns.len()) {
        return Some(("dimension", spec.columns.remove(i).name));
    }
    if let Some(i) = indexed(head, "joins").filter(|i| *i < spec.joins.len()) {
        let join = spec.joins.remove(i);
        return Some(("join", join.alias.unwrap_or(join.to)));
    }
    match head {
        "columns" => {
            let before = spec.columns.len();
            spec.columns.retain(|c| c.name != name);
            (spec.columns.len() < before).then_some(("dimension", name))
        }
        "measures" => {
            let before = spec.measures.len();
            spec.measures.retain(|m| m.name != name);
            (spec.measures.len() < before).then_some(("measure", name))
        }
        "segments" => {
            let before = spec.segments.len();
            spec.segments.retain(|m| m.name != name);
            (spec.segments.len() < before).then_some(("segment", name))
        }
        "grain" if !spec.grain.is_empty() => {
            spec.grain.clear();
            Some(("grain", "grain".into()))
        }
        _ => None,
    }
}

/// A source as a model file, with a first line saying where it came from.
pub fn render(source: &SourceSpec, from: &str) -> Result<String, ErrorReport> {
    let mut text = format!(
        "# Imported from {from} by Lore; edits here are kept (a re-import reports them as conflicts).\n"
    );
    text.push_str(&serde_saphyr::to_string(source).map_err(|e| {
        ErrorReport::new(
            ErrorCode::Internal,
            format!("source {} cannot be written: {e}", source.name),
        )
    })?);
    Ok(text)
}
