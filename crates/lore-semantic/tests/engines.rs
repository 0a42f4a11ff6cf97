//! The same semantic queries on SQLite, PostgreSQL, MySQL/MariaDB,
//! ClickHouse, Snowflake and DuckDB give the same rows, run the way
//! `sl_query` runs them: compiled for the connection's dialect, checked by
//! the guard, executed by the read-only connector. SQLite's answers are the
//! reference (the correctness suite checks them against hand-written SQL).
//!
//! PostgreSQL, MariaDB and ClickHouse run when `LORE_TEST_POSTGRES_URL` /
//! `LORE_TEST_MYSQL_URL` / `LORE_TEST_CLICKHOUSE_URL` are set (a scratch
//! database is created and dropped), Snowflake when
//! `LORE_TEST_SNOWFLAKE_URL` names a Snowflake-protocol server (fakesnow in
//! CI; a scratch database is made at login); otherwise a notice is printed
//! and they pass. On Snowflake the tables are created unquoted, so they are
//! stored upper case while the model names them in lower case, as people
//! write them. DuckDB runs in the process, in builds with the `duckdb`
//! feature (`cargo test -p lore-semantic --features duckdb`).

use lore_core::limits::SqlLimits;
use std::path::PathBuf;

/// The server URL in `var`, or `None` with a notice when it is unset —
/// unless `LORE_REQUIRE_SERVERS=1` (set by `.ci/run` when the local servers
/// answer), where a missing server fails the test.
fn server_url(var: &str, test: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) => Some(url),
        Err(_) if std::env::var("LORE_REQUIRE_SERVERS").is_ok_and(|v| v == "1") => {
            panic!("{test}: LORE_REQUIRE_SERVERS=1 but {var} is unset")
        }
        Err(_) => {
            eprintln!("notice: {test} skipped: set {var} to run it against a real server");
            None
        }
    }
}

use lore_core::config::{ConnectionConfig, Driver, LoreConfig, Secret};
use lore_core::project::Project;
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{SemanticModel, load_sources};
use lore_semantic::planner::compile;
use lore_semantic::query::SemanticQuery;
use lore_warehouse::execute::Warehouses;
use serde_json::{Value, json};

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

const MODEL: &str = r#"
- { name: plans, table: plans, grain: [id], columns: [{ name: id, type: number }, { name: name, type: string }] }
- name: accounts
  table: accounts
  grain: [id]
  columns: [{ name: id, type: number }, { name: name, type: string }, { name: segment, type: string }, { name: plan_id, type: number }, { name: created_at, type: time }]
  joins: [{ to: plans, "on": "plan_id = plans.id", relationship: many_to_one }]
  measures: [{ name: count, expr: "count(*)" }]
  segments: [{ name: enterprise, expr: "segment = 'enterprise'" }]
- name: invoices
  table: invoices
  grain: [id]
  columns: [{ name: id, type: number }, { name: account_id, type: number }, { name: amount_cents, type: number }, { name: amount, type: number, expr: "amount_cents / 100.0" }, { name: status, type: string }, { name: issued_at, type: time, role: time }, { name: issued_month, type: time, expr: "date_trunc('month', issued_at)" }]
  joins: [{ to: accounts, "on": "account_id = accounts.id", relationship: many_to_one }]
  measures:
    - { name: revenue, expr: "sum(amount)" }
    - { name: paid_revenue, expr: "sum(amount)", filter: "status = 'paid'" }
    - { name: invoice_count, expr: "count(*)" }
    - { name: revenue_7d, expr: "sum(amount)", cumulative: { window: 7 days } }
    - { name: paid_revenue_mtd, expr: "sum(amount)", filter: "status = 'paid'", cumulative: { grain_to_date: month } }
    - { name: revenue_to_date, expr: "sum(amount)", cumulative: { time: issued_at, period_agg: average } }
    - { name: invoices_1m, expr: "count(*)", cumulative: { window: 1 month, period_agg: last } }
    - { name: revenue_since_february, expr: "sum(amount)", filter: "date_trunc('month', issued_at) >= '2025-02-01'" }
    - { name: revenue_last_month, expr: "sum(amount)", offset: { window: 1 month } }
    - { name: invoices_at_quarter_start, expr: "count(*)", offset: { to_grain: quarter } }
    - { name: last_day_revenue, expr: "sum(amount)", non_additive: { time: issued_at } }
    - { name: first_invoice_per_account, expr: "sum(amount)", non_additive: { time: issued_at, keep: first, per: [account_id] } }
  segments: [{ name: paid, expr: "status = 'paid'" }]
