//! Conversion measures: the rows of a conversion measure (orders) that
//! follow a row of a base measure (visits) of the same entity, counted in
//! the base row's groups (MetricFlow's conversion metrics).
//!
//! A conversion group is four steps, each a CTE:
//!
//! - `cb<g>`, the base rows: the base source's rows passing the base
//!   measure's filter and the query's filters, with the query's
//!   dimensions (the group's joins, the fan trap's distinct rows
//!   included), the entity, the constant columns, the day and time, and
//!   the grain;
//! - `cc<g>`, the conversion rows: the conversion source's rows passing
//!   the conversion measure's filter, with the entity, the constant
//!   columns, the day, and the columns its aggregate reads;
//! - `cx<g>`, each conversion row with the dimensions of the base row it
//!   follows: among the base rows of its entity (and constant values) on
//!   or before its day, and after its day less the window, the latest (by
//!   day, then time, then grain). Every dimension combination of that one
//!   base row keeps the conversion row, once. A window function ranks the
//!   candidates (`DENSE_RANK`); ClickHouse 18.x, which has none, picks the
//!   latest with `argMax` per (entity, day, constant values) and joins it
//!   back;
//! - `g<g>`, the conversions per combination of dimensions: the
//!   conversion measure's aggregate over `cx<g>`, listed for every
//!   combination the base rows have (with no value where none converted,
//!   or `fill_nulls_with`).
//!
//! As in MetricFlow, days are compared (a base row later on the same day
//! still counts), and the query's filters choose base rows only. A rate
//! divides by the base measure, aggregated as a plain measure of the base
//! source, over the same groups (see `resolve`).

use super::sql::{Renderer, Tree, where_text};
use super::{GroupPlan, Resolved};
use crate::dialect::{Dialect, Granularity};
use crate::error::SemanticError;
use crate::model::{Calculation, Conversion, SemanticModel};

/// A conversion group's CTEs, its plan line and its note.
pub(super) struct ConversionGroup {
    pub ctes: Vec<String>,
    pub plan: GroupPlan,
    pub note: String,
}

