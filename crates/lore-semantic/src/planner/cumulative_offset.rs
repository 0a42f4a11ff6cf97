//! Measures computed day by day over a spine of days: cumulative measures
//! (a running aggregate over one of the source's time columns) and
//! offset measures (the rows of an earlier day).
//!
//! For each day `d` of the spine (the model's `time_spine` source, else
//! the days from the measure's first row to the last day it reaches),
//! the rows whose day falls in the window ending at `d` (cumulative), or
//! is the day the offset reads for `d`, are aggregated with the query's
//! other dimensions: `days JOIN source ON condition(d)`, then the group's
//! joins as for any measure (the fan-trap strategy included). A day that
//! reads no row has no value, as in MetricFlow (an inner join to its
//! time spine). When the query's periods are coarser than a day, a
//! cumulative measure's period shows the value of its first day, its
//! last, or their average (`period_agg`), for each combination of the
//! other dimensions; an offset measure aggregates the rows all its days
//! read (a period's start only, for `to_grain`), as MetricFlow does.

use super::sql::{Renderer, Tree, where_text};
use super::{Resolved, RowFilter};
use crate::dialect::{Dialect, Granularity};
use crate::error::SemanticError;
use crate::model::{Cumulative, Offset, PeriodAgg, RunningWindow, SemanticModel, TimeOffset};

/// The alias of the spine of days in a cumulative group's query.
const SPINE: &str = "sd";

/// The column holding each row's day before periods are reduced.
pub(super) const SPINE_DAY: &str = "spine_day";

/// What a measure computed over the days does with each day.
pub(super) enum Over {
    /// Aggregates the rows of the day's window.
    Cumulative(Cumulative),
    /// Aggregates the rows of an earlier day.
    Offset(Offset),
}

/// How a cumulative or offset measure runs in one query.
pub(super) struct Running {
    /// What it does with each day.
    pub over: Over,
    /// The query's dimensions on the measure's time column.
    pub time_dims: Vec<usize>,
    /// Whether a cumulative measure's periods are coarser than a day, so
    /// that each shows one day's value (or their average).
    pub reduce: bool,
}

impl Running {
    /// The source's time column it runs along.
    pub fn time(&self) -> &str {
        match &self.over {
            Over::Cumulative(c) => &c.time,
            Over::Offset(o) => &o.time,
        }
    }

    /// Which day's value a coarser period shows (cumulative measures).
    pub fn period_agg(&self) -> PeriodAgg {
        match &self.over {
            Over::Cumulative(c) => c.period_agg,
            Over::Offset(_) => PeriodAgg::First,
        }
    }

    /// The group plan's line: what each day reads, and how periods
    /// combine days.
    pub fn plan_text(&self, source: &str) -> String {
        match &self.over {
            Over::Cumulative(c) => format!(
                "cumulative over {source}.{}: {}{}",
                c.time,
                c.window.describe(),
                if self.reduce {
                    format!("; period_agg {} per period", c.period_agg.as_str())
                } else {
                    String::new()
                }
            ),
            Over::Offset(o) => format!("offset along {source}.{}: {}", o.time, o.by.describe()),
        }
    }
}

/// How base measure `j` runs in this query: `None` when it aggregates as
/// any measure does (it is not cumulative, or it runs over all time and
/// the query does not group by its time column: then it is the total of
/// every row, as MetricFlow answers). A window or period-to-date measure
/// needs its time column among the dimensions, with a granularity.
pub(super) fn running(
    model: &SemanticModel,
    r: &Resolved,
    j: usize,
) -> Result<Option<Running>, SemanticError> {
    let b = &r.bases[j];
    let (over, time, needs_time) = match (&b.cumulative, &b.offset) {
        (None, None) => return Ok(None),
        (Some(c), _) => (
            Over::Cumulative(c.clone()),
            c.time.clone(),
            (c.window != RunningWindow::AllTime).then(|| c.window.describe()),
        ),
        (None, Some(o)) => (
            Over::Offset(o.clone()),
            o.time.clone(),
            Some(o.by.describe()),
        ),
    };
    let kind = match over {
        Over::Cumulative(_) => "cumulative over",
        Over::Offset(_) => "offset along",
    };
    let source = &model.sources[b.source].name;
    let time_dims: Vec<usize> = r
        .dims
        .iter()
        .enumerate()
        .filter(|(_, d)| d.node == b.source && d.column == time)
        .map(|(i, _)| i)
        .collect();
    if time_dims.is_empty() {
        return match needs_time {
            None => Ok(None),
            Some(what) => Err(SemanticError::query(format!(
                "`{}` is {kind} `{source}.{time}` ({what}): group by `{source}.{time}` with a granularity (day, week, month, quarter or year) to get its value per period",
                b.output
            ))),
        };
    }
    let mut reduce = matches!(over, Over::Cumulative(_));
    for &i in &time_dims {
        match r.dims[i].granularity {
            None => {
                return Err(SemanticError::query(format!(
                    "`{}` is {kind} `{source}.{time}`: give that dimension a granularity (day, week, month, quarter or year), e.g. {{\"field\": \"{source}.{time}\", \"granularity\": \"day\"}}",
                    b.output
                )));
            }
            Some(Granularity::Day) => reduce = false,
            Some(_) => {}
        }
    }
    Ok(Some(Running {
        over,
        time_dims,
        reduce,
    }))
}

