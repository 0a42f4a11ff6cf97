//! The planner's SQL in the shape ClickHouse 18.x runs.
//!
//! ClickHouse before 20.x has no `WITH name AS (subquery)`, at most one
//! `JOIN` per `SELECT`, and resolves a joined table's column to the left
//! table's when both have one of that name (`t1.id` reads `t0.id`). The
//! planner's statement is therefore rewritten, keeping its meaning:
//!
//! 1. every CTE is inlined as a derived table where it is read;
//! 2. every `SELECT` that joins becomes a chain of single joins: each
//!    relation is wrapped in `SELECT col AS "alias__col", …` (only the
//!    columns the `SELECT` reads), each reference `alias.col` becomes the
//!    unique name `"alias__col"`, and the joins nest left to right, each
//!    level passing on the columns later ones need. In a join condition
//!    each name is qualified by the side that holds it, which is how 18.x
//!    tells the sides apart (the planner's aliases never contain `__`, so
//!    the names cannot collide).
//!
//! Join conditions stay equalities of columns, the form 18.x joins on;
//! unmatched `LEFT JOIN` rows read NULL because the connector sends
//! `join_use_nulls=1`. The chasm-trap combination is written by the
//! renderer itself without joins (`UNION ALL` and `GROUP BY`), as 18.x
//! cannot join on null-safe equality.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Ident, JoinConstraint, JoinOperator, Query, Select, SetExpr, Statement, TableAlias,
    TableFactor, TableWithJoins, VisitMut, VisitorMut,
};
use sqlparser::dialect::ClickHouseDialect;
use sqlparser::parser::Parser;

use crate::error::SemanticError;

fn unsupported(message: impl Into<String>) -> SemanticError {
    SemanticError::Unsupported {
        message: format!(
            "{} (ClickHouse before 20.x joins one table per SELECT on equalities only)",
            message.into()
        ),
    }
}

fn parse_query(sql: &str) -> Result<Query, SemanticError> {
    let statements = Parser::parse_sql(&ClickHouseDialect {}, sql)
        .map_err(|e| unsupported(format!("the compiled SQL did not parse: {e}")))?;
    match statements.into_iter().next() {
        Some(Statement::Query(query)) => Ok(*query),
        _ => Err(unsupported("the compiled SQL is not a query")),
    }
}

/// Rewrites the planner's statement for ClickHouse (see the module docs).
pub(crate) fn rewrite(sql: &str) -> Result<String, SemanticError> {
    let mut query = parse_query(sql)?;
    inline_ctes(&mut query);
    flatten_query(&mut query)?;
    Ok(query.to_string())
}

/// Replaces reads of the query's CTEs (unquoted names) by the CTE bodies.
fn inline_ctes(query: &mut Query) {
    let Some(with) = query.with.take() else {
        return;
    };
    let mut defined: Vec<(String, Query)> = Vec::new();
    for cte in with.cte_tables {
        let mut body = *cte.query;
        inline_ctes(&mut body);
        let _ = body.visit(&mut Inliner { defined: &defined });
        defined.push((cte.alias.name.value, body));
    }
    let _ = query.visit(&mut Inliner { defined: &defined });
}

struct Inliner<'a> {
    defined: &'a [(String, Query)],
}

impl VisitorMut for Inliner<'_> {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = factor
            && let [part] = name.0.as_slice()
            && let Some(ident) = part.as_ident()
            && ident.quote_style.is_none()
            && let Some((cte, body)) = self.defined.iter().find(|(n, _)| *n == ident.value)
        {
            let alias = alias.clone().unwrap_or(TableAlias {
                explicit: true,
                name: Ident::new(cte.clone()),
                columns: Vec::new(),
                at: None,
            });
            *factor = TableFactor::Derived {
                lateral: false,
                subquery: Box::new(body.clone()),
                alias: Some(alias),
                sample: None,
            };
        }
        ControlFlow::Continue(())
    }
}

fn flatten_query(query: &mut Query) -> Result<(), SemanticError> {
    flatten_set(&mut query.body)
}

