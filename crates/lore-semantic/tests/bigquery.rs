//! The semantic layer's BigQuery SQL: every query of the engine suite
//! (fan and chasm traps, time grains, ratios, empty groups) compiled for
//! BigQuery parses as BigQuery Standard SQL (sqlparser's BigQuery
//! dialect, through the read-only guard) and, run through the BigQuery
//! connector against the double (`lore_warehouse::bigquery_double`), gives
//! the rows SQLite gives. The double executes on SQLite after its own
//! translation, so this checks the SQL's shape and the connector's
//! plumbing, not BigQuery's engine; its `sl` dataset holds the rows of
//! engines.rs.

use std::path::PathBuf;

use lore_core::config::{ConnectionConfig, Driver, LoreConfig, Secret};
use lore_core::limits::SqlLimits;
use lore_core::project::Project;
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{SemanticModel, load_sources};
use lore_semantic::planner::compile;
use lore_semantic::query::SemanticQuery;
use lore_warehouse::bigquery_double::BigqueryDouble;
use lore_warehouse::execute::Warehouses;
use serde_json::{Value, json};
use sqlparser::dialect::BigQueryDialect;
use sqlparser::parser::Parser;

const DDL: &str = r#"
CREATE TABLE plans (id INTEGER PRIMARY KEY, name VARCHAR(40), price_cents INTEGER);
CREATE TABLE accounts (id INTEGER PRIMARY KEY, name VARCHAR(40), segment VARCHAR(40), plan_id INTEGER, created_at {ts});
CREATE TABLE invoices (id INTEGER PRIMARY KEY, account_id INTEGER, amount_cents INTEGER, status VARCHAR(20), issued_at {ts});
CREATE TABLE invoice_lines (id INTEGER PRIMARY KEY, invoice_id INTEGER, product VARCHAR(20), qty INTEGER);
CREATE TABLE tickets (id INTEGER PRIMARY KEY, account_id INTEGER, priority VARCHAR(20), opened_at {ts});
INSERT INTO plans VALUES (1, 'Starter', 1000), (2, 'Pro', 5000), (3, 'Unused', 9000);
INSERT INTO accounts VALUES (1, 'Acme', 'smb', 1, '2024-01-10 00:00:00'), (2, 'Globex', 'enterprise', 2, '2024-02-11 00:00:00'), (3, 'Initech', 'smb', 2, '2024-03-12 00:00:00'), (4, 'Umbrella', 'enterprise', 2, '2024-05-01 00:00:00'), (5, 'Hooli', NULL, 1, '2024-06-01 00:00:00');
INSERT INTO invoices VALUES (1, 1, 10000, 'paid', '2025-01-05 10:00:00'), (2, 1, 2500, 'open', '2025-02-07 09:00:00'), (3, 2, 50000, 'paid', '2025-01-20 12:00:00'), (4, 3, 7000, 'paid', '2025-04-01 08:00:00'), (5, 4, 12000, 'void', '2025-07-15 16:00:00'), (6, 2, 30000, 'paid', '2025-11-30 23:00:00');
INSERT INTO invoice_lines VALUES (1, 1, 'seats', 5), (2, 1, 'storage', 1), (3, 1, 'seats', 2), (4, 3, 'seats', 40), (5, 3, 'support', 1), (6, 4, 'storage', 3), (7, 5, 'seats', 10), (8, 6, 'seats', 20), (9, 6, 'support', 2);
INSERT INTO tickets VALUES (1, 1, 'high', '2025-01-02 00:00:00'), (2, 1, 'low', '2025-01-03 00:00:00'), (3, 1, 'high', '2025-02-01 00:00:00'), (4, 2, 'low', '2025-03-01 00:00:00'), (5, 4, 'high', '2025-03-05 00:00:00'), (6, 5, 'low', '2025-04-04 00:00:00')
"#;

