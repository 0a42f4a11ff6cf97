//! Conversion measures: the rows of a conversion measure that follow a
//! row of a base measure of the same entity (MetricFlow's conversion
//! metrics), as written in YAML, validated, and described.

use std::collections::HashMap;
use std::path::PathBuf;

use lore_core::limits::SqlLimits;
use serde::{Deserialize, Serialize};

use super::expr::{SqlExpr, is_aggregate};
use super::time::time_column;
use super::{MeasureSpec, SemanticModel, SourceSpec, parse_span};
use crate::dialect::Granularity;

/// What a conversion measure answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Calculation {
    /// The conversions divided by the base measure, as a fraction
    /// (MetricFlow's `conversion_rate`).
    #[default]
    Rate,
    /// The conversions (MetricFlow's `conversions`).
    Count,
}

impl Calculation {
    /// The name as written in YAML.
    pub fn as_str(self) -> &'static str {
        match self {
            Calculation::Rate => "rate",
            Calculation::Count => "count",
        }
    }
}

/// A column of the base source and one of the conversion source, as
/// written in YAML: one name for both (`customer_id`), or each side's
/// (`{ base: customer_id, conversion: buyer_id }`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ColumnPair {
    /// The same column name on both sides.
    Same(String),
    /// Each side's column.
    Each {
        /// The base source's column.
        base: String,
        /// The conversion source's column.
        conversion: String,
    },
}

impl ColumnPair {
    /// (the base side's column, the conversion side's).
    pub fn sides(&self) -> (&str, &str) {
        match self {
            ColumnPair::Same(c) => (c, c),
            ColumnPair::Each { base, conversion } => (base, conversion),
        }
    }
}

/// A conversion measure as written in YAML: the rows of a *conversion*
/// measure (orders) that follow a row of a *base* measure (visits) of the
/// same entity (a customer), each conversion row counted once, for the
/// latest base row at or before its day (within `window` when given, and
/// with equal `constant` columns); counted in that base row's groups
/// (its dimensions, its time), and divided by the base measure for a
/// rate (MetricFlow's conversion metrics).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConversionSpec {
    /// The base events: a plain measure of this source.
    pub base: String,
    /// The conversion events: a plain measure of this source, or
    /// `source.measure` of another.
    pub conversion: String,
    /// The column both sources identify the entity by.
    pub entity: ColumnPair,
    /// How long after a base row its conversion may come (`7 days`,
    /// `1 month`); no limit when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// `rate` (default) or `count`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calculation: Option<Calculation>,
    /// Columns whose values a conversion row must share with its base row.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constant: Vec<ColumnPair>,
    /// Each side's time column (default: the column with `role: time`,
    /// else the source's only time column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<ColumnPair>,
    /// The conversions of a group of base rows none of which converted
    /// (default: no value, so no rate either).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_nulls_with: Option<i64>,
}

/// A validated conversion measure. The measure's own `expr` and `filter`
/// are its base measure's (with the conversion measure's `filter` added):
/// the base rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// The base measure's name (on the measure's own source).
    pub base: String,
    /// The index of the conversion measure's source.
    pub source: usize,
    /// The conversion measure's name.
    pub measure: String,
    /// The conversion measure's aggregate over its source's columns.
    pub expr: SqlExpr,
    /// The conversion measure's filter: which rows are conversions.
    pub filter: Option<SqlExpr>,
    /// The entity column on the base side and on the conversion side.
    pub entity: (String, String),
    /// The time column on each side.
    pub time: (String, String),
    /// How long after its base row a conversion may come.
    pub window: Option<(u32, Granularity)>,
    /// Rate or count.
    pub calculation: Calculation,
    /// Columns (base side, conversion side) that must be equal.
    pub constant: Vec<(String, String)>,
    /// The conversions of a group without any.
    pub fill_nulls_with: Option<i64>,
}

