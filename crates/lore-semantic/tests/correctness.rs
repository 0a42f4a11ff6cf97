//! Semantic queries compared with hand-written SQL on the same data: the
//! rows and values must match what a careful analyst would compute,
//! including the fan and chasm traps a naive join gets wrong.

use std::path::PathBuf;

use lore_core::limits::SqlLimits;
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{SemanticModel, load_sources};
use lore_semantic::planner::compile;
use lore_semantic::query::SemanticQuery;
use lore_warehouse::dialect::SqlDialect;
use lore_warehouse::guard::check_read_only;
use rusqlite::Connection;
use serde_json::json;

const DATA: &str = r#"
CREATE TABLE plans (id INTEGER PRIMARY KEY, name TEXT, price_cents INTEGER);
CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT, segment TEXT, plan_id INTEGER, created_at TEXT);
CREATE TABLE invoices (id INTEGER PRIMARY KEY, account_id INTEGER, amount_cents INTEGER, status TEXT, issued_at TEXT);
CREATE TABLE invoice_lines (id INTEGER PRIMARY KEY, invoice_id INTEGER, product TEXT, qty INTEGER);
CREATE TABLE tickets (id INTEGER PRIMARY KEY, account_id INTEGER, priority TEXT, opened_at TEXT);
INSERT INTO plans VALUES (1, 'Starter', 1000), (2, 'Pro', 5000), (3, 'Unused', 9000);
INSERT INTO accounts VALUES
  (1, 'Acme', 'smb', 1, '2024-01-10'), (2, 'Globex', 'enterprise', 2, '2024-02-11'),
  (3, 'Initech', 'smb', 2, '2024-03-12'), (4, 'Umbrella', 'enterprise', 2, '2024-05-01'),
  (5, 'Hooli', NULL, 1, '2024-06-01');
INSERT INTO invoices VALUES
  (1, 1, 10000, 'paid', '2025-01-05 10:00:00'), (2, 1, 2500, 'open', '2025-02-07 09:00:00'),
  (3, 2, 50000, 'paid', '2025-01-20 12:00:00'), (4, 3, 7000, 'paid', '2025-04-01 08:00:00'),
  (5, 4, 12000, 'void', '2025-07-15 16:00:00'), (6, 2, 30000, 'paid', '2025-11-30 23:00:00');
INSERT INTO invoice_lines VALUES
  (1, 1, 'seats', 5), (2, 1, 'storage', 1), (3, 1, 'seats', 2),
  (4, 3, 'seats', 40), (5, 3, 'support', 1), (6, 4, 'storage', 3),
  (7, 5, 'seats', 10), (8, 6, 'seats', 20), (9, 6, 'support', 2);
INSERT INTO tickets VALUES
  (1, 1, 'high', '2025-01-02'), (2, 1, 'low', '2025-01-03'), (3, 1, 'high', '2025-02-01'),
  (4, 2, 'low', '2025-03-01'), (5, 4, 'high', '2025-03-05'), (6, 5, 'low', '2025-04-04');
"#;

const MODEL: &str = r#"
- name: plans
  table: plans
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: name, type: string }
    - { name: price_cents, type: number }
- name: accounts
  table: accounts
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: name, type: string }
    - { name: segment, type: string }
    - { name: plan_id, type: number }
    - { name: created_at, type: time }
  joins:
    - { to: plans, "on": "plan_id = plans.id", relationship: many_to_one }
  measures:
    - { name: count, expr: "count(*)" }
  segments:
    - { name: enterprise, expr: "segment = 'enterprise'" }
- name: invoices
  table: invoices
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: account_id, type: number }
    - { name: amount_cents, type: number }
    - { name: amount, type: number, expr: "amount_cents / 100.0" }
    - { name: status, type: string, expr: "LOWER(TRIM(status))" }
    - { name: issued_at, type: time }
  joins:
    - { to: accounts, "on": "account_id = accounts.id", relationship: many_to_one }
    - { to: accounts, alias: payer, "on": "account_id = payer.id", relationship: many_to_one }
  measures:
    - { name: revenue, expr: "sum(amount)" }
    - { name: paid_revenue, expr: "sum(amount)", filter: "status = 'paid'" }
    - { name: smb_revenue, expr: "sum(amount)", filter: "accounts.segment = 'smb'" }
    - { name: pro_paid_revenue, expr: "sum(amount)", filter: "plans.name = 'Pro' AND status = 'paid'" }
    - { name: invoice_count, expr: "count(*)" }
    - { name: average_invoice, expr: "revenue / invoice_count" }
  segments:
    - { name: paid, expr: "status = 'paid'" }
