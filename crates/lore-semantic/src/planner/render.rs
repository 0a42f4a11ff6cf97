//! Turning a resolved query into SQL text for one dialect: one CTE per
//! measure group (its pieces written by [`super::sql`]), the groups
//! combined on their dimensions, then the final projection, conditions
//! on measures, order and limit. [`render`] reads top to bottom in that
//! order; each step is a method of [`Build`], which collects the CTEs,
//! the plan and the notes.

use std::collections::HashMap;

use super::cumulative_offset::{Running, SPINE_DAY, note as cumulative_note, reduction, running};
use super::sql::{Renderer, Tree};
use super::{CompiledQuery, GroupPlan, OutputColumn, Resolved};
use crate::dialect::Dialect;
use crate::error::SemanticError;
use crate::model::SemanticModel;
use crate::model::join_paths::Step;

/// The join paths of a tree, one line per leaf (`a -> b -> c`).
pub(super) fn path_text(model: &SemanticModel, tree: &Tree) -> Vec<String> {
    // One line per leaf: the chain of steps from the root.
    let mut parent: HashMap<usize, usize> = HashMap::new();
    for s in &tree.steps {
        parent.insert(s.to, s.from);
    }
    let leaves: Vec<usize> = tree
        .steps
        .iter()
        .map(|s| s.to)
        .filter(|to| !tree.steps.iter().any(|s| s.from == *to))
        .collect();
    leaves
        .into_iter()
        .map(|leaf| {
            let mut chain = vec![leaf];
            while let Some(&p) = parent.get(chain.last().unwrap_or(&leaf)) {
                chain.push(p);
            }
            chain.reverse();
            chain
                .iter()
                .map(|&i| model.sources[i].name.clone())
                .collect::<Vec<_>>()
                .join(" -> ")
        })
        .collect()
}

/// Renders `r` as SQL for `dialect`.
pub(crate) fn render(
    model: &SemanticModel,
    r: &Resolved,
    dialect: Dialect,
) -> Result<CompiledQuery, SemanticError> {
    let mut build = Build::new(model, r, dialect);
    let groups = build.measure_groups()?;
    if groups.is_empty() {
        build.dimension_only_group()?;
    }
    for (g, group) in groups.iter().enumerate() {
        build.measure_group(g, group)?;
    }
    build.note_separate_aggregation(&groups);
    let universes = build.dimension_universes()?;
    let (from, result_cols) = build.combine(&groups, &universes)?;
    build.result_cte(&from, result_cols)?;
    build.finish()
}

/// The measures aggregated together from one source.
struct MeasureGroup {
    root: usize,
    members: Vec<usize>,
    /// A cumulative or offset measure's days, when it is grouped by its
    /// time column (a group of its own).
    run: Option<Running>,
    /// Whether the group holds one measure that must stay alone
    /// (running, non-additive or conversion).
    alone: bool,
}

