//! Simple aggregate SQL in a note as a semantic-layer measure:
//! `SELECT SUM(amount) / 100.0 AS net_revenue FROM invoices WHERE status
//! = 'paid'` proposes `{name: net_revenue, expr: "SUM(amount) / 100.0",
//! filter: "status = 'paid'"}` on the source over `invoices`. Only one
//! aggregate over one table (no joins, grouping, limits, set operations
//! or subqueries) is turned into a measure; the caller keeps it only if
//! the whole model still loads with it.

use std::ops::ControlFlow;

use lore_core::limits::{SqlLimits, check_sql, with_stack_budget};
use sqlparser::ast::{
    Expr, GroupByExpr, SelectItem, SetExpr, Statement, TableFactor, visit_expressions,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

/// A measure a query proposes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasureProposal {
    /// Its name (the query's alias, else the section's words), snake_case.
    pub name: String,
    /// The aggregate, with the table's qualifier removed.
    pub expr: String,
    /// The query's `WHERE`, if any.
    pub filter: Option<String>,
    /// The table it aggregates, as written (`billing.invoices`).
    pub table: String,
}

const AGGREGATES: [&str; 5] = ["sum", "count", "avg", "min", "max"];

fn snake(text: &str) -> String {
    let mut out = String::new();
    for c in text.trim().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_string();
    match out.chars().next() {
        Some(c) if c.is_ascii_digit() => format!("m_{out}"),
        None => "measure".to_string(),
        _ => out,
    }
}

/// The measure `sql` proposes, or why it does not make one. The query is
/// measured against `limits` before it is parsed, and parsed, walked and
/// dropped inside the stack budget, as `sql_execution` does.
pub fn propose(
    sql: &str,
    fallback_name: &str,
    limits: &SqlLimits,
) -> Result<MeasureProposal, String> {
    check_sql(sql, &GenericDialect {}, limits).map_err(|e| e.to_string())?;
    with_stack_budget(|| propose_checked(sql, fallback_name))
}

fn propose_checked(sql: &str, fallback_name: &str) -> Result<MeasureProposal, String> {
    let statements = Parser::parse_sql(&GenericDialect {}, sql)
        .map_err(|e| format!("the query does not parse: {e}"))?;
    let [Statement::Query(query)] = statements.as_slice() else {
        return Err("not a single SELECT".to_string());
    };
    if query.with.is_some()
        || query.order_by.is_some()
        || query.limit_clause.is_some()
        || query.fetch.is_some()
    {
        return Err(
            "WITH, ORDER BY and LIMIT make it more than one aggregate over one table".into(),
        );
    }
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Err("not a plain SELECT (a set operation or VALUES)".to_string());
    };
    let grouped = match &select.group_by {
        GroupByExpr::All(_) => true,
        GroupByExpr::Expressions(exprs, _) => !exprs.is_empty(),
    };
    if grouped || select.having.is_some() || select.distinct.is_some() {
        return Err(
            "it groups rows; a measure is one aggregate (group by dimensions in sl_query instead)"
                .into(),
        );
    }
    let [from] = select.from.as_slice() else {
        return Err("it reads more than one table".to_string());
    };
    if !from.joins.is_empty() {
        return Err(
            "it joins tables; a measure aggregates one source (the model's joins do the rest)"
                .into(),
        );
    }
    let TableFactor::Table { name, .. } = &from.relation else {
        return Err("it reads a subquery or a function, not a table".to_string());
    };
    let table = name.to_string();
    let [item] = select.projection.as_slice() else {
        return Err("it selects more than one value".to_string());
    };
    let (expr, alias) = match item {
        SelectItem::UnnamedExpr(expr) => (expr, None),
        SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
        _ => return Err("it selects `*`".to_string()),
    };
    let mut aggregates = 0;
    let mut nested = false;
    let _ = visit_expressions(expr, |e: &Expr| {
        match e {
            Expr::Function(f) => {
                let fname = f.name.to_string().to_lowercase();
                if AGGREGATES.contains(&fname.as_str()) {
                    aggregates += 1;
                }
            }
            Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. } => nested = true,
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    if nested {
        return Err("it holds a subquery".to_string());
    }
    if aggregates == 0 {
        return Err("it selects no aggregate (SUM, COUNT, AVG, MIN, MAX)".to_string());
    }
    if let Some(selection) = &select.selection {
        let mut sub = false;
        let _ = visit_expressions(selection, |e: &Expr| {
            if matches!(
                e,
                Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. }
            ) {
                sub = true;
            }
            ControlFlow::<()>::Continue(())
        });
        if sub {
            return Err("its WHERE holds a subquery".to_string());
        }
    }
    let unqualify = |text: String| -> String {
        let mut out = text;
        let mut prefixes = vec![format!("{table}.")];
        if let Some(last) = table.rsplit('.').next() {
            prefixes.push(format!("{last}."));
        }
        for prefix in prefixes {
            out = out.replace(&prefix, "");
        }
        out
    };
    Ok(MeasureProposal {
        name: snake(alias.as_deref().unwrap_or(fallback_name)),
        expr: unqualify(expr.to_string()),
        filter: select.selection.as_ref().map(|s| unqualify(s.to_string())),
        table,
    })
}