- name: invoice_lines
  table: invoice_lines
  grain: [id]
  columns: [{ name: id, type: number }, { name: invoice_id, type: number }, { name: product, type: string }, { name: qty, type: number }]
  joins: [{ to: invoices, "on": "invoice_id = invoices.id", relationship: many_to_one }]
  measures: [{ name: units, expr: "sum(qty)" }]
- name: tickets
  table: tickets
  grain: [id]
  columns: [{ name: id, type: number }, { name: account_id, type: number }, { name: priority, type: string }, { name: opened_at, type: time, role: time }, { name: opened_month, type: time, expr: "date_trunc('month', opened_at)" }]
  joins: [{ to: accounts, "on": "account_id = accounts.id", relationship: many_to_one }]
  measures:
    - { name: ticket_count, expr: "count(*)" }
    - { name: tickets_to_date, expr: "count(*)", cumulative: {} }
    - { name: invoiced_after_ticket, conversion: { base: ticket_count, conversion: invoices.invoice_count, entity: account_id, calculation: count } }
    - { name: ticket_to_invoice_7d, conversion: { base: ticket_count, conversion: invoices.invoice_count, entity: account_id, window: 7 days } }
    - name: paid_same_month
      conversion:
        base: ticket_count
        conversion: invoices.paid_revenue
        entity: account_id
        constant: [{ base: opened_month, conversion: issued_month }]
        calculation: count
        fill_nulls_with: 0
    - { name: high_ticket_to_invoice, filter: "priority = 'high'", conversion: { base: ticket_count, conversion: invoices.invoice_count, entity: account_id } }
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
        // Cumulative measures: windows, period-to-date, all time, each
        // period's first day, last day or average, beside plain measures
        // and other sources, across a fan-out join, and without their
        // time column.
        json!({"measures": ["invoices.revenue_7d"], "dimensions": [{"field": "invoices.issued_at", "granularity": "day"}],
               "filters": ["invoices.issued_at >= '2025-01-01'", "invoices.issued_at < '2025-03-01'"]}),
        json!({"measures": ["invoices.paid_revenue_mtd", "invoices.revenue"], "dimensions": [{"field": "invoices.issued_at", "granularity": "month"}, "accounts.segment"]}),
        json!({"measures": ["invoices.revenue_to_date"], "dimensions": [{"field": "invoices.issued_at", "granularity": "week"}]}),
        json!({"measures": ["invoices.invoices_1m", "invoices.revenue_7d"], "dimensions": [{"field": "invoices.issued_at", "granularity": "quarter"}]}),
        json!({"measures": ["invoices.revenue", "tickets.tickets_to_date", "tickets.ticket_count"], "dimensions": [{"field": "tickets.opened_at", "granularity": "month"}, "accounts.segment"]}),
        json!({"measures": ["invoices.paid_revenue_mtd"], "dimensions": [{"field": "invoices.issued_at", "granularity": "month"}, "invoice_lines.product"]}),
        json!({"measures": ["invoices.revenue_to_date", "tickets.tickets_to_date"], "dimensions": ["accounts.segment"]}),
        json!({"measures": ["invoices.revenue_7d", "invoices.invoices_1m"], "dimensions": [{"field": "invoices.issued_at", "granularity": "year"}, "invoices.status"]}),
        // Offset measures: a month back beside the measure itself, the
        // start of the quarter by day, month and quarter.
        json!({"measures": ["invoices.revenue", "invoices.revenue_last_month", {"expr": "invoices.revenue - invoices.revenue_last_month", "name": "growth"}],
               "dimensions": [{"field": "invoices.issued_at", "granularity": "month"}, "accounts.segment"]}),
        json!({"measures": ["invoices.invoices_at_quarter_start"], "dimensions": [{"field": "invoices.issued_at", "granularity": "day"}]}),
        json!({"measures": ["invoices.invoices_at_quarter_start", "invoices.revenue_last_month"], "dimensions": [{"field": "invoices.issued_at", "granularity": "month"}]}),
        json!({"measures": ["invoices.invoices_at_quarter_start"], "dimensions": [{"field": "invoices.issued_at", "granularity": "quarter"}]}),
        // Non-additive measures: the last day's rows per period, each
        // account's first, across a fan-out join, without the time column.
        json!({"measures": ["invoices.last_day_revenue", "invoices.first_invoice_per_account", "invoices.revenue"],
               "dimensions": [{"field": "invoices.issued_at", "granularity": "quarter"}, "accounts.segment"]}),
        json!({"measures": ["invoices.last_day_revenue", "invoices.first_invoice_per_account"], "dimensions": ["accounts.segment"]}),
        json!({"measures": ["invoices.last_day_revenue", "invoices.first_invoice_per_account"],
               "dimensions": [{"field": "invoices.issued_at", "granularity": "year"}, "invoice_lines.product"]}),
        // Conversion measures: invoices following an account's latest
        // ticket (ever after, within 7 days, in the same month), by the
        // ticket's priority, month, account segment, across a fan-out
        // join, beside another source's measure, and overall.
        json!({"measures": ["tickets.invoiced_after_ticket", "tickets.ticket_to_invoice_7d", "tickets.paid_same_month", "tickets.high_ticket_to_invoice"],
               "dimensions": ["tickets.priority"]}),
        json!({"measures": ["tickets.ticket_to_invoice_7d", "invoices.revenue", "tickets.paid_same_month"],
               "dimensions": [{"field": "tickets.opened_at", "granularity": "month"}, "accounts.segment"]}),
        json!({"measures": ["tickets.invoiced_after_ticket", "tickets.high_ticket_to_invoice"], "dimensions": ["invoice_lines.product"]}),
        json!({"measures": ["tickets.invoiced_after_ticket", "tickets.ticket_to_invoice_7d", "tickets.paid_same_month"]}),
        // `date_trunc('<granularity>', x)` in a model or a query is each
        // engine's own truncation.
        json!({"measures": ["invoices.revenue_since_february", "invoices.revenue"], "dimensions": ["accounts.segment"],
               "filters": ["date_trunc('quarter', invoices.issued_at) <= '2025-07-01'"]}),
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

