//! BigQuery Standard SQL, run on SQLite: the double's engine.
//!
//! A statement is parsed with sqlparser's BigQuery dialect (what does not
//! parse there is an `invalidQuery`, as on BigQuery), then rewritten where
//! the two engines differ — table paths (`project.dataset.table` →
//! an attached SQLite schema), `"text"` string literals, casts, integer
//! division (BigQuery's `/` is always FLOAT64), `UNION DISTINCT`, and a
//! short list of functions, each mapped to its SQLite twin or to one the
//! double registers. A function or construct outside that list is refused
//! (`Function not found`), never passed through to mean something else.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, CastKind, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident,
    ObjectName, ObjectNamePart, Query, SetExpr, SetQuantifier, Statement, TableFactor, Value,
    Visit, VisitMut, Visitor, VisitorMut,
};
use sqlparser::dialect::{BigQueryDialect, SQLiteDialect};
use sqlparser::parser::Parser;

/// A table a statement reads: `(project, dataset, table)`.
pub type TablePath = (String, String, String);

/// A statement ready for SQLite, and the tables it reads.
#[derive(Debug)]
pub struct Translated {
    /// The SQLite text.
    pub sql: String,
    /// The tables read (views of `INFORMATION_SCHEMA` as
    /// `INFORMATION_SCHEMA.<VIEW>`).
    pub tables: Vec<TablePath>,
}

/// Why a statement cannot run.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// `invalidQuery`: the message as BigQuery would word it.
    Invalid(String),
    /// Not a query (DML, DDL, scripting): needs write permissions.
    NotAQuery(String),
}

/// Translates `sql` for the job's `project`.
pub fn translate(sql: &str, project: &str) -> Result<Translated, Refusal> {
    let statements = Parser::parse_sql(&BigQueryDialect {}, sql)
        .map_err(|e| Refusal::Invalid(format!("Syntax error: {e}")))?;
    let mut statement = match statements.as_slice() {
        [one] => one.clone(),
        [] => {
            return Err(Refusal::Invalid(
                "Syntax error: Unexpected end of script".into(),
            ));
        }
        _ => {
            return Err(Refusal::Invalid(
                "the double runs one statement per job (scripts are not served)".into(),
            ));
        }
    };
    if !matches!(statement, Statement::Query(_)) {
        let text = statement.to_string();
        let verb = text.split_whitespace().next().unwrap_or("").to_uppercase();
        return Err(Refusal::NotAQuery(verb));
    }
    let mut ctes = CteNames(HashSet::new());
    let _ = Visit::visit(&statement, &mut ctes);
    let mut rewriter = Rewriter {
        project: project.to_string(),
        ctes: ctes.0,
        tables: Vec::new(),
        problem: None,
    };
    let _ = VisitMut::visit(&mut statement, &mut rewriter);
    if let Some(problem) = rewriter.problem {
        return Err(Refusal::Invalid(problem));
    }
    Ok(Translated {
        sql: statement.to_string(),
        tables: rewriter.tables,
    })
}

struct CteNames(HashSet<String>);

impl Visitor for CteNames {
    type Break = ();
    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                self.0.insert(cte.alias.name.value.to_ascii_lowercase());
            }
        }
        ControlFlow::Continue(())
    }
}

struct Rewriter {
    project: String,
    ctes: HashSet<String>,
    tables: Vec<TablePath>,
    problem: Option<String>,
}

impl Rewriter {
    fn fail(&mut self, problem: String) -> ControlFlow<()> {
        self.problem = Some(problem);
        ControlFlow::Break(())
    }