/// The engine suite's model, its tables in the `sl` dataset.
const MODEL: &str = r#"
- { name: plans, table: sl.plans, grain: [id], columns: [{ name: id, type: number }, { name: name, type: string }] }
- name: accounts
  table: sl.accounts
  grain: [id]
  columns: [{ name: id, type: number }, { name: name, type: string }, { name: segment, type: string }, { name: plan_id, type: number }, { name: created_at, type: time }]
  joins: [{ to: plans, "on": "plan_id = plans.id", relationship: many_to_one }]
  measures: [{ name: count, expr: "count(*)" }]
  segments: [{ name: enterprise, expr: "segment = 'enterprise'" }]
- name: invoices
  table: sl.invoices
  grain: [id]
  columns: [{ name: id, type: number }, { name: account_id, type: number }, { name: amount_cents, type: number }, { name: amount, type: number, expr: "amount_cents / 100.0" }, { name: status, type: string }, { name: issued_at, type: time }]
  joins: [{ to: accounts, "on": "account_id = accounts.id", relationship: many_to_one }]
  measures: [{ name: revenue, expr: "sum(amount)" }, { name: paid_revenue, expr: "sum(amount)", filter: "status = 'paid'" }, { name: invoice_count, expr: "count(*)" }]
  segments: [{ name: paid, expr: "status = 'paid'" }]
- name: invoice_lines
  table: sl.invoice_lines
  grain: [id]
  columns: [{ name: id, type: number }, { name: invoice_id, type: number }, { name: product, type: string }, { name: qty, type: number }]
  joins: [{ to: invoices, "on": "invoice_id = invoices.id", relationship: many_to_one }]
  measures: [{ name: units, expr: "sum(qty)" }]
- name: tickets
  table: sl.tickets
  grain: [id]
  columns: [{ name: id, type: number }, { name: account_id, type: number }, { name: priority, type: string }, { name: opened_at, type: time }]
  joins: [{ to: accounts, "on": "account_id = accounts.id", relationship: many_to_one }]
  measures: [{ name: ticket_count, expr: "count(*)" }]
"#;

fn queries() -> Vec<Value> {
    let mut all = vec![
        json!({"measures": ["invoices.revenue"], "dimensions": ["invoices.status"]}),
        json!({"measures": ["invoice_lines.units"], "dimensions": ["accounts.segment", "plans.name"]}),
        json!({"measures": ["invoices.revenue"], "dimensions": ["invoice_lines.product"]}),
        json!({"measures": ["accounts.count"], "filters": ["tickets.priority = 'high'"]}),
        json!({"measures": ["invoices.revenue", "tickets.ticket_count"], "dimensions": ["accounts.segment"]}),
        json!({"measures": ["invoices.revenue", "tickets.ticket_count", "accounts.count"]}),
        json!({"measures": [{"expr": "tickets.ticket_count / accounts.count", "name": "per"}], "dimensions": ["plans.name"]}),
        json!({"measures": ["count_distinct(invoices.account_id)"], "dimensions": ["invoice_lines.product"]}),
        json!({"measures": ["invoices.paid_revenue"], "segments": ["accounts.enterprise"], "dimensions": ["accounts.name"]}),
        json!({"measures": ["invoices.revenue"], "dimensions": ["accounts.name"], "filters": ["invoices.revenue > 100 AND invoices.status != 'void'"]}),
        json!({"measures": ["invoices.revenue"], "dimensions": ["accounts.name"], "order_by": ["invoices.revenue desc"], "limit": 2}),
        json!({"measures": ["accounts.count", "tickets.ticket_count"], "dimensions": ["tickets.priority"]}),
        json!({"measures": ["tickets.ticket_count"], "dimensions": ["plans.name"], "include_empty": true}),
        json!({"measures": ["accounts.count"], "dimensions": ["plans.name", "tickets.priority"], "include_empty": true}),
        json!({"measures": ["sum(invoices.amount_cents)", "avg(invoices.amount_cents)", "count_distinct(invoices.status)"], "dimensions": ["accounts.segment"]}),
        json!({"dimensions": ["accounts.segment", "plans.name"]}),
    ];
    for g in ["day", "week", "month", "quarter", "year"] {
        all.push(
            json!({"measures": ["invoices.invoice_count", "tickets.ticket_count"],
                        "dimensions": [{"field": "invoices.issued_at", "granularity": g}]}),
        );
        all.push(json!({"measures": ["tickets.ticket_count"], "dimensions": [{"field": "tickets.opened_at", "granularity": g}]}));
    }
    all
}