/// `GROUP BY` over the given columns: by position, but by the columns'
/// aliases on ClickHouse, where versions before 21.x read `GROUP BY 1` as a
/// constant.
fn group_by_clause(dialect: Dialect, cols: &[String]) -> String {
    if cols.is_empty() {
        String::new()
    } else if dialect == Dialect::Clickhouse {
        format!("\n  GROUP BY {}", cols.join(", "))
    } else {
        format!(
            "\n  GROUP BY {}",
            (1..=cols.len())
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// What one rendering builds up: the CTEs in order, the plan and the notes.
struct Build<'a> {
    renderer: Renderer<'a>,
    model: &'a SemanticModel,
    r: &'a Resolved,
    dialect: Dialect,
    /// The nodes the dimensions and row filters read.
    needed: Vec<usize>,
    /// The dimensions' internal column names (`"d0"`, `"d1"`, …).
    dim_cols: Vec<String>,
    ctes: Vec<String>,
    plan: Vec<GroupPlan>,
    notes: Vec<String>,
    recursive: bool,
}

impl<'a> Build<'a> {
    fn new(model: &'a SemanticModel, r: &'a Resolved, dialect: Dialect) -> Self {
        let mut needed: Vec<usize> = Vec::new();
        for s in r
            .dims
            .iter()
            .map(|d| d.node)
            .chain(r.row_filters.iter().flat_map(|f| f.sources.iter().copied()))
        {
            if !needed.contains(&s) {
                needed.push(s);
            }
        }
        let dim_cols = (0..r.dims.len())
            .map(|i| dialect.quote(&format!("d{i}")))
            .collect();
        Build {
            renderer: Renderer { model, dialect },
            model,
            r,
            dialect,
            needed,
            dim_cols,
            ctes: Vec::new(),
            plan: Vec::new(),
            notes: Vec::new(),
            recursive: false,
        }
    }

    fn q(&self, name: &str) -> String {
        self.dialect.quote(name)
    }

    fn group_by(&self, cols: &[String]) -> String {
        group_by_clause(self.dialect, cols)
    }

    /// Measure groups by source, in the order measures were asked for. A
    /// cumulative or offset measure along a time column the query groups
    /// by is a group of its own (its rows are joined to a spine of days),
    /// and so are a non-additive measure (it keeps its own rows) and a
    /// conversion measure (it counts other rows).
    fn measure_groups(&mut self) -> Result<Vec<MeasureGroup>, SemanticError> {
        let (model, r) = (self.model, self.r);
        let mut groups: Vec<MeasureGroup> = Vec::new();
        for (j, b) in r.bases.iter().enumerate() {
            let run = running(model, r, j)?;
            if run.is_none() && b.cumulative.is_some() {
                self.notes.push(format!(
                    "`{}` is cumulative over all time; without its time column among the dimensions it is the total of every row.",
                    b.output
                ));
            }
            let on_its_own = run.is_some() || b.non_additive.is_some() || b.conversion.is_some();
            let plain_group = if on_its_own {
                None
            } else {
                groups
                    .iter()
                    .position(|group| group.root == b.source && !group.alone)
            };
            match plain_group {
                Some(i) => groups[i].members.push(j),
                None => groups.push(MeasureGroup {
                    root: b.source,
                    members: vec![j],
                    run,
                    alone: on_its_own,
                }),
            }
        }
        Ok(groups)
    }

    /// A query of dimensions only: their distinct combinations, as `g0`.
    fn dimension_only_group(&mut self) -> Result<(), SemanticError> {
        let (model, r) = (self.model, self.r);
        let graph = model.join_graph();
        let root = graph.source_of(self.needed[0]);
        let tree = Tree::build(model, graph, root, &self.needed)?;
        let mut select = Vec::new();
        for (i, col) in self.dim_cols.iter().enumerate() {
            select.push(format!(
                "{} AS {col}",
                self.renderer.dimension(r, i, &tree)?
            ));
        }
        self.ctes.push(format!(
            "g0 AS (\n  SELECT DISTINCT {}\n  {}{}\n)",
            select.join(", "),
            self.renderer.joins_clause(&tree)?,
            self.renderer.where_clause(r, &tree)?
        ));
        self.plan.push(GroupPlan {
            source: model.sources[root].name.clone(),
            measures: Vec::new(),
            joins: path_text(model, &tree),
            strategy: "direct",
            running: None,
        });
        Ok(())
    }

    /// One measure group's CTEs (`g<g>`, with `k<g>` across a fan and
    /// `r<g>` before a running measure's periods are reduced), its plan
    /// and its notes.
    fn measure_group(&mut self, g: usize, group: &MeasureGroup) -> Result<(), SemanticError> {
        let (model, r) = (self.model, self.r);
        let (root, members) = (group.root, group.members.as_slice());
        if let [j] = members
            && r.bases[*j].conversion.is_some()
        {
            let dialect = self.dialect;
            let converted = self.renderer.conversion_group(
                r,
                g,
                *j,
                &self.needed,
                &self.dim_cols,
                &|cols: &[String]| group_by_clause(dialect, cols),
            )?;
            self.ctes.extend(converted.ctes);
            self.plan.push(converted.plan);
            self.notes.push(converted.note);
            return Ok(());
        }
        let run = group.run.as_ref();
        let graph = model.join_graph();
        let mut tree = Tree::build(model, graph, root, &self.needed)?;
        // Sources the measures' filters read (to-one from the root) are
        // joined where the measures are aggregated.
        let filter_nodes = self.renderer.filter_nodes(r, members);
        let filter_tree = Tree::build(model, graph, root, &filter_nodes)?;
        if tree.fans().is_none() && !filter_nodes.is_empty() {
            tree = Tree::build(model, graph, root, &self.with_needed(&filter_nodes))?;
        }
        let (from, filter) = match run {
            None => self.plain_from(g, group, &tree, &filter_nodes)?,
            Some(run) => {
                let (days, reads_itself) = self.renderer.spine_days(root, run, g)?;
                self.ctes.extend(days);
                self.recursive |= reads_itself;
                self.renderer.running_from(r, &tree, root, run, g)?
            }
        };
        let (dims_sql, cols) = self.group_columns(run, &tree)?;
        let group_cte = if run.is_some_and(|run| run.reduce) {
            format!("r{g}")
        } else {
            format!("g{g}")
        };
        let aggregate = Aggregate {
            g,
            group,
            dims_sql: &dims_sql,
            cols: &cols,
            from: &from,
            filter: &filter,
            group_cte: &group_cte,
        };
        let strategy = match tree.fans().copied() {
            Some(step) => self.distinct_keys_cte(&aggregate, step, &tree, &filter_tree)?,
            None => self.direct_cte(&aggregate, &tree)?,
        };
        if let Some(run) = run {
            let j = members[0];
            if run.reduce {
                let m = self.q(&format!("m{j}"));
                self.ctes.push(reduction(
                    self.dialect,
                    g,
                    &self.dim_cols,
                    &m,
                    run.period_agg(),
                ));
            }
            self.notes.push(cumulative_note(model, r, j, run));
        }
        let source = &model.sources[root];
        self.plan.push(GroupPlan {
            source: source.name.clone(),
            measures: members.iter().map(|&j| r.bases[j].output.clone()).collect(),
            joins: path_text(model, &tree),
            strategy,
            running: run.map(|run| run.plan_text(&source.name)),
        });
        Ok(())
    }

    /// The nodes the query needs plus `more`, each once.
    fn with_needed(&self, more: &[usize]) -> Vec<usize> {
        let mut all = self.needed.clone();
        all.extend(more.iter().filter(|n| !self.needed.contains(n)));
        all
    }

    /// `FROM … JOIN …` and `WHERE …` of a group that is not a running
    /// measure's; a non-additive measure's rows are first narrowed to its
    /// last (or first) day.
    fn plain_from(
        &mut self,
        g: usize,
        group: &MeasureGroup,
        tree: &Tree,
        filter_nodes: &[usize],
    ) -> Result<(String, String), SemanticError> {
        let (model, r, root) = (self.model, self.r, group.root);
        let mut from = self.renderer.joins_clause(tree)?;
        let non_additive = match group.members.as_slice() {
            [j] => r.bases[*j].non_additive.as_ref().map(|na| (*j, na)),
            _ => None,
        };
        if let Some((j, na)) = non_additive {
            // The day is chosen among the rows the filters keep, so its
            // query joins what they read.
            let chooser = Tree::build(
                model,
                model.join_graph(),
                root,
                &self.with_needed(filter_nodes),
            )?;
            let dialect = self.dialect;
            let (cte, join) = self
                .renderer
                .last_day(r, g, j, &chooser, |cols: &[String]| {
                    group_by_clause(dialect, cols)
                })?;
            self.ctes.push(cte);
            from = format!(
                "FROM {}{join}{}",
                self.renderer.relation(root, "t0"),
                self.renderer.join_steps(tree)?
            );
            self.notes.push(non_additive_note(model, r, root, j, na));
        }
        Ok((from, self.renderer.where_clause(r, tree)?))
    }

    /// The group's dimension expressions and their column names: a running
    /// measure's time dimensions read the spine's day, and each row's day
    /// is kept when its periods are reduced afterwards.
    fn group_columns(
        &self,
        run: Option<&Running>,
        tree: &Tree,
    ) -> Result<(Vec<String>, Vec<String>), SemanticError> {
        let r = self.r;
        let mut dims_sql = Vec::new();
        for i in 0..r.dims.len() {
            dims_sql.push(match (run, r.dims[i].granularity) {
                (Some(run), Some(g)) if run.time_dims.contains(&i) => {
                    self.dialect.time_trunc(&self.renderer.spine_day(), g)
                }
                _ => self.renderer.dimension(r, i, tree)?,
            });
        }
        let mut cols = self.dim_cols.clone();
        if run.is_some_and(|run| run.reduce) {
            dims_sql.push(self.renderer.spine_day());
            cols.push(self.q(SPINE_DAY));
        }
        Ok((dims_sql, cols))
    }

    /// `aggregate AS "m<j>"` for each measure of the group, over `t0`.
    fn measure_columns(
        &self,
        members: &[usize],
        tree: &Tree,
    ) -> Result<Vec<String>, SemanticError> {
        members
            .iter()
            .map(|&j| {
                Ok(format!(
                    "{} AS {}",
                    self.renderer.measure(self.r, j, tree)?,
                    self.q(&format!("m{j}"))
                ))
            })
            .collect()
    }

    /// Across a one-to-many join (fan trap): the distinct grain keys and
    /// dimensions first (`k<g>`), then the source joined back by its grain
    /// and aggregated, so each row counts once per group.
    fn distinct_keys_cte(
        &mut self,
        a: &Aggregate,
        step: Step,
        tree: &Tree,
        filter_tree: &Tree,
    ) -> Result<&'static str, SemanticError> {
        let (model, r, g, root) = (self.model, self.r, a.g, a.group.root);
        let source = &model.sources[root];
        if source.grain.is_empty() {
            return Err(SemanticError::query(format!(
                "`{}` must be aggregated across the one-to-many join {} -> {}, which needs its grain: declare `grain` (the columns that identify one row) on source `{}`",
                source.name,
                model.sources[step.from].name,
                model.sources[step.to].name,
                source.name
            )));
        }
        let mut keys = Vec::new();
        for (i, column) in source.grain.iter().enumerate() {
            keys.push(format!(
                "{} AS {}",
                self.renderer.column(root, column, "t0", 0)?,
                self.q(&format!("k{i}"))
            ));
        }
        for (i, d) in a.dims_sql.iter().enumerate() {
            keys.push(format!("{d} AS {}", a.cols[i]));
        }
        self.ctes.push(format!(
            "k{g} AS (\n  SELECT DISTINCT {}\n  {}{}\n)",
            keys.join(", "),
            a.from,
            a.filter
        ));
        let on: Vec<String> = source
            .grain
            .iter()
            .enumerate()
            .map(|(i, c)| {
                Ok(format!(
                    "{} = k.{}",
                    self.renderer.column(root, c, "t0", 0)?,
                    self.q(&format!("k{i}"))
                ))
            })
            .collect::<Result<_, SemanticError>>()?;
        let mut select: Vec<String> = a.cols.iter().map(|d| format!("k.{d} AS {d}")).collect();
        select.extend(self.measure_columns(&a.group.members, filter_tree)?);
        self.ctes.push(format!(
            "{} AS (\n  SELECT {}\n  FROM k{g} k\n  JOIN {} ON {}{}{}\n)",
            a.group_cte,
            select.join(", "),
            self.renderer.relation(root, "t0"),
            on.join(" AND "),
            self.renderer.join_steps(filter_tree)?,
            self.group_by(a.cols)
        ));
        let fanned: Vec<String> = r
            .dims
            .iter()
            .filter(|d| tree.steps.iter().any(|s| s.to_node == d.node))
            .map(|d| d.output.clone())
            .collect();
        self.notes.push(format!(
            "The join {} is one-to-many and would repeat `{}` rows, so its measures ({}) were computed once per `{}` row ({}) in each group: no double counting{}.",
            format_args!("{} -> {}", model.sources[step.from].name, model.sources[step.to].name),
            source.name,
            a.group.members.iter().map(|&j| r.bases[j].output.clone()).collect::<Vec<_>>().join(", "),
            source.name,
            source.grain.join(", "),
            if fanned.is_empty() { String::new() } else { format!(" (grouped by {})", fanned.join(", ")) }
        ));
        Ok("distinct_keys")
    }

    /// No fan on the way: the group aggregates its rows directly.
    fn direct_cte(&mut self, a: &Aggregate, tree: &Tree) -> Result<&'static str, SemanticError> {
        let mut select: Vec<String> = a
            .dims_sql
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{d} AS {}", a.cols[i]))
            .collect();
        select.extend(self.measure_columns(&a.group.members, tree)?);
        // When every measure of the group counts only filtered rows, a
        // dimension value none of whose rows passes is not listed (as a
        // WHERE would leave it out), rather than listed with null.
        let mut having = String::new();
        if !a.cols.is_empty() {
            let filters: Vec<Option<String>> = a
                .group
                .members
                .iter()
                .map(|&j| self.renderer.measure_filter(self.r, j, tree))
                .collect::<Result<_, _>>()?;
            if filters.iter().all(Option::is_some) {
                let any: Vec<String> = filters
                    .into_iter()
                    .flatten()
                    .map(|f| format!("({f})"))
                    .collect();
                having = format!(
                    "\n  HAVING COUNT(CASE WHEN {} THEN 1 END) > 0",
                    any.join(" OR ")
                );
            }
        }
        self.ctes.push(format!(
            "{} AS (\n  SELECT {}\n  {}{}{}{having}\n)",
            a.group_cte,
            select.join(", "),
            a.from,
            a.filter,
            self.group_by(a.cols)
        ));
        Ok("direct")
    }

    /// Says why measures were aggregated apart (chasm trap, or measures
    /// that stay alone).
    fn note_separate_aggregation(&mut self, groups: &[MeasureGroup]) {
        let mut sources_aggregated: Vec<String> = Vec::new();
        for group in groups {
            let name = format!("`{}`", self.model.sources[group.root].name);
            if !sources_aggregated.contains(&name) {
                sources_aggregated.push(name);
            }
        }
        if sources_aggregated.len() > 1 {
            self.notes.push(format!(
                "Measures of {} were aggregated separately and then joined on the dimensions, so no source's rows multiply another's (chasm trap).",
                sources_aggregated.join(", ")
            ));
        } else if groups.len() > 1 {
            self.notes.push(
                "Each cumulative, offset, non-additive or conversion measure was aggregated on its own and then joined to the other measures on the dimensions.".to_string(),
            );
        }
    }

    /// With include_empty, every value of each dimension (from its own
    /// source, under the filters on that source alone), as `v<i>`.
    fn dimension_universes(&mut self) -> Result<Vec<String>, SemanticError> {
        let r = self.r;
        let mut universes = Vec::new();
        if !r.include_empty || r.dims.is_empty() {
            return Ok(universes);
        }
        for (i, d) in r.dims.iter().enumerate() {
            let tree = Tree {
                root: d.source,
                steps: Vec::new(),
                alias: HashMap::from([(d.node, "t0".to_string())]),
            };
            let own: Vec<&super::RowFilter> = r
                .row_filters
                .iter()
                .filter(|f| f.sources.iter().all(|s| *s == d.node))
                .collect();
            self.ctes.push(format!(
                "v{i} AS (\n  SELECT DISTINCT {} AS {}\n  FROM {}{}\n)",
                self.renderer.dimension(r, i, &tree)?,
                self.dim_cols[i],
                self.renderer.relation(d.source, "t0"),
                self.renderer.where_clause_of(own, &tree)?
            ));
            universes.push(format!("v{i}"));
        }
        self.notes.push(format!(
            "include_empty: every value of {} is listed, with empty measures where no rows match.",
            r.dims
                .iter()
                .map(|d| d.output.clone())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        Ok(universes)
    }

    /// The relation the groups are combined in, and the columns `result`
    /// takes from it before the measures.
    fn combine(
        &mut self,
        groups: &[MeasureGroup],
        universes: &[String],
    ) -> Result<(String, Vec<String>), SemanticError> {
        // A dimension-only query has one group too (`g0`, its distinct values).
        let ngroups = groups.len().max(1);
        if ngroups == 1 && universes.is_empty() {
            return Ok(("g0".to_string(), self.dim_cols.clone()));
        }
        if self.dialect == Dialect::Clickhouse {
            return Ok(self.stacked_groups(groups, universes));
        }
        if self.dim_cols.is_empty() {
            let from = (0..ngroups)
                .map(|g| format!("g{g}"))
                .collect::<Vec<_>>()
                .join(" CROSS JOIN ");
            return Ok((from, Vec::new()));
        }
        Ok(self.spine_of_groups(ngroups, universes))
    }

    /// ClickHouse 18.x has no null-safe join: every group's rows (and the
    /// dimension universes) are stacked, each with NULL for the measures of
    /// other groups, and grouped by the dimensions, where NULLs form one
    /// group. A group has one row per combination, so max() picks its
    /// value: the spine's LEFT JOINs, without joins.
    fn stacked_groups(
        &self,
        groups: &[MeasureGroup],
        universes: &[String],
    ) -> (String, Vec<String>) {
        let (r, dim_cols) = (self.r, &self.dim_cols);
        let ngroups = groups.len().max(1);
        let group_of: Vec<usize> = (0..r.bases.len())
            .map(|j| {
                groups
                    .iter()
                    .position(|group| group.members.contains(&j))
                    .unwrap_or(usize::MAX)
            })
            .collect();
        let measures_of = |g: Option<usize>| -> Vec<String> {
            (0..r.bases.len())
                .map(|j| {
                    let m = self.q(&format!("m{j}"));
                    if Some(group_of[j]) == g {
                        m
                    } else {
                        format!("NULL AS {m}")
                    }
                })
                .collect()
        };
        let mut parts: Vec<String> = (0..ngroups)
            .map(|g| {
                let mut cols = dim_cols.clone();
                cols.extend(measures_of(Some(g)));
                format!("SELECT {} FROM g{g}", cols.join(", "))
            })
            .collect();
        if !universes.is_empty() {
            let mut cols: Vec<String> = dim_cols
                .iter()
                .enumerate()
                .map(|(i, d)| format!("v{i}.{d} AS {d}"))
                .collect();
            cols.extend(measures_of(None));
            parts.push(format!(
                "SELECT {} FROM {}",
                cols.join(", "),
                universes.join(" CROSS JOIN ")
            ));
        }
        let mut combined: Vec<String> = dim_cols.clone();
        combined.extend((0..r.bases.len()).map(|j| {
            let m = self.q(&format!("m{j}"));
            format!("max({m}) AS {m}")
        }));
        let from = format!(
            "(\n  SELECT {}\n  FROM (\n  {}\n  ) AS u{}\n) AS s",
            combined.join(", "),
            parts.join("\n  UNION ALL\n  "),
            self.group_by(dim_cols)
        );
        (from, dim_cols.clone())
    }

    /// Elsewhere: the distinct dimension values of every group (and the
    /// universes) as `spine`, each group left-joined to it with null-safe
    /// equality.
    fn spine_of_groups(&mut self, ngroups: usize, universes: &[String]) -> (String, Vec<String>) {
        let dialect = self.dialect;
        let dim_cols = self.dim_cols.clone();
        let mut parts: Vec<String> = (0..ngroups)
            .map(|g| format!("SELECT {} FROM g{g}", dim_cols.join(", ")))
            .collect();
        if !universes.is_empty() {
            let cols: Vec<String> = dim_cols
                .iter()
                .enumerate()
                .map(|(i, d)| format!("v{i}.{d}"))
                .collect();
            parts.push(format!(
                "SELECT {} FROM {}",
                cols.join(", "),
                universes.join(" CROSS JOIN ")
            ));
        }
        let spine = parts.join(&format!("\n  {}\n  ", dialect.union_distinct()));
        self.ctes.push(format!("spine AS (\n  {spine}\n)"));
        let result_cols = dim_cols.iter().map(|d| format!("s.{d} AS {d}")).collect();
        let mut from = "spine s".to_string();
        for g in 0..ngroups {
            let on: Vec<String> = dim_cols
                .iter()
                .map(|d| dialect.null_safe_eq(&format!("s.{d}"), &format!("g{g}.{d}")))
                .collect();
            from.push_str(&format!("\n  LEFT JOIN g{g} ON {}", on.join(" AND ")));
        }
        (from, result_cols)
    }

    /// The `result` CTE: the dimensions, every measure and the derived
    /// measures computed over them.
    fn result_cte(
        &mut self,
        from: &str,
        mut result_cols: Vec<String>,
    ) -> Result<(), SemanticError> {
        let r = self.r;
        for j in 0..r.bases.len() {
            result_cols.push(self.q(&format!("m{j}")));
        }
        for k in 0..r.derived.len() {
            result_cols.push(format!(
                "{} AS {}",
                self.renderer.derived(r, k, 0)?,
                self.q(&format!("x{k}"))
            ));
        }
        self.ctes.push(format!(
            "result AS (\n  SELECT {}\n  FROM {from}\n)",
            result_cols.join(", ")
        ));
        Ok(())
    }

    /// The final projection with the names asked for, conditions on
    /// measures, order and limit.
    fn finish(self) -> Result<CompiledQuery, SemanticError> {
        let (r, dialect) = (self.r, self.dialect);
        let q = |name: &str| dialect.quote(name);
        let mut columns = Vec::new();
        let mut select = Vec::new();
        for (i, d) in r.dims.iter().enumerate() {
            select.push(format!(
                "{} AS {}",
                self.dim_cols[i],
                q(&dialect.output_name(&d.output))
            ));
            columns.push(OutputColumn {
                name: d.output.clone(),
                kind: "dimension",
            });
        }
        for m in &r.measure_order {
            let (name, col) = match m {
                Ok(j) => (r.bases[*j].output.clone(), q(&format!("m{j}"))),
                Err(k) => (r.derived[*k].output.clone(), q(&format!("x{k}"))),
            };
            select.push(format!("{col} AS {}", q(&dialect.output_name(&name))));
            columns.push(OutputColumn {
                name,
                kind: "measure",
            });
        }
        let mut sql = format!(
            "WITH {}{}\nSELECT {}\nFROM result",
            if self.recursive { "RECURSIVE " } else { "" },
            self.ctes.join(",\n"),
            select.join(", ")
        );
        let having = self.measure_conditions()?;
        if !having.is_empty() {
            sql.push_str(&format!("\nWHERE {}", having.join(" AND ")));
        }
        if !r.order.is_empty() {
            let terms: Vec<String> = r
                .order
                .iter()
                .map(|(field, desc)| {
                    format!(
                        "{}{}",
                        q(&dialect.output_name(field)),
                        if *desc { " DESC" } else { "" }
                    )
                })
                .collect();
            sql.push_str(&format!("\nORDER BY {}", terms.join(", ")));
        }
        sql.push_str(&format!("\nLIMIT {}", r.limit));
        if dialect == Dialect::Clickhouse {
            sql = super::clickhouse::rewrite(&sql)?;
        }
        Ok(CompiledQuery {
            sql,
            columns,
            notes: self.notes,
            plan: self.plan,
        })
    }

    /// The query's conditions on measures, over `result`'s columns.
    fn measure_conditions(&self) -> Result<Vec<String>, SemanticError> {
        let q = |name: &str| self.dialect.quote(name);
        let mut having = Vec::new();
        for (expr, refs) in &self.r.having {
            let sql = self.renderer.expr(&expr.ast, None, &mut |parts| {
                let key = parts.join(".");
                match refs.iter().find(|(k, _)| *k == key).map(|(_, t)| *t) {
                    Some(Ok(j)) => Ok(q(&format!("m{j}"))),
                    Some(Err(k)) => Ok(q(&format!("x{k}"))),
                    None => Err(SemanticError::query(format!("`{key}` is not a measure"))),
                }
            })?;
            having.push(format!("({sql})"));
        }
        Ok(having)
    }
}

/// What a group's aggregating CTE is built from.
struct Aggregate<'g> {
    g: usize,
    group: &'g MeasureGroup,
    dims_sql: &'g [String],
    cols: &'g [String],
    from: &'g str,
    filter: &'g str,
    group_cte: &'g str,
}

/// Says which day's rows a non-additive measure counts.
fn non_additive_note(
    model: &SemanticModel,
    r: &Resolved,
    root: usize,
    j: usize,
    na: &crate::model::NonAdditive,
) -> String {
    let source = &model.sources[root];
    let mut per: Vec<String> = r
        .dims
        .iter()
        .filter(|d| d.node == root && d.column == na.time)
        .map(|d| d.output.clone())
        .collect();
    per.extend(na.per.iter().map(|c| format!("{}.{c}", source.name)));
    let per = if per.is_empty() {
        String::new()
    } else {
        format!(" of each {}", per.join(", "))
    };
    format!(
        "`{}` is non-additive over `{}.{}`: only the rows of the {} day count{per}.",
        r.bases[j].output,
        source.name,
        na.time,
        match na.keep {
            crate::model::Keep::Last => "last",
            crate::model::Keep::First => "first",
        },
    )
}