fn project(
    dir: &std::path::Path,
    driver: Driver,
    edit: impl FnOnce(&mut ConnectionConfig),
) -> Project {
    let mut connection = ConnectionConfig::new(driver);
    edit(&mut connection);
    let mut config = LoreConfig::default();
    config.connections.insert("w".into(), connection);
    Project {
        root: dir.to_path_buf(),
        config,
        warnings: Vec::new(),
    }
}

fn ddl(ts: &str) -> Vec<String> {
    DDL.replace("{ts}", ts)
        .split(";\n")
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

async fn reference(dir: &std::path::Path, model: &SemanticModel) -> Vec<Vec<Vec<String>>> {
    let db = dir.join("w.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(&ddl("TEXT").join(";\n")).unwrap();
    drop(conn);
    let project = project(dir, Driver::Sqlite, |c| {
        c.path = Some(db.display().to_string())
    });
    answers(&project, model, Dialect::Sqlite).await
}

fn model() -> SemanticModel {
    load_sources(vec![(PathBuf::from("m.yaml"), MODEL.to_string())]).unwrap()
}

fn url_with_database(url: &str, database: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map(|(b, q)| (b, Some(q)))
        .unwrap_or((url, None));
    let start = base.find("://").map(|i| i + 3).unwrap_or(0);
    let end = base[start..]
        .find('/')
        .map(|i| start + i)
        .unwrap_or(base.len());
    format!(
        "{}/{database}{}",
        &base[..end],
        query.map(|q| format!("?{q}")).unwrap_or_default()
    )
}

#[tokio::test]
async fn postgres_gives_the_same_rows_as_sqlite() {
    let Some(admin_url) = server_url(
        "LORE_TEST_POSTGRES_URL",
        "postgres_gives_the_same_rows_as_sqlite",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = model();
    let want = reference(dir.path(), &model).await;
    let name = format!("lore_sl_{}", std::process::id());
    let (admin, conn) = tokio_postgres::connect(&admin_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .await
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    let url = url_with_database(&admin_url, &name);
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    for statement in ddl("TIMESTAMP") {
        client.batch_execute(&statement).await.unwrap();
    }
    drop(client);
    let project = project(dir.path(), Driver::Postgres, |c| {
        c.url = Some(Secret::new(url.clone()))
    });
    let got = answers(&project, &model, Dialect::Postgres).await;
    drop(project);
    let _ = admin
        .batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)"))
        .await;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "query {i}: {}", queries()[i]);
    }
}

#[tokio::test]
async fn mysql_gives_the_same_rows_as_sqlite() {
    use mysql_async::prelude::Queryable;
    let Some(admin_url) = server_url("LORE_TEST_MYSQL_URL", "mysql_gives_the_same_rows_as_sqlite")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = model();
    let want = reference(dir.path(), &model).await;
    let name = format!("lore_sl_{}", std::process::id());
    let mut admin = mysql_async::Conn::from_url(&admin_url).await.unwrap();
    admin
        .query_drop(format!("DROP DATABASE IF EXISTS {name}"))
        .await
        .unwrap();
    admin
        .query_drop(format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    let url = url_with_database(&admin_url, &name);
    let mut conn = mysql_async::Conn::from_url(&url).await.unwrap();
    for statement in ddl("DATETIME") {
        conn.query_drop(statement).await.unwrap();
    }
    let _ = conn.disconnect().await;
    let project = project(dir.path(), Driver::Mysql, |c| {
        c.url = Some(Secret::new(url.clone()))
    });
    let got = answers(&project, &model, Dialect::Mysql).await;
    let _ = admin.query_drop(format!("DROP DATABASE {name}")).await;
    let _ = admin.disconnect().await;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "query {i}: {}", queries()[i]);
    }
}