    /// `project.dataset.table`, `dataset.table`, `dataset.INFORMATION_SCHEMA.VIEW`.
    fn table_path(&mut self, name: &ObjectName) -> Result<Option<TablePath>, String> {
        let parts: Vec<String> = name
            .0
            .iter()
            .filter_map(ObjectNamePart::as_ident)
            .flat_map(|ident| {
                ident
                    .value
                    .split('.')
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        let upper: Vec<String> = parts.iter().map(|p| p.to_ascii_uppercase()).collect();
        let is_schema = |i: usize| upper.get(i).is_some_and(|p| p == "INFORMATION_SCHEMA");
        let path = match parts.len() {
            1 if self.ctes.contains(&parts[0].to_ascii_lowercase()) => return Ok(None),
            1 => {
                return Err(format!(
                    "Table name \"{}\" missing dataset while no default dataset is set in the request.",
                    parts[0]
                ));
            }
            2 if parts[0].starts_with("region-") => {
                return Err(
                    "the double serves dataset-qualified INFORMATION_SCHEMA views only".into(),
                );
            }
            2 => (self.project.clone(), parts[0].clone(), parts[1].clone()),
            3 if is_schema(1) => (
                self.project.clone(),
                parts[0].clone(),
                format!("INFORMATION_SCHEMA.{}", upper[2]),
            ),
            3 => (parts[0].clone(), parts[1].clone(), parts[2].clone()),
            4 if is_schema(2) => (
                parts[0].clone(),
                parts[1].clone(),
                format!("INFORMATION_SCHEMA.{}", upper[3]),
            ),
            _ => return Err(format!("Invalid table name: {name}")),
        };
        Ok(Some(path))
    }
}

impl VisitorMut for Rewriter {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        fn plain_unions(body: &mut SetExpr) {
            if let SetExpr::SetOperation {
                set_quantifier,
                left,
                right,
                ..
            } = body
            {
                if *set_quantifier == SetQuantifier::Distinct {
                    *set_quantifier = SetQuantifier::None;
                }
                plain_unions(left);
                plain_unions(right);
            }
        }
        plain_unions(&mut query.body);
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        match factor {
            TableFactor::Table {
                name,
                args: None,
                sample,
                ..
            } => {
                // The sample is a cost saving; the double's tables are small.
                *sample = None;
                match self.table_path(name) {
                    Ok(Some((project, dataset, table))) => {
                        let sqlite_table = table.replace('.', "_");
                        *name = ObjectName::from(vec![
                            Ident::with_quote('`', dataset.clone()),
                            Ident::with_quote('`', sqlite_table),
                        ]);
                        self.tables.push((project, dataset, table));
                        ControlFlow::Continue(())
                    }
                    Ok(None) => ControlFlow::Continue(()),
                    Err(problem) => self.fail(problem),
                }
            }
            TableFactor::Table { name, .. } => {
                self.fail(format!("Table-valued function not found: {name}"))
            }
            TableFactor::UNNEST { .. } => self.fail("the double does not serve UNNEST".to_string()),
            _ => ControlFlow::Continue(()),
        }
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        match rewrite(expr) {
            Ok(Some(new)) => {
                *expr = new;
                ControlFlow::Continue(())
            }
            Ok(None) => ControlFlow::Continue(()),
            Err(problem) => self.fail(problem),
        }
    }
}

/// The SQLite form of one expression whose children are already SQLite.
fn rewrite(expr: &Expr) -> Result<Option<Expr>, String> {
    match expr {
        Expr::Value(v) => Ok(match &v.value {
            Value::DoubleQuotedString(s)
            | Value::SingleQuotedRawStringLiteral(s)
            | Value::DoubleQuotedRawStringLiteral(s)
            | Value::TripleSingleQuotedString(s)
            | Value::TripleDoubleQuotedString(s) => {
                Some(Expr::value(Value::SingleQuotedString(s.clone())))
            }
            _ => None,
        }),
        Expr::Cast {
            kind,
            expr: inner,
            data_type,
            format: None,
        } => {
            if *kind == CastKind::DoubleColon {
                return Err("Syntax error: Unexpected \"::\"".to_string());
            }
            let target = data_type.to_string().to_ascii_uppercase();
            let text = match target.as_str() {
                "STRING" => format!("CAST({inner} AS TEXT)"),
                "INT64" | "INTEGER" | "BOOL" | "BOOLEAN" => format!("CAST({inner} AS INTEGER)"),
                "FLOAT64" => format!("CAST({inner} AS REAL)"),
                "NUMERIC" | "BIGNUMERIC" | "DECIMAL" => format!("CAST({inner} AS NUMERIC)"),
                "DATE" => format!("date({inner})"),
                "DATETIME" | "TIMESTAMP" => format!("datetime({inner})"),
                other => return Err(format!("the double cannot cast to {other}")),
            };
            sqlite_expr(&text).map(Some)
        }
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Divide,
            right,
        } => sqlite_expr(&format!("(CAST({left} AS REAL) / ({right}))")).map(Some),
        Expr::Function(function) => {
            let names: Vec<String> = function
                .name
                .0
                .iter()
                .filter_map(ObjectNamePart::as_ident)
                .map(|i| i.value.to_ascii_uppercase())
                .collect();
            let name = names.join(".");
            if function.filter.is_some() || !function.within_group.is_empty() {
                return Err(format!(
                    "the double does not serve {name} with FILTER or WITHIN GROUP"
                ));
            }
            let (distinct, args) = match &function.args {
                FunctionArguments::None => (false, Vec::new()),
                FunctionArguments::List(list) => {
                    if !list.clauses.is_empty() {
                        return Err(format!("the double does not serve clauses inside {name}()"));
                    }
                    let mut args = Vec::new();
                    for arg in &list.args {
                        match arg {
                            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => {
                                args.push(e.to_string())
                            }
                            FunctionArg::Unnamed(FunctionArgExpr::Wildcard) => {
                                args.push("*".into())
                            }
                            _ => {
                                return Err(format!(
                                    "the double does not serve named arguments of {name}"
                                ));
                            }
                        }
                    }
                    (
                        matches!(
                            list.duplicate_treatment,
                            Some(sqlparser::ast::DuplicateTreatment::Distinct)
                        ),
                        args,
                    )
                }
                FunctionArguments::Subquery(_) => {
                    return Err(format!("the double does not serve {name}(subquery)"));
                }
            };
            let sqlite_name = match name.as_str() {
                "COUNT" | "SUM" | "MIN" | "MAX" | "AVG" | "COALESCE" | "NULLIF" | "LOWER"
                | "UPPER" | "TRIM" | "ABS" | "ROUND" | "IFNULL" | "SUBSTR" | "REPLACE"
                | "CONCAT" | "ROW_NUMBER" | "RANK" | "DENSE_RANK" | "LAG" | "LEAD" => {
                    name.to_ascii_lowercase()
                }
                "LENGTH" | "CHAR_LENGTH" | "CHARACTER_LENGTH" => "length".to_string(),
                "REGEXP_CONTAINS" => "regexp_contains".to_string(),
                "TO_JSON_STRING" => "bq_to_json_string".to_string(),
                "SAFE_DIVIDE" => "bq_safe_divide".to_string(),
                "ARRAY_LENGTH" => "json_array_length".to_string(),
                "CURRENT_TIMESTAMP" => return sqlite_expr("datetime('now')").map(Some),
                "CURRENT_DATE" => return sqlite_expr("date('now')").map(Some),
                "DATE_TRUNC" => {
                    let [value, part] = args.as_slice() else {
                        return Err("No matching signature for function DATE_TRUNC".to_string());
                    };
                    let part = part.trim_matches('`').to_ascii_uppercase();
                    return sqlite_expr(&format!("bq_date_trunc({value}, '{part}')")).map(Some);
                }
                _ => return Err(format!("Function not found: {}", name.to_ascii_lowercase())),
            };
            let mut text = format!(
                "{sqlite_name}({}{})",
                if distinct { "DISTINCT " } else { "" },
                args.join(", ")
            );
            if let Some(over) = &function.over {
                text.push_str(&format!(" OVER {over}"));
            }
            sqlite_expr(&text).map(Some)
        }
        _ => Ok(None),
    }
}

