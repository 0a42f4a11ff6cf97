//! The read-only guard: decides from the parsed SQL whether a statement may
//! run against a warehouse.
//!
//! The rule is an allow-list, not a deny-list of verbs: exactly one
//! statement, which is a query (`SELECT`, `WITH`, `VALUES`, set operations,
//! `TABLE t`) or an `EXPLAIN` of one (never `EXPLAIN ANALYZE`, which runs the
//! statement). The whole tree is then walked, so a write hidden anywhere
//! (DML in a CTE, `SELECT … INTO`, a locking clause, a side-effecting or
//! file-reading function) is found wherever it sits.
//!
//! Before anything parses, the text is measured against the project's
//! [`SqlLimits`] (bytes, expression depth) from its tokens alone, and the
//! parse and the walk run inside [`with_stack_budget`]: no statement can
//! make the guard recurse past its stack.
//!
//! The guard is the first of two walls: connectors also run every statement
//! in a session the database itself holds read-only.

mod deny;
mod duckdb;

use std::ops::ControlFlow;

use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::limits::{SqlLimitError, SqlLimits, check_sql, with_stack_budget};
use sqlparser::ast::{
    Expr, ObjectName, ObjectNamePart, Query, Select, SetExpr, Statement, TableFactor, Value, Visit,
    Visitor,
};
use sqlparser::parser::Parser;

pub use crate::dialect::SqlDialect;

/// Why the guard refused a statement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardError {
    /// The text does not parse in the dialect (the message carries the
    /// parser's line and column).
    #[error("SQL does not parse as {dialect}: {message}")]
    InvalidSql {
        /// The dialect used.
        dialect: &'static str,
        /// The parser's message, with its position.
        message: String,
    },
    /// The statement parses but is not a pure read.
    #[error(
        "{construct} is not allowed: only a single read-only query (SELECT, WITH, VALUES, EXPLAIN of a query) may run"
    )]
    ReadOnlyViolation {
        /// The offending construct, e.g. `INSERT inside a CTE`.
        construct: String,
    },
    /// The text is longer or deeper than the project's limits allow.
    #[error("{0}")]
    TooComplex(#[from] SqlLimitError),
}

impl HasErrorCode for GuardError {
    fn code(&self) -> ErrorCode {
        match self {
            GuardError::InvalidSql { .. } => ErrorCode::InvalidSql,
            GuardError::ReadOnlyViolation { .. } => ErrorCode::ReadOnlyViolation,
            GuardError::TooComplex(_) => ErrorCode::InvalidSql,
        }
    }
}

/// Checks that `sql` is exactly one read-only query in `dialect`, within
/// `limits`.
pub fn check_read_only(
    sql: &str,
    dialect: SqlDialect,
    limits: &SqlLimits,
) -> Result<(), GuardError> {
    let parser_dialect = dialect.parser_dialect();
    check_sql(sql, parser_dialect.as_ref(), limits)?;
    // The tree is built, walked and dropped inside the budget.
    with_stack_budget(|| check_parsed(sql, dialect, parser_dialect.as_ref()))
}

fn check_parsed(
    sql: &str,
    dialect: SqlDialect,
    parser_dialect: &dyn sqlparser::dialect::Dialect,
) -> Result<(), GuardError> {
    let statements = Parser::parse_sql(parser_dialect, sql).map_err(|e| {
        let unparsed_write = (dialect == SqlDialect::Duckdb)
            .then(|| duckdb::unparsed_write(sql, parser_dialect))
            .flatten();
        match unparsed_write {
            Some(verb) => violation(verb),
            None => GuardError::InvalidSql {
                dialect: dialect.as_str(),
                message: e
                    .to_string()
                    .trim_start_matches("sql parser error: ")
                    .to_string(),
            },
        }
    })?;
    let statement = match statements.as_slice() {
        [] => {
            return Err(GuardError::InvalidSql {
                dialect: dialect.as_str(),
                message: "no statement found (the text is empty or only comments)".to_string(),
            });
        }
        [one] => one,
        many => {
            return Err(violation(format!(
                "{} statements in one request",
                many.len()
            )));
        }
    };
    check_root(statement)?;
    let mut walker = ReadOnlyWalker {
        dialect,
        depth: 0,
        found: None,
    };
    let _ = statement.visit(&mut walker);
    match walker.found {
        Some(construct) => Err(violation(construct)),
        None => Ok(()),
    }
}