/// `row_day` is read for `spine_day`: in the window that ends on it, or
/// the earlier day the offset reads.
fn day_condition(dialect: Dialect, row_day: &str, spine_day: &str, over: &Over) -> String {
    let up_to = format!("{row_day} <= {spine_day}");
    match over {
        Over::Cumulative(c) => match c.window {
            RunningWindow::AllTime => up_to,
            RunningWindow::Trailing { count, unit } => format!(
                "{up_to} AND {row_day} > {}",
                dialect.shift(spine_day, -i64::from(count), unit)
            ),
            RunningWindow::ToDate(period) => format!(
                "{up_to} AND {row_day} >= {}",
                dialect.time_trunc(spine_day, period)
            ),
        },
        Over::Offset(o) => match o.by {
            TimeOffset::Window { count, unit } => format!(
                "{row_day} = {}",
                dialect.shift(spine_day, -i64::from(count), unit)
            ),
            TimeOffset::ToGrain(period) => {
                format!("{row_day} = {}", dialect.time_trunc(spine_day, period))
            }
        },
    }
}

impl Renderer<'_> {
    /// The spine's day in a cumulative group's query.
    pub(super) fn spine_day(&self) -> String {
        format!("{SPINE}.{}", self.q("d"))
    }

    /// The CTEs listing group `g`'s days as `days<g>` (column `d`), and
    /// whether one of them reads itself (`WITH RECURSIVE`).
    pub(super) fn spine_days(
        &self,
        root: usize,
        run: &Running,
        g: usize,
    ) -> Result<(Vec<String>, bool), SemanticError> {
        let d = self.q("d");
        if let Some((spine, column)) = self.model.time_spine() {
            let day = self
                .dialect
                .time_trunc(&self.column(spine, column, "t0", 0)?, Granularity::Day);
            return Ok((
                vec![format!(
                    "days{g} AS (\n  SELECT DISTINCT {day} AS {d}\n  FROM {}\n  WHERE {day} IS NOT NULL\n)",
                    self.relation(spine, "t0")
                )],
                false,
            ));
        }
        let day = self
            .dialect
            .time_trunc(&self.column(root, run.time(), "t0", 0)?, Granularity::Day);
        let last = format!("MAX({day})");
        // The last day that reads a row.
        let hi = match &run.over {
            Over::Cumulative(c) => match c.window {
                RunningWindow::AllTime => last,
                RunningWindow::Trailing { count, unit } => {
                    self.dialect.shift(&last, i64::from(count), unit)
                }
                RunningWindow::ToDate(period) => self.dialect.shift(&last, 1, period),
            },
            // Three days more: March 29 to 31 all read February 29 a
            // month back.
            Over::Offset(o) => match o.by {
                TimeOffset::Window { count, unit } => self.dialect.shift(
                    &self.dialect.shift(&last, i64::from(count), unit),
                    3,
                    Granularity::Day,
                ),
                TimeOffset::ToGrain(period) => self.dialect.shift(&last, 1, period),
            },
        };
        let bounds = format!("bounds{g}");
        let (series, recursive) = self.dialect.day_series(&bounds, &format!("days{g}"));
        Ok((
            vec![
                format!(
                    "{bounds} AS (\n  SELECT MIN({day}) AS {}, {hi} AS {}\n  FROM {}\n)",
                    self.q("lo"),
                    self.q("hi"),
                    self.relation(root, "t0")
                ),
                format!("days{g} AS (\n  {series}\n)"),
            ],
            recursive,
        ))
    }

    /// The `FROM` of a cumulative group (its days, each joined to the rows
    /// of its window, then the group's joins) and its `WHERE`.
    pub(super) fn running_from(
        &self,
        r: &Resolved,
        tree: &Tree,
        root: usize,
        run: &Running,
        g: usize,
    ) -> Result<(String, String), SemanticError> {
        let spine_day = self.spine_day();
        let row_day = self
            .dialect
            .time_trunc(&self.column(root, run.time(), "t0", 0)?, Granularity::Day);
        let window = day_condition(self.dialect, &row_day, &spine_day, &run.over);
        let relation = self.relation(root, "t0");
        let steps = self.join_steps(tree)?;
        let mut conditions = Vec::new();
        // ClickHouse 18.x joins on equalities only: the window is a
        // condition on the cross join there.
        let from = if self.dialect == Dialect::Clickhouse {
            conditions.push(format!("({window})"));
            format!("FROM days{g} {SPINE}\n  CROSS JOIN {relation}{steps}")
        } else {
            format!("FROM days{g} {SPINE}\n  JOIN {relation} ON {window}{steps}")
        };
        // An offset to the start of a period reads it for the periods'
        // first days only, as MetricFlow does.
        if let Over::Offset(Offset {
            by: TimeOffset::ToGrain(_),
            ..
        }) = &run.over
        {
            for &i in &run.time_dims {
                if let Some(g) = r.dims[i].granularity.filter(|g| *g != Granularity::Day) {
                    conditions.push(format!(
                        "({} = {spine_day})",
                        self.dialect.time_trunc(&spine_day, g)
                    ));
                }
            }
        }
        for f in &r.row_filters {
            conditions.push(match self.spine_filter(f, root, run.time())? {
                Some(sql) => sql,
                None => self.row_filter(f, tree)?,
            });
        }
        Ok((from, where_text(&conditions)))
    }

    /// A filter reading nothing but the measure's time column chooses the
    /// days shown, not the rows counted (a running total keeps the rows
    /// before the first day shown, as in MetricFlow): it is rendered over
    /// the spine's day.
    fn spine_filter(
        &self,
        f: &RowFilter,
        root: usize,
        time: &str,
    ) -> Result<Option<String>, SemanticError> {
        let name = &self.model.sources[root].name;
        let only_time = f.sources == [root]
            && f.expr
                .references()
                .iter()
                .all(|parts| match parts.as_slice() {
                    [c] => f.home == Some(root) && c == time,
                    [s, c] => s == name && c == time,
                    _ => false,
                });
        if !only_time {
            return Ok(None);
        }
        let spine_day = self.spine_day();
        let sql = self.expr(&f.expr.ast, None, &mut |_| Ok(spine_day.clone()))?;
        Ok(Some(format!("({sql})")))
    }
}