- name: invoice_lines
  table: invoice_lines
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: invoice_id, type: number }
    - { name: product, type: string }
    - { name: qty, type: number }
  joins:
    - { to: invoices, "on": "invoice_id = invoices.id", relationship: many_to_one }
  measures:
    - { name: units, expr: "sum(qty)" }
- name: tickets
  table: tickets
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: account_id, type: number }
    - { name: priority, type: string }
    - { name: opened_at, type: time }
  joins:
    - { to: accounts, "on": "account_id = accounts.id", relationship: many_to_one }
  measures:
    - { name: ticket_count, expr: "count(*)" }
"#;

struct Fixture {
    conn: Connection,
    model: SemanticModel,
}

fn fixture() -> Fixture {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(DATA).unwrap();
    let model = load_sources(vec![(PathBuf::from("model.yaml"), MODEL.to_string())]).unwrap();
    Fixture { conn, model }
}

/// Rows as comparable text: numbers rounded to 6 places, NULL as "∅".
fn rows(conn: &Connection, sql: &str) -> Vec<Vec<String>> {
    let mut stmt = conn.prepare(sql).unwrap_or_else(|e| panic!("{e}\n{sql}"));
    let n = stmt.column_count();
    let mut out = Vec::new();
    let mut q = stmt.query([]).unwrap();
    while let Some(row) = q.next().unwrap() {
        let mut values = Vec::new();
        for i in 0..n {
            let v: rusqlite::types::Value = row.get(i).unwrap();
            values.push(match v {
                rusqlite::types::Value::Null => "∅".to_string(),
                rusqlite::types::Value::Integer(i) => format!("{:.6}", i as f64),
                rusqlite::types::Value::Real(f) => format!("{f:.6}"),
                rusqlite::types::Value::Text(t) => t,
                rusqlite::types::Value::Blob(_) => "blob".to_string(),
            });
        }
        out.push(values);
    }
    out
}

impl Fixture {
    /// The planner's rows for `query`, and its SQL (for messages).
    fn semantic(&self, query: serde_json::Value) -> (Vec<Vec<String>>, String) {
        let query: SemanticQuery = serde_json::from_value(query).unwrap();
        let compiled = compile(&self.model, &query, Dialect::Sqlite, &SqlLimits::default())
            .unwrap_or_else(|e| panic!("{e}"));
        // What the planner writes must pass the guard sql_execution uses.
        check_read_only(&compiled.sql, SqlDialect::Sqlite, &SqlLimits::default()).unwrap_or_else(
            |e| panic!("the guard refused the compiled SQL: {e}\n{}", compiled.sql),
        );
        (rows(&self.conn, &compiled.sql), compiled.sql)
    }

    /// Asserts the query gives the same rows as `oracle`, in order when
    /// `ordered`, else as sets.
    fn check(&self, query: serde_json::Value, oracle: &str, ordered: bool) {
        let (mut got, sql) = self.semantic(query);
        let mut want = rows(&self.conn, oracle);
        if !ordered {
            got.sort();
            want.sort();
        }
        assert_eq!(got, want, "\ncompiled:\n{sql}\noracle:\n{oracle}");
        assert!(
            !want.is_empty(),
            "an oracle with no rows proves nothing: {oracle}"
        );
    }
}

#[test]
fn a_single_source_measure_by_its_own_column() {
    fixture().check(
        json!({"measures": ["invoices.revenue"], "dimensions": ["invoices.status"]}),
        "SELECT status, SUM(amount_cents / 100.0) FROM invoices GROUP BY status",
        false,
    );
}

