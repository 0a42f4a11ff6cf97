//! Turning a resolved query into SQL text for one dialect.

use std::collections::HashMap;

use sqlparser::ast::{
    BinaryOperator, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
};

use super::days::{Running, SPINE_DAY, note as cumulative_note, reduction, running};
use super::paths::{JoinGraph, Step};
use super::{CompiledQuery, GroupPlan, OutputColumn, Resolved};
use crate::dialect::{Dialect, Granularity};
use crate::error::SemanticError;
use crate::model::expr::{AGGREGATES, raw, rewrite};
use crate::model::{Cardinality, Relation, SemanticModel};

/// The sources one aggregating CTE joins, with their aliases.
pub(super) struct Tree {
    root: usize,
    /// Steps in the order they are joined.
    steps: Vec<Step>,
    alias: HashMap<usize, String>,
}

impl Tree {
    fn build(
        model: &SemanticModel,
        graph: &JoinGraph,
        root: usize,
        needed: &[usize],
    ) -> Result<Tree, SemanticError> {
        let mut tree = Tree {
            root,
            steps: Vec::new(),
            alias: HashMap::from([(root, "t0".to_string())]),
        };
        for &target in needed {
            for step in graph.path_to_node(model, root, target)? {
                if !tree.alias.contains_key(&step.to_node) {
                    tree.alias
                        .insert(step.to_node, format!("t{}", tree.alias.len()));
                    tree.steps.push(step);
                }
            }
        }
        Ok(tree)
    }

    fn alias(&self, source: usize) -> &str {
        self.alias.get(&source).map(String::as_str).unwrap_or("t0")
    }

    /// The alias of `node` when the tree joins it.
    fn node_alias(&self, node: usize) -> Option<&str> {
        self.alias.get(&node).map(String::as_str)
    }

    fn fans(&self) -> Option<&Step> {
        self.steps
            .iter()
            .find(|s| s.cardinality == Cardinality::OneToMany)
    }
}

pub(super) struct Renderer<'a> {
    pub(super) model: &'a SemanticModel,
    pub(super) dialect: Dialect,
}

