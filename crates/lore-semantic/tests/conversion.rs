//! Conversion measures on SQLite, checked against values worked out by
//! hand from the rows below: orders following a customer's visit (within
//! 7 days, or ever after; in the same channel), each order matched once,
//! to the customer's latest visit on or before its day, and counted in
//! that visit's groups (its channel, its day or month, its customer's
//! region, its pages across a one-to-many join), as a rate or a count,
//! beside measures of other sources.
//!
//! The orders, and the visit each is matched to:
//!
//! | order | customer | day   | channel | 7 days      | ever after | same channel |
//! |-------|----------|-------|---------|-------------|------------|--------------|
//! | 1     | 1        | 01-04 | web     | 2 (01-03)   | 2          | 1 (01-01)    |
//! | 2     | 1        | 01-20 | web     | — (17 days) | 2          | 1            |
//! | 3     | 2        | 01-05 | web     | 3 (same day)| 3          | 3            |
//! | 4     | 2        | 01-05 | store   | 3 (earlier in the day than the visit) | 3 | — |
//! | 5     | 3        | 01-09 | store   | — (visit after) | —      | —            |
//! | 6     | 3        | 01-25 | store   | — (15 days) | 4          | 4            |
//! | 7     | 1        | 02-03 | web     | 5           | 5          | 5            |
//! | 8     | 2        | 02-21 | web     | 7           | 7          | 3            |

use std::path::PathBuf;

use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::limits::SqlLimits;
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{SemanticModel, load_sources};
use lore_semantic::planner::compile;
use lore_semantic::query::SemanticQuery;
use lore_warehouse::dialect::SqlDialect;
use lore_warehouse::guard::check_read_only;
use rusqlite::Connection;
use serde_json::{Value, json};

const DATA: &str = r#"
CREATE TABLE customers (id INTEGER PRIMARY KEY, region TEXT);
CREATE TABLE visits (id INTEGER PRIMARY KEY, customer_id INTEGER, visited_at TEXT, channel TEXT);
CREATE TABLE visit_pages (id INTEGER PRIMARY KEY, visit_id INTEGER, page TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, ordered_at TEXT, channel TEXT, amount REAL);
INSERT INTO customers VALUES (1, 'north'), (2, 'north'), (3, 'south');
INSERT INTO visits VALUES
  (1, 1, '2024-01-01 10:00:00', 'web'), (2, 1, '2024-01-03 09:00:00', 'ads'),
  (3, 2, '2024-01-05 12:00:00', 'web'), (4, 3, '2024-01-10 08:00:00', 'store'),
  (5, 1, '2024-02-01 10:00:00', 'web'), (6, NULL, '2024-01-06 10:00:00', 'web'),
  (7, 2, '2024-02-20 10:00:00', 'store');
INSERT INTO visit_pages VALUES (1, 2, 'home'), (2, 3, 'home'), (3, 3, 'cart'), (4, 3, 'cart'), (5, 5, 'cart');
INSERT INTO orders VALUES
  (1, 1, '2024-01-04 15:00:00', 'web', 100), (2, 1, '2024-01-20 11:00:00', 'web', 50),
  (3, 2, '2024-01-05 18:00:00', 'web', 30), (4, 2, '2024-01-05 08:00:00', 'store', 20),
  (5, 3, '2024-01-09 10:00:00', 'store', 10), (6, 3, '2024-01-25 10:00:00', 'store', 40),
  (7, 1, '2024-02-03 10:00:00', 'web', 60), (8, 2, '2024-02-21 10:00:00', 'web', 70);
"#;

const MODEL: &str = r#"
- name: customers
  table: customers
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: region, type: string }
- name: visits
  table: visits
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: customer_id, type: number, visibility: hidden }
    - { name: visited_at, type: time }
    - { name: channel, type: string }
  joins:
    - { to: customers, "on": "customer_id = customers.id", relationship: many_to_one }
  measures:
    - { name: visits, expr: "count(*)" }
    - name: visit_to_order_7d
      conversion: { base: visits, conversion: orders.orders, entity: customer_id, window: 7 days }
    - name: orders_after_visit
      conversion: { base: visits, conversion: orders.orders, entity: customer_id, calculation: count }
    - name: same_channel
      conversion:
        base: visits
        conversion: orders.orders
        entity: customer_id
        constant: [channel]
    - name: same_channel_or_zero
      conversion:
        base: visits
        conversion: orders.orders
        entity: { base: customer_id, conversion: customer_id }
        constant: [{ base: channel, conversion: channel }]
        fill_nulls_with: 0
    - name: revenue_after_visit_7d
      conversion: { base: visits, conversion: orders.revenue, entity: customer_id, window: 1 week, calculation: count }
    - name: web_orders_after_visit_7d
      conversion: { base: visits, conversion: orders.web_orders, entity: customer_id, window: 7 days, calculation: count }
    - name: north_orders_after_visit
      conversion: { base: visits, conversion: orders.north_orders, entity: customer_id, calculation: count }
    - name: north_visit_to_order_7d
      filter: "customers.region = 'north'"
      conversion: { base: visits, conversion: orders.orders, entity: customer_id, window: 7 days }