#[test]
fn dimensions_two_many_to_one_hops_away() {
    fixture().check(
        json!({"measures": ["invoice_lines.units"], "dimensions": ["accounts.segment", "plans.name"]}),
        "SELECT a.segment, p.name, SUM(l.qty) FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id \
         JOIN accounts a ON a.id = i.account_id JOIN plans p ON p.id = a.plan_id GROUP BY 1, 2",
        false,
    );
}

#[test]
fn fan_trap_measure_is_aggregated_at_its_grain() {
    let f = fixture();
    let oracle = "SELECT k.product, SUM(i.amount_cents / 100.0) FROM \
                  (SELECT DISTINCT i.id, l.product FROM invoices i LEFT JOIN invoice_lines l ON l.invoice_id = i.id) k \
                  JOIN invoices i ON i.id = k.id GROUP BY k.product";
    f.check(
        json!({"measures": ["invoices.revenue"], "dimensions": ["invoice_lines.product"]}),
        oracle,
        false,
    );
    // The naive join would have inflated it: the fixture really has the trap.
    let naive = rows(
        &f.conn,
        "SELECT l.product, SUM(i.amount_cents / 100.0) FROM invoices i LEFT JOIN invoice_lines l ON l.invoice_id = i.id GROUP BY 1",
    );
    let (ours, _) = f.semantic(
        json!({"measures": ["invoices.revenue"], "dimensions": ["invoice_lines.product"]}),
    );
    let mut ours = ours;
    let mut naive = naive;
    ours.sort();
    naive.sort();
    assert_ne!(ours, naive);
}

#[test]
fn fan_trap_measure_filtered_by_the_many_side() {
    fixture().check(
        json!({"measures": ["accounts.count"], "filters": ["tickets.priority = 'high'"]}),
        "SELECT COUNT(*) FROM accounts WHERE id IN (SELECT account_id FROM tickets WHERE priority = 'high')",
        false,
    );
}

#[test]
fn chasm_trap_two_fact_sources_by_a_shared_dimension() {
    fixture().check(
        json!({"measures": ["invoices.revenue", "tickets.ticket_count"], "dimensions": ["accounts.segment"]}),
        "WITH r AS (SELECT a.segment s, SUM(i.amount_cents / 100.0) v FROM invoices i LEFT JOIN accounts a ON a.id = i.account_id GROUP BY 1), \
              t AS (SELECT a.segment s, COUNT(*) v FROM tickets t LEFT JOIN accounts a ON a.id = t.account_id GROUP BY 1), \
              d AS (SELECT s FROM r UNION SELECT s FROM t) \
         SELECT d.s, r.v, t.v FROM d LEFT JOIN r ON r.s IS d.s LEFT JOIN t ON t.s IS d.s",
        false,
    );
}

#[test]
fn chasm_trap_three_sources_without_dimensions() {
    fixture().check(
        json!({"measures": ["invoices.revenue", "tickets.ticket_count", "accounts.count"]}),
        "SELECT (SELECT SUM(amount_cents / 100.0) FROM invoices), (SELECT COUNT(*) FROM tickets), (SELECT COUNT(*) FROM accounts)",
        false,
    );
}

#[test]
fn derived_ratio_across_sources() {
    fixture().check(
        json!({"measures": [{"expr": "tickets.ticket_count / accounts.count", "name": "tickets_per_account"}],
               "dimensions": ["plans.name"]}),
        "WITH t AS (SELECT p.name n, COUNT(*) c FROM tickets t JOIN accounts a ON a.id = t.account_id JOIN plans p ON p.id = a.plan_id GROUP BY 1), \
              a AS (SELECT p.name n, COUNT(*) c FROM accounts a JOIN plans p ON p.id = a.plan_id GROUP BY 1) \
         SELECT a.n, t.c * 1.0 / a.c FROM a LEFT JOIN t ON t.n = a.n",
        false,
    );
}

#[test]
fn count_distinct_through_a_fan_out_join() {
    fixture().check(
        json!({"measures": ["count_distinct(invoices.account_id)"], "dimensions": ["invoice_lines.product"]}),
        "SELECT l.product, COUNT(DISTINCT i.account_id) FROM invoices i LEFT JOIN invoice_lines l ON l.invoice_id = i.id GROUP BY 1",
        false,
    );
}