impl Renderer<'_> {
    pub(super) fn q(&self, name: &str) -> String {
        self.dialect.quote(name)
    }

    /// A column of `source` read through `alias`; computed columns expand.
    pub(super) fn column(
        &self,
        source: usize,
        column: &str,
        alias: &str,
        depth: usize,
    ) -> Result<String, SemanticError> {
        let src = &self.model.sources[source];
        match src.column(column).and_then(|c| c.expr.as_ref()) {
            Some(expr) if depth < 8 => {
                // Within its own expression a column's name is the stored
                // column (`region: UPPER(region)`).
                let stored = |c: &str| format!("{alias}.{}", self.dialect.quote_object(c));
                let sql = self.expr(&expr.ast, None, &mut |parts| match parts {
                    [c] if c == column => Ok(stored(c)),
                    [s, c] if s == &src.name && c == column => Ok(stored(c)),
                    [c] => self.column(source, c, alias, depth + 1),
                    [s, c] if s == &src.name => self.column(source, c, alias, depth + 1),
                    _ => Err(SemanticError::query(format!(
                        "computed column `{}.{column}` refers to `{}`, which is not a column of `{}`",
                        src.name,
                        parts.join("."),
                        src.name
                    ))),
                })?;
                Ok(format!("({sql})"))
            }
            Some(_) => Err(SemanticError::query(format!(
                "computed column `{}.{column}` refers to itself",
                src.name
            ))),
            None => Ok(format!("{alias}.{}", self.dialect.quote_object(column))),
        }
    }

    /// An expression with references resolved by `resolve`; when
    /// `aggregates` is set, aggregate calls are rendered for the dialect
    /// with the measure's row filter (SQL) applied inside them.
    pub(super) fn expr(
        &self,
        expr: &Expr,
        aggregates: Option<Option<&str>>,
        resolve: &mut dyn FnMut(&[String]) -> Result<String, SemanticError>,
    ) -> Result<String, SemanticError> {
        let out = rewrite(expr, |e| {
            match e {
                Expr::Identifier(ident) => {
                    *e = raw(resolve(std::slice::from_ref(&ident.value))?);
                }
                Expr::CompoundIdentifier(parts) => {
                    let parts: Vec<String> = parts.iter().map(|p| p.value.clone()).collect();
                    *e = raw(resolve(&parts)?);
                }
                Expr::Function(f) if portable_trunc(f).is_some() => {
                    if let Some((granularity, arg)) = portable_trunc(f) {
                        *e = raw(self.dialect.time_trunc(&arg, granularity));
                    }
                }
                Expr::Function(f) if aggregates.is_some() => {
                    let name = f.name.to_string().to_ascii_lowercase();
                    if AGGREGATES.contains(&name.as_str()) {
                        let filter = aggregates.flatten();
                        *e = raw(self.aggregate(&name, &f.args, filter)?);
                    }
                }
                _ => {}
            }
            Ok::<(), SemanticError>(())
        })?;
        Ok(out.to_string())
    }

    fn aggregate(
        &self,
        name: &str,
        args: &FunctionArguments,
        filter: Option<&str>,
    ) -> Result<String, SemanticError> {
        let (list, distinct) = match args {
            FunctionArguments::List(list) => (
                list.args
                    .iter()
                    .map(|a| match a {
                        FunctionArg::Unnamed(FunctionArgExpr::Wildcard) => "*".to_string(),
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => e.to_string(),
                        other => other.to_string(),
                    })
                    .collect::<Vec<_>>(),
                matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct)),
            ),
            _ => (Vec::new(), false),
        };
        let Some(first) = list.first() else {
            return Err(SemanticError::query(format!("{name}() needs an argument")));
        };
        let arg = match filter {
            Some(f) if first == "*" => format!("CASE WHEN {f} THEN 1 END"),
            Some(f) => format!("CASE WHEN {f} THEN {first} END"),
            None => first.clone(),
        };
        let distinct = if distinct || name == "count_distinct" {
            "DISTINCT "
        } else {
            ""
        };
        Ok(match name {
            "count" | "count_distinct" => format!("COUNT({distinct}{arg})"),
            "median" => self.dialect.percentile(&arg, 0.5)?,
            "percentile" => {
                let p: f64 = list
                    .get(1)
                    .and_then(|p| p.trim().parse().ok())
                    .ok_or_else(|| SemanticError::query("percentile(column, p) needs p as a number between 0 and 1 (or 0 and 100)"))?;
                let p = if p > 1.0 { p / 100.0 } else { p };
                if !(0.0..=1.0).contains(&p) {
                    return Err(SemanticError::query(
                        "percentile p must be between 0 and 1 (or 0 and 100)",
                    ));
                }
                self.dialect.percentile(&arg, p)?
            }
            other => format!("{}({distinct}{arg})", other.to_ascii_uppercase()),
        })
    }

    pub(super) fn relation(&self, source: usize, alias: &str) -> String {
        match &self.model.sources[source].relation {
            Relation::Table(table) => format!("{} {alias}", self.dialect.quote_table(table)),
            Relation::Sql(sql) => format!("({}) {alias}", sql.trim().trim_end_matches(';')),
        }
    }

    /// `FROM root LEFT JOIN … ON …` for a tree.
    pub(super) fn joins_clause(&self, tree: &Tree) -> Result<String, SemanticError> {
        Ok(format!(
            "FROM {}{}",
            self.relation(tree.root, "t0"),
            self.join_steps(tree)?
        ))
    }

    /// The `LEFT JOIN … ON …` lines of a tree's steps.
    pub(super) fn join_steps(&self, tree: &Tree) -> Result<String, SemanticError> {
        let mut sql = String::new();
        for step in &tree.steps {
            let join = &self.model.sources[step.declared_by].joins[step.join];
            let declarer = step.declared_by;
            let target = join.target;
            // The declaring side is the step's start, or its end when the
            // join is walked backwards.
            let (decl_alias, target_alias) = if step.from == declarer && step.to_node != declarer {
                (
                    tree.alias(step.from).to_string(),
                    tree.alias(step.to_node).to_string(),
                )
            } else {
                (
                    tree.alias(step.to_node).to_string(),
                    tree.alias(step.from).to_string(),
                )
            };
            let decl_name = self.model.sources[declarer].name.clone();
            let on = self.expr(&join.on.ast, None, &mut |parts| match parts {
                [c] => self.column(declarer, c, &decl_alias, 0),
                [s, c] if *s == join.name => self.column(target, c, &target_alias, 0),
                [s, c] if *s == decl_name => self.column(declarer, c, &decl_alias, 0),
                _ => Err(SemanticError::query(format!(
                    "join condition refers to unknown `{}`",
                    parts.join(".")
                ))),
            })?;
            sql.push_str(&format!(
                "\n  LEFT JOIN {} ON {on}",
                self.relation(step.to, tree.alias(step.to_node))
            ));
        }
        Ok(sql)
    }

    fn where_clause(&self, r: &Resolved, tree: &Tree) -> Result<String, SemanticError> {
        self.where_clause_of(r.row_filters.iter().collect(), tree)
    }

    fn where_clause_of(
        &self,
        filters: Vec<&super::RowFilter>,
        tree: &Tree,
    ) -> Result<String, SemanticError> {
        let mut conditions = Vec::new();
        for f in filters {
            conditions.push(self.row_filter(f, tree)?);
        }
        Ok(where_text(&conditions))
    }

    /// A query condition over columns, as `(SQL)` within `tree`.
    pub(super) fn row_filter(
        &self,
        f: &super::RowFilter,
        tree: &Tree,
    ) -> Result<String, SemanticError> {
        let sql = self.expr(&f.expr.ast, None, &mut |parts| match (parts, f.home) {
            ([c], Some(home)) => self.column(home, c, tree.alias(home), 0),
            ([s, c], _) => {
                let (node, si) = self
                    .model
                    .join_graph()
                    .node_named(self.model, s)
                    .ok_or_else(|| SemanticError::query(format!("no source `{s}`")))?;
                self.column(si, c, tree.alias(node), 0)
            }
            _ => Err(SemanticError::query(format!(
                "filter `{}`: qualify `{}` with its source",
                f.expr.text,
                parts.join(".")
            ))),
        })?;
        Ok(format!("({sql})"))
    }

    pub(super) fn dimension(
        &self,
        r: &Resolved,
        i: usize,
        tree: &Tree,
    ) -> Result<String, SemanticError> {
        let d = &r.dims[i];
        let col = self.column(d.source, &d.column, tree.alias(d.node), 0)?;
        Ok(match d.granularity {
            Some(g) => self.dialect.time_trunc(&col, g),
            None => col,
        })
    }

    /// A column a measure's expression or filter reads: its own source's
    /// (as `t0`) or, in a filter, one of a source the tree joins to-one.
    fn measure_column(
        &self,
        b: &super::BaseMeasure,
        parts: &[String],
        tree: &Tree,
        what: &str,
    ) -> Result<String, SemanticError> {
        let own = &self.model.sources[b.source].name;
        match parts {
            [c] => self.column(b.source, c, "t0", 0),
            [s, c] if s == own => self.column(b.source, c, "t0", 0),
            [s, c] if what == "the filter of measure" => {
                let found = self.model.join_graph().node_named(self.model, s);
                match found.and_then(|(node, si)| Some((tree.node_alias(node)?, si))) {
                    Some((alias, si)) => self.column(si, c, alias, 0),
                    None => Err(SemanticError::query(format!(
                        "the filter of measure `{}` reads `{s}.{c}`, and `{s}` is not joined to `{own}`",
                        b.output
                    ))),
                }
            }
            _ => Err(SemanticError::query(format!(
                "{what} `{}` reads `{}`, which is not a column of `{own}`",
                b.output,
                parts.join(".")
            ))),
        }
    }

    /// The nodes (other sources) the filters of `members` read, which
    /// their aggregating query must join.
    fn filter_nodes(&self, r: &Resolved, members: &[usize]) -> Vec<usize> {
        let mut nodes = Vec::new();
        for &j in members {
            let b = &r.bases[j];
            let Some(f) = &b.filter else { continue };
            for parts in f.references() {
                if let [s, _] = parts.as_slice()
                    && *s != self.model.sources[b.source].name
                    && let Some((node, _)) = self.model.join_graph().node_named(self.model, s)
                    && !nodes.contains(&node)
                {
                    nodes.push(node);
                }
            }
        }
        nodes
    }

    /// A measure's row filter within `tree`, when it has one.
    pub(super) fn measure_filter(
        &self,
        r: &Resolved,
        j: usize,
        tree: &Tree,
    ) -> Result<Option<String>, SemanticError> {
        let b = &r.bases[j];
        let Some(f) = &b.filter else {
            return Ok(None);
        };
        self.expr(&f.ast, None, &mut |p| {
            self.measure_column(b, p, tree, "the filter of measure")
        })
        .map(Some)
    }

    fn measure(&self, r: &Resolved, j: usize, tree: &Tree) -> Result<String, SemanticError> {
        let b = &r.bases[j];
        let filter = self.measure_filter(r, j, tree)?;
        self.expr(&b.expr.ast, Some(filter.as_deref()), &mut |p| {
            self.measure_column(b, p, tree, "measure")
        })
    }

    /// A derived measure over the aggregated columns `m<j>` / `x<k>`.
    fn derived(&self, r: &Resolved, k: usize, depth: usize) -> Result<String, SemanticError> {
        let d = &r.derived[k];
        let refs = &d.refs;
        let out = rewrite(&d.expr.ast, |e| {
            match e {
                Expr::Identifier(_) | Expr::CompoundIdentifier(_) => {
                    let key = match e {
                        Expr::Identifier(i) => i.value.clone(),
                        Expr::CompoundIdentifier(p) => p
                            .iter()
                            .map(|x| x.value.clone())
                            .collect::<Vec<_>>()
                            .join("."),
                        _ => unreachable!("matched above"),
                    };
                    let target = refs
                        .iter()
                        .find(|(k, _)| *k == key)
                        .map(|(_, t)| *t)
                        .ok_or_else(|| SemanticError::query(format!("`{key}` is not a measure")))?;
                    *e = raw(match target {
                        Ok(j) => self.q(&format!("m{j}")),
                        Err(_) if depth > 16 => {
                            return Err(SemanticError::query("derived measures nest too deeply"));
                        }
                        Err(other) => format!("({})", self.derived(r, other, depth + 1)?),
                    });
                }
                Expr::BinaryOp {
                    left,
                    op: BinaryOperator::Divide,
                    right,
                } => {
                    *e = raw(self.dialect.ratio(&left.to_string(), &right.to_string()));
                }
                _ => {}
            }
            Ok::<(), SemanticError>(())
        })?;
        Ok(out.to_string())
    }
}