/// A value as comparable text: numbers to 4 places (MySQL gives the
/// quotients of its DECIMAL arithmetic, such as AVG of integers, 4 decimals),
/// dates to the day.
fn normal(v: &Value) -> String {
    match v {
        Value::Null => "∅".into(),
        Value::Number(n) => format!("{:.4}", n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => match s.parse::<f64>() {
            Ok(f) => format!("{f:.4}"),
            Err(_) if s.len() >= 10 && s.as_bytes()[4] == b'-' && s.as_bytes()[7] == b'-' => {
                s[..10].to_string()
            }
            Err(_) => s.clone(),
        },
        other => other.to_string(),
    }
}

fn project(dir: &std::path::Path, connection: ConnectionConfig) -> Project {
    let mut config = LoreConfig::default();
    config.connections.insert("w".into(), connection);
    Project {
        root: dir.to_path_buf(),
        config,
        warnings: Vec::new(),
    }
}

async fn answers(
    project: &Project,
    model: &SemanticModel,
    dialect: Dialect,
) -> Vec<Vec<Vec<String>>> {
    let warehouses = Warehouses::for_project(project);
    let mut out = Vec::new();
    for q in queries() {
        let query: SemanticQuery = serde_json::from_value(q.clone()).unwrap();
        let compiled = compile(model, &query, dialect, &SqlLimits::default()).unwrap();
        let prepared = warehouses
            .prepare("w", &compiled.sql)
            .unwrap_or_else(|e| panic!("{dialect:?}: guard: {e}\n{}", compiled.sql));
        let result = prepared
            .run(1000)
            .await
            .unwrap_or_else(|e| panic!("{dialect:?}: {e}\n{q}\n{}", compiled.sql));
        let mut rows: Vec<Vec<String>> = result
            .rows
            .iter()
            .map(|r| r.iter().map(normal).collect())
            .collect();
        rows.sort();
        out.push(rows);
    }
    out
}

fn model(text: &str) -> SemanticModel {
    load_sources(vec![(PathBuf::from("m.yaml"), text.to_string())]).unwrap()
}

#[test]
fn every_plan_rendered_for_bigquery_parses_as_bigquery_standard_sql() {
    let model = model(MODEL);
    for q in queries() {
        let query: SemanticQuery = serde_json::from_value(q.clone()).unwrap();
        let compiled = compile(&model, &query, Dialect::Bigquery, &SqlLimits::default()).unwrap();
        let statements = Parser::parse_sql(&BigQueryDialect {}, &compiled.sql)
            .unwrap_or_else(|e| panic!("{q}: {e}\n{}", compiled.sql));
        assert_eq!(statements.len(), 1, "{}", compiled.sql);
        lore_warehouse::guard::check_read_only(
            &compiled.sql,
            lore_warehouse::dialect::SqlDialect::Bigquery,
            &SqlLimits::default(),
        )
        .unwrap_or_else(|e| panic!("{q}: {e}\n{}", compiled.sql));
        // Result columns are plain names (BigQuery allows no `.` there);
        // tables are dataset-qualified, as BigQuery needs without a
        // default dataset.
        assert!(!compiled.sql.contains("AS `accounts."), "{}", compiled.sql);
        assert!(compiled.sql.contains("`sl`.`"), "{}", compiled.sql);
    }
}

#[tokio::test]
async fn bigquery_through_the_double_gives_the_same_rows_as_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(&DDL.replace("{ts}", "TEXT")).unwrap();
    drop(conn);
    let mut sqlite = ConnectionConfig::new(Driver::Sqlite);
    sqlite.path = Some(db.display().to_string());
    let plain_model = MODEL.replace("table: sl.", "table: ");
    let want = answers(
        &project(dir.path(), sqlite),
        &model(&plain_model),
        Dialect::Sqlite,
    )
    .await;

    let double = BigqueryDouble::start();
    std::fs::write(dir.path().join("key.json"), double.key_json()).unwrap();
    let mut bigquery = ConnectionConfig::new(Driver::Bigquery);
    bigquery.url = Some(Secret::new(double.url("datasets=sl")));
    bigquery.credentials = Some(Secret::new("file:key.json"));
    let got = answers(
        &project(dir.path(), bigquery),
        &model(MODEL),
        Dialect::Bigquery,
    )
    .await;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "query {i}: {}", queries()[i]);
    }
    assert!(double.violations().is_empty(), "{:#?}", double.violations());
}