#[test]
fn segments_and_measure_filters() {
    let f = fixture();
    f.check(
        json!({"measures": ["invoices.revenue"], "segments": ["invoices.paid"], "dimensions": ["accounts.name"]}),
        "SELECT a.name, SUM(i.amount_cents / 100.0) FROM invoices i JOIN accounts a ON a.id = i.account_id WHERE i.status = 'paid' GROUP BY 1",
        false,
    );
    f.check(
        json!({"measures": ["invoices.paid_revenue", "invoices.revenue"], "dimensions": ["accounts.name"]}),
        "SELECT a.name, SUM(CASE WHEN i.status = 'paid' THEN i.amount_cents / 100.0 END), SUM(i.amount_cents / 100.0) \
         FROM invoices i JOIN accounts a ON a.id = i.account_id GROUP BY 1",
        false,
    );
    f.check(
        json!({"measures": ["accounts.count"], "segments": ["accounts.enterprise"], "dimensions": ["plans.name"]}),
        "SELECT p.name, COUNT(*) FROM accounts a JOIN plans p ON p.id = a.plan_id WHERE a.segment = 'enterprise' GROUP BY 1",
        false,
    );
}

#[test]
fn a_column_computed_from_the_stored_column_of_its_own_name() {
    // `status: LOWER(TRIM(status))` reads the stored `status`, in
    // dimensions, filters and measure filters alike.
    let f = fixture();
    f.check(
        json!({"measures": ["invoices.paid_revenue"], "dimensions": ["invoices.status"], "filters": ["invoices.status <> 'void'"]}),
        "SELECT LOWER(TRIM(status)), SUM(CASE WHEN LOWER(TRIM(status)) = 'paid' THEN amount_cents / 100.0 END) FROM invoices \
         WHERE LOWER(TRIM(status)) <> 'void' GROUP BY 1 HAVING COUNT(CASE WHEN LOWER(TRIM(status)) = 'paid' THEN 1 END) > 0",
        false,
    );
}

#[test]
fn a_measure_filter_reads_sources_reached_many_to_one() {
    let f = fixture();
    // One hop (invoices -> accounts), beside an unfiltered measure.
    f.check(
        json!({"measures": ["invoices.smb_revenue", "invoices.revenue"], "dimensions": ["invoices.status"]}),
        "SELECT i.status, SUM(CASE WHEN a.segment = 'smb' THEN i.amount_cents / 100.0 END), SUM(i.amount_cents / 100.0) \
         FROM invoices i LEFT JOIN accounts a ON a.id = i.account_id GROUP BY 1",
        false,
    );
    // Two hops (invoices -> accounts -> plans) and the source's own column,
    // with no dimension at all.
    f.check(
        json!({"measures": ["invoices.pro_paid_revenue"]}),
        "SELECT SUM(i.amount_cents / 100.0) FROM invoices i JOIN accounts a ON a.id = i.account_id \
         JOIN plans p ON p.id = a.plan_id WHERE p.name = 'Pro' AND i.status = 'paid'",
        false,
    );
    // Every measure of the group filtered: a status none of whose
    // invoices passes is left out, as a WHERE would.
    f.check(
        json!({"measures": ["invoices.smb_revenue"], "dimensions": ["invoices.status"]}),
        "SELECT i.status, SUM(i.amount_cents / 100.0) FROM invoices i JOIN accounts a ON a.id = i.account_id \
         WHERE a.segment = 'smb' GROUP BY 1",
        false,
    );
}

#[test]
fn a_cross_source_measure_filter_survives_the_fan_trap() {
    // Grouped by a one-to-many dimension (products of each invoice's
    // lines): each invoice counts once per product, and the filter on its
    // account still applies.
    fixture().check(
        json!({"measures": ["invoices.smb_revenue"], "dimensions": ["invoice_lines.product"]}),
        "SELECT k.product, SUM(CASE WHEN a.segment = 'smb' THEN i.amount_cents / 100.0 END) FROM \
         (SELECT DISTINCT i.id, l.product FROM invoices i LEFT JOIN invoice_lines l ON l.invoice_id = i.id) k \
         JOIN invoices i ON i.id = k.id JOIN accounts a ON a.id = i.account_id GROUP BY k.product",
        false,
    );
}

