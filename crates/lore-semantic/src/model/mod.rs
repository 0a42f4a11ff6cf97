//! The semantic model: sources with grain, typed columns, joins, measures
//! and segments, loaded from `semantic-layer/<connection>/*.yaml` and
//! validated as a whole.
//!
//! The YAML format (one source per file, or a list):
//!
//! ```yaml
//! name: orders
//! description: Paid order facts        # or descriptions: {user, ai, dbt, db}
//! table: public.orders                 # exactly one of table | sql
//! grain: [id]
//! columns:
//!   - { name: id, type: number }
//!   - { name: amount_cents, type: number }
//!   - { name: amount, type: number, expr: "amount_cents / 100.0" }
//!   - { name: created_at, type: time }
//! joins:
//!   - { to: customers, "on": "customer_id = customers.id", relationship: many_to_one }
//! measures:
//!   - { name: revenue, expr: "sum(amount)", filter: "status = 'paid'" }
//!   - { name: north_revenue, expr: "sum(amount)", filter: "customers.region = 'north'" }
//! segments:
//!   - { name: paid, expr: "status = 'paid'" }
//! ```
//!
//! A measure's filter reads the source's own columns, or columns of a
//! source it reaches by many-to-one (one-to-one) joins only.
//!
//! A *cumulative* measure is a running aggregate over one of the source's
//! time columns: for each day, the rows of a trailing window up to it
//! (`window: 7 days`), of the period so far (`grain_to_date: month`), or
//! of all time before it (neither). A period coarser than a day shows
//! the value of its first day (`period_agg: first`), its last, or their
//! average. A source marked `time_spine: <column>` lists every day:
//! cumulative measures run over its days (else over the days from their
//! first row to the last day their window covers).
//!
//! A *non-additive* measure (a balance) counts only the rows of the last
//! (or first) day of its time column, in each queried period of that
//! column and for each value of its `per` columns
//! (`non_additive: { time: taken_at, keep: last, per: [account_id] }`).
//!
//! An *offset* measure reads an earlier day's rows: each day shows the
//! rows of the day a `window` before it, or of the first day of its
//! `to_grain` period (`offset: { window: 1 month }`), for period-over-period
//! comparisons with the measure itself.
//!
//! ```yaml
//! measures:
//!   - name: revenue_7d
//!     expr: "sum(amount)"
//!     cumulative: { time: created_at, window: 7 days }
//!   - name: revenue_mtd
//!     expr: "sum(amount)"
//!     cumulative: { grain_to_date: month, period_agg: last }
//! ```
//!
//! A *conversion* measure counts the rows of a conversion measure (orders)
//! that follow a row of a base measure (visits) of the same entity: each
//! conversion row is matched to the latest base row of its entity on or
//! before its day (within `window`, and with equal `constant` columns),
//! counted once, in that base row's groups (its dimensions and time); the
//! rate divides by the base measure over the same groups
//! (`calculation: rate`, the default, or `count`).
//!
//! ```yaml
//! measures:
//!   - { name: visits, expr: "count(*)" }
//!   - name: visit_to_order_7d
//!     conversion:
//!       base: visits
//!       conversion: orders.order_count
//!       entity: customer_id
//!       window: 7 days
//!       constant: [{ base: channel, conversion: channel }]
//! ```

mod cache;
mod conversion_metric;
pub mod expr;
pub mod join_paths;
mod load;
mod time;
mod validate;
pub(crate) use validate::SUBQUERY_IN_MEASURE;

use std::collections::HashMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use cache::ModelCache;
pub use conversion_metric::{Calculation, ColumnPair, Conversion, ConversionSpec};
pub use expr::SqlExpr;
pub use load::{is_model_file_name, load_dir, load_sources, parse_file};

use crate::dialect::Granularity;
use crate::error::ModelIssue;

/// The type of a column, as dimensions see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    /// Text.
    String,
    /// A number.
    Number,
    /// A date or timestamp (granularities apply).
    Time,
    /// True or false.
    Boolean,
}