/// Cumulative, offset and non-additive measures (a spine of days from
/// `GENERATE_DATE_ARRAY`, date arithmetic, `ROW_NUMBER` per period, the
/// chosen day's join) are rendered and parsed as
/// BigQuery Standard SQL; the double does not run `UNNEST`, so their rows
/// are checked on the engines that run them (engines.rs, cumulative.rs).
#[test]
fn cumulative_plans_parse_as_bigquery_standard_sql() {
    let text = MODEL.replace(
        r#"{ name: invoice_count, expr: "count(*)" }]"#,
        r#"{ name: invoice_count, expr: "count(*)" }, { name: revenue_7d, expr: "sum(amount)", cumulative: { window: 7 days } }, { name: revenue_mtd, expr: "sum(amount)", cumulative: { grain_to_date: month, period_agg: last } }, { name: revenue_to_date, expr: "sum(amount)", cumulative: { period_agg: average } }, { name: revenue_last_month, expr: "sum(amount)", offset: { window: 1 month } }, { name: at_quarter_start, expr: "count(*)", offset: { to_grain: quarter } }, { name: last_day_revenue, expr: "sum(amount)", non_additive: { time: issued_at, per: [account_id] } }]"#,
    );
    assert_ne!(text, MODEL, "the cumulative measures were added");
    let model = model(&text);
    for (measure, granularity) in [
        ("invoices.revenue_7d", "month"),
        ("invoices.revenue_7d", "day"),
        ("invoices.revenue_mtd", "quarter"),
        ("invoices.revenue_to_date", "week"),
        ("invoices.revenue_last_month", "month"),
        ("invoices.at_quarter_start", "month"),
        ("invoices.last_day_revenue", "month"),
    ] {
        let query: SemanticQuery = serde_json::from_value(json!({
            "measures": [measure, "tickets.ticket_count"],
            "dimensions": [{"field": "invoices.issued_at", "granularity": granularity}, "accounts.segment"]
        }))
        .unwrap();
        let compiled = compile(&model, &query, Dialect::Bigquery, &SqlLimits::default()).unwrap();
        assert!(
            compiled.sql.contains("GENERATE_DATE_ARRAY") || measure.contains("last_day"),
            "{}",
            compiled.sql
        );
        Parser::parse_sql(&BigQueryDialect {}, &compiled.sql)
            .unwrap_or_else(|e| panic!("{measure}: {e}\n{}", compiled.sql));
        lore_warehouse::guard::check_read_only(
            &compiled.sql,
            lore_warehouse::dialect::SqlDialect::Bigquery,
            &SqlLimits::default(),
        )
        .unwrap_or_else(|e| panic!("{measure}: {e}\n{}", compiled.sql));
    }
}