#[test]
fn having_on_a_measure_and_where_on_a_column_together() {
    fixture().check(
        json!({"measures": ["invoices.revenue"], "dimensions": ["accounts.name"],
               "filters": ["invoices.revenue > 100 AND invoices.status != 'void'"]}),
        "SELECT a.name, SUM(i.amount_cents / 100.0) FROM invoices i JOIN accounts a ON a.id = i.account_id \
         WHERE i.status != 'void' GROUP BY 1 HAVING SUM(i.amount_cents / 100.0) > 100",
        false,
    );
}

#[test]
fn every_granularity_groups_by_period_start() {
    let f = fixture();
    for (g, trunc) in [
        ("day", "date(issued_at)"),
        ("month", "strftime('%Y-%m-01', issued_at)"),
        ("year", "strftime('%Y-01-01', issued_at)"),
        (
            "quarter",
            "printf('%s-%02d-01', strftime('%Y', issued_at), ((CAST(strftime('%m', issued_at) AS INTEGER) - 1) / 3) * 3 + 1)",
        ),
        (
            "week",
            "date(issued_at, '-' || ((CAST(strftime('%w', issued_at) AS INTEGER) + 6) % 7) || ' days')",
        ),
    ] {
        f.check(
            json!({"measures": ["invoices.invoice_count"], "dimensions": [{"field": "invoices.issued_at", "granularity": g}]}),
            &format!("SELECT {trunc}, COUNT(*) FROM invoices GROUP BY 1 ORDER BY 1"),
            true,
        );
    }
}

#[test]
fn ordering_and_limits() {
    let f = fixture();
    f.check(
        json!({"measures": ["invoices.revenue"], "dimensions": ["accounts.name"],
               "order_by": [{"id": "invoices.revenue", "desc": true}], "limit": 2}),
        "SELECT a.name, SUM(i.amount_cents / 100.0) r FROM invoices i JOIN accounts a ON a.id = i.account_id GROUP BY 1 ORDER BY r DESC LIMIT 2",
        true,
    );
    f.check(
        json!({"measures": ["revenue"], "dimensions": ["accounts.name"], "order_by": ["revenue asc"]}),
        "SELECT a.name, SUM(i.amount_cents / 100.0) r FROM invoices i JOIN accounts a ON a.id = i.account_id GROUP BY 1 ORDER BY r",
        true,
    );
}

#[test]
fn a_derived_model_measure_uses_its_parts() {
    fixture().check(
        json!({"measures": ["invoices.average_invoice"], "dimensions": ["accounts.segment"]}),
        "SELECT a.segment, SUM(i.amount_cents / 100.0) * 1.0 / COUNT(*) FROM invoices i LEFT JOIN accounts a ON a.id = i.account_id GROUP BY 1",
        false,
    );
}

#[test]
fn the_plan_explains_fan_and_chasm_handling() {
    let f = fixture();
    let query: SemanticQuery = serde_json::from_value(json!({
        "measures": ["accounts.count", "tickets.ticket_count"], "dimensions": ["tickets.priority"]
    }))
    .unwrap();
    let compiled = compile(&f.model, &query, Dialect::Sqlite, &SqlLimits::default()).unwrap();
    assert_eq!(compiled.plan[0].strategy, "distinct_keys");
    assert_eq!(compiled.plan[1].strategy, "direct");
    let notes = compiled.notes.join(" ");
    assert!(
        notes.contains("one-to-many") && notes.contains("chasm"),
        "{notes}"
    );
}

