//! Cumulative and offset measures on SQLite, checked against values
//! worked out by hand from the rows below: trailing windows,
//! period-to-date, all time, each period's first day, last day or
//! average, filters on the time column (which choose the days shown, not
//! the rows counted), other dimensions, the fan trap, a plain measure
//! beside them, the time spine, and measures read a month or a week back
//! or at the start of the month (period over period).

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
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, ordered_at TEXT, status TEXT, amount REAL);
CREATE TABLE order_lines (id INTEGER PRIMARY KEY, order_id INTEGER, product TEXT);
CREATE TABLE calendar (day TEXT);
INSERT INTO customers VALUES (1, 'north'), (2, 'north'), (3, 'south');
INSERT INTO orders VALUES
  (1, 1, '2024-01-05 10:00:00', 'paid', 100), (2, 1, '2024-01-20 09:00:00', 'paid', 30),
  (3, 2, '2024-01-21 18:00:00', 'open', 50), (4, 2, '2024-02-03 12:00:00', 'paid', 200),
  (5, 3, '2024-02-10 08:00:00', 'paid', 10), (6, 3, '2024-03-30 23:00:00', 'paid', 60);
INSERT INTO order_lines VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 1, 'a'), (4, 4, 'a');
WITH RECURSIVE d(day) AS (SELECT '2024-01-01' UNION ALL SELECT date(day, '+1 day') FROM d WHERE day < '2024-04-30')
INSERT INTO calendar SELECT day FROM d;
"#;

const MODEL: &str = r#"
- name: customers
  table: customers
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: region, type: string }
- name: orders
  table: orders
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: customer_id, type: number, visibility: hidden }
    - { name: ordered_at, type: time }
    - { name: status, type: string }
    - { name: amount, type: number }
  joins:
    - { to: customers, "on": "customer_id = customers.id", relationship: many_to_one }
  measures:
    - { name: revenue, expr: "sum(amount)" }
    - { name: revenue_7d, expr: "sum(amount)", cumulative: { window: 7 days } }
    - { name: paid_7d, expr: "sum(amount)", filter: "status = 'paid'", cumulative: { time: ordered_at, window: 7 days } }
    - { name: revenue_mtd, expr: "sum(amount)", cumulative: { grain_to_date: month } }
    - { name: revenue_to_date, expr: "sum(amount)", cumulative: {} }
    - { name: revenue_to_date_avg, expr: "sum(amount)", cumulative: { period_agg: average } }
    - { name: orders_1m, expr: "count(*)", cumulative: { window: 1 month, period_agg: last } }
    - { name: revenue_last_month, expr: "sum(amount)", offset: { window: 1 month } }
    - { name: orders_week_before, expr: "count(*)", offset: { time: ordered_at, window: 7 days } }
    - { name: revenue_first_of_month, expr: "sum(amount)", offset: { to_grain: month } }
    - { name: mtd_since_feb_5, expr: "sum(amount)", filter: "date_trunc('day', ordered_at) >= '2024-02-05'", cumulative: { grain_to_date: month } }
- name: order_lines
  table: order_lines
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: order_id, type: number }
    - { name: product, type: string }
  joins:
    - { to: orders, "on": "order_id = orders.id", relationship: many_to_one }
"#;

const SPINE: &str = r#"
- name: days
  table: calendar
  time_spine: day
  columns:
    - { name: day, type: time }
"#;