/// The CTE `g<g>`: from the daily values of `r<g>`, one value per period
/// (and combination of the other dimensions): the first day's, the last
/// day's, or their average. ClickHouse 18.x has no window functions:
/// `argMin`/`argMax` pick the day there.
pub(super) fn reduction(
    dialect: Dialect,
    g: usize,
    dim_cols: &[String],
    measure: &str,
    agg: PeriodAgg,
) -> String {
    let day = dialect.quote(SPINE_DAY);
    let dims = dim_cols.join(", ");
    let body = match (dialect, agg) {
        (_, PeriodAgg::Average) => {
            format!("SELECT {dims}, AVG({measure}) AS {measure}\n  FROM r{g}\n  GROUP BY {dims}")
        }
        (Dialect::Clickhouse, first_or_last) => format!(
            "SELECT {dims}, {}({measure}, {day}) AS {measure}\n  FROM r{g}\n  GROUP BY {dims}",
            if first_or_last == PeriodAgg::First {
                "argMin"
            } else {
                "argMax"
            }
        ),
        (_, first_or_last) => {
            let rn = dialect.quote("rn");
            format!(
                "SELECT {dims}, {measure}\n  FROM (\n    SELECT {dims}, {measure}, ROW_NUMBER() OVER (PARTITION BY {dims} ORDER BY {day}{}) AS {rn}\n    FROM r{g}\n  ) x\n  WHERE {rn} = 1",
                if first_or_last == PeriodAgg::First {
                    ""
                } else {
                    " DESC"
                }
            )
        }
    };
    format!("g{g} AS (\n  {body}\n)")
}

/// The note explaining a cumulative or offset group.
pub(super) fn note(model: &SemanticModel, r: &Resolved, j: usize, run: &Running) -> String {
    let b = &r.bases[j];
    let source = &model.sources[b.source].name;
    let days = match model.time_spine() {
        Some((spine, _)) => format!("the days of the time spine `{}`", model.sources[spine].name),
        None => "the days from its first row to the last day it reaches".to_string(),
    };
    let (kind, reads) = match &run.over {
        Over::Cumulative(c) => ("cumulative over", c.window.describe()),
        Over::Offset(o) => ("offset along", o.by.describe()),
    };
    let mut text = format!(
        "`{}` is {kind} `{source}.{}`: each day counts {reads} (days: {days}; a day that reads no row has no value)",
        b.output,
        run.time()
    );
    let periods: Vec<&str> = run
        .time_dims
        .iter()
        .filter_map(|&i| r.dims[i].granularity)
        .filter(|g| *g != Granularity::Day)
        .map(Granularity::as_str)
        .collect();
    match &run.over {
        Over::Cumulative(c) if run.reduce => text.push_str(&format!(
            "; each {} shows {}",
            periods.join(", "),
            match c.period_agg {
                PeriodAgg::First => "its first day's value (period_agg: first)",
                PeriodAgg::Last => "its last day's value (period_agg: last)",
                PeriodAgg::Average => "the average of its days' values (period_agg: average)",
            }
        )),
        Over::Offset(o) if !periods.is_empty() => text.push_str(&match o.by {
            TimeOffset::ToGrain(_) => {
                format!("; each {} reads it for its first day", periods.join(", "))
            }
            TimeOffset::Window { .. } => format!(
                "; each {} aggregates what all its days read",
                periods.join(", ")
            ),
        }),
        _ => {}
    }
    text.push('.');
    text
}