#[test]
fn include_empty_lists_dimension_values_without_rows() {
    let f = fixture();
    // Without it, a plan no account is on does not appear.
    f.check(
        json!({"measures": ["tickets.ticket_count"], "dimensions": ["plans.name"]}),
        "SELECT p.name, COUNT(*) FROM tickets t JOIN accounts a ON a.id = t.account_id JOIN plans p ON p.id = a.plan_id GROUP BY 1",
        false,
    );
    f.check(
        json!({"measures": ["tickets.ticket_count"], "dimensions": ["plans.name"], "include_empty": true}),
        "SELECT p.name, c.n FROM plans p LEFT JOIN \
         (SELECT a.plan_id, COUNT(*) n FROM tickets t JOIN accounts a ON a.id = t.account_id GROUP BY 1) c ON c.plan_id = p.id",
        false,
    );
    // Filters on the dimension's own source narrow its values.
    f.check(
        json!({"measures": ["invoices.revenue"], "dimensions": ["plans.name"], "include_empty": true,
               "filters": ["plans.name != 'Pro'"]}),
        "SELECT p.name, c.r FROM plans p LEFT JOIN \
         (SELECT a.plan_id, SUM(i.amount_cents / 100.0) r FROM invoices i JOIN accounts a ON a.id = i.account_id GROUP BY 1) c \
         ON c.plan_id = p.id WHERE p.name != 'Pro'",
        false,
    );
    // Two dimensions: every combination of their values.
    let (rows, _) = f.semantic(json!({"measures": ["accounts.count"], "dimensions": ["plans.name", "tickets.priority"], "include_empty": true}));
    assert_eq!(
        rows.len(),
        3 * 2 + 1,
        "3 plans × 2 priorities, plus accounts without tickets: {rows:?}"
    );
}

#[test]
fn filters_on_both_sides_of_a_one_to_many_join() {
    let f = fixture();
    // Accounts (one side) with high tickets (many side), by their segment.
    f.check(
        json!({"measures": ["accounts.count"], "dimensions": ["accounts.segment"], "filters": ["tickets.priority = 'high'", "accounts.name != 'Umbrella'"]}),
        "SELECT segment, COUNT(*) FROM accounts WHERE name != 'Umbrella' AND id IN (SELECT account_id FROM tickets WHERE priority = 'high') GROUP BY 1",
        false,
    );
    // Tickets (many side) of enterprise accounts (one side).
    f.check(
        json!({"measures": ["tickets.ticket_count"], "dimensions": ["tickets.priority"], "filters": ["accounts.segment = 'enterprise'"]}),
        "SELECT t.priority, COUNT(*) FROM tickets t JOIN accounts a ON a.id = t.account_id WHERE a.segment = 'enterprise' GROUP BY 1",
        false,
    );
}

#[test]
fn inline_aggregates_of_every_kind() {
    let f = fixture();
    f.check(
        json!({"measures": ["sum(invoices.amount_cents)", "avg(invoices.amount_cents)", "min(invoices.issued_at)",
                            "max(invoices.amount_cents)", "count(invoices.id)", "count_distinct(invoices.status)"],
               "dimensions": ["accounts.segment"]}),
        "SELECT a.segment, SUM(i.amount_cents), AVG(i.amount_cents), MIN(i.issued_at), MAX(i.amount_cents), COUNT(i.id), COUNT(DISTINCT i.status) \
         FROM invoices i LEFT JOIN accounts a ON a.id = i.account_id GROUP BY 1",
        false,
    );
}

#[test]
fn a_derived_query_measure_over_model_measures_of_one_source() {
    fixture().check(
        json!({"measures": ["invoices.paid_revenue", {"expr": "invoices.paid_revenue / invoices.revenue", "name": "paid_share"}],
               "dimensions": ["accounts.segment"]}),
        "SELECT a.segment, SUM(CASE WHEN i.status = 'paid' THEN i.amount_cents / 100.0 END), \
                SUM(CASE WHEN i.status = 'paid' THEN i.amount_cents / 100.0 END) * 1.0 / NULLIF(SUM(i.amount_cents / 100.0), 0) \
         FROM invoices i LEFT JOIN accounts a ON a.id = i.account_id GROUP BY 1",
        false,
    );
}

#[test]
fn median_and_percentiles_interpolate_like_percentile_cont() {
    // Invoice amounts 25, 70, 100, 120, 300, 500: the median is halfway
    // between 100 and 120; the 90th percentile 400 (between 300 and 500).
    fixture().check(
        json!({"measures": ["median(invoices.amount)", "percentile(invoices.amount, 0.9)", "percentile(invoices.amount, 90)"]}),
        "SELECT 110.0, 400.0, 400.0",
        false,
    );
}