/// `date_trunc('<granularity>', x)` in a model or query expression, which
/// Lore renders in each engine's own spelling (`strftime` on SQLite,
/// `toStartOfMonth` on ClickHouse, …): the granularity and `x` (already
/// rendered). Other `date_trunc` calls are left as written.
fn portable_trunc(f: &sqlparser::ast::Function) -> Option<(Granularity, String)> {
    if !f.name.to_string().eq_ignore_ascii_case("date_trunc") {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let [
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(unit))),
        FunctionArg::Unnamed(FunctionArgExpr::Expr(value)),
    ] = list.args.as_slice()
    else {
        return None;
    };
    let sqlparser::ast::Value::SingleQuotedString(unit) = &unit.value else {
        return None;
    };
    Some((Granularity::parse(unit)?, value.to_string()))
}

/// `WHERE a AND b` over `conditions`, or nothing when there are none.
pub(super) fn where_text(conditions: &[String]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!("\n  WHERE {}", conditions.join(" AND "))
    }
}

fn path_text(model: &SemanticModel, tree: &Tree) -> Vec<String> {
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
        // A non-additive measure keeps its own rows: a group of its own.
        let on_its_own = run.is_some() || b.non_additive.is_some();
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
            "Each cumulative or offset measure was aggregated on its own and then joined to the other measures on the dimensions.".to_string(),
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
