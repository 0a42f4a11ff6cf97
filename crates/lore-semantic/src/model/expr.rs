//! Expressions in models and queries: parsed once with sqlparser, then
//! rewritten with table aliases and rendered for a dialect.

use std::ops::ControlFlow;

use lore_core::limits::{SqlLimits, check_sql, with_stack_budget};
use sqlparser::ast::{Expr, Ident, visit_expressions, visit_expressions_mut};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

use crate::error::SemanticError;

/// A parsed SQL expression and the text it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct SqlExpr {
    /// As written.
    pub text: String,
    /// As parsed.
    pub ast: Expr,
}

impl SqlExpr {
    /// Parses one expression; the whole text must be that expression, and
    /// within `limits` (measured before parsing).
    pub fn parse(text: &str, limits: &SqlLimits) -> Result<SqlExpr, SemanticError> {
        check_sql(text, &GenericDialect {}, limits).map_err(SemanticError::TooComplex)?;
        with_stack_budget(|| SqlExpr::parse_checked(text)).map_err(SemanticError::query)
    }

    fn parse_checked(text: &str) -> Result<SqlExpr, String> {
        let mut parser = Parser::new(&GenericDialect {})
            .try_with_sql(text)
            .map_err(|e| format!("`{text}` does not parse: {e}"))?;
        let ast = parser
            .parse_expr()
            .map_err(|e| format!("`{text}` does not parse: {e}"))?;
        let next = parser.peek_token();
        if next.token != Token::EOF {
            return Err(format!(
                "`{text}` does not parse: unexpected `{}` after the expression",
                next.token
            ));
        }
        Ok(SqlExpr {
            text: text.to_string(),
            ast,
        })
    }

    /// The column references in the expression, as name parts
    /// (`amount` → `["amount"]`, `orders.amount` → `["orders", "amount"]`).
    pub fn references(&self) -> Vec<Vec<String>> {
        let mut found = Vec::new();
        let _ = visit_expressions(&self.ast, |e| {
            match e {
                Expr::Identifier(ident) => found.push(vec![ident.value.clone()]),
                Expr::CompoundIdentifier(parts) => {
                    found.push(parts.iter().map(|p| p.value.clone()).collect())
                }
                _ => {}
            }
            ControlFlow::<()>::Continue(())
        });
        found
    }

    /// Whether the expression holds a subquery (`(SELECT …)`, `EXISTS`,
    /// `IN (SELECT …)`).
    pub fn has_subquery(&self) -> bool {
        visit_expressions(&self.ast, |e| match e {
            Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. } => {
                ControlFlow::Break(())
            }
            _ => ControlFlow::Continue(()),
        })
        .is_break()
    }

    /// The names of the functions called in the expression, lower-cased.
    pub fn functions(&self) -> Vec<String> {
        let mut found = Vec::new();
        let _ = visit_expressions(&self.ast, |e| {
            if let Expr::Function(f) = e {
                found.push(f.name.to_string().to_ascii_lowercase());
            }
            ControlFlow::<()>::Continue(())
        });
        found
    }
}

/// Rewrites every expression node bottom-up with `f`, which may replace a
/// node (usually with [`raw`] SQL) or fail.
pub fn rewrite<E>(expr: &Expr, mut f: impl FnMut(&mut Expr) -> Result<(), E>) -> Result<Expr, E> {
    let mut out = expr.clone();
    let flow = visit_expressions_mut(&mut out, |e| match f(e) {
        Ok(()) => ControlFlow::Continue(()),
        Err(error) => ControlFlow::Break(error),
    });
    match flow {
        ControlFlow::Continue(()) => Ok(out),
        ControlFlow::Break(error) => Err(error),
    }
}

/// An expression node that prints `sql` verbatim (already rendered and
/// quoted for the target dialect).
pub fn raw(sql: String) -> Expr {
    Expr::Identifier(Ident::new(sql))
}

/// Aggregate functions a measure may use.
pub const AGGREGATES: [&str; 8] = [
    "sum",
    "count",
    "count_distinct",
    "avg",
    "min",
    "max",
    "median",
    "percentile",
];

/// Whether the expression calls an aggregate function.
pub fn is_aggregate(expr: &SqlExpr) -> bool {
    expr.functions()
        .iter()
        .any(|f| AGGREGATES.contains(&f.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_functions_are_found() {
        let e = SqlExpr::parse(
            "sum(amount) / count(DISTINCT orders.customer_id)",
            &SqlLimits::default(),
        )
        .unwrap();
        assert_eq!(
            e.references(),
            vec![
                vec!["amount".to_string()],
                vec!["orders".to_string(), "customer_id".to_string()]
            ]
        );
        assert_eq!(e.functions(), vec!["sum", "count"]);
        assert!(is_aggregate(&e));
    }

    #[test]
    fn trailing_text_is_an_error() {
        let err = SqlExpr::parse("amount > 1 banana", &SqlLimits::default()).unwrap_err();
        assert!(err.to_string().contains("unexpected"), "{err}");
        assert!(SqlExpr::parse("sum(", &SqlLimits::default()).is_err());
    }
}