/// Who may see a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Listed and queryable.
    #[default]
    Public,
    /// Queryable, not listed by default.
    Internal,
    /// Only usable inside the model (joins, measure expressions).
    Hidden,
}

/// How many rows of the target a row of the source matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cardinality {
    /// Many source rows to one target row (orders → customers).
    ManyToOne,
    /// One source row to many target rows (customers → orders).
    OneToMany,
    /// One to one.
    OneToOne,
}

impl Cardinality {
    /// The same join seen from the other side.
    pub fn reversed(self) -> Cardinality {
        match self {
            Cardinality::ManyToOne => Cardinality::OneToMany,
            Cardinality::OneToMany => Cardinality::ManyToOne,
            Cardinality::OneToOne => Cardinality::OneToOne,
        }
    }
}

/// Descriptions by origin; the first present of user, ai, dbt, db wins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Descriptions {
    /// Written by a person.
    pub user: Option<String>,
    /// Written by an agent.
    pub ai: Option<String>,
    /// From dbt.
    pub dbt: Option<String>,
    /// From the database's comments.
    pub db: Option<String>,
}

impl Descriptions {
    /// The description to show: `description` (a person's), else by
    /// priority user > ai > dbt > db.
    pub fn pick(
        description: Option<&String>,
        descriptions: Option<&Descriptions>,
    ) -> Option<String> {
        description
            .or_else(|| {
                descriptions.and_then(|d| {
                    d.user
                        .as_ref()
                        .or(d.ai.as_ref())
                        .or(d.dbt.as_ref())
                        .or(d.db.as_ref())
                })
            })
            .cloned()
    }
}

/// A column as written in YAML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnSpec {
    /// Column name (the physical name unless `expr` computes it).
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub column_type: ColumnType,
    /// A SQL expression over the source's other columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expr: Option<String>,
    /// Who may see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Visibility>,
    /// `time` marks the source's main time column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// A person's description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Descriptions by origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descriptions: Option<Descriptions>,
}

/// A join as written in YAML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinSpec {
    /// The target source.
    pub to: String,
    /// The condition: this source's columns unqualified (or qualified with
    /// its name), the target's qualified with its name or alias.
    pub on: String,
    /// Rows of the target per row of this source.
    pub relationship: Cardinality,
    /// Another name for the target through this join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
}

/// Which day's value a period coarser than a day shows for a cumulative
/// measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PeriodAgg {
    /// The value of the period's first day (MetricFlow's default).
    #[default]
    First,
    /// The value of its last day.
    Last,
    /// The average of its days' values.
    Average,
}

impl PeriodAgg {
    /// The name as written in YAML.
    pub fn as_str(self) -> &'static str {
        match self {
            PeriodAgg::First => "first",
            PeriodAgg::Last => "last",
            PeriodAgg::Average => "average",
        }
    }
}

/// How a cumulative measure runs over time, as written in YAML.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CumulativeSpec {
    /// The time column it runs over (default: the column with `role:
    /// time`, else the source's only time column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// A trailing window: `7 days`, `2 weeks`, `1 month`, `1 quarter`,
    /// `1 year`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// Or since the start of the period: `day`, `week`, `month`,
    /// `quarter` or `year` (neither: all time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grain_to_date: Option<String>,
    /// The value a period coarser than a day shows (default `first`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_agg: Option<PeriodAgg>,
}

/// The rows a cumulative measure aggregates for one day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunningWindow {
    /// Every row up to the day.
    AllTime,
    /// The rows of the `count` units up to the day (the day included).
    Trailing {
        /// How many units.
        count: u32,
        /// The unit.
        unit: Granularity,
    },
    /// The rows since the start of the day's period.
    ToDate(Granularity),
}

