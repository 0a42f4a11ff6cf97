//! Generated hostile semantic queries: filters, inline measures, derived
//! measures, dimensions and ordering made of token soup, long chains and
//! deep nesting. The planner answers each with SQL or a stable code, on a
//! test thread's 2 MiB stack, never a panic or a stack overflow.

use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::limits::SqlLimits;
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{SemanticModel, load_sources};
use lore_semantic::planner::compile;
use lore_semantic::query::SemanticQuery;
use proptest::prelude::*;
use serde_json::json;

const MODEL: &str = r#"
- name: orders
  table: orders
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: customer_id, type: number }
    - { name: amount, type: number }
    - { name: status, type: string }
    - { name: placed_at, type: time }
  joins:
    - { to: customers, "on": "customer_id = customers.id", relationship: many_to_one }
  measures:
    - { name: revenue, expr: "sum(amount)" }
    - { name: orders, expr: "count(*)" }
- name: customers
  table: customers
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: segment, type: string }
"#;

fn model() -> SemanticModel {
    load_sources(vec![("m.yaml".into(), MODEL.to_string())]).unwrap()
}

const TOKENS: &[&str] = &[
    "orders.amount",
    "orders.revenue",
    "customers.segment",
    "revenue",
    "1",
    "'x'",
    "(",
    ")",
    ",",
    " OR ",
    " AND ",
    "+",
    "*",
    "/",
    "=",
    ">",
    "sum(",
    "count(",
    "count_distinct(",
    "(SELECT 1)",
    "CASE WHEN",
    "THEN",
    "END",
    "\u{0}",
    "é",
    " ",
    "NOT",
    "IS NULL",
    "::",
    "||",
];

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(prop::sample::select(TOKENS), 0..60).prop_map(|t| t.join(" ")),
        (
            prop::sample::select(&["+", " AND ", " OR ", "*"][..]),
            1usize..8_000
        )
            .prop_map(|(op, n)| format!("orders.amount > {}", vec!["1"; n].join(op))),
        (1usize..2_000).prop_map(|n| format!(
            "sum({}orders.amount{})",
            "(".repeat(n),
            ")".repeat(n)
        )),
        "\\PC{0,80}",
    ]
}

/// A valid query with `text` in one place (chosen by `slot`).
fn query_with(slot: usize, text: String) -> serde_json::Value {
    let mut query = json!({
        "measures": ["orders.revenue"],
        "dimensions": ["customers.segment"],
    });
    match slot {
        0 => query["filters"] = json!([text]),
        1 => query["measures"] = json!(["orders.revenue", text]),
        2 => query["measures"] = json!(["orders.revenue", {"expr": text, "name": "d"}]),
        3 => query["dimensions"] = json!([text]),
        _ => query["order_by"] = json!([text]),
    }
    query
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_query_gets_sql_or_a_stable_code(
        slot in 0usize..5,
        text in text(),
        dialect in prop::sample::select(vec![Dialect::Sqlite, Dialect::Postgres, Dialect::Mysql, Dialect::Clickhouse]),
    ) {
        let query: SemanticQuery = serde_json::from_value(query_with(slot, text)).unwrap();
        if let Err(error) = compile(&model(), &query, dialect, &SqlLimits::default()) {
            prop_assert!(
                matches!(
                    error.code(),
                    ErrorCode::InvalidRequest
                        | ErrorCode::NotFound
                        | ErrorCode::InvalidSql
                        | ErrorCode::UnsupportedOperation
                ),
                "{:?}: {error}",
                error.code()
            );
        }
    }

    #[test]
    fn a_valid_filter_of_any_length_within_the_limit_compiles(n in 1usize..900) {
        let filter = format!("orders.amount > {}", vec!["1"; n].join(" + "));
        let query: SemanticQuery = serde_json::from_value(query_with(0, filter)).unwrap();
        prop_assert!(compile(&model(), &query, Dialect::Sqlite, &SqlLimits::default()).is_ok());
        // ClickHouse's statement is parsed again to be reshaped: it too.
        prop_assert!(compile(&model(), &query, Dialect::Clickhouse, &SqlLimits::default()).is_ok());
    }
}
