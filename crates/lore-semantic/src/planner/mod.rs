//! The planner: from a [`SemanticQuery`] to one SQL statement.
//!
//! Measures are grouped by the source they aggregate. Each group becomes
//! one aggregating CTE that joins, from the measure's source, every source
//! its dimensions and filters need (shortest paths, see [`paths`]):
//!
//! - When every join on the way is many-to-one (or one-to-one), rows of the
//!   measure's source are never repeated, so the CTE joins and groups
//!   directly.
//! - When a join is one-to-many (the *fan trap*: a customer's revenue
//!   grouped by the priority of its tickets), the CTE first takes the
//!   distinct pairs (grain of the measure's source, dimension values) and
//!   only then joins the source back and aggregates, so each row counts
//!   once per group it belongs to: never inflated, never refused.
//!
//! Several groups (the *chasm trap*: revenue and ticket counts by account
//! segment) are aggregated separately and joined on their dimension values
//! through a spine of every combination any group produced, with null-safe
//! equality. Derived measures are computed over the aggregated columns,
//! divisions guarded with `NULLIF`. Conditions on measures become a filter
//! over the aggregated result (HAVING).

mod clickhouse;
mod conversion_metric;
mod cumulative_offset;
mod non_additive;
mod render;
mod resolve;
mod sql;

use lore_core::limits::{SqlLimits, with_stack_budget};
use serde::Serialize;

use crate::dialect::{Dialect, Granularity};
use crate::error::SemanticError;
use crate::model::expr::SqlExpr;
use crate::model::{Conversion, Cumulative, NonAdditive, Offset, SemanticModel};
use crate::query::SemanticQuery;

use render::render;
use resolve::resolve;

/// The default row limit of a query.
pub const DEFAULT_LIMIT: u64 = 1000;

/// A compiled query.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompiledQuery {
    /// The SQL, for the connection's dialect.
    pub sql: String,
    /// Output columns in order.
    pub columns: Vec<OutputColumn>,
    /// What the planner did that a reader should know (fan and chasm
    /// handling), in plain words.
    pub notes: Vec<String>,
    /// How each measure group is computed.
    pub plan: Vec<GroupPlan>,
}

/// One output column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutputColumn {
    /// Its name in the result.
    pub name: String,
    /// `dimension` or `measure`.
    pub kind: &'static str,
}

/// How the measures of one source are computed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupPlan {
    /// The source aggregated.
    pub source: String,
    /// The measures computed from it (output names; hidden helpers of
    /// derived measures included).
    pub measures: Vec<String>,
    /// The join paths taken, as `a -> b -> c`.
    pub joins: Vec<String>,
    /// `direct`, or `distinct_keys` when a one-to-many join had to be
    /// neutralised.
    pub strategy: &'static str,
    /// For a cumulative measure: the rows each day counts, over which time
    /// column, and the value a coarser period shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<String>,
}

/// Which resolved measure a reference means: `Ok(i)` is `bases[i]`, a
/// measure aggregated from rows; `Err(k)` is `derived[k]`, computed from
/// other measures.
pub(crate) type MeasureId = Result<usize, usize>;

/// References of an expression (joined with `.`) and the measures they mean.
pub(crate) type MeasureRefs = Vec<(String, MeasureId)>;

/// A dimension, resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Dim {
    pub output: String,
    /// The source the column belongs to.
    pub source: usize,
    /// The node it is reached as: the source, or an alias of it.
    pub node: usize,
    pub column: String,
    pub granularity: Option<Granularity>,
}

/// A measure that aggregates one source's rows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BaseMeasure {
    pub output: String,
    pub source: usize,
    pub expr: SqlExpr,
    pub filter: Option<SqlExpr>,
    /// Its running window over time, for a cumulative measure.
    pub cumulative: Option<Cumulative>,
    /// Its shift in time, for an offset measure.
    pub offset: Option<Offset>,
    /// The day whose rows count, for a non-additive measure.
    pub non_additive: Option<NonAdditive>,
    /// For the conversions of a conversion measure: the conversion rows
    /// matched to this measure's rows (`expr` and `filter` are the base
    /// measure's, `source` the base source).
    pub conversion: Option<Conversion>,
    pub visible: bool,
}

/// A measure computed from others.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DerivedMeasure {
    pub output: String,
    pub expr: SqlExpr,
    /// Each reference of `expr` (joined with `.`) and the measure it means:
    /// `Ok(base index)` or `Err(derived index)`.
    pub refs: MeasureRefs,
    pub visible: bool,
}

/// A query condition over columns (WHERE), with the sources it needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RowFilter {
    pub expr: SqlExpr,
    /// The source unqualified columns belong to (segments), if any.
    pub home: Option<usize>,
    /// The nodes (sources or aliases) its columns are read from.
    pub sources: Vec<usize>,
}

/// Everything the renderer needs.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub dims: Vec<Dim>,
    pub bases: Vec<BaseMeasure>,
    pub derived: Vec<DerivedMeasure>,
    /// Output order of measures: `Ok(base)` or `Err(derived)`.
    pub measure_order: Vec<MeasureId>,
    pub row_filters: Vec<RowFilter>,
    /// Conditions over measures, with their references resolved.
    pub having: Vec<(SqlExpr, MeasureRefs)>,
    pub order: Vec<(String, bool)>,
    pub limit: u64,
    /// List every value of each dimension, even without rows.
    pub include_empty: bool,
}

/// Compiles `query` against `model` for `dialect`. Every expression the
/// query holds is measured against `limits` before it is parsed, and the
/// whole compilation (its trees dropped included) runs within the SQL
/// stack budget.
pub fn compile(
    model: &SemanticModel,
    query: &SemanticQuery,
    dialect: Dialect,
    limits: &SqlLimits,
) -> Result<CompiledQuery, SemanticError> {
    with_stack_budget(|| {
        let resolved = resolve(model, query, limits)?;
        render(model, &resolved, dialect)
    })
}
