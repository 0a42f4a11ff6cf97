//! Turning a resolved query into SQL text for one dialect: one CTE per
//! measure group (its pieces written by [`super::sql`]), the groups
//! combined on their dimensions, then the final projection, conditions
//! on measures, order and limit.

use std::collections::HashMap;

use super::days::{Running, SPINE_DAY, note as cumulative_note, reduction, running};
use super::sql::{Renderer, Tree};
use super::{CompiledQuery, GroupPlan, OutputColumn, Resolved};
use crate::dialect::Dialect;
use crate::error::SemanticError;
use crate::model::SemanticModel;

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
    let renderer = Renderer { model, dialect };
    let q = |name: &str| dialect.quote(name);
    let graph = model.join_graph();
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

    // Measure groups by source, in the order measures were asked for. A
    // cumulative or offset measure along a time column the query groups
    // by is a group of its own (its rows are joined to a spine of days).
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut runs: Vec<Option<Running>> = Vec::new();
    let mut alone: Vec<bool> = Vec::new();
    let mut notes = Vec::new();
    for (j, b) in r.bases.iter().enumerate() {
        let run = running(model, r, j)?;
        if run.is_none() && b.cumulative.is_some() {
            notes.push(format!(
                "`{}` is cumulative over all time; without its time column among the dimensions it is the total of every row.",
                b.output
            ));
        }
        // A non-additive measure keeps its own rows, a conversion
        // measure counts other rows: groups of their own.
        let on_its_own = run.is_some() || b.non_additive.is_some() || b.conversion.is_some();
        let plain_group = if on_its_own {
            None
        } else {
            groups
                .iter()
                .zip(&alone)
                .position(|((s, _), apart)| *s == b.source && !apart)
        };
        match plain_group {
            Some(i) => groups[i].1.push(j),
            None => {
                groups.push((b.source, vec![j]));
                runs.push(run);
                alone.push(on_its_own);
            }
        }
    }
    let ndims = r.dims.len();
    let dim_cols: Vec<String> = (0..ndims).map(|i| q(&format!("d{i}"))).collect();
    // ClickHouse before 21.x reads `GROUP BY 1` as a constant: group by
    // the dimensions' aliases there.
    let group_by_of = |cols: &[String]| -> String {
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
    };
    let group_by = group_by_of(&dim_cols);
    let mut recursive = false;

    let mut ctes = Vec::new();
    let mut plan = Vec::new();
    if groups.is_empty() {
        // Dimensions only: their distinct combinations.
        let root = graph.source_of(needed[0]);
        let tree = Tree::build(model, graph, root, &needed)?;
        let mut select = Vec::new();
        for (i, col) in dim_cols.iter().enumerate() {
            select.push(format!("{} AS {col}", renderer.dimension(r, i, &tree)?));
        }
        ctes.push(format!(
            "g0 AS (\n  SELECT DISTINCT {}\n  {}{}\n)",
            select.join(", "),
            renderer.joins_clause(&tree)?,
            renderer.where_clause(r, &tree)?
        ));
        plan.push(GroupPlan {
            source: model.sources[root].name.clone(),
            measures: Vec::new(),
            joins: path_text(model, &tree),
            strategy: "direct",
            running: None,
        });
    }
    for (g, (root, members)) in groups.iter().enumerate() {
        if let [j] = members.as_slice()
            && r.bases[*j].conversion.is_some()
        {
            let group = renderer.conversion_group(r, g, *j, &needed, &dim_cols, &group_by_of)?;
            ctes.extend(group.ctes);
            plan.push(group.plan);
            notes.push(group.note);
            continue;
        }
        let run = runs[g].as_ref();
        let mut tree = Tree::build(model, graph, *root, &needed)?;
        // Sources the measures' filters read (to-one from the root) are
        // joined where the measures are aggregated.
        let filter_nodes = renderer.filter_nodes(r, members);
        let filter_tree = Tree::build(model, graph, *root, &filter_nodes)?;
        if tree.fans().is_none() && !filter_nodes.is_empty() {
            let mut all = needed.clone();
            all.extend(filter_nodes.iter().filter(|n| !needed.contains(n)));
            tree = Tree::build(model, graph, *root, &all)?;
        }
        let source = &model.sources[*root];
        let non_additive = match members.as_slice() {
            [j] => r.bases[*j].non_additive.as_ref().map(|na| (*j, na)),
            _ => None,
        };
        let (from, filter) = match run {
            None => {
                let mut from = renderer.joins_clause(&tree)?;
                if let Some((j, na)) = non_additive {
                    // The day is chosen among the rows the filters keep,
                    // so its query joins what they read.
                    let mut all = needed.clone();
                    all.extend(filter_nodes.iter().filter(|n| !needed.contains(n)));
                    let chooser = Tree::build(model, graph, *root, &all)?;
                    let (cte, join) = renderer.last_day(r, g, j, &chooser, group_by_of)?;
                    ctes.push(cte);
                    from = format!(
                        "FROM {}{join}{}",
                        renderer.relation(*root, "t0"),
                        renderer.join_steps(&tree)?
                    );
                    notes.push(format!(
                        "`{}` is non-additive over `{}.{}`: only the rows of the {} day count{}.",
                        r.bases[j].output,
                        source.name,
                        na.time,
                        match na.keep {
                            crate::model::Keep::Last => "last",
                            crate::model::Keep::First => "first",
                        },
                        {
                            let mut per: Vec<String> = r
                                .dims
                                .iter()
                                .filter(|d| d.node == *root && d.column == na.time)
                                .map(|d| d.output.clone())
                                .collect();
                            per.extend(na.per.iter().map(|c| format!("{}.{c}", source.name)));
                            if per.is_empty() {
                                String::new()
                            } else {
                                format!(" of each {}", per.join(", "))
                            }
                        }
                    ));
                }
                (from, renderer.where_clause(r, &tree)?)
            }
            Some(run) => {
                let (days, reads_itself) = renderer.spine_days(*root, run, g)?;
                ctes.extend(days);
                recursive |= reads_itself;
                renderer.running_from(r, &tree, *root, run, g)?
            }
        };
        // The group's columns: the dimensions (a cumulative measure's time
        // dimensions read the spine's day), and each row's day when a
        // cumulative measure's periods are reduced afterwards.
        let mut dims_sql = Vec::new();
        for i in 0..ndims {
            dims_sql.push(match (run, r.dims[i].granularity) {
                (Some(run), Some(g)) if run.time_dims.contains(&i) => {
                    dialect.time_trunc(&renderer.spine_day(), g)
                }
                _ => renderer.dimension(r, i, &tree)?,
            });
        }
        let mut cols = dim_cols.clone();
        let reduce = run.is_some_and(|run| run.reduce);
        if reduce {
            dims_sql.push(renderer.spine_day());
            cols.push(q(SPINE_DAY));
        }
        let group_cte = if reduce {
            format!("r{g}")
        } else {
            format!("g{g}")
        };
        let group_by = group_by_of(&cols);
        // `aggregate AS "m<j>"` for each measure of the group, over `t0`.
        let measure_columns =
            |members: &[usize], tree: &Tree| -> Result<Vec<String>, SemanticError> {
                members
                    .iter()
                    .map(|&j| {
                        Ok(format!(
                            "{} AS {}",
                            renderer.measure(r, j, tree)?,
                            q(&format!("m{j}"))
                        ))
                    })
                    .collect()
            };
        let fan = tree.fans().copied();
        let strategy = if let Some(step) = fan {
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
            for (i, g) in source.grain.iter().enumerate() {
                keys.push(format!(
                    "{} AS {}",
                    renderer.column(*root, g, "t0", 0)?,
                    q(&format!("k{i}"))
                ));
            }
            for (i, d) in dims_sql.iter().enumerate() {
                keys.push(format!("{d} AS {}", cols[i]));
            }
            ctes.push(format!(
                "k{g} AS (\n  SELECT DISTINCT {}\n  {from}{filter}\n)",
                keys.join(", ")
            ));
            let on: Vec<String> = source
                .grain
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    Ok(format!(
                        "{} = k.{}",
                        renderer.column(*root, c, "t0", 0)?,
                        q(&format!("k{i}"))
                    ))
                })
                .collect::<Result<_, SemanticError>>()?;
            let mut select: Vec<String> = cols.iter().map(|d| format!("k.{d} AS {d}")).collect();
            select.extend(measure_columns(members, &filter_tree)?);
            ctes.push(format!(
                "{group_cte} AS (\n  SELECT {}\n  FROM k{g} k\n  JOIN {} ON {}{}{group_by}\n)",
                select.join(", "),
                renderer.relation(*root, "t0"),
                on.join(" AND "),
                renderer.join_steps(&filter_tree)?
            ));
            let fanned: Vec<String> = r
                .dims
                .iter()
                .filter(|d| tree.steps.iter().any(|s| s.to_node == d.node))
                .map(|d| d.output.clone())
                .collect();
            notes.push(format!(
                "The join {} is one-to-many and would repeat `{}` rows, so its measures ({}) were computed once per `{}` row ({}) in each group: no double counting{}.",
                format_args!("{} -> {}", model.sources[step.from].name, model.sources[step.to].name),
                source.name,
                members.iter().map(|&j| r.bases[j].output.clone()).collect::<Vec<_>>().join(", "),
                source.name,
                source.grain.join(", "),
                if fanned.is_empty() { String::new() } else { format!(" (grouped by {})", fanned.join(", ")) }
            ));
            "distinct_keys"
        } else {
            let mut select: Vec<String> = dims_sql
                .iter()
                .enumerate()
                .map(|(i, d)| format!("{d} AS {}", cols[i]))
                .collect();
            select.extend(measure_columns(members, &tree)?);
            // When every measure of the group counts only filtered rows, a
            // dimension value none of whose rows passes is not listed (as
            // a WHERE would leave it out), rather than listed with null.
            let mut having = String::new();
            if !cols.is_empty() {
                let filters: Vec<Option<String>> = members
                    .iter()
                    .map(|&j| renderer.measure_filter(r, j, &tree))
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
            ctes.push(format!(
                "{group_cte} AS (\n  SELECT {}\n  {from}{filter}{group_by}{having}\n)",
                select.join(", ")
            ));
            "direct"
        };
        if let Some(run) = run {
            let j = members[0];
            if run.reduce {
                ctes.push(reduction(
                    dialect,
                    g,
                    &dim_cols,
                    &q(&format!("m{j}")),
                    run.period_agg(),
                ));
            }
            notes.push(cumulative_note(model, r, j, run));
        }
        plan.push(GroupPlan {
            source: source.name.clone(),
            measures: members.iter().map(|&j| r.bases[j].output.clone()).collect(),
            joins: path_text(model, &tree),
            strategy,
            running: run.map(|run| run.plan_text(&source.name)),
        });
    }
    let mut sources_aggregated: Vec<String> = Vec::new();
    for (s, _) in &groups {
        let name = format!("`{}`", model.sources[*s].name);
        if !sources_aggregated.contains(&name) {
            sources_aggregated.push(name);
        }
    }
    if sources_aggregated.len() > 1 {
        notes.push(format!(
            "Measures of {} were aggregated separately and then joined on the dimensions, so no source's rows multiply another's (chasm trap).",
            sources_aggregated.join(", ")
        ));
    } else if groups.len() > 1 {
        notes.push(
            "Each cumulative, offset, non-additive or conversion measure was aggregated on its own and then joined to the other measures on the dimensions.".to_string(),
        );
    }

    // With include_empty, every value of each dimension (from its own
    // source, under the filters on that source alone) joins the spine.
    let mut universes = Vec::new();
    if r.include_empty && ndims > 0 {
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
            ctes.push(format!(
                "v{i} AS (\n  SELECT DISTINCT {} AS {}\n  FROM {}{}\n)",
                renderer.dimension(r, i, &tree)?,
                dim_cols[i],
                renderer.relation(d.source, "t0"),
                renderer.where_clause_of(own, &tree)?
            ));
            universes.push(format!("v{i}"));
        }
        notes.push(format!(
            "include_empty: every value of {} is listed, with empty measures where no rows match.",
            r.dims
                .iter()
                .map(|d| d.output.clone())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }

    // Combine the groups.
    // A dimension-only query has one group too (`g0`, its distinct values).
    let ngroups = groups.len().max(1);
    let mut result_cols: Vec<String> = Vec::new();
    let from = if ngroups == 1 && universes.is_empty() {
        result_cols.extend(dim_cols.iter().cloned());
        "g0".to_string()
    } else if dialect == Dialect::Clickhouse {
        // No null-safe join in ClickHouse 18.x: every group's rows (and the
        // dimension universes) are stacked, each with NULL for the measures
        // of other groups, and grouped by the dimensions, where NULLs form
        // one group. A group has one row per combination, so max() picks
        // its value: the spine's LEFT JOINs, without joins.
        let group_of: Vec<usize> = (0..r.bases.len())
            .map(|j| {
                groups
                    .iter()
                    .position(|(_, members)| members.contains(&j))
                    .unwrap_or(usize::MAX)
            })
            .collect();
        let measures_of = |g: Option<usize>| -> Vec<String> {
            (0..r.bases.len())
                .map(|j| {
                    let m = q(&format!("m{j}"));
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
            let m = q(&format!("m{j}"));
            format!("max({m}) AS {m}")
        }));
        result_cols.extend(dim_cols.iter().cloned());
        format!(
            "(\n  SELECT {}\n  FROM (\n  {}\n  ) AS u{group_by}\n) AS s",
            combined.join(", "),
            parts.join("\n  UNION ALL\n  ")
        )
    } else if ndims == 0 {
        (0..ngroups)
            .map(|g| format!("g{g}"))
            .collect::<Vec<_>>()
            .join(" CROSS JOIN ")
    } else {
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
        ctes.push(format!("spine AS (\n  {spine}\n)"));
        result_cols.extend(dim_cols.iter().map(|d| format!("s.{d} AS {d}")));
        let mut from = "spine s".to_string();
        for g in 0..ngroups {
            let on: Vec<String> = dim_cols
                .iter()
                .map(|d| dialect.null_safe_eq(&format!("s.{d}"), &format!("g{g}.{d}")))
                .collect();
            from.push_str(&format!("\n  LEFT JOIN g{g} ON {}", on.join(" AND ")));
        }
        from
    };
    for j in 0..r.bases.len() {
        result_cols.push(q(&format!("m{j}")));
    }
    for k in 0..r.derived.len() {
        result_cols.push(format!(
            "{} AS {}",
            renderer.derived(r, k, 0)?,
            q(&format!("x{k}"))
        ));
    }
    ctes.push(format!(
        "result AS (\n  SELECT {}\n  FROM {from}\n)",
        result_cols.join(", ")
    ));

    // Final projection, HAVING, order and limit.
    let mut columns = Vec::new();
    let mut select = Vec::new();
    let mut internal: HashMap<String, String> = HashMap::new();
    for (i, d) in r.dims.iter().enumerate() {
        select.push(format!(
            "{} AS {}",
            dim_cols[i],
            q(&dialect.output_name(&d.output))
        ));
        columns.push(OutputColumn {
            name: d.output.clone(),
            kind: "dimension",
        });
        internal.insert(d.output.clone(), dim_cols[i].clone());
    }
    for m in &r.measure_order {
        let (name, col) = match m {
            Ok(j) => (r.bases[*j].output.clone(), q(&format!("m{j}"))),
            Err(k) => (r.derived[*k].output.clone(), q(&format!("x{k}"))),
        };
        select.push(format!("{col} AS {}", q(&dialect.output_name(&name))));
        columns.push(OutputColumn {
            name: name.clone(),
            kind: "measure",
        });
        internal.insert(name, col);
    }
    let mut having = Vec::new();
    for (expr, refs) in &r.having {
        let sql = renderer.expr(&expr.ast, None, &mut |parts| {
            let key = parts.join(".");
            match refs.iter().find(|(k, _)| *k == key).map(|(_, t)| *t) {
                Some(Ok(j)) => Ok(q(&format!("m{j}"))),
                Some(Err(k)) => Ok(q(&format!("x{k}"))),
                None => Err(SemanticError::query(format!("`{key}` is not a measure"))),
            }
        })?;
        having.push(format!("({sql})"));
    }
    let mut sql = format!(
        "WITH {}{}\nSELECT {}\nFROM result",
        if recursive { "RECURSIVE " } else { "" },
        ctes.join(",\n"),
        select.join(", ")
    );
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
        notes,
        plan,
    })
}