#[cfg(feature = "duckdb")]
#[tokio::test]
async fn duckdb_gives_the_same_rows_as_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let model = model();
    let want = reference(dir.path(), &model).await;
    let db = dir.path().join("w.duckdb");
    let conn = lore_warehouse::duckdb_engine::Connection::open(&db).unwrap();
    conn.execute_batch(&ddl("TIMESTAMP").join(";\n")).unwrap();
    drop(conn);
    let project = project(dir.path(), Driver::Duckdb, |c| {
        c.path = Some(db.display().to_string())
    });
    let got = answers(&project, &model, Dialect::Duckdb).await;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "query {i}: {}", queries()[i]);
    }
}

/// The fixture's tables in ClickHouse's terms (MergeTree, `Nullable` where
/// the rows have NULLs); the rows are the same INSERTs.
const CLICKHOUSE_DDL: &str = r#"
CREATE TABLE plans (id Int32, name Nullable(String), price_cents Nullable(Int32)) ENGINE = MergeTree ORDER BY id;
CREATE TABLE accounts (id Int32, name Nullable(String), segment Nullable(String), plan_id Nullable(Int32), created_at Nullable(DateTime)) ENGINE = MergeTree ORDER BY id;
CREATE TABLE invoices (id Int32, account_id Nullable(Int32), amount_cents Nullable(Int32), status Nullable(String), issued_at Nullable(DateTime)) ENGINE = MergeTree ORDER BY id;
CREATE TABLE invoice_lines (id Int32, invoice_id Nullable(Int32), product Nullable(String), qty Nullable(Int32)) ENGINE = MergeTree ORDER BY id;
CREATE TABLE tickets (id Int32, account_id Nullable(Int32), priority Nullable(String), opened_at Nullable(DateTime)) ENGINE = MergeTree ORDER BY id
"#;