- name: visit_pages
  table: visit_pages
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: visit_id, type: number }
    - { name: page, type: string }
  joins:
    - { to: visits, "on": "visit_id = visits.id", relationship: many_to_one }
- name: orders
  table: orders
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: customer_id, type: number, visibility: hidden }
    - { name: ordered_at, type: time }
    - { name: channel, type: string }
    - { name: amount, type: number }
  joins:
    - { to: customers, "on": "customer_id = customers.id", relationship: many_to_one }
  measures:
    - { name: orders, expr: "count(*)" }
    - { name: revenue, expr: "sum(amount)" }
    - { name: web_orders, expr: "count(*)", filter: "channel = 'web'" }
    - { name: north_orders, expr: "count(*)", filter: "customers.region = 'north'" }
"#;

fn model() -> SemanticModel {
    load_sources(vec![(PathBuf::from("model.yaml"), MODEL.to_string())])
        .unwrap_or_else(|e| panic!("{e}"))
}

fn text(v: rusqlite::types::Value) -> String {
    match v {
        rusqlite::types::Value::Null => "∅".into(),
        rusqlite::types::Value::Integer(i) => i.to_string(),
        rusqlite::types::Value::Real(f) if f.fract() == 0.0 => format!("{f:.0}"),
        rusqlite::types::Value::Real(f) => format!("{f:.4}"),
        rusqlite::types::Value::Text(t) => t,
        rusqlite::types::Value::Blob(_) => "blob".into(),
    }
}

/// The rows `query` gives on the fixture, in the query's order.
fn rows(query: Value) -> Vec<Vec<String>> {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(DATA).unwrap();
    let query: SemanticQuery = serde_json::from_value(query).unwrap();
    let compiled = compile(&model(), &query, Dialect::Sqlite, &SqlLimits::default())
        .unwrap_or_else(|e| panic!("{e}"));
    check_read_only(&compiled.sql, SqlDialect::Sqlite, &SqlLimits::default())
        .unwrap_or_else(|e| panic!("the guard refused the compiled SQL: {e}\n{}", compiled.sql));
    let mut stmt = conn
        .prepare(&compiled.sql)
        .unwrap_or_else(|e| panic!("{e}\n{}", compiled.sql));
    let n = stmt.column_count();
    let mut out = Vec::new();
    let mut q = stmt.query([]).unwrap();
    while let Some(row) = q.next().unwrap() {
        out.push((0..n).map(|i| text(row.get(i).unwrap())).collect());
    }
    out
}