fn sqlite_expr(text: &str) -> Result<Expr, String> {
    Parser::new(&SQLiteDialect {})
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| format!("the double could not rewrite `{text}`: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_literals_casts_and_division_are_rewritten() {
        let t = translate(
            "SELECT CAST(o.id AS STRING), \"paid\", SUM(amount) / COUNT(*) FROM `p`.shop.orders AS o JOIN shop.customers c ON c.id = o.customer_id",
            "p",
        )
        .unwrap();
        assert!(t.sql.contains("`shop`.`orders`"), "{}", t.sql);
        assert!(t.sql.contains("CAST(o.id AS TEXT)"), "{}", t.sql);
        assert!(t.sql.contains("'paid'"), "{}", t.sql);
        assert!(t.sql.contains("CAST(sum(amount) AS REAL)"), "{}", t.sql);
        assert_eq!(
            t.tables,
            vec![
                ("p".into(), "shop".into(), "orders".into()),
                ("p".into(), "shop".into(), "customers".into())
            ]
        );
    }

    #[test]
    fn unknown_functions_and_unqualified_tables_are_refused() {
        assert!(matches!(
            translate("SELECT nope(1) FROM shop.t", "p"),
            Err(Refusal::Invalid(m)) if m.contains("Function not found: nope")
        ));
        assert!(matches!(
            translate("SELECT 1 FROM t", "p"),
            Err(Refusal::Invalid(m)) if m.contains("missing dataset")
        ));
        assert!(matches!(
            translate("DELETE FROM shop.t WHERE TRUE", "p"),
            Err(Refusal::NotAQuery(v)) if v == "DELETE"
        ));
        let t = translate(
            "WITH x AS (SELECT 1 AS a) SELECT a FROM x UNION DISTINCT SELECT 2",
            "p",
        )
        .unwrap();
        assert!(!t.sql.contains("DISTINCT"), "{}", t.sql);
        let t = translate(
            "SELECT table_name FROM `p`.`shop`.INFORMATION_SCHEMA.TABLES",
            "p",
        )
        .unwrap();
        assert!(
            t.sql.contains("`shop`.`INFORMATION_SCHEMA_TABLES`"),
            "{}",
            t.sql
        );
    }
}