fn model(with_spine: bool) -> SemanticModel {
    let mut files = vec![(PathBuf::from("model.yaml"), MODEL.to_string())];
    if with_spine {
        files.push((PathBuf::from("spine.yaml"), SPINE.to_string()));
    }
    load_sources(files).unwrap()
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
fn rows(with_spine: bool, query: Value) -> Vec<Vec<String>> {
    rows_with("", with_spine, query)
}

/// The same, with `more` SQL run on the fixture first.
fn rows_with(more: &str, with_spine: bool, query: Value) -> Vec<Vec<String>> {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(DATA).unwrap();
    conn.execute_batch(more).unwrap();
    let query: SemanticQuery = serde_json::from_value(query).unwrap();
    let compiled = compile(
        &model(with_spine),
        &query,
        Dialect::Sqlite,
        &SqlLimits::default(),
    )
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

fn by(measures: &[&str], granularity: &str) -> Value {
    json!({"measures": measures, "dimensions": [{"field": "orders.ordered_at", "granularity": granularity}]})
}

#[test]
fn a_trailing_window_counts_the_days_up_to_each_day() {
    // 01-20 counts order 2; 01-21 orders 2 and 3; on 01-27 order 2 (seven
    // days back) has left the window; from 01-28 to 02-02 the window is
    // empty, so those days have no row; the filter on the time column
    // chooses the days, and the window still reads the rows before them.
    let query = json!({
        "measures": ["orders.revenue_7d", "orders.paid_7d", "orders.revenue_to_date"],
        "dimensions": [{"field": "orders.ordered_at", "granularity": "day"}],
        "filters": ["orders.ordered_at >= '2024-01-19'", "orders.ordered_at <= '2024-02-03'"]
    });
    assert_eq!(
        rows(false, query),
        table(&[
            "2024-01-19 | ∅   | ∅   | 100",
            "2024-01-20 | 30  | 30  | 130",
            "2024-01-21 | 80  | 30  | 180",
            "2024-01-22 | 80  | 30  | 180",
            "2024-01-23 | 80  | 30  | 180",
            "2024-01-24 | 80  | 30  | 180",
            "2024-01-25 | 80  | 30  | 180",
            "2024-01-26 | 80  | 30  | 180",
            "2024-01-27 | 50  | ∅   | 180",
            "2024-01-28 | ∅   | ∅   | 180",
            "2024-01-29 | ∅   | ∅   | 180",
            "2024-01-30 | ∅   | ∅   | 180",
            "2024-01-31 | ∅   | ∅   | 180",
            "2024-02-01 | ∅   | ∅   | 180",
            "2024-02-02 | ∅   | ∅   | 180",
            "2024-02-03 | 200 | 200 | 380",
        ])
    );
}

#[test]
fn a_month_shows_its_first_days_value() {
    // revenue_7d: January's first day with rows in its window is 01-05;
    // February's 02-03; March's 03-30; April's first days still see 03-30.
    // revenue_mtd restarts each month; the running total ends on the
    // last row's day without a time spine.
    assert_eq!(
        rows(
            false,
            by(
                &[
                    "orders.revenue_7d",
                    "orders.revenue_mtd",
                    "orders.revenue_to_date"
                ],
                "month"
            )
        ),
        table(&[
            "2024-01-01 | 100 | 100 | 100",
            "2024-02-01 | 200 | 200 | 180",
            "2024-03-01 | 60  | 60  | 390",
            "2024-04-01 | 60  | ∅   | ∅",
        ])
    );
}

#[test]
fn period_agg_last_and_average() {
    // orders_1m (last day of each month, a month back): 01-31 sees three
    // orders; 02-29 two; 03-31 one (back to 02-29, month ends clamped);
    // April's last day with a row in its window is 04-29.
    // revenue_to_date_avg: January averages 15 days at 100, one at 130
    // and 11 at 180 (3610 / 27); February 2 at 180, 7 at 380, 20 at 390;
    // March 29 at 390 and 03-30 at 450.
    assert_eq!(
        rows(
            false,
            by(&["orders.orders_1m", "orders.revenue_to_date_avg"], "month")
        ),
        table(&[
            "2024-01-01 | 3 | 133.7037",
            "2024-02-01 | 2 | 373.1034",
            "2024-03-01 | 1 | 392",
            "2024-04-01 | 1 | ∅",
        ])
    );
}

#[test]
fn weeks_start_on_monday_and_show_their_first_day() {
    // Week of 01-15: its first day with rows in the window is 01-20
    // (a Saturday); week of 01-22 starts with 01-22's window.
    let got = rows(false, by(&["orders.revenue_7d"], "week"));
    assert_eq!(
        got,
        table(&[
            "2024-01-01 | 100",
            "2024-01-08 | 100",
            "2024-01-15 | 30",
            "2024-01-22 | 80",
            "2024-01-29 | 200",
            "2024-02-05 | 200",
            "2024-02-12 | 10",
            "2024-03-25 | 60",
            "2024-04-01 | 60",
        ])
    );
}

#[test]
fn other_dimensions_run_their_own_windows() {
    let query = json!({
        "measures": ["orders.revenue_mtd"],
        "dimensions": [{"field": "orders.ordered_at", "granularity": "month"}, "customers.region"]
    });
    assert_eq!(
        rows(false, query),
        table(&[
            "2024-01-01 | north | 100",
            "2024-02-01 | north | 200",
            "2024-02-01 | south | 10",
            "2024-03-01 | south | 60",
        ])
    );
}

#[test]
fn a_fanned_out_dimension_counts_each_order_once() {
    // Order 1 has two lines of product a: its 100 counts once for a.
    let query = json!({
        "measures": ["orders.revenue_mtd"],
        "dimensions": [{"field": "orders.ordered_at", "granularity": "month"}, "order_lines.product"],
        "order_by": ["orders.ordered_at", "order_lines.product"]
    });
    let mut got = rows(false, query);
    got.sort();
    assert_eq!(
        got,
        table(&[
            "2024-01-01 | a | 100",
            "2024-01-01 | b | 100",
            "2024-01-01 | ∅ | 30",
            "2024-02-01 | a | 200",
            "2024-02-01 | ∅ | 10",
            "2024-03-01 | ∅ | 60",
        ])
    );
}

#[test]
fn a_plain_measure_beside_a_cumulative_one_keeps_its_own_rows() {
    assert_eq!(
        rows(
            true,
            by(&["orders.revenue", "orders.revenue_to_date"], "month")
        ),
        table(&[
            "2024-01-01 | 180 | 100",
            "2024-02-01 | 210 | 180",
            "2024-03-01 | 60  | 390",
            "2024-04-01 | ∅   | 450",
        ])
    );
}

#[test]
fn the_time_spine_lists_days_without_rows() {
    // With the spine (to 04-30) the running total goes on after the last
    // row; the windows still end where their rows do.
    let got = rows(
        true,
        by(&["orders.revenue_to_date", "orders.revenue_7d"], "day"),
    );
    assert_eq!(got.len(), 117, "every day from 01-05 to 04-30");
    assert_eq!(got[0], ["2024-01-05", "100", "100"]);
    assert_eq!(got.last().unwrap(), &["2024-04-30", "450", "∅"]);
    assert!(got.contains(&vec!["2024-04-05".into(), "450".into(), "60".into()]));
}

#[test]
fn without_its_time_column_an_all_time_measure_is_the_total() {
    assert_eq!(
        rows(
            false,
            json!({"measures": ["orders.revenue_to_date"], "dimensions": ["customers.region"]})
        ),
        table(&["north | 380", "south | 70"])
    );
}

#[test]
fn a_window_needs_its_time_column_with_a_granularity() {
    let model = model(false);
    for query in [
        json!({"measures": ["orders.revenue_7d"], "dimensions": ["customers.region"]}),
        json!({"measures": ["orders.revenue_mtd"], "dimensions": ["orders.ordered_at"]}),
    ] {
        let query: SemanticQuery = serde_json::from_value(query).unwrap();
        let err = compile(&model, &query, Dialect::Sqlite, &SqlLimits::default()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidRequest);
        assert!(err.to_string().contains("granularity"), "{err}");
    }
}

#[test]
fn the_plan_says_how_the_measure_runs() {
    let query: SemanticQuery =
        serde_json::from_value(by(&["orders.revenue_7d", "orders.revenue"], "month")).unwrap();
    let compiled = compile(
        &model(false),
        &query,
        Dialect::Sqlite,
        &SqlLimits::default(),
    )
    .unwrap();
    let running: Vec<Option<String>> = compiled.plan.iter().map(|p| p.running.clone()).collect();
    assert_eq!(
        running,
        [
            Some("cumulative over orders.ordered_at: the rows of the 7 days up to the day; period_agg first per period".to_string()),
            None
        ]
    );
    assert!(
        compiled
            .notes
            .iter()
            .any(|n| n.contains("first day's value")),
        "{:?}",
        compiled.notes
    );
}

#[test]
fn a_measure_filter_on_its_time_column_chooses_rows() {
    // From 02-05 the month to date counts order 5 (02-10) only; March's
    // and April's windows are as before.
    assert_eq!(
        rows(
            false,
            json!({"measures": ["orders.mtd_since_feb_5", "orders.revenue_mtd"],
                   "dimensions": [{"field": "orders.ordered_at", "granularity": "day"}],
                   "filters": ["orders.ordered_at >= '2024-02-09'", "orders.ordered_at <= '2024-02-11'"]})
        ),
        table(&[
            "2024-02-09 | ∅  | 200",
            "2024-02-10 | 10 | 210",
            "2024-02-11 | 10 | 210",
        ])
    );
}

#[test]
fn an_offset_measure_reads_the_month_before() {
    // January's rows are read by February's days, February's by March's,
    // March 30 by April 30.
    let query = json!({
        "measures": ["orders.revenue", "orders.revenue_last_month",
                     {"expr": "orders.revenue - orders.revenue_last_month", "name": "growth"}],
        "dimensions": [{"field": "orders.ordered_at", "granularity": "month"}]
    });
    assert_eq!(
        rows(false, query),
        table(&[
            "2024-01-01 | 180 | ∅   | ∅",
            "2024-02-01 | 210 | 180 | 30",
            "2024-03-01 | 60  | 210 | -150",
            "2024-04-01 | ∅   | 60  | ∅",
        ])
    );
}

#[test]
fn a_week_back_by_day_and_by_week() {
    let by_day = rows(false, by(&["orders.orders_week_before"], "day"));
    assert_eq!(
        by_day,
        table(&[
            "2024-01-12 | 1",
            "2024-01-27 | 1",
            "2024-01-28 | 1",
            "2024-02-10 | 1",
            "2024-02-17 | 1",
            "2024-04-06 | 1",
        ])
    );
    assert_eq!(
        rows(false, by(&["orders.orders_week_before"], "week")),
        table(&[
            "2024-01-08 | 1",
            "2024-01-22 | 2",
            "2024-02-05 | 1",
            "2024-02-12 | 1",
            "2024-04-01 | 1",
        ])
    );
}

#[test]
fn month_ends_and_period_starts_read_as_metricflow_reads_them() {
    // A month back from March 29, 30 and 31 is February 29, which each
    // of them reads (and April 1 reads March 1); March 1 is the start of
    // every March day's month, and of the month's and its Mondays' weeks
    // for their first day only.
    let more = "INSERT INTO orders VALUES (7, 1, '2024-02-29 12:00:00', 'paid', 5), (8, 3, '2024-03-01 09:00:00', 'paid', 7);";
    let query = json!({
        "measures": ["orders.revenue_last_month", "orders.revenue_first_of_month"],
        "dimensions": [{"field": "orders.ordered_at", "granularity": "day"}],
        "filters": ["orders.ordered_at >= '2024-03-27'", "orders.ordered_at <= '2024-04-01'"]
    });
    assert_eq!(
        rows_with(more, false, query),
        table(&[
            "2024-03-27 | ∅ | 7",
            "2024-03-28 | ∅ | 7",
            "2024-03-29 | 5 | 7",
            "2024-03-30 | 5 | 7",
            "2024-03-31 | 5 | 7",
            "2024-04-01 | 7 | ∅",
        ])
    );
    assert_eq!(
        rows_with(
            more,
            false,
            by(
                &["orders.revenue_last_month", "orders.revenue_first_of_month"],
                "month"
            )
        ),
        table(&[
            "2024-02-01 | 180 | ∅",
            "2024-03-01 | 225 | 7",
            "2024-04-01 | 67  | ∅",
        ])
    );
    assert_eq!(
        rows_with(more, false, by(&["orders.revenue_first_of_month"], "week")),
        table(&[
            "2024-03-04 | 7",
            "2024-03-11 | 7",
            "2024-03-18 | 7",
            "2024-03-25 | 7",
        ])
    );
}

#[test]
fn an_offset_needs_its_time_column() {
    let query: SemanticQuery =
        serde_json::from_value(json!({"measures": ["orders.revenue_last_month"]})).unwrap();
    let err = compile(
        &model(false),
        &query,
        Dialect::Sqlite,
        &SqlLimits::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("offset along `orders.ordered_at`"),
        "{err}"
    );
}
