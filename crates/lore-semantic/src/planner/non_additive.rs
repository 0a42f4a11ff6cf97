//! Non-additive (semi-additive) measures: a balance or a head count is
//! not added up over days, so only the rows of the last (or first) day of
//! the measure's time column count, chosen per queried period of that
//! column and per value of the measure's `per` columns, among the rows
//! the query's filters and the measure's own filter keep (MetricFlow's
//! `non_additive_dimension`). Without that column among the dimensions,
//! the day is the last of all.
//!
//! The group's rows are joined to `last<g>`, the chosen day of each
//! (period, `per` values), right after the measure's source, so the
//! group's own joins and strategy (the fan trap's included) see only
//! those rows.

use super::Resolved;
use super::sql::{Renderer, Tree};
use crate::dialect::Granularity;
use crate::error::SemanticError;
use crate::model::Keep;

impl Renderer<'_> {
    /// The CTE `last<g>` for non-additive base measure `j`, group `g`
    /// (its joins and filters read through `tree`), and the join that
    /// keeps the group's rows to the chosen days.
    pub(super) fn last_day(
        &self,
        r: &Resolved,
        g: usize,
        j: usize,
        tree: &Tree,
        group_by: impl Fn(&[String]) -> String,
    ) -> Result<(String, String), SemanticError> {
        let root = r.bases[j].source;
        let Some(na) = r.bases[j].non_additive.as_ref() else {
            return Err(SemanticError::query(format!(
                "`{}` is not a non-additive measure",
                r.bases[j].output
            )));
        };
        let day = self
            .dialect
            .time_trunc(&self.column(root, &na.time, "t0", 0)?, Granularity::Day);
        // What the day is chosen per: the queried periods of the time
        // column, and the `per` columns.
        let mut keys = Vec::new();
        for (i, d) in r.dims.iter().enumerate() {
            if d.node == root && d.column == na.time {
                keys.push(self.dimension(r, i, tree)?);
            }
        }
        for column in &na.per {
            keys.push(self.column(root, column, "t0", 0)?);
        }
        let names: Vec<String> = (0..keys.len()).map(|i| self.q(&format!("k{i}"))).collect();
        let mut select: Vec<String> = keys
            .iter()
            .zip(&names)
            .map(|(k, n)| format!("{k} AS {n}"))
            .collect();
        let chosen = self.q("day");
        select.push(format!(
            "{}({day}) AS {chosen}",
            match na.keep {
                Keep::Last => "MAX",
                Keep::First => "MIN",
            }
        ));
        let mut conditions = Vec::new();
        for f in &r.row_filters {
            conditions.push(self.row_filter(f, tree)?);
        }
        if let Some(filter) = self.measure_filter(r, j, tree)? {
            conditions.push(format!("({filter})"));
        }
        let cte = format!(
            "last{g} AS (\n  SELECT {}\n  {}{}{}\n)",
            select.join(", "),
            self.joins_clause(tree)?,
            super::sql::where_text(&conditions),
            group_by(&names)
        );
        let mut on = vec![format!("{day} = nl.{chosen}")];
        on.extend(
            keys.iter()
                .zip(&names)
                .map(|(k, n)| format!("{k} = nl.{n}")),
        );
        Ok((cte, format!("\n  JOIN last{g} nl ON {}", on.join(" AND "))))
    }
}
