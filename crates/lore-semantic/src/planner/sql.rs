//! The pieces of SQL a measure group's query is made of: the join tree of
//! the sources it reads (`Tree`), and the `Renderer` that writes columns
//! (computed ones expanded), expressions (references resolved, aggregates
//! and `date_trunc` in the dialect's spelling, a measure's row filter
//! inside its aggregate), relations, joins, conditions, dimensions and
//! derived measures.

use std::collections::HashMap;

use sqlparser::ast::{
    BinaryOperator, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
};

use super::Resolved;
use crate::dialect::{Dialect, Granularity};
use crate::error::SemanticError;
use crate::model::expr::{AGGREGATES, raw, rewrite};
use crate::model::join_paths::{JoinGraph, Step};
use crate::model::{Cardinality, Relation, SemanticModel};

/// The sources one aggregating CTE joins, with their aliases.
pub(super) struct Tree {
    /// The source aggregated (alias `t0`).
    pub(super) root: usize,
    /// Steps in the order they are joined.
    pub(super) steps: Vec<Step>,
    /// Each node's alias (`t0`, `t1`, …).
    pub(super) alias: HashMap<usize, String>,
}

impl Tree {
    pub(super) fn build(
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

    pub(super) fn alias(&self, source: usize) -> &str {
        self.alias.get(&source).map(String::as_str).unwrap_or("t0")
    }

    /// The alias of `node` when the tree joins it.
    pub(super) fn node_alias(&self, node: usize) -> Option<&str> {
        self.alias.get(&node).map(String::as_str)
    }

    pub(super) fn fans(&self) -> Option<&Step> {
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
            // The model's spelling: a name asked for in another case
            // reads the column the model names.
            None => {
                let stored = src.column(column).map_or(column, |c| c.name.as_str());
                Ok(format!("{alias}.{}", self.dialect.quote_object(stored)))
            }
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

    pub(super) fn aggregate(
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

    pub(super) fn where_clause(&self, r: &Resolved, tree: &Tree) -> Result<String, SemanticError> {
        self.where_clause_of(r.row_filters.iter().collect(), tree)
    }

    pub(super) fn where_clause_of(
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
    pub(super) fn measure_column(
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
    pub(super) fn filter_nodes(&self, r: &Resolved, members: &[usize]) -> Vec<usize> {
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

    pub(super) fn measure(
        &self,
        r: &Resolved,
        j: usize,
        tree: &Tree,
    ) -> Result<String, SemanticError> {
        let b = &r.bases[j];
        let filter = self.measure_filter(r, j, tree)?;
        self.expr(&b.expr.ast, Some(filter.as_deref()), &mut |p| {
            self.measure_column(b, p, tree, "measure")
        })
    }

    /// A derived measure over the aggregated columns `m<j>` / `x<k>`.
    pub(super) fn derived(
        &self,
        r: &Resolved,
        k: usize,
        depth: usize,
    ) -> Result<String, SemanticError> {
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