fn flatten_set(body: &mut SetExpr) -> Result<(), SemanticError> {
    match body {
        SetExpr::Select(select) => {
            for table in &mut select.from {
                flatten_factor(&mut table.relation)?;
                for join in &mut table.joins {
                    flatten_factor(&mut join.relation)?;
                }
            }
            flatten_select(select)
        }
        SetExpr::Query(query) => flatten_query(query),
        SetExpr::SetOperation { left, right, .. } => {
            flatten_set(left)?;
            flatten_set(right)
        }
        _ => Ok(()),
    }
}

fn flatten_factor(factor: &mut TableFactor) -> Result<(), SemanticError> {
    if let TableFactor::Derived { subquery, .. } = factor {
        flatten_query(subquery)?;
    }
    Ok(())
}

/// Renames `alias.col` (for the `SELECT`'s own aliases) to `"alias.col"`
/// outside nested queries, remembering which columns each alias gives.
struct Renamer<'a> {
    aliases: &'a [String],
    used: Vec<(String, Vec<String>)>,
    depth: usize,
}

impl VisitorMut for Renamer<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        if let Expr::CompoundIdentifier(parts) = expr
            && let [alias, column] = parts.as_slice()
            && self.aliases.contains(&alias.value)
        {
            let flat = flat_name(&alias.value, &column.value);
            let entry = match self.used.iter().position(|(a, _)| *a == alias.value) {
                Some(i) => &mut self.used[i].1,
                None => {
                    self.used.push((alias.value.clone(), Vec::new()));
                    &mut self.used.last_mut().expect("just pushed").1
                }
            };
            if !entry.contains(&column.value) {
                entry.push(column.value.clone());
            }
            *expr = Expr::Identifier(Ident::with_quote('"', flat));
        }
        ControlFlow::Continue(())
    }
}

fn flat_name(alias: &str, column: &str) -> String {
    format!("{alias}__{column}")
}

/// Qualifies the flat names of a join condition by the side holding them:
/// `right` for the joined relation's own, `left` for the rest.
struct Sides<'a> {
    right_alias: &'a str,
    right_names: Vec<String>,
    left: &'a str,
}

impl VisitorMut for Sides<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Identifier(ident) = expr
            && ident.quote_style == Some('"')
            && ident.value.contains("__")
        {
            let side = if self.right_names.contains(&ident.value) {
                self.right_alias
            } else {
                self.left
            };
            *expr = Expr::CompoundIdentifier(vec![Ident::with_quote('"', side), ident.clone()]);
        }
        ControlFlow::Continue(())
    }
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// One relation of a joining `SELECT`.
struct Joined {
    alias: String,
    /// The relation without its alias, as SQL text.
    relation: String,
    /// `LEFT JOIN`, `JOIN`, `CROSS JOIN` (none for the first).
    operator: Option<&'static str>,
    /// The join condition (already renamed), for joins that have one.
    on: Option<Expr>,
}

/// Rewrites a joining `SELECT`'s `FROM` as a chain of single joins over
/// renamed columns (see the module docs); a `SELECT` without joins is
/// left as it is.
fn flatten_select(select: &mut Select) -> Result<(), SemanticError> {
    if select.from.len() > 1 {
        return Err(unsupported("a comma join cannot be rendered"));
    }
    let Some(table) = select.from.first() else {
        return Ok(());
    };
    if table.joins.is_empty() {
        return Ok(());
    }
    let mut aliases = vec![relation_alias(&table.relation)?];
    for join in &table.joins {
        aliases.push(relation_alias(&join.relation)?);
    }
    let mut renamer = Renamer {
        aliases: &aliases,
        used: Vec::new(),
        depth: 0,
    };
    let _ = select.visit(&mut renamer);
    let used = renamer.used;
    let Some(table) = select.from.first() else {
        return Ok(());
    };
    let joined = joined_relations(table, &aliases)?;
    let left = chain_joins(&joined, &used);
    let parsed = parse_query(&format!("SELECT 1 FROM {left}"))?;
    let SetExpr::Select(mut parsed) = *parsed.body else {
        return Err(unsupported("the flattened joins did not parse"));
    };
    let from: Vec<TableWithJoins> = std::mem::take(&mut parsed.from);
    select.from = from;
    Ok(())
}