/// Whether a model source's `table` is the query's table (compared
/// without case, a schema on either side optional).
pub fn same_table(source_table: &str, query_table: &str) -> bool {
    let a = source_table.to_lowercase().replace('"', "");
    let b = query_table.to_lowercase().replace('"', "");
    a == b || a.rsplit('.').next() == Some(b.as_str()) || b.rsplit('.').next() == Some(a.as_str())
}

/// `file` with the measure added to its `measures:` list (one flow
/// mapping line; the rest of the file, comments included, untouched).
/// The caller checks that the model still loads.
pub fn add_measure(file: &str, measure: &MeasureProposal, description: &str) -> String {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let mut line = format!(
        "  - {{ name: {}, expr: {}",
        measure.name,
        quote(&measure.expr)
    );
    if let Some(filter) = &measure.filter {
        line.push_str(&format!(", filter: {}", quote(filter)));
    }
    line.push_str(&format!(", description: {} }}", quote(description)));
    let lines: Vec<&str> = file.lines().collect();
    let Some(start) = lines.iter().position(|l| l.trim_end() == "measures:") else {
        let mut out = file.trim_end().to_string();
        out.push_str(&format!("\nmeasures:\n{line}\n"));
        return out;
    };
    // The block runs while lines are indented, list items or blank.
    let mut end = start + 1;
    while end < lines.len() {
        let l = lines[end];
        if l.trim().is_empty() || l.starts_with(' ') || l.starts_with('-') || l.starts_with('#') {
            end += 1;
        } else {
            break;
        }
    }
    while end > start + 1 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    let mut out: Vec<String> = lines[..end].iter().map(|l| l.to_string()).collect();
    out.push(line);
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    let mut text = out.join("\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_aggregate_over_one_table_becomes_a_measure() {
        let m = propose(
            "SELECT SUM(invoices.total_cents) / 100.0 AS Net_Revenue FROM billing.invoices WHERE invoices.status = 'paid'",
            "ignored",
            &SqlLimits::default(),
        )
        .unwrap();
        assert_eq!(
            m,
            MeasureProposal {
                name: "net_revenue".into(),
                expr: "SUM(total_cents) / 100.0".into(),
                filter: Some("status = 'paid'".into()),
                table: "billing.invoices".into(),
            }
        );
        let unnamed = propose(
            "select count(distinct account_id) from invoices",
            "Active accounts",
            &SqlLimits::default(),
        )
        .unwrap();
        assert_eq!(unnamed.name, "active_accounts");
        assert_eq!(unnamed.filter, None);
        assert!(same_table("public.invoices", "invoices"));
        assert!(!same_table("invoice_lines", "invoices"));
    }

    #[test]
    fn anything_more_than_one_aggregate_over_one_table_says_why_not() {
        for (sql, why) in [
            (
                "SELECT status, SUM(x) FROM t GROUP BY status",
                "groups rows",
            ),
            ("SELECT SUM(x), COUNT(*) FROM t", "more than one value"),
            ("SELECT SUM(x) FROM t GROUP BY status", "groups rows"),
            (
                "SELECT SUM(a.x) FROM a JOIN b ON a.id = b.id",
                "joins tables",
            ),
            ("SELECT x FROM t", "no aggregate"),
            (
                "SELECT SUM(x) FROM t WHERE y IN (SELECT y FROM u)",
                "subquery",
            ),
            ("SELECT SUM(x) FROM t LIMIT 1", "LIMIT"),
            ("DELETE FROM t", "not a single SELECT"),
            ("SELEC nonsense", "does not parse"),
        ] {
            let err = propose(sql, "m", &SqlLimits::default()).unwrap_err();
            assert!(err.contains(why), "{sql}: {err}");
        }
        // A chain past limits.sql_depth is refused before it is parsed.
        let chain = vec!["a"; 50_000].join(" + ");
        let err = propose(
            &format!("SELECT SUM({chain}) FROM t"),
            "m",
            &SqlLimits::default(),
        )
        .unwrap_err();
        assert!(err.contains("limits.sql_depth"), "{err}");
    }

    #[test]
    fn a_measure_joins_the_list_and_leaves_the_rest_of_the_file_alone() {
        let file = "# comment kept\nname: invoices\ntable: invoices\nmeasures:\n  - { name: revenue, expr: \"sum(total)\" }\nsegments:\n  - { name: paid, expr: \"status = 'paid'\" }\n";
        let m = MeasureProposal {
            name: "paid_count".into(),
            expr: "COUNT(*)".into(),
            filter: Some("status = 'paid'".into()),
            table: "invoices".into(),
        };
        let out = add_measure(file, &m, "from the handbook");
        assert_eq!(
            out,
            "# comment kept\nname: invoices\ntable: invoices\nmeasures:\n  - { name: revenue, expr: \"sum(total)\" }\n  - { name: paid_count, expr: \"COUNT(*)\", filter: \"status = 'paid'\", description: \"from the handbook\" }\nsegments:\n  - { name: paid, expr: \"status = 'paid'\" }\n"
        );
        let without = add_measure("name: t\ntable: t\n", &m, "d");
        assert!(without.ends_with("measures:\n  - { name: paid_count, expr: \"COUNT(*)\", filter: \"status = 'paid'\", description: \"d\" }\n"));
    }
}