/// Runs one statement on ClickHouse's HTTP interface with the url's full
/// rights (not through Lore, whose queries are read-only).
fn clickhouse_exec(url: &str, database: Option<&str>, sql: &str) {
    use base64::Engine;
    let (scheme, rest) = url.split_once("://").unwrap();
    let authority = rest.split('/').next().unwrap();
    let (userinfo, host) = authority
        .rsplit_once('@')
        .unwrap_or(("default:", authority));
    let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    let mut target = format!("{scheme}://{host}/");
    if let Some(db) = database {
        target.push_str(&format!("?database={db}"));
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let auth = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    let response = agent
        .post(&target)
        .header("Authorization", format!("Basic {auth}"))
        .send(sql.as_bytes())
        .unwrap();
    let status = response.status().as_u16();
    let text = response.into_body().read_to_string().unwrap();
    assert_eq!(status, 200, "{sql}: {text}");
}

#[tokio::test]
async fn clickhouse_gives_the_same_rows_as_sqlite() {
    let Some(admin_url) = server_url(
        "LORE_TEST_CLICKHOUSE_URL",
        "clickhouse_gives_the_same_rows_as_sqlite",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = model();
    let want = reference(dir.path(), &model).await;
    let name = format!("lore_sl_{}", std::process::id());
    clickhouse_exec(&admin_url, None, &format!("DROP DATABASE IF EXISTS {name}"));
    clickhouse_exec(&admin_url, None, &format!("CREATE DATABASE {name}"));
    let creates = CLICKHOUSE_DDL
        .split(";\n")
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let inserts = ddl("DateTime")
        .into_iter()
        .filter(|s| s.starts_with("INSERT"));
    for statement in creates.map(str::to_string).chain(inserts) {
        clickhouse_exec(&admin_url, Some(&name), &statement);
    }
    let url = url_with_database(&admin_url, &name);
    let project = project(dir.path(), Driver::Clickhouse, |c| {
        c.url = Some(Secret::new(url.clone()))
    });
    let got = answers(&project, &model, Dialect::Clickhouse).await;
    clickhouse_exec(&admin_url, None, &format!("DROP DATABASE {name}"));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "query {i}: {}", queries()[i]);
    }
}