/// The alias of a relation in a joining `SELECT`, which each must have.
fn relation_alias(factor: &TableFactor) -> Result<String, SemanticError> {
    match factor {
        TableFactor::Table { alias: Some(a), .. } | TableFactor::Derived { alias: Some(a), .. } => {
            Ok(a.name.value.clone())
        }
        other => Err(unsupported(format!(
            "the joined relation `{other}` has no alias"
        ))),
    }
}

/// A relation as SQL text, without its alias.
fn without_alias(factor: &TableFactor) -> String {
    let mut bare = factor.clone();
    match &mut bare {
        TableFactor::Table { alias, .. } | TableFactor::Derived { alias, .. } => *alias = None,
        _ => {}
    }
    bare.to_string()
}

/// The relations of `table` (named by `aliases`, in order) with how each
/// is joined; an error for joins and constraints 18.x cannot run.
fn joined_relations(
    table: &TableWithJoins,
    aliases: &[String],
) -> Result<Vec<Joined>, SemanticError> {
    let mut joined = vec![Joined {
        alias: aliases[0].clone(),
        relation: without_alias(&table.relation),
        operator: None,
        on: None,
    }];
    for (join, alias) in table.joins.iter().zip(aliases.iter().skip(1)) {
        let (operator, constraint) = match &join.join_operator {
            JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => ("LEFT JOIN", Some(c)),
            JoinOperator::Join(c) | JoinOperator::Inner(c) => ("JOIN", Some(c)),
            JoinOperator::CrossJoin(c) => ("CROSS JOIN", Some(c)),
            other => {
                return Err(unsupported(format!(
                    "the join `{other:?}` cannot be rendered"
                )));
            }
        };
        let on = match constraint {
            Some(JoinConstraint::On(expr)) => Some(expr.clone()),
            Some(JoinConstraint::None) | None => None,
            Some(other) => {
                return Err(unsupported(format!(
                    "the join constraint `{other:?}` cannot be rendered"
                )));
            }
        };
        joined.push(Joined {
            alias: alias.clone(),
            relation: without_alias(&join.relation),
            operator: Some(operator),
            on,
        });
    }
    Ok(joined)
}

/// The columns the `SELECT` reads of the relation `alias` (as the
/// [`Renamer`] found them).
fn columns_of(used: &[(String, Vec<String>)], alias: &str) -> Vec<String> {
    used.iter()
        .find(|(a, _)| a == alias)
        .map(|(_, cols)| cols.clone())
        .unwrap_or_default()
}

/// A relation, its columns renamed to their unique names.
fn projected(used: &[(String, Vec<String>)], j: &Joined) -> String {
    let mut columns: Vec<String> = columns_of(used, &j.alias)
        .iter()
        .map(|c| format!("{} AS {}", quoted(c), quoted(&flat_name(&j.alias, c))))
        .collect();
    if columns.is_empty() {
        columns.push(format!("1 AS {}", quoted(&flat_name(&j.alias, ""))));
    }
    format!(
        "(SELECT {} FROM {}) AS {}",
        columns.join(", "),
        j.relation,
        quoted(&j.alias)
    )
}

/// `left` (named `left_alias`) joined to the relation `j`, its condition's
/// names qualified by the side that holds them.
fn join_text(used: &[(String, Vec<String>)], left: String, left_alias: &str, j: &Joined) -> String {
    let mut text = format!(
        "{left} {} {}",
        j.operator.unwrap_or("CROSS JOIN"),
        projected(used, j)
    );
    if let Some(on) = &j.on {
        let mut on = on.clone();
        let _ = on.visit(&mut Sides {
            right_alias: &j.alias,
            right_names: columns_of(used, &j.alias)
                .iter()
                .map(|c| flat_name(&j.alias, c))
                .collect(),
            left: left_alias,
        });
        text.push_str(&format!(" ON {on}"));
    }
    text
}