#[test]
fn an_aliased_join_is_a_second_role_of_its_target() {
    // `payer` reaches accounts through its own join; `accounts` keeps the
    // default one, so neither is ambiguous.
    fixture().check(
        json!({"measures": ["invoices.revenue"], "dimensions": ["payer.segment", "accounts.name"],
               "filters": ["payer.segment != 'enterprise'"]}),
        "SELECT p.segment, a.name, SUM(i.amount_cents / 100.0) FROM invoices i \
         JOIN accounts a ON a.id = i.account_id JOIN accounts p ON p.id = i.account_id \
         WHERE p.segment != 'enterprise' GROUP BY 1, 2",
        false,
    );
}

#[test]
fn a_dimension_only_query_lists_distinct_values() {
    fixture().check(
        json!({"dimensions": ["accounts.segment", "plans.name"]}),
        "SELECT DISTINCT a.segment, p.name FROM accounts a LEFT JOIN plans p ON p.id = a.plan_id",
        false,
    );
}

#[test]
fn every_dialect_renders_the_chasm_query_in_its_own_spelling() {
    let f = fixture();
    let query: SemanticQuery = serde_json::from_value(json!({
        "measures": ["accounts.count", "tickets.ticket_count"],
        "dimensions": [{"field": "tickets.opened_at", "granularity": "month"}]
    }))
    .unwrap();
    let sql = |d: Dialect| {
        compile(&f.model, &query, d, &SqlLimits::default())
            .unwrap()
            .sql
    };
    let expect = [
        (
            Dialect::Postgres,
            [
                "\"tickets\" t0",
                "date_trunc('month', t0.\"opened_at\")",
                "IS NOT DISTINCT FROM",
            ],
        ),
        (
            Dialect::Duckdb,
            [
                "\"tickets\" t0",
                "date_trunc('month', t0.\"opened_at\")",
                "IS NOT DISTINCT FROM",
            ],
        ),
        (
            // Snowflake stores unquoted names upper case: the model's
            // `tickets` is the table TICKETS.
            Dialect::Snowflake,
            [
                "\"TICKETS\" t0",
                "DATE_TRUNC('MONTH', t0.\"OPENED_AT\")",
                "IS NOT DISTINCT FROM",
            ],
        ),
        (
            Dialect::Mysql,
            [
                "`tickets` t0",
                "CAST(DATE_FORMAT(t0.`opened_at`, '%Y-%m-01') AS DATE)",
                "<=>",
            ],
        ),
        (
            Dialect::Bigquery,
            [
                "`tickets` t0",
                "DATE_TRUNC(CAST(t0.`opened_at` AS DATE), MONTH)",
                "UNION DISTINCT",
            ],
        ),
        (
            Dialect::Sqlite,
            [
                "\"tickets\" t0",
                "strftime('%Y-%m-01', t0.\"opened_at\")",
                "IS NOT DISTINCT FROM",
            ],
        ), // No CTEs, one join per SELECT, no null-safe join: the groups are
        // stacked and grouped instead (see planner::clickhouse).
        (
            Dialect::Clickhouse,
            [
                "toStartOfMonth(\"t1__opened_at\")",
                "UNION ALL",
                "GROUP BY \"d0\"",
            ],
        ),
    ];
    for (dialect, guard) in [
        (Dialect::Sqlite, SqlDialect::Sqlite),
        (Dialect::Postgres, SqlDialect::Postgres),
        (Dialect::Mysql, SqlDialect::Mysql),
        (Dialect::Clickhouse, SqlDialect::Clickhouse),
        (Dialect::Snowflake, SqlDialect::Snowflake),
        (Dialect::Duckdb, SqlDialect::Duckdb),
    ] {
        check_read_only(&sql(dialect), guard, &SqlLimits::default())
            .unwrap_or_else(|e| panic!("{dialect:?}: {e}"));
    }
    for (dialect, fragments) in expect {
        let text = sql(dialect);
        for fragment in fragments {
            assert!(
                text.contains(fragment),
                "{dialect:?} lacks `{fragment}`:\n{text}"
            );
        }
    }
}