fn violation(construct: impl Into<String>) -> GuardError {
    GuardError::ReadOnlyViolation {
        construct: construct.into(),
    }
}

/// The root must be a query or an `EXPLAIN` (without ANALYZE) of a query.
fn check_root(statement: &Statement) -> Result<(), GuardError> {
    match statement {
        Statement::Query(_) => Ok(()),
        Statement::Explain {
            analyze,
            statement,
            options,
            ..
        } => {
            let analyze_option = options.iter().flatten().any(|option| {
                option.name.value.eq_ignore_ascii_case("analyze")
                    && !matches!(
                        option
                            .arg
                            .as_ref()
                            .map(|a| a.to_string().to_ascii_lowercase())
                            .as_deref(),
                        Some("false" | "off" | "0")
                    )
            });
            if *analyze || analyze_option {
                return Err(violation("EXPLAIN ANALYZE (it executes the statement)"));
            }
            match statement.as_ref() {
                Statement::Query(_) => Ok(()),
                other => Err(violation(format!("EXPLAIN of {}", statement_name(other)))),
            }
        }
        other => Err(violation(statement_name(other))),
    }
}

/// A short, upper-case name for a statement kind, e.g. `INSERT`, `CREATE TABLE`.
fn statement_name(statement: &Statement) -> String {
    let text = statement.to_string();
    let mut words = text.split_whitespace().map(|w| w.to_ascii_uppercase());
    let first = words.next().unwrap_or_default();
    // Two-word names read better where the first word alone is vague.
    let takes_object = matches!(
        first.as_str(),
        "CREATE" | "DROP" | "ALTER" | "TRUNCATE" | "START" | "GRANT" | "REVOKE"
    );
    match (takes_object, words.next()) {
        (true, Some(second)) if second.chars().all(|c| c.is_ascii_alphabetic()) => {
            format!("{first} {second}")
        }
        _ => first,
    }
}

struct ReadOnlyWalker {
    dialect: SqlDialect,
    /// Statement nesting depth: the root is depth 1 while it is visited.
    depth: usize,
    found: Option<String>,
}

impl ReadOnlyWalker {
    fn flag(&mut self, construct: String) -> ControlFlow<()> {
        self.found = Some(construct);
        ControlFlow::Break(())
    }

    fn check_function_name(&mut self, name: &ObjectName, as_table: bool) -> ControlFlow<()> {
        let Some(last) = name.0.last().and_then(|part| part.as_ident()) else {
            return ControlFlow::Continue(());
        };
        let lower = last.value.to_ascii_lowercase();
        if deny::is_denied(self.dialect, &lower) {
            let kind = if as_table {
                "table function"
            } else {
                "function"
            };
            return self.flag(format!(
                "{kind} {lower}() (side effects, file or network access)"
            ));
        }
        ControlFlow::Continue(())
    }
}

impl Visitor for ReadOnlyWalker {
    type Break = ();

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<()> {
        self.depth += 1;
        // The root was checked by `check_root`; `EXPLAIN`'s inner query is a
        // nested Query statement. Anything else nested is a write hidden in a
        // query, such as `WITH x AS (DELETE … RETURNING *) SELECT …`.
        if self.depth > 1 && !matches!(statement, Statement::Query(_)) {
            return self.flag(format!("{} inside a query", statement_name(statement)));
        }
        ControlFlow::Continue(())
    }

