//! Generated hostile SQL through the read-only guard: token soup, long
//! flat chains of every operator, deep nesting, huge lists, NUL bytes and
//! odd Unicode. Whatever comes in, the guard answers (on a test thread's
//! 2 MiB stack, like a runtime worker) with Ok or a stable code — never a
//! panic or a stack overflow.

use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::limits::SqlLimits;
use lore_warehouse::guard::{SqlDialect, check_read_only};
use proptest::prelude::*;

const TOKENS: &[&str] = &[
    "SELECT", "1", "x", "t.c", "'a'", "\"q\"", "(", ")", ",", " OR ", " AND ", "+", "-", "*", "/",
    "||", "=", "<", "::", "[", "]", "CASE", "WHEN", "THEN", "ELSE", "END", " UNION ", "FROM", "t",
    "WHERE", " IN ", "NOT", "IS", "NULL", ";", "WITH", "AS", "INSERT", "DELETE", "--", "/*", "*/",
    "\u{0}", "é", "😀", "\u{202e}", "$$", "?", ":name", "COLLATE", "LIKE", "BETWEEN", " ",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..400).prop_map(|t| t.join(" "))
}

fn chain() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&[" OR ", "+", "*", "||", "=", "::", " AND ", " UNION SELECT "][..]),
        1usize..30_000,
    )
        .prop_map(|(op, n)| format!("SELECT {}", vec!["1"; n].join(op)))
}

fn nesting() -> impl Strategy<Value = String> {
    (
        1usize..3_000,
        prop::sample::select(&["(", "CASE WHEN 1 THEN ", "f(", "["][..]),
    )
        .prop_map(|(n, open)| format!("SELECT {}1", open.repeat(n)))
}

fn dialect() -> impl Strategy<Value = SqlDialect> {
    prop::sample::select(vec![
        SqlDialect::Sqlite,
        SqlDialect::Postgres,
        SqlDialect::Mysql,
        SqlDialect::Bigquery,
    ])
}

fn answers(sql: &str, dialect: SqlDialect) -> Result<(), TestCaseError> {
    if let Err(error) = check_read_only(sql, dialect, &SqlLimits::default()) {
        prop_assert!(
            matches!(
                error.code(),
                ErrorCode::InvalidSql | ErrorCode::ReadOnlyViolation
            ),
            "{:?}: {error}",
            error.code()
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn token_soup_gets_an_answer(sql in soup(), dialect in dialect()) {
        answers(&sql, dialect)?;
    }

    #[test]
    fn long_flat_chains_get_an_answer(sql in chain(), dialect in dialect()) {
        answers(&sql, dialect)?;
    }

    #[test]
    fn deep_nesting_gets_an_answer(sql in nesting(), dialect in dialect()) {
        answers(&sql, dialect)?;
    }

    #[test]
    fn arbitrary_text_gets_an_answer(sql in "\\PC{0,300}", dialect in dialect()) {
        answers(&sql, dialect)?;
    }
}
