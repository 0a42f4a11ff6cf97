//! Non-additive (semi-additive) measures on SQLite: account balances are
//! not added up over days, only the last (or first) day's rows count, per
//! queried period and per account when asked; the filters choose the day
//! among the rows they keep. Values worked out by hand from the rows
//! below (the same rows MetricFlow answered alike in the oracle).

use std::path::PathBuf;

use lore_core::limits::SqlLimits;
use lore_semantic::dialect::Dialect;
use lore_semantic::model::load_sources;
use lore_semantic::planner::compile;
use lore_semantic::query::SemanticQuery;
use lore_warehouse::dialect::SqlDialect;
use lore_warehouse::guard::check_read_only;
use rusqlite::Connection;
use serde_json::{Value, json};

const DATA: &str = r#"
CREATE TABLE customers (id INTEGER PRIMARY KEY, region TEXT);
CREATE TABLE balances (id INTEGER PRIMARY KEY, customer_id INTEGER, taken_at TEXT, kind TEXT, amount REAL);
INSERT INTO customers VALUES (1, 'north'), (2, 'north'), (3, 'south');
INSERT INTO balances VALUES
  (1, 1, '2024-01-31', 'savings', 100), (2, 2, '2024-01-31', 'checking', 50),
  (3, 1, '2024-02-15', 'savings', 120), (4, 3, '2024-02-29', 'checking', 30),
  (5, 1, '2024-02-29', 'checking', 10), (6, 2, '2024-03-10', 'savings', 70),
  (7, 3, '2024-03-31', 'savings', 40), (8, 2, '2024-01-15', 'savings', 5);
"#;

const MODEL: &str = r#"
- name: customers
  table: customers
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: region, type: string }
- name: balances
  table: balances
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: customer_id, type: number }
    - { name: taken_at, type: time }
    - { name: kind, type: string }
    - { name: amount, type: number }
  joins:
    - { to: customers, "on": "customer_id = customers.id", relationship: many_to_one }
  measures:
    - { name: balance, expr: "sum(amount)", non_additive: { time: taken_at } }
    - { name: opening_balance, expr: "sum(amount)", non_additive: { keep: first, per: [customer_id] } }
    - { name: savings, expr: "sum(amount)", filter: "kind = 'savings'", non_additive: {} }
    - { name: snapshots, expr: "count(*)" }
"#;

fn rows(query: Value) -> Vec<Vec<String>> {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(DATA).unwrap();
    let model = load_sources(vec![(PathBuf::from("m.yaml"), MODEL.to_string())]).unwrap();
    let query: SemanticQuery = serde_json::from_value(query).unwrap();
    let compiled = compile(&model, &query, Dialect::Sqlite, &SqlLimits::default())
        .unwrap_or_else(|e| panic!("{e}"));
    check_read_only(&compiled.sql, SqlDialect::Sqlite, &SqlLimits::default())
        .unwrap_or_else(|e| panic!("the guard refused the compiled SQL: {e}\n{}", compiled.sql));
    let mut stmt = conn
        .prepare(&compiled.sql)
        .unwrap_or_else(|e| panic!("{e}\n{}", compiled.sql));
    let n = stmt.column_count();
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut q = stmt.query([]).unwrap();
    while let Some(row) = q.next().unwrap() {
        out.push(
            (0..n)
                .map(|i| match row.get::<_, rusqlite::types::Value>(i).unwrap() {
                    rusqlite::types::Value::Null => "∅".to_string(),
                    rusqlite::types::Value::Integer(v) => v.to_string(),
                    rusqlite::types::Value::Real(v) => format!("{v}"),
                    rusqlite::types::Value::Text(t) => t,
                    rusqlite::types::Value::Blob(_) => "blob".to_string(),
                })
                .collect(),
        );
    }
    out.sort();
    out
}

fn table(lines: &[&str]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = lines
        .iter()
        .map(|l| l.split('|').map(|c| c.trim().to_string()).collect())
        .collect();
    out.sort();
    out
}

#[test]
fn each_month_counts_its_last_day_and_each_customers_first() {
    // February's last day is 02-29 (30 + 10); the savings rows' last day
    // in February is 02-15; each customer's first day: in January
    // customer 1's 01-31 and customer 2's 01-15. The plain count adds up.
    assert_eq!(
        rows(json!({
            "measures": ["balances.balance", "balances.opening_balance", "balances.savings", "balances.snapshots"],
            "dimensions": [{"field": "balances.taken_at", "granularity": "month"}]
        })),
        table(&[
            "2024-01-01 | 150 | 105 | 100 | 3",
            "2024-02-01 | 40  | 150 | 120 | 3",
            "2024-03-01 | 40  | 110 | 40  | 2",
        ])
    );
}

#[test]
fn without_the_time_column_the_last_day_of_all_counts() {
    // 03-31 holds only customer 3's balance (south); the north has none.
    assert_eq!(
        rows(json!({
            "measures": ["balances.balance", "balances.opening_balance"],
            "dimensions": ["customers.region"]
        })),
        table(&["north | ∅ | 105", "south | 40 | 30"])
    );
    assert_eq!(
        rows(json!({"measures": ["balances.balance", "balances.opening_balance"]})),
        table(&["40 | 135"])
    );
}

#[test]
fn filters_choose_the_day_among_the_rows_they_keep() {
    // In the north, February's last day is 02-29 (customer 1's 10) and
    // March's 03-10.
    assert_eq!(
        rows(json!({
            "measures": ["balances.balance"],
            "dimensions": [{"field": "balances.taken_at", "granularity": "month"}],
            "filters": ["customers.region = 'north'"]
        })),
        table(&["2024-01-01 | 150", "2024-02-01 | 10", "2024-03-01 | 70"])
    );
}

#[test]
fn other_dimensions_share_the_periods_last_day() {
    assert_eq!(
        rows(json!({
            "measures": ["balances.balance"],
            "dimensions": [{"field": "balances.taken_at", "granularity": "week"}, "customers.region"]
        })),
        table(&[
            "2024-01-15 | north | 5",
            "2024-01-29 | north | 150",
            "2024-02-12 | north | 120",
            "2024-02-26 | north | 10",
            "2024-02-26 | south | 30",
            "2024-03-04 | north | 70",
            "2024-03-25 | south | 40",
        ])
    );
}