    fn post_visit_statement(&mut self, _statement: &Statement) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if let Some(lock) = query.locks.first() {
            return self.flag(format!("locking clause FOR {}", lock.lock_type));
        }
        if let SetExpr::Insert(inner)
        | SetExpr::Update(inner)
        | SetExpr::Delete(inner)
        | SetExpr::Merge(inner) = query.body.as_ref()
        {
            return self.flag(format!("{} inside a query", statement_name(inner)));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
        if select.into.is_some() {
            return self.flag("SELECT … INTO (it creates a table or writes a file)".to_string());
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        // Snowflake reads files from stages as tables: `FROM @stage/path`.
        let stage = relation.0.first().is_some_and(|part| match part {
            ObjectNamePart::Identifier(ident) => {
                ident.quote_style.is_none() && ident.value.starts_with('@')
            }
            _ => false,
        });
        if stage && self.dialect == SqlDialect::Snowflake {
            return self.flag(format!(
                "reading the stage {relation} (stages hold files, not tables)"
            ));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        match factor {
            TableFactor::Table {
                name,
                args: Some(_),
                ..
            }
            | TableFactor::Function { name, .. } => self.check_function_name(name, true),
            TableFactor::Table { name, .. } if self.dialect == SqlDialect::Duckdb => {
                match duckdb::file_scan(name) {
                    Some(construct) => self.flag(construct),
                    None => ControlFlow::Continue(()),
                }
            }
            _ => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Function(function) => self.check_function_name(&function.name, false),
            // `@stage` as an argument (`GET_PRESIGNED_URL(@s, 'f')`).
            Expr::Value(value)
                if self.dialect == SqlDialect::Snowflake
                    && matches!(&value.value, Value::Placeholder(p) if p.starts_with('@')) =>
            {
                self.flag(format!("the stage reference {value} (stages hold files)"))
            }
            // `seq.NEXTVAL` advances a sequence.
            Expr::CompoundIdentifier(parts)
                if self.dialect == SqlDialect::Snowflake
                    && parts
                        .last()
                        .is_some_and(|p| p.value.eq_ignore_ascii_case("nextval")) =>
            {
                self.flag("NEXTVAL (it advances a sequence)".to_string())
            }
            _ => ControlFlow::Continue(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(sql: &str, dialect: SqlDialect) -> Option<ErrorCode> {
        check_read_only(sql, dialect, &SqlLimits::default())
            .err()
            .map(|e| e.code())
    }

    #[test]
    fn plain_select_passes() {
        assert_eq!(code_of("SELECT 1", SqlDialect::Sqlite), None);
    }

    #[test]
    fn violation_message_names_the_construct() {
        let err = check_read_only(
            "WITH gone AS (DELETE FROM accounts RETURNING id) SELECT * FROM gone",
            SqlDialect::Postgres,
            &SqlLimits::default(),
        )
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::ReadOnlyViolation);
        assert!(err.to_string().contains("DELETE"), "{err}");
    }

    #[test]
    fn statement_names_are_short_and_upper_case() {
        let err = check_read_only(
            "drop table accounts",
            SqlDialect::Sqlite,
            &SqlLimits::default(),
        )
        .unwrap_err();
        assert!(
            err.to_string().starts_with("DROP TABLE is not allowed"),
            "{err}"
        );
    }

    #[test]
    fn parse_errors_carry_the_position() {
        let err = check_read_only(
            "SELECT FROM WHERE",
            SqlDialect::Sqlite,
            &SqlLimits::default(),
        )
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidSql);
        assert!(err.to_string().contains("Line: 1"), "{err}");
    }

    #[test]
    fn empty_text_is_invalid_sql() {
        assert_eq!(
            code_of("  -- nothing\n", SqlDialect::Sqlite),
            Some(ErrorCode::InvalidSql)
        );
    }

    #[test]
    fn long_chains_are_refused_before_parsing_and_chains_within_the_limit_pass_on_a_small_thread() {
        let chain = |terms: usize| vec!["1=1"; terms].join(" OR ");
        let err = check_read_only(
            &format!("SELECT 1 WHERE {}", chain(40_000)),
            SqlDialect::Sqlite,
            &SqlLimits::default(),
        )
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidSql);
        assert!(err.to_string().contains("limits.sql_depth"), "{err}");
        // A chain of 999 ORs, within 1000: the walk over the tree runs
        // within the stack budget, not on the caller's 64 KiB.
        let within = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || {
                check_read_only(
                    &format!("SELECT 1 WHERE {}", vec!["x"; 1000].join(" OR ")),
                    SqlDialect::Postgres,
                    &SqlLimits::default(),
                )
            })
            .unwrap()
            .join()
            .expect("the guard overflowed its stack");
        assert_eq!(within, Ok(()));
    }
}