impl Conversion {
    /// In words, for plans and listings: `conversion of visits.visits to
    /// orders.orders by customer_id within 7 days` (`base_source` is the
    /// measure's own source).
    pub fn describe(&self, base_source: &str, model: &SemanticModel) -> String {
        let target = model
            .sources
            .get(self.source)
            .map_or("?", |s| s.name.as_str());
        let (b, v) = &self.entity;
        let entity = if b == v {
            b.clone()
        } else {
            format!("{b} (= {v})")
        };
        let window = match self.window {
            Some((count, unit)) => format!(
                " within {count} {}{}",
                unit.as_str(),
                if count == 1 { "" } else { "s" }
            ),
            None => String::new(),
        };
        format!(
            "conversion of {base_source}.{} to {target}.{} by {entity}{window}",
            self.base, self.measure
        )
    }
}

/// What a conversion measure's base rows are and what it matches them
/// to: (the base measure's aggregate, its filter, the conversion), or
/// what is wrong with it. Both measures must be plain aggregates; their
/// own problems are reported on their own entries.
pub(super) fn validate(
    c: &ConversionSpec,
    m: &MeasureSpec,
    source: &SourceSpec,
    by_name: &HashMap<String, usize>,
    all: &[(PathBuf, SourceSpec)],
    field: &str,
) -> Result<(SqlExpr, Option<SqlExpr>, Conversion), String> {
    if !m.expr.trim().is_empty() {
        return Err(format!(
            "a conversion measure takes its aggregates from its base and conversion measures: leave out `expr` (`{}`)",
            m.expr
        ));
    }
    if m.cumulative.is_some() || m.offset.is_some() || m.non_additive.is_some() {
        return Err(
            "a conversion measure cannot also be cumulative, offset or non-additive".into(),
        );
    }
    let base = base_measure(c, source)?;
    let (base_expr, base_filter) = plain_measure(base, "base")?;
    let (conversion_source, measure) = conversion_measure(c, source, by_name, all)?;
    let (expr, filter) = plain_measure(measure, "conversion")?;
    let target = &all[conversion_source].1;
    let entity = column_pair(&c.entity, "entity", source, target)?;
    let mut constant = Vec::new();
    for p in &c.constant {
        constant.push(column_pair(p, "constant", source, target)?);
    }
    let time = time_columns(c.time.as_ref(), source, target, field)?;
    let window = c.window.as_deref().map(parse_span).transpose()?;
    Ok((
        base_expr,
        base_filter,
        Conversion {
            base: base.name.clone(),
            source: conversion_source,
            measure: measure.name.clone(),
            expr,
            filter,
            entity,
            time,
            window,
            calculation: c.calculation.unwrap_or_default(),
            constant,
            fill_nulls_with: c.fill_nulls_with,
        },
    ))
}

/// The plain measures of a source, for messages.
fn measures_of(spec: &SourceSpec) -> String {
    spec.measures
        .iter()
        .filter(|x| x.conversion.is_none())
        .map(|x| x.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The base measure: a measure of the conversion measure's own `source`
/// (named alone, or as `source.measure`).
fn base_measure<'a>(c: &ConversionSpec, source: &'a SourceSpec) -> Result<&'a MeasureSpec, String> {
    let base_name = match c.base.split_once('.') {
        Some((s, b)) if s == source.name => b,
        Some(_) => {
            return Err(format!(
                "base `{}`: the base measure is a measure of this source (`{}`), whose rows the conversion measure counts in",
                c.base, source.name
            ));
        }
        None => c.base.as_str(),
    };
    source
        .measures
        .iter()
        .find(|x| x.name == base_name)
        .ok_or_else(|| {
            format!(
                "base: no measure `{base_name}` in `{}` (its measures: {})",
                source.name,
                measures_of(source)
            )
        })
}