/// The joins nested left to right, one per level, each level passing on
/// every column of the relations joined so far: the new `FROM` as text.
fn chain_joins(joined: &[Joined], used: &[(String, Vec<String>)]) -> String {
    let mut left = projected(used, &joined[0]);
    let mut left_alias = joined[0].alias.clone();
    for (level, j) in joined.iter().enumerate().skip(1) {
        let joined_here = join_text(used, left, &left_alias, j);
        if level + 1 == joined.len() {
            left = joined_here;
            break;
        }
        // Pass on every column of the relations joined so far.
        let mut passed: Vec<String> = Vec::new();
        for earlier in joined.iter().take(level + 1) {
            let mut columns = columns_of(used, &earlier.alias);
            if columns.is_empty() {
                columns.push(String::new());
            }
            passed.extend(
                columns
                    .iter()
                    .map(|c| quoted(&flat_name(&earlier.alias, c))),
            );
        }
        left_alias = format!("j{level}");
        left = format!(
            "(SELECT {} FROM {joined_here}) AS {}",
            passed.join(", "),
            quoted(&left_alias)
        );
    }
    left
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctes_are_inlined_where_they_are_read() {
        let sql =
            rewrite("WITH g0 AS (SELECT 1 AS x), r AS (SELECT x FROM g0) SELECT x FROM r").unwrap();
        assert!(!sql.contains("WITH"), "{sql}");
        assert!(
            sql.contains("FROM (SELECT x FROM (SELECT 1 AS x) AS g0) AS r"),
            "{sql}"
        );
    }

    #[test]
    fn quoted_tables_are_not_taken_for_ctes() {
        let sql = rewrite("WITH g0 AS (SELECT 1 AS x) SELECT * FROM \"g0\"").unwrap();
        assert_eq!(sql, "SELECT * FROM \"g0\"");
    }

    #[test]
    fn joins_become_single_joins_over_uniquely_named_columns() {
        let sql = rewrite(
            "SELECT t2.\"name\" AS d0, SUM(t0.\"amount\") AS m0 FROM \"invoices\" t0 \
             LEFT JOIN \"accounts\" t1 ON t0.\"account_id\" = t1.\"id\" \
             LEFT JOIN \"plans\" t2 ON t1.\"plan_id\" = t2.\"id\" GROUP BY d0",
        )
        .unwrap();
        assert_eq!(
            sql,
            "SELECT \"t2__name\" AS d0, SUM(\"t0__amount\") AS m0 FROM \
             (SELECT \"t0__amount\", \"t0__account_id\", \"t1__id\", \"t1__plan_id\" FROM \
             (SELECT \"amount\" AS \"t0__amount\", \"account_id\" AS \"t0__account_id\" FROM \"invoices\") AS \"t0\" \
             LEFT JOIN (SELECT \"id\" AS \"t1__id\", \"plan_id\" AS \"t1__plan_id\" FROM \"accounts\") AS \"t1\" \
             ON \"t0\".\"t0__account_id\" = \"t1\".\"t1__id\") AS \"j1\" \
             LEFT JOIN (SELECT \"name\" AS \"t2__name\", \"id\" AS \"t2__id\" FROM \"plans\") AS \"t2\" \
             ON \"j1\".\"t1__plan_id\" = \"t2\".\"t2__id\" GROUP BY d0"
        );
    }

    #[test]
    fn subqueries_keep_their_own_aliases() {
        let sql = rewrite(
            "SELECT k.\"d0\", COUNT(*) FROM (SELECT DISTINCT t0.\"id\" AS k0, t1.\"x\" AS d0 FROM a t0 \
             LEFT JOIN b t1 ON t0.\"b\" = t1.\"id\") k JOIN a t0 ON t0.\"id\" = k.\"k0\" GROUP BY k.\"d0\"",
        )
        .unwrap();
        assert!(
            sql.contains("SELECT DISTINCT \"t0__id\" AS k0, \"t1__x\" AS d0"),
            "{sql}"
        );
        assert!(
            sql.contains("ON \"t0\".\"t0__id\" = \"k\".\"k__k0\""),
            "{sql}"
        );
        assert!(sql.contains("GROUP BY \"k__d0\""), "{sql}");
    }
}