impl Renderer<'_> {
    /// The CTEs of conversion base measure `j`, group `g`, ending in
    /// `g<g>` with the dimensions `dim_cols` and `m<j>`: the base rows
    /// (`cb<g>`), the conversion rows (`cc<g>`), each conversion row with
    /// the latest base row it follows (`cx<g>`), and the conversions per
    /// combination of dimensions.
    pub(super) fn conversion_group(
        &self,
        r: &Resolved,
        g: usize,
        j: usize,
        needed: &[usize],
        dim_cols: &[String],
        group_by: &dyn Fn(&[String]) -> String,
    ) -> Result<ConversionGroup, SemanticError> {
        let b = &r.bases[j];
        let Some(c) = b.conversion.as_ref() else {
            return Err(SemanticError::query(format!(
                "`{}` is not a conversion measure",
                b.output
            )));
        };
        let model = self.model;
        let source = &model.sources[b.source];
        let names = MatchNames {
            e: self.q("e"),
            day: self.q("day"),
            at: self.q("at"),
            props: (0..c.constant.len())
                .map(|i| self.q(&format!("p{i}")))
                .collect(),
            keys: (0..source.grain.len())
                .map(|i| self.q(&format!("k{i}")))
                .collect(),
        };
        let (base, tree) = self.conversion_base(r, g, j, needed, dim_cols, &names)?;
        let fan = tree.fans().copied();
        let mut ctes = vec![base];
        // The conversion rows, with the columns their aggregate reads.
        let (cc, carried) = self.conversion_rows(c, g, &names.props)?;
        ctes.push(cc);
        let carried_cols: Vec<String> = (0..carried.len())
            .map(|i| self.q(&format!("c{i}")))
            .collect();
        ctes.extend(self.latest_base_matches(c, g, dim_cols, &carried_cols, &names));
        ctes.push(self.conversions(c, (g, j), dim_cols, (&carried, &carried_cols), group_by)?);
        let plan = GroupPlan {
            source: source.name.clone(),
            measures: vec![b.output.clone()],
            joins: super::render::path_text(model, &tree),
            strategy: if fan.is_some() {
                "distinct_keys"
            } else {
                "direct"
            },
            running: Some(c.describe(&source.name, model)),
        };
        let note = conversion_note(model, &b.output, b.source, c);
        Ok(ConversionGroup { ctes, plan, note })
    }

    /// The CTE `cb<g>` of the base rows (the query's filters and the
    /// measure's, the group's joins, distinct rows across a fan), with the
    /// dimensions, entity, constants, day, time and grain; and their join
    /// tree.
    fn conversion_base(
        &self,
        r: &Resolved,
        g: usize,
        j: usize,
        needed: &[usize],
        dim_cols: &[String],
        names: &MatchNames,
    ) -> Result<(String, Tree), SemanticError> {
        let b = &r.bases[j];
        let Some(c) = b.conversion.as_ref() else {
            return Err(SemanticError::query(format!(
                "`{}` is not a conversion measure",
                b.output
            )));
        };
        let (root, model) = (b.source, self.model);
        let source = &model.sources[root];
        let mut nodes = needed.to_vec();
        nodes.extend(
            self.filter_nodes(r, &[j])
                .into_iter()
                .filter(|n| !needed.contains(n)),
        );
        let tree = Tree::build(model, model.join_graph(), root, &nodes)?;
        if let Some(step) = tree.fans()
            && source.grain.is_empty()
        {
            return Err(SemanticError::query(format!(
                "`{}` counts `{}` rows across the one-to-many join {} -> {}, which needs its grain: declare `grain` (the columns that identify one row) on source `{}`",
                b.output,
                source.name,
                model.sources[step.from].name,
                model.sources[step.to].name,
                source.name
            )));
        }
        let MatchNames {
            e,
            day,
            at,
            props,
            keys,
        } = names;
        let mut select = Vec::new();
        for (i, col) in dim_cols.iter().enumerate() {
            select.push(format!("{} AS {col}", self.dimension(r, i, &tree)?));
        }
        select.push(format!(
            "{} AS {e}",
            self.column(root, &c.entity.0, "t0", 0)?
        ));
        for ((base, _), p) in c.constant.iter().zip(props) {
            select.push(format!("{} AS {p}", self.column(root, base, "t0", 0)?));
        }
        let time = self.column(root, &c.time.0, "t0", 0)?;
        select.push(format!(
            "{} AS {day}",
            self.dialect.time_trunc(&time, Granularity::Day)
        ));
        select.push(format!("{time} AS {at}"));
        for (column, k) in source.grain.iter().zip(keys) {
            select.push(format!("{} AS {k}", self.column(root, column, "t0", 0)?));
        }
        let mut conditions = Vec::new();
        for f in &r.row_filters {
            conditions.push(self.row_filter(f, &tree)?);
        }
        if let Some(f) = self.measure_filter(r, j, &tree)? {
            conditions.push(format!("({f})"));
        }
        let cte = format!(
            "cb{g} AS (\n  SELECT DISTINCT {}\n  {}{}\n)",
            select.join(", "),
            self.joins_clause(&tree)?,
            where_text(&conditions)
        );
        Ok((cte, tree))
    }

    /// `cx<g>`: each conversion row with the dimensions of the latest base
    /// row of its entity and constants on or before its day, within the
    /// window (`DENSE_RANK`; on ClickHouse `argMax`).
    fn latest_base_matches(
        &self,
        c: &Conversion,
        g: usize,
        dim_cols: &[String],
        carried_cols: &[String],
        names: &MatchNames,
    ) -> Vec<String> {
        let MatchNames {
            e,
            day,
            at,
            props,
            keys,
        } = names;
        let mut on = vec![format!("b.{e} = c.{e}")];
        on.extend(props.iter().map(|p| format!("b.{p} = c.{p}")));
        let mut window = vec![format!("b.{day} <= c.{day}")];
        if let Some((count, unit)) = c.window {
            window.push(format!(
                "b.{day} > {}",
                self.dialect
                    .shift(&format!("c.{day}"), -i64::from(count), unit)
            ));
        }
        if self.dialect == Dialect::Clickhouse {
            return self.clickhouse_matches(g, props, keys, dim_cols, carried_cols, &window);
        }
        // The latest base row first: by day, time, then grain (or, with
        // none, the dimensions, so that one row wins).
        let mut order = vec![format!("b.{day} DESC"), format!("b.{at} DESC")];
        let tie_break = if keys.is_empty() { dim_cols } else { keys };
        order.extend(tie_break.iter().map(|k| format!("b.{k} DESC")));
        let mut inner: Vec<String> = dim_cols.iter().map(|d| format!("b.{d} AS {d}")).collect();
        inner.extend(carried_cols.iter().map(|x| format!("c.{x} AS {x}")));
        let mut partition = vec![format!("c.{e}"), format!("c.{day}")];
        partition.extend(props.iter().map(|p| format!("c.{p}")));
        let rn = self.q("rn");
        inner.push(format!(
            "DENSE_RANK() OVER (PARTITION BY {} ORDER BY {}) AS {rn}",
            partition.join(", "),
            order.join(", ")
        ));
        let mut outer: Vec<String> = dim_cols.iter().map(|d| format!("x.{d}")).collect();
        outer.extend(carried_cols.iter().map(|x| format!("x.{x}")));
        if outer.is_empty() {
            outer.push(format!("x.{rn}"));
        }
        on.extend(window);
        vec![format!(
            "cx{g} AS (\n  SELECT {}\n  FROM (\n    SELECT {}\n    FROM cc{g} c\n    JOIN cb{g} b ON {}\n  ) x\n  WHERE x.{rn} = 1\n)",
            outer.join(", "),
            inner.join(", "),
            on.join(" AND ")
        )]
    }

    /// `g<g>`: the conversions per combination of dimensions, for every
    /// combination the base rows have (`fill_nulls_with` for none).
    fn conversions(
        &self,
        c: &Conversion,
        (g, j): (usize, usize),
        dim_cols: &[String],
        (carried, carried_cols): (&[String], &[String]),
        group_by: &dyn Fn(&[String]) -> String,
    ) -> Result<String, SemanticError> {
        let target = &self.model.sources[c.source];
        let aggregate = self.expr(&c.expr.ast, Some(None), &mut |parts| {
            let column = match parts {
                [column] => column,
                [s, column] if *s == target.name => column,
                _ => {
                    return Err(SemanticError::query(format!(
                        "the conversion measure `{}.{}` reads `{}`, which is not a column of `{}`",
                        target.name,
                        c.measure,
                        parts.join("."),
                        target.name
                    )));
                }
            };
            let i = carried
                .iter()
                .position(|x| x == column)
                .ok_or_else(|| SemanticError::query(format!("`{column}` was not carried")))?;
            Ok(format!("x.{}", carried_cols[i]))
        })?;
        let m = self.q("m");
        let mut converted: Vec<String> = dim_cols.iter().map(|d| format!("x.{d} AS {d}")).collect();
        converted.push(format!("{aggregate} AS {m}"));
        // (Not DISTINCT: PostgreSQL would then type the NULL as text.)
        let mut present: Vec<String> = dim_cols.to_vec();
        present.push(format!("NULL AS {m}"));
        let mut combined: Vec<String> = dim_cols.iter().map(|d| format!("u.{d} AS {d}")).collect();
        let value = format!("MAX(u.{m})");
        combined.push(format!(
            "{} AS {}",
            match c.fill_nulls_with {
                Some(fill) => format!("COALESCE({value}, {fill})"),
                None => value,
            },
            self.q(&format!("m{j}"))
        ));
        let by = group_by(dim_cols);
        Ok(format!(
            "g{g} AS (\n  SELECT {}\n  FROM (\n    SELECT {}\n    FROM cx{g} x{by}\n    UNION ALL\n    SELECT {}\n    FROM cb{g}\n  ) u{by}\n)",
            combined.join(", "),
            converted.join(", "),
            present.join(", "),
        ))
    }

    /// The CTE `cc<g>` of the conversion rows (entity `e`, constants
    /// `props`, `day`, then `c<i>` for each column the conversion
    /// measure's aggregate reads), and those columns.
    fn conversion_rows(
        &self,
        c: &Conversion,
        g: usize,
        props: &[String],
    ) -> Result<(String, Vec<String>), SemanticError> {
        let model = self.model;
        let target = &model.sources[c.source];
        let q = |name: &str| self.q(name);
        let mut carried: Vec<String> = Vec::new();
        for parts in c.expr.references() {
            let column = match parts.as_slice() {
                [column] => column.clone(),
                [s, column] if *s == target.name => column.clone(),
                _ => continue,
            };
            if !carried.contains(&column) {
                carried.push(column);
            }
        }
        // The sources the conversion measure's filter reads (to-one).
        let mut nodes = Vec::new();
        for parts in c.filter.iter().flat_map(|f| f.references()) {
            if let [s, _] = parts.as_slice()
                && *s != target.name
                && let Some((node, _)) = model.join_graph().node_named(model, s)
                && !nodes.contains(&node)
            {
                nodes.push(node);
            }
        }
        let tree = Tree::build(model, model.join_graph(), c.source, &nodes)?;
        let mut select = vec![format!(
            "{} AS {}",
            self.column(c.source, &c.entity.1, "t0", 0)?,
            q("e")
        )];
        for ((_, column), p) in c.constant.iter().zip(props) {
            select.push(format!(
                "{} AS {p}",
                self.column(c.source, column, "t0", 0)?
            ));
        }
        select.push(format!(
            "{} AS {}",
            self.dialect.time_trunc(
                &self.column(c.source, &c.time.1, "t0", 0)?,
                Granularity::Day
            ),
            q("day")
        ));
        for (i, column) in carried.iter().enumerate() {
            select.push(format!(
                "{} AS {}",
                self.column(c.source, column, "t0", 0)?,
                q(&format!("c{i}"))
            ));
        }
        let mut conditions = Vec::new();
        if let Some(filter) = &c.filter {
            let sql = self.expr(&filter.ast, None, &mut |parts| match parts {
                [column] => self.column(c.source, column, "t0", 0),
                [s, column] if *s == target.name => self.column(c.source, column, "t0", 0),
                [s, column] => {
                    let found = model.join_graph().node_named(model, s);
                    match found.and_then(|(node, si)| Some((tree.node_alias(node)?, si))) {
                        Some((alias, si)) => self.column(si, column, alias, 0),
                        None => Err(SemanticError::query(format!(
                            "the filter of `{}.{}` reads `{s}.{column}`, and `{s}` is not joined to `{}`",
                            target.name, c.measure, target.name
                        ))),
                    }
                }
                _ => Err(SemanticError::query(format!(
                    "the filter of `{}.{}` reads `{}`",
                    target.name,
                    c.measure,
                    parts.join(".")
                ))),
            })?;
            conditions.push(format!("({sql})"));
        }
        Ok((
            format!(
                "cc{g} AS (\n  SELECT {}\n  {}{}\n)",
                select.join(", "),
                self.joins_clause(&tree)?,
                where_text(&conditions)
            ),
            carried,
        ))
    }

    /// ClickHouse 18.x's `cw<g>` and `cx<g>`: no window functions and
    /// joins on equalities only, so the latest base row of each
    /// (entity, day, constant values) of the conversion rows is chosen
    /// with `argMax` over the candidates (the day conditions in `WHERE`),
    /// then joined back: by its grain to `cb<g>` (every dimension
    /// combination of that row), or, without a grain, with its
    /// dimensions chosen the same way.
    fn clickhouse_matches(
        &self,
        g: usize,
        props: &[String],
        keys: &[String],
        dim_cols: &[String],
        carried_cols: &[String],
        window: &[String],
    ) -> Vec<String> {
        let (e, day, at) = (self.q("e"), self.q("day"), self.q("at"));
        let chosen = if keys.is_empty() { dim_cols } else { keys };
        let mut ordering = vec![format!("b.{day}"), format!("b.{at}")];
        ordering.extend(chosen.iter().map(|k| format!("b.{k}")));
        let ordering = format!("tuple({})", ordering.join(", "));
        let mut partition = vec![e.clone(), day.clone()];
        partition.extend(props.iter().cloned());
        let mut select: Vec<String> = partition.iter().map(|p| format!("c.{p} AS {p}")).collect();
        select.extend(
            chosen
                .iter()
                .map(|k| format!("argMax(b.{k}, {ordering}) AS {k}")),
        );
        let mut on = vec![format!("b.{e} = c.{e}")];
        on.extend(props.iter().map(|p| format!("b.{p} = c.{p}")));
        let not_null: Vec<String> = std::iter::once(&e)
            .chain(props)
            .map(|p| format!("{p} IS NOT NULL"))
            .collect();
        let cw = format!(
            "cw{g} AS (\n  SELECT {}\n  FROM (SELECT DISTINCT {} FROM cc{g} WHERE {}) c\n  JOIN cb{g} b ON {}\n  WHERE {}\n  GROUP BY {}\n)",
            select.join(", "),
            partition.join(", "),
            not_null.join(" AND "),
            on.join(" AND "),
            window.join(" AND "),
            partition
                .iter()
                .map(|p| format!("c.{p}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let on: Vec<String> = partition.iter().map(|p| format!("w.{p} = c.{p}")).collect();
        let (dims_from, back) = if keys.is_empty() {
            ("w", String::new())
        } else {
            let back: Vec<String> = keys.iter().map(|k| format!("b.{k} = w.{k}")).collect();
            ("b", format!("\n  JOIN cb{g} b ON {}", back.join(" AND ")))
        };
        let mut select: Vec<String> = dim_cols
            .iter()
            .map(|d| format!("{dims_from}.{d} AS {d}"))
            .collect();
        select.extend(carried_cols.iter().map(|x| format!("c.{x} AS {x}")));
        if select.is_empty() {
            select.push(format!("c.{e} AS {e}"));
        }
        let cx = format!(
            "cx{g} AS (\n  SELECT {}\n  FROM cc{g} c\n  JOIN cw{g} w ON {}{back}\n)",
            select.join(", "),
            on.join(" AND ")
        );
        vec![cw, cx]
    }
}

/// The columns a conversion's base and conversion rows are matched on.
struct MatchNames {
    e: String,
    day: String,
    at: String,
    props: Vec<String>,
    keys: Vec<String>,
}

/// What a conversion measure counts, in words.
fn conversion_note(model: &SemanticModel, output: &str, root: usize, c: &Conversion) -> String {
    let source = &model.sources[root];
    let target = &model.sources[c.source];
    let constant = if c.constant.is_empty() {
        String::new()
    } else {
        let columns: Vec<String> = c
            .constant
            .iter()
            .map(|(b, v)| {
                if b == v {
                    b.clone()
                } else {
                    format!("{b} (= {v})")
                }
            })
            .collect();
        format!(" and the same {}", columns.join(", "))
    };
    let empty = match c.fill_nulls_with {
        Some(v) => format!("{v}"),
        None => "no value".to_string(),
    };
    let within = match c.window {
        Some((count, unit)) => format!(
            " and within {count} {}{}",
            unit.as_str(),
            if count == 1 { "" } else { "s" }
        ),
        None => String::new(),
    };
    format!(
        "`{}`: each `{}` row ({}) counts once, for the latest `{}` row ({}) of the same {}{constant} on or before its day{within}, in that row's groups (a group none of whose rows converted has {empty} conversions){}",
        output,
        target.name,
        c.measure,
        source.name,
        c.base,
        c.entity.0,
        match c.calculation {
            Calculation::Rate => "; the rate divides them by the base measure.",
            Calculation::Count => ".",
        }
    )
}