/// Parses a span of time: `7 days`, `1 month`, `2 weeks` (singular or
/// plural units among day, week, month, quarter, year).
pub fn parse_span(text: &str) -> Result<(u32, Granularity), String> {
    let problem = || {
        format!(
            "window `{text}` is not `<count> <unit>` with a unit among day, week, month, quarter, year (e.g. `7 days`)"
        )
    };
    let mut words = text.split_whitespace();
    let (Some(count), Some(unit), None) = (words.next(), words.next(), words.next()) else {
        return Err(problem());
    };
    let count: u32 = count.parse().map_err(|_| problem())?;
    if count == 0 {
        return Err(format!("window `{text}` must be at least one unit long"));
    }
    let unit = unit.to_ascii_lowercase();
    let unit = Granularity::parse(unit.strip_suffix('s').unwrap_or(&unit)).ok_or_else(problem)?;
    Ok((count, unit))
}

impl RunningWindow {
    /// Parses `7 days`, `1 month`, `2 weeks` (singular or plural units).
    pub fn parse_trailing(text: &str) -> Result<RunningWindow, String> {
        let (count, unit) = parse_span(text)?;
        Ok(RunningWindow::Trailing { count, unit })
    }

    /// In words, for notes: `the rows of the 7 days up to the day`.
    pub fn describe(self) -> String {
        match self {
            RunningWindow::AllTime => "every row up to the day".to_string(),
            RunningWindow::Trailing { count, unit } => format!(
                "the rows of the {count} {}{} up to the day",
                unit.as_str(),
                if count == 1 { "" } else { "s" }
            ),
            RunningWindow::ToDate(g) => {
                format!("the rows since the start of the day's {}", g.as_str())
            }
        }
    }
}

/// A validated cumulative measure's running window.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cumulative {
    /// The source's time column it runs over.
    pub time: String,
    /// Which rows count for a day.
    pub window: RunningWindow,
    /// The value a period coarser than a day shows.
    pub period_agg: PeriodAgg,
}

/// A measure read at an earlier time, as written in YAML: each period
/// shows the rows of the day `window` before each of its days, or of the
/// first day of its `to_grain` period (MetricFlow's `offset_window` and
/// `offset_to_grain`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OffsetSpec {
    /// The time column it is shifted along (default as for cumulative
    /// measures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// How far back: `1 month`, `7 days`, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// Or back to the start of the period: `day`, `week`, `month`,
    /// `quarter` or `year`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_grain: Option<String>,
}

/// Which earlier day an offset measure reads for a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeOffset {
    /// The day `count` units before.
    Window {
        /// How many units.
        count: u32,
        /// The unit.
        unit: Granularity,
    },
    /// The first day of the day's period.
    ToGrain(Granularity),
}

impl TimeOffset {
    /// In words, for notes: `the rows of the day 1 month before`.
    pub fn describe(self) -> String {
        match self {
            TimeOffset::Window { count, unit } => format!(
                "the rows of the day {count} {}{} before",
                unit.as_str(),
                if count == 1 { "" } else { "s" }
            ),
            TimeOffset::ToGrain(g) => {
                format!("the rows of the first day of the day's {}", g.as_str())
            }
        }
    }
}

/// A validated offset measure's shift in time.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Offset {
    /// The source's time column it is shifted along.
    pub time: String,
    /// Which earlier day it reads.
    pub by: TimeOffset,
}

/// Which day's rows a non-additive (semi-additive) measure keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Keep {
    /// The rows of the last day (a balance at the end of the period).
    #[default]
    Last,
    /// The rows of the first day.
    First,
}

/// A measure that cannot be added up over time (a balance, a head
/// count), as written in YAML: only the rows of the last (or first) day
/// of its time column count, per queried period of that column and per
/// the `per` columns (MetricFlow's `non_additive_dimension`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NonAdditiveSpec {
    /// The time column (default as for cumulative measures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// `last` (default) or `first`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep: Option<Keep>,
    /// Columns of the source each having its own last day (an account's
    /// last balance, whenever it was taken).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per: Vec<String>,
}

