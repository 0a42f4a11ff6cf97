//! Runs the read-only guard over `guard_corpus.txt`: every line is one
//! statement that must be allowed or rejected (optionally with a given code)
//! in one dialect or in all of them.

use lore_core::error::HasErrorCode;
use lore_core::limits::SqlLimits;
use lore_warehouse::guard::{SqlDialect, check_read_only};

const CORPUS: &str = include_str!("guard_corpus.txt");
const ALL_DIALECTS: [SqlDialect; 6] = [
    SqlDialect::Sqlite,
    SqlDialect::Postgres,
    SqlDialect::Mysql,
    SqlDialect::Clickhouse,
    SqlDialect::Snowflake,
    SqlDialect::Duckdb,
];

struct Case {
    line: usize,
    verdict: String,
    dialects: Vec<SqlDialect>,
    sql: String,
}

fn cases() -> Vec<Case> {
    CORPUS
        .lines()
        .enumerate()
        .filter(|(_, text)| !text.trim().is_empty() && !text.starts_with('#'))
        .map(|(index, text)| {
            let mut parts = text.splitn(3, ' ');
            let verdict = parts.next().unwrap().to_string();
            let dialect = parts.next().expect("dialect");
            let sql = parts.next().expect("sql").replace("\\n", "\n");
            let dialects = if dialect == "all" {
                ALL_DIALECTS.to_vec()
            } else {
                vec![
                    SqlDialect::from_name(dialect)
                        .unwrap_or_else(|| panic!("line {}: unknown dialect {dialect}", index + 1)),
                ]
            };
            Case {
                line: index + 1,
                verdict,
                dialects,
                sql,
            }
        })
        .collect()
}

#[test]
fn corpus_is_large_enough_to_mean_something() {
    let all = cases();
    let allowed = all.iter().filter(|c| c.verdict == "allow").count();
    let rejected = all.len() - allowed;
    assert!(allowed >= 25, "only {allowed} allowed cases");
    assert!(rejected >= 60, "only {rejected} rejected cases");
}

#[test]
fn every_corpus_statement_gets_its_verdict() {
    let mut failures = Vec::new();
    for case in cases() {
        for dialect in &case.dialects {
            let outcome = check_read_only(&case.sql, *dialect, &SqlLimits::default());
            let ok = match (case.verdict.as_str(), &outcome) {
                ("allow", Ok(())) => true,
                ("reject", Err(_)) => true,
                (verdict, Err(e)) if verdict.starts_with("reject:") => {
                    verdict.trim_start_matches("reject:") == e.code().as_str()
                }
                _ => false,
            };
            if !ok {
                failures.push(format!(
                    "line {} [{}] expected {}, got {:?}: {}",
                    case.line,
                    dialect.as_str(),
                    case.verdict,
                    outcome.map_err(|e| e.to_string()),
                    case.sql
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} corpus failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