fn table(lines: &[&str]) -> Vec<Vec<String>> {
    lines
        .iter()
        .map(|l| l.split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

#[test]
fn each_order_counts_once_for_the_latest_visit_within_the_window() {
    // 7 days: orders 1, 3, 4, 7 and 8 (order 2 came 17 days after its
    // customer's last visit, order 6 fifteen, order 5 before any); ever
    // after, orders 2 and 6 too. Seven visits, one of no customer.
    assert_eq!(
        rows(json!({"measures": [
            "visits.visit_to_order_7d", "visits.orders_after_visit", "visits.visits", "visits.same_channel"
        ]})),
        table(&["0.7143 | 7 | 7 | 0.8571"])
    );
}

#[test]
fn conversions_are_counted_in_the_groups_of_the_visit_they_follow() {
    // Order 1 follows visits 1 (web) and 2 (ads): it counts once, for
    // the later visit 2 (ads); orders 3 and 4 for visit 3 (web), order 7
    // for visit 5 (web), order 8 for visit 7 (store). Ever after, order 2
    // also counts for visit 2, order 6 for visit 4 (store). In the same
    // channel, orders 1 and 2 follow visit 1, orders 3 and 8 visit 3,
    // order 7 visit 5, order 6 visit 4: five conversions of four web
    // visits (a rate is conversions per visit), none of the ad visit.
    assert_eq!(
        rows(json!({
            "measures": [
                "visits.visits", "visits.visit_to_order_7d", "visits.orders_after_visit",
                "visits.same_channel", "visits.same_channel_or_zero"
            ],
            "dimensions": ["visits.channel"]
        })),
        table(&[
            "ads   | 1 | 1      | 2 | ∅      | 0",
            "store | 2 | 0.5000 | 2 | 0.5000 | 0.5000",
            "web   | 4 | 0.7500 | 3 | 1.2500 | 1.2500",
        ])
    );
}

#[test]
fn the_time_of_a_conversion_is_its_visits() {
    // Order 8 (February 21) follows visit 3 (January 5) in the same
    // channel, so it counts in January; order 6 (January 25) follows
    // visit 4 (January 10) ever after. Days without a converted visit
    // have visits and no conversions.
    assert_eq!(
        rows(json!({
            "measures": ["visits.visit_to_order_7d", "visits.orders_after_visit", "visits.same_channel"],
            "dimensions": [{"field": "visits.visited_at", "granularity": "month"}]
        })),
        table(&["2024-01-01 | 0.6000 | 5 | 1", "2024-02-01 | 1 | 2 | 0.5000"])
    );
    assert_eq!(
        rows(json!({
            "measures": ["visits.visits", "visits.visit_to_order_7d", "visits.revenue_after_visit_7d"],
            "dimensions": [{"field": "visits.visited_at", "granularity": "day"}]
        })),
        table(&[
            "2024-01-01 | 1 | ∅ | ∅",
            "2024-01-03 | 1 | 1 | 100",
            "2024-01-05 | 1 | 2 | 50",
            "2024-01-06 | 1 | ∅ | ∅",
            "2024-01-10 | 1 | ∅ | ∅",
            "2024-02-01 | 1 | 1 | 60",
            "2024-02-20 | 1 | 1 | 70",
        ])
    );
}

#[test]
fn filters_choose_the_visits_and_the_conversion_measures_filter_the_orders() {
    // Without the ad visit, orders 1 and 2 follow visit 1 (web) instead.
    assert_eq!(
        rows(json!({
            "measures": ["visits.orders_after_visit"],
            "dimensions": ["visits.channel"],
            "filters": ["visits.channel != 'ads'"]
        })),
        table(&["store | 2", "web | 5"])
    );
    // Only web orders convert: order 4 (store) no longer counts for visit 3.
    assert_eq!(
        rows(
            json!({"measures": ["visits.web_orders_after_visit_7d"], "dimensions": ["visits.channel"]})
        ),
        table(&["ads | 1", "store | 1", "web | 2"])
    );
    // The conversion measure's filter reads the customer's region: order
    // 6 (of the south customer 3) no longer counts for visit 4 (store).
    assert_eq!(
        rows(
            json!({"measures": ["visits.north_orders_after_visit"], "dimensions": ["visits.channel"]})
        ),
        table(&["ads | 2", "store | 1", "web | 3"])
    );
    // The measure's own filter reads the customer's region: the visits of
    // north customers (five, four of them converted within 7 days: visits
    // 2, 3, 5, 7 with 1 + 2 + 1 + 1 orders).
    assert_eq!(
        rows(json!({"measures": ["visits.north_visit_to_order_7d"]})),
        table(&["1"])
    );
}

#[test]
fn beside_another_sources_measure_each_is_aggregated_on_its_own() {
    // North: visits 1, 2, 3, 5, 7 with five conversions; south: visit 4,
    // none; the visit of no customer has no region. Revenue by the
    // customers' region: north 100 + 50 + 30 + 20 + 60 + 70, south 10 + 40.
    assert_eq!(
        rows(json!({
            "measures": ["visits.visit_to_order_7d", "orders.revenue"],
            "dimensions": ["customers.region"]
        })),
        table(&["∅ | ∅ | ∅", "north | 1 | 330", "south | ∅ | 50"])
    );
}

#[test]
fn across_a_one_to_many_join_a_visit_counts_once_per_page() {
    // Visit 3 (two conversions) has a home page and two cart rows: it
    // counts once for cart. Visits without pages (1, 4, 6, 7) group under
    // no page, with visit 7's one conversion.
    let query = json!({
        "measures": ["visits.orders_after_visit", "visits.visit_to_order_7d", "visits.visits"],
        "dimensions": ["visit_pages.page"]
    });
    assert_eq!(
        rows(query.clone()),
        table(&[
            "∅ | 2 | 0.2500 | 4",
            "cart | 3 | 1.5000 | 2",
            "home | 4 | 1.5000 | 2"
        ])
    );
    let query: SemanticQuery = serde_json::from_value(query).unwrap();
    let compiled = compile(&model(), &query, Dialect::Sqlite, &SqlLimits::default()).unwrap();
    assert!(
        compiled.plan.iter().any(|p| p.strategy == "distinct_keys"
            && p.running.as_deref()
                == Some(
                    "conversion of visits.visits to orders.orders by customer_id within 7 days"
                )),
        "{:#?}",
        compiled.plan
    );
    assert!(
        compiled
            .notes
            .iter()
            .any(|n| n.contains("for the latest `visits` row")),
        "{:#?}",
        compiled.notes
    );
}

#[test]
fn conditions_on_a_conversion_rate_filter_its_groups() {
    assert_eq!(
        rows(json!({
            "measures": ["visits.visit_to_order_7d"],
            "dimensions": ["visits.channel"],
            "filters": ["visits.visit_to_order_7d >= 0.75"],
            "order_by": [{"field": "visits.visit_to_order_7d", "direction": "desc"}]
        })),
        table(&["ads | 1", "web | 0.7500"])
    );
}

fn model_error(measure: &str) -> String {
    let yaml = MODEL.replace(
        "    - { name: visits, expr: \"count(*)\" }\n",
        &format!("    - {{ name: visits, expr: \"count(*)\" }}\n{measure}"),
    );
    let err = load_sources(vec![(PathBuf::from("model.yaml"), yaml)]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    err.to_string()
}

#[test]
fn a_conversion_measure_that_cannot_be_computed_is_refused_with_the_fix() {
    for (measure, says) in [
        (
            "    - { name: x, conversion: { base: visitz, conversion: orders.orders, entity: customer_id } }\n",
            "base: no measure `visitz` in `visits` (its measures: visits)",
        ),
        (
            "    - { name: x, conversion: { base: visits, conversion: orders.order, entity: customer_id } }\n",
            "conversion: no measure `order` in `orders`",
        ),
        (
            "    - { name: x, conversion: { base: visits, conversion: shop.orders, entity: customer_id } }\n",
            "no source `shop`",
        ),
        (
            "    - { name: x, conversion: { base: visits, conversion: orders.orders, entity: id2 } }\n",
            "entity: `id2` is not a column of `visits`",
        ),
        (
            "    - { name: x, conversion: { base: visits, conversion: orders.orders, entity: { base: customer_id, conversion: buyer } } }\n",
            "entity: `buyer` is not a column of `orders`",
        ),
        (
            "    - { name: x, conversion: { base: visits, conversion: orders.orders, entity: customer_id, window: 7 fortnights } }\n",
            "window `7 fortnights`",
        ),
        (
            "    - { name: x, expr: \"count(*)\", conversion: { base: visits, conversion: orders.orders, entity: customer_id } }\n",
            "leave out `expr`",
        ),
        (
            "    - { name: x, conversion: { base: visit_to_order_7d, conversion: orders.orders, entity: customer_id } }\n",
            "base: `visit_to_order_7d` is a conversion measure",
        ),
        (
            "    - { name: x, conversion: { base: visits, conversion: orders.orders, entity: customer_id, constant: [page] } }\n",
            "constant: `page` is not a column of `visits`",
        ),
    ] {
        let err = model_error(measure);
        assert!(err.contains(says), "{measure}: {err}");
        assert!(err.contains("measures.x.conversion"), "{err}");
    }
}

#[test]
fn a_conversion_measure_compiles_for_every_dialect() {
    let query: SemanticQuery = serde_json::from_value(json!({
        "measures": ["visits.same_channel", "orders.revenue"],
        "dimensions": [{"field": "visits.visited_at", "granularity": "month"}, "customers.region"]
    }))
    .unwrap();
    for dialect in [
        Dialect::Sqlite,
        Dialect::Postgres,
        Dialect::Mysql,
        Dialect::Duckdb,
        Dialect::Snowflake,
        Dialect::Bigquery,
        Dialect::Clickhouse,
    ] {
        let compiled = compile(&model(), &query, dialect, &SqlLimits::default())
            .unwrap_or_else(|e| panic!("{dialect:?}: {e}"));
        let guard = match dialect {
            Dialect::Sqlite => SqlDialect::Sqlite,
            Dialect::Postgres => SqlDialect::Postgres,
            Dialect::Mysql => SqlDialect::Mysql,
            Dialect::Duckdb => SqlDialect::Duckdb,
            Dialect::Snowflake => SqlDialect::Snowflake,
            Dialect::Bigquery => SqlDialect::Bigquery,
            Dialect::Clickhouse => SqlDialect::Clickhouse,
        };
        check_read_only(&compiled.sql, guard, &SqlLimits::default())
            .unwrap_or_else(|e| panic!("{dialect:?}: {e}\n{}", compiled.sql));
        if dialect == Dialect::Clickhouse {
            assert!(compiled.sql.contains("argMax"), "{}", compiled.sql);
        } else {
            assert!(compiled.sql.contains("DENSE_RANK"), "{}", compiled.sql);
        }
    }
}

#[test]
fn unknown_fields_of_a_conversion_are_refused() {
    let err = model_error(
        "    - { name: x, conversion: { base: visits, conversion: orders.orders, entity: customer_id, windw: 7 days } }\n",
    );
    assert!(err.contains("windw"), "{err}");
}