/// A validated non-additive measure's day choice.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NonAdditive {
    /// The source's time column.
    pub time: String,
    /// Which day's rows count.
    pub keep: Keep,
    /// Columns of the source with a last day each.
    pub per: Vec<String>,
}

/// A measure as written in YAML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasureSpec {
    /// Measure name.
    pub name: String,
    /// An aggregate over the source's columns (`sum(amount)`), or an
    /// expression over other measures of the model (`revenue / orders`);
    /// left out for a conversion measure.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub expr: String,
    /// Only rows matching this condition count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// A running aggregate over a time column, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cumulative: Option<CumulativeSpec>,
    /// Read at an earlier time, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<OffsetSpec>,
    /// Counts the rows of one day only (semi-additive), when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub non_additive: Option<NonAdditiveSpec>,
    /// Base rows followed by conversion rows, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversion: Option<ConversionSpec>,
    /// A person's description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Descriptions by origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descriptions: Option<Descriptions>,
}

/// A segment (a named filter) as written in YAML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentSpec {
    /// Segment name.
    pub name: String,
    /// The condition over the source's columns.
    pub expr: String,
    /// What it selects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A source as written in YAML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceSpec {
    /// Source name, unique in the connection's model.
    pub name: String,
    /// A person's description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Descriptions by origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descriptions: Option<Descriptions>,
    /// The table (`schema.table` or `table`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// Or a query whose rows are the source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<String>,
    /// The column of this source that lists every day, when the source is
    /// the model's time spine (at most one source is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_spine: Option<String>,
    /// The columns that identify one row.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grain: Vec<String>,
    /// Typed columns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<ColumnSpec>,
    /// Joins to other sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joins: Vec<JoinSpec>,
    /// Aggregates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measures: Vec<MeasureSpec>,
    /// Named filters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<SegmentSpec>,
}

/// A validated column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Name.
    pub name: String,
    /// Type.
    pub column_type: ColumnType,
    /// The computing expression, if any.
    pub expr: Option<SqlExpr>,
    /// Visibility.
    pub visibility: Visibility,
    /// The description shown to agents.
    pub description: Option<String>,
}

/// A validated join, from the source that declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    /// Index of the target source.
    pub target: usize,
    /// The name the target is reached by (its alias, else its name).
    pub name: String,
    /// The condition.
    pub on: SqlExpr,
    /// Rows of the target per row of the declaring source.
    pub cardinality: Cardinality,
}

/// A validated measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    /// Name.
    pub name: String,
    /// The aggregate, or an expression over other measures.
    pub expr: SqlExpr,
    /// Whether `expr` combines other measures instead of aggregating.
    pub derived: bool,
    /// Row condition.
    pub filter: Option<SqlExpr>,
    /// The running window, for a cumulative measure.
    pub cumulative: Option<Cumulative>,
    /// The shift in time, for an offset measure.
    pub offset: Option<Offset>,
    /// The day whose rows count, for a non-additive measure.
    pub non_additive: Option<NonAdditive>,
    /// The conversion rows matched to the base rows, for a conversion
    /// measure.
    pub conversion: Option<Conversion>,
    /// The description shown to agents.
    pub description: Option<String>,
}

/// A validated segment.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// Name.
    pub name: String,
    /// The condition.
    pub expr: SqlExpr,
    /// What it selects.
    pub description: Option<String>,
}

/// Where a source's rows come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Relation {
    /// A table, `schema.table` or `table`.
    Table(String),
    /// A query.
    Sql(String),
}