/// The plans behind the answers: the fan trap (revenue by the products of
/// invoice lines) aggregates at the invoices' grain, the chasm trap
/// (revenue and tickets by segment) joins two groups on their dimension.
#[cfg(feature = "duckdb")]
#[tokio::test]
async fn duckdb_runs_the_fan_and_chasm_trap_plans() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.duckdb");
    let conn = lore_warehouse::duckdb_engine::Connection::open(&db).unwrap();
    conn.execute_batch(&ddl("TIMESTAMP").join(";\n")).unwrap();
    drop(conn);
    let project = project(dir.path(), Driver::Duckdb, |c| {
        c.path = Some(db.display().to_string())
    });
    let warehouses = Warehouses::for_project(&project);
    let model = model();
    let run = |q: Value| {
        let query: SemanticQuery = serde_json::from_value(q).unwrap();
        let compiled = compile(&model, &query, Dialect::Duckdb, &SqlLimits::default()).unwrap();
        let prepared = warehouses.prepare("w", &compiled.sql).unwrap();
        async move { (compiled, prepared.run(100).await.unwrap()) }
    };
    let (fan, fan_rows) =
        run(json!({"measures": ["invoices.revenue"], "dimensions": ["invoice_lines.product"]}))
            .await;
    assert_eq!(fan.plan[0].strategy, "distinct_keys", "{}", fan.sql);
    let mut revenue: Vec<(String, String)> = fan_rows
        .rows
        .iter()
        .map(|r| (normal(&r[0]), normal(&r[1])))
        .collect();
    revenue.sort();
    // Invoice 1 (100.00) has two seats lines and counts once for seats.
    assert_eq!(
        revenue,
        [
            ("seats", "1020.0000"),
            ("storage", "170.0000"),
            ("support", "800.0000"),
            ("∅", "25.0000")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    let (chasm, chasm_rows) = run(json!({"measures": ["invoices.revenue", "tickets.ticket_count"], "dimensions": ["accounts.segment"]})).await;
    assert_eq!(chasm.plan.len(), 2, "{}", chasm.sql);
    let mut by_segment: Vec<Vec<String>> = chasm_rows
        .rows
        .iter()
        .map(|r| r.iter().map(normal).collect())
        .collect();
    by_segment.sort();
    assert_eq!(
        by_segment,
        [
            ["enterprise", "920.0000", "2.0000"],
            ["smb", "195.0000", "3.0000"],
            ["∅", "∅", "1.0000"],
        ]
        .map(|r| r.map(str::to_string).to_vec())
    );
}

/// Runs statements on the Snowflake-protocol server of `url` in `database`,
/// through the REST protocol directly (autocommit on), not through Lore.
fn snowflake_setup(url: &str, database: &str, statements: &[String]) {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|p| p.strip_prefix(&format!("{name}=")))
            .map(str::to_string)
    };
    let base = format!(
        "{}://{}:{}",
        param("protocol").unwrap_or_else(|| "https".into()),
        param("host").unwrap_or_else(|| "127.0.0.1".into()),
        param("port").unwrap_or_else(|| "443".into())
    );
    let post = |path: &str, token: Option<&str>, body: Value| -> Value {
        let mut request =
            ureq::post(format!("{base}{path}")).header("Content-Type", "application/json");
        if let Some(token) = token {
            request = request.header("Authorization", format!("Snowflake Token=\"{token}\""));
        }
        let mut response = request.send(body.to_string().as_bytes()).unwrap();
        serde_json::from_slice(&response.body_mut().read_to_vec().unwrap()).unwrap()
    };
    let login = post(
        &format!("/session/v1/login-request?databaseName={database}&schemaName=PUBLIC"),
        None,
        json!({"data": {"ACCOUNT_NAME": "admin", "LOGIN_NAME": "admin", "PASSWORD": "admin",
                        "SESSION_PARAMETERS": {"AUTOCOMMIT": true}}}),
    );
    let token = login["data"]["token"]
        .as_str()
        .expect("a session token")
        .to_string();
    for (i, statement) in statements.iter().enumerate() {
        let answer = post(
            &format!("/queries/v1/query-request?requestId=00000000-0000-4000-8000-{i:012}"),
            Some(&token),
            json!({"sqlText": statement, "sequenceId": i + 1}),
        );
        assert_eq!(
            answer["success"], true,
            "{statement}: {}",
            answer["message"]
        );
    }
}

#[tokio::test]
async fn snowflake_gives_the_same_rows_as_sqlite() {
    let Some(server) = server_url(
        "LORE_TEST_SNOWFLAKE_URL",
        "snowflake_gives_the_same_rows_as_sqlite",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = model();
    let want = reference(dir.path(), &model).await;
    let name = format!("LORE_SL_{}", std::process::id());
    snowflake_setup(&server, &name, &ddl("TIMESTAMP_NTZ"));
    let url = url_with_database(&server, &name);
    let project = project(dir.path(), Driver::Snowflake, |c| {
        c.url = Some(Secret::new(url.clone()))
    });
    let got = answers(&project, &model, Dialect::Snowflake).await;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "query {i}: {}", queries()[i]);
    }
}