/// The conversion measure, with the index of its source: `source.measure`
/// of any source, or a measure of the conversion measure's own `source`.
fn conversion_measure<'a>(
    c: &ConversionSpec,
    source: &SourceSpec,
    by_name: &HashMap<String, usize>,
    all: &'a [(PathBuf, SourceSpec)],
) -> Result<(usize, &'a MeasureSpec), String> {
    let (conversion_source, measure_name) = match c.conversion.split_once('.') {
        Some((s, x)) => match by_name.get(s) {
            Some(&i) => (i, x),
            None => {
                return Err(format!(
                    "conversion `{}`: no source `{s}`; name the conversion measure as source.measure",
                    c.conversion
                ));
            }
        },
        None => match by_name.get(&source.name) {
            Some(&i) => (i, c.conversion.as_str()),
            None => return Err(format!("no source `{}`", source.name)),
        },
    };
    let target = &all[conversion_source].1;
    let Some(measure) = target.measures.iter().find(|x| x.name == measure_name) else {
        return Err(format!(
            "conversion: no measure `{measure_name}` in `{}` (its measures: {})",
            target.name,
            measures_of(target)
        ));
    };
    Ok((conversion_source, measure))
}

/// A column pair (`what`: entity, constant) as (the base column, the
/// conversion column), each a column of its side's source.
fn column_pair(
    p: &ColumnPair,
    what: &str,
    source: &SourceSpec,
    target: &SourceSpec,
) -> Result<(String, String), String> {
    let has = |spec: &SourceSpec, column: &str| spec.columns.iter().any(|x| x.name == column);
    let (b, v) = p.sides();
    if !has(source, b) {
        return Err(format!(
            "{what}: `{b}` is not a column of `{}` (the base side)",
            source.name
        ));
    }
    if !has(target, v) {
        return Err(format!(
            "{what}: `{v}` is not a column of `{}` (the conversion side); name each side's column as {{ base: …, conversion: … }}",
            target.name
        ));
    }
    Ok((b.to_string(), v.to_string()))
}

/// Each side's time column: the one `time` names, else the source's
/// default time column.
fn time_columns(
    time: Option<&ColumnPair>,
    source: &SourceSpec,
    target: &SourceSpec,
    field: &str,
) -> Result<(String, String), String> {
    let (base_time, conversion_time) = match time {
        Some(p) => {
            let (b, v) = p.sides();
            (Some(b.to_string()), Some(v.to_string()))
        }
        None => (None, None),
    };
    Ok((
        time_column(base_time.as_ref(), source, field)
            .map_err(|e| format!("time (the base side, `{}`): {e}", source.name))?,
        time_column(conversion_time.as_ref(), target, field)
            .map_err(|e| format!("time (the conversion side, `{}`): {e}", target.name))?,
    ))
}

/// A base or conversion measure's aggregate and filter: it must be a
/// plain aggregate of its source's rows.
fn plain_measure(m: &MeasureSpec, role: &str) -> Result<(SqlExpr, Option<SqlExpr>), String> {
    let kind = if m.conversion.is_some() {
        Some("a conversion measure")
    } else if m.cumulative.is_some() {
        Some("cumulative")
    } else if m.offset.is_some() {
        Some("an offset measure")
    } else if m.non_additive.is_some() {
        Some("non-additive")
    } else {
        None
    };
    if let Some(kind) = kind {
        return Err(format!(
            "{role}: `{}` is {kind}; the {role} events are counted by a plain aggregate (sum(x), count(*), …)",
            m.name
        ));
    }
    let problem = || format!("{role}: `{}` does not parse (see its own entry)", m.name);
    let expr = SqlExpr::parse(&m.expr, &SqlLimits::default()).map_err(|_| problem())?;
    if !is_aggregate(&expr) || expr.has_subquery() {
        return Err(format!(
            "{role}: `{}` combines other measures; the {role} events are counted by a plain aggregate of its source's rows (sum(x), count(*), …)",
            m.name
        ));
    }
    let filter = match m.filter.as_deref() {
        None => None,
        Some(f) => Some(SqlExpr::parse(f, &SqlLimits::default()).map_err(|_| problem())?),
    };
    Ok((expr, filter))
}