/// A validated source.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// Name.
    pub name: String,
    /// The description shown to agents.
    pub description: Option<String>,
    /// Where its rows come from.
    pub relation: Relation,
    /// The columns that identify one row (may be empty).
    pub grain: Vec<String>,
    /// Its column listing every day, when it is the model's time spine.
    pub time_spine: Option<String>,
    /// Columns.
    pub columns: Vec<Column>,
    /// Joins it declares.
    pub joins: Vec<Join>,
    /// Measures.
    pub measures: Vec<Measure>,
    /// Segments.
    pub segments: Vec<Segment>,
    /// The file it was read from.
    pub file: PathBuf,
    /// The source as written (for `sl_read_source`).
    pub spec: SourceSpec,
}

impl Source {
    /// The source as YAML, in the model file format.
    pub fn to_yaml(&self) -> String {
        let mut yaml = serde_saphyr::to_string(&self.spec)
            .unwrap_or_else(|e| format!("# cannot render: {e}\n"));
        if !yaml.ends_with('\n') {
            yaml.push('\n');
        }
        yaml
    }

    /// The column named `name` ([`position_by_name`] rules).
    pub fn column(&self, name: &str) -> Option<&Column> {
        position_by_name(&self.columns, name, |c| &c.name).map(|i| &self.columns[i])
    }

    /// The measure named `name` ([`position_by_name`] rules).
    pub fn measure(&self, name: &str) -> Option<&Measure> {
        self.measure_index(name).map(|i| &self.measures[i])
    }

    /// The position of the measure named `name` ([`position_by_name`] rules).
    pub fn measure_index(&self, name: &str) -> Option<usize> {
        position_by_name(&self.measures, name, |m| &m.name)
    }

    /// The segment named `name` ([`position_by_name`] rules).
    pub fn segment(&self, name: &str) -> Option<&Segment> {
        position_by_name(&self.segments, name, |s| &s.name).map(|i| &self.segments[i])
    }
}

/// The position of the item named `name`: spelled exactly, else the only
/// one whose name differs in case alone (`customers.country` finds a
/// model generated as `CUSTOMERS.COUNTRY`, as the warehouses that fold
/// unquoted names find the object). Two names differing in case alone
/// need the exact one.
pub fn position_by_name<T>(items: &[T], name: &str, name_of: impl Fn(&T) -> &str) -> Option<usize> {
    items.iter().position(|x| name_of(x) == name).or_else(|| {
        let mut folded =
            (0..items.len()).filter(|&i| name_of(&items[i]).eq_ignore_ascii_case(name));
        match (folded.next(), folded.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    })
}

/// A connection's whole semantic model.
#[derive(Debug, Clone, Default)]
pub struct SemanticModel {
    /// Sources, in file order.
    pub sources: Vec<Source>,
    /// Problems that do not stop queries (a source no join reaches).
    pub warnings: Vec<ModelIssue>,
    by_name: HashMap<String, usize>,
    /// The joins as a graph, built on first use and kept with the model
    /// (cached models are compiled against many times).
    join_graph: std::sync::OnceLock<join_paths::JoinGraph>,
}

impl SemanticModel {
    /// The model's join graph.
    pub(crate) fn join_graph(&self) -> &join_paths::JoinGraph {
        self.join_graph
            .get_or_init(|| join_paths::JoinGraph::new(self))
    }

    /// The index of the source named `name`.
    /// Named as [`Source::column`] finds columns: exactly, else the only
    /// source whose name differs in case alone.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name
            .get(name)
            .copied()
            .or_else(|| position_by_name(&self.sources, name, |s| &s.name))
    }

    /// The source named `name`.
    pub fn source(&self, name: &str) -> Option<&Source> {
        self.index_of(name).map(|i| &self.sources[i])
    }

    /// The model's time spine: the source listing every day and that
    /// column, when one is marked `time_spine`.
    pub fn time_spine(&self) -> Option<(usize, &str)> {
        self.sources
            .iter()
            .enumerate()
            .find_map(|(i, s)| s.time_spine.as_deref().map(|c| (i, c)))
    }

    /// Source names, sorted.
    pub fn source_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.sources.iter().map(|s| s.name.clone()).collect();
        names.sort();
        names
    }
}
