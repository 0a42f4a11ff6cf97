//! The MetricFlow import checked against MetricFlow itself: a dbt project
//! is built with dbt-duckdb, Lore's SQLite warehouse holds the same rows,
//! each metric is asked of `mf query` and of `lore sl query` on the
//! imported model, and the answers must be equal. Two projects: Lore's
//! fixture (`fixtures/metricflow`), and MetricFlow's own tutorial project
//! (`mf tutorial`, shipped in the dbt-metricflow package: its seeds,
//! models, semantic models and metrics as MetricFlow wrote them), whose
//! built tables are copied into SQLite by
//! `examples/metricflow/duckdb_to_sqlite.py`, as the README's worked
//! example does. Needs a Python environment with `dbt-duckdb` and
//! `dbt-metricflow` (`LORE_TEST_METRICFLOW=<its bin folder>`); skipped
//! with a notice when unset, and required (`LORE_REQUIRE_METRICFLOW=1`)
//! when `.ci/run` finds or installs one.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::Value;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/metricflow");

const CUSTOMERS: &str = "customer_id,region,signed_up_at\n1,north,2024-01-02\n2,north,2024-01-15\n3,south,2024-02-01\n4,south,2024-02-20\n5,west,2024-03-01\n";
const ORDERS: &str = "order_id,customer_id,ordered_at,status,amount,channel\n1,1,2024-01-05,paid,120.0,web\n2,1,2024-01-20,paid,35.5,web\n3,2,2024-01-21,refunded,80.0,store\n4,2,2024-02-03,paid,150.0,web\n5,3,2024-02-10,paid,20.0,store\n6,3,2024-02-11,open,99.0,web\n7,4,2024-02-25,paid,310.0,web\n8,4,2024-03-02,paid,45.0,store\n9,1,2024-03-09,open,100.0,web\n10,3,2024-03-30,paid,60.0,web\n11,2,2024-02-01,paid,75.0,store\n12,5,2024-03-04,paid,25.0,web\n";

/// Visits, for conversion metrics: customer 1 visits twice before its
/// first order (the later visit counts), its second order comes 10 days
/// after its last visit (outside 7 days), customer 3's first orders come
/// before its first visit, a visit is on the day of an order, and one
/// visit is of no customer.
const VISITS: &str = "visit_id,customer_id,visited_at,channel\n1,1,2024-01-02,web\n2,1,2024-01-04,ads\n3,1,2024-01-10,web\n4,2,2024-01-21,web\n5,2,2024-01-30,store\n6,3,2024-02-12,web\n7,4,2024-02-20,web\n8,4,2024-02-28,store\n9,5,2024-03-10,web\n10,1,2024-03-09,web\n11,3,2024-03-25,ads\n12,,2024-03-01,web\n";

const BALANCES: &str = "balance_id,customer_id,snapshot_at,kind,amount\n1,1,2024-01-31,savings,100.0\n2,2,2024-01-31,checking,50.0\n3,1,2024-02-15,savings,120.0\n4,3,2024-02-29,checking,30.0\n5,1,2024-02-29,checking,10.0\n6,2,2024-03-10,savings,70.0\n7,3,2024-03-31,savings,40.0\n8,2,2024-01-15,savings,5.0\n";

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The dbt project, built: the fixture's YAML, seeds, models and a time spine.
fn dbt_project(bin: &Path, dir: &Path) {
    copy(Path::new(FIXTURE), dir);
    std::fs::create_dir_all(dir.join("seeds")).unwrap();
    std::fs::write(dir.join("seeds/raw_customers.csv"), CUSTOMERS).unwrap();
    std::fs::write(dir.join("seeds/raw_orders.csv"), ORDERS).unwrap();
    std::fs::write(dir.join("seeds/raw_balances.csv"), BALANCES).unwrap();
    std::fs::write(dir.join("seeds/raw_visits.csv"), VISITS).unwrap();
    std::fs::write(
        dir.join("models/visits.sql"),
        "select * from {{ ref('raw_visits') }}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("models/balances.sql"),
        "select * from {{ ref('raw_balances') }}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("models/orders.sql"),
        "select * from {{ ref('raw_orders') }}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("models/customers.sql"),
        "select * from {{ ref('raw_customers') }}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("models/metricflow_time_spine.sql"),
        "{{ config(materialized='table') }}\nselect cast(range as date) as date_day from range(date '2023-12-01', date '2024-06-01', interval 1 day)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("models/time_spine.yml"),
        "models:\n  - name: metricflow_time_spine\n    time_spine:\n      standard_granularity_column: date_day\n    columns:\n      - name: date_day\n        granularity: day\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("profiles.yml"),
        format!(
            "shop:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: {}\n      threads: 1\n",
            dir.join("shop.duckdb").display()
        ),
    )
    .unwrap();
    let built = Command::new(bin.join("dbt"))
        .args(["build", "-q"])
        .current_dir(dir)
        .env("DBT_PROFILES_DIR", dir)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "dbt build: {}",
        String::from_utf8_lossy(&built.stdout)
    );
}

/// `mf query` rows as text, sorted (times cut to the date).
fn metricflow(bin: &Path, dir: &Path, metric: &str, group_by: Option<&str>) -> Vec<Vec<String>> {
    let csv = dir.join("answer.csv");
    let mut args = vec![
        "query",
        "--metrics",
        metric,
        "--csv",
        csv.to_str().unwrap(),
        "--quiet",
    ];
    if let Some(g) = group_by {
        args.extend(["--group-by", g]);
    }
    let out = Command::new(bin.join("mf"))
        .args(&args)
        .current_dir(dir)
        .env("DBT_PROFILES_DIR", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mf {args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut rows: Vec<Vec<String>> = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').map(normal).collect())
        .collect();
    rows.sort();
    rows
}

fn normal(cell: &str) -> String {
    let cell = cell.trim();
    if cell.is_empty() {
        return "null".into();
    }
    // DuckDB answers booleans, SQLite ones and zeros.
    match cell {
        "True" | "true" => return normal("1"),
        "False" | "false" => return normal("0"),
        _ => {}
    }
    if let Ok(n) = cell.parse::<f64>() {
        return format!("{n:.4}");
    }
    // `2024-02-01 00:00:00` and `2024-02-01` are one month.
    cell.get(..10)
        .filter(|d| d.len() == 10 && d.as_bytes()[4] == b'-')
        .map_or_else(|| cell.to_string(), str::to_string)
}

fn lore_rows(root: &Path, args: &[&str]) -> Vec<Vec<String>> {
    let mut all = vec!["sl", "query", "-c", "shop", "--format", "json"];
    all.extend_from_slice(args);
    let out = lore_in(root, &all);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut rows: Vec<Vec<String>> = answer["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|v| match v {
                    Value::String(s) => normal(s),
                    Value::Null => "null".into(),
                    other => normal(&other.to_string()),
                })
                .collect()
        })
        .collect();
    rows.sort();
    rows
}

/// The bin folder holding `dbt`, `mf` and `python`, or `None` (skip).
fn metricflow_bin() -> Option<std::path::PathBuf> {
    let Some(bin) = std::env::var_os("LORE_TEST_METRICFLOW") else {
        assert!(
            std::env::var("LORE_REQUIRE_METRICFLOW").as_deref() != Ok("1"),
            "LORE_REQUIRE_METRICFLOW=1 but LORE_TEST_METRICFLOW is not set"
        );
        eprintln!(
            "skipped: set LORE_TEST_METRICFLOW to a bin folder with dbt (dbt-duckdb) and mf (dbt-metricflow)"
        );
        return None;
    };
    Some(bin.into())
}

fn run(bin: &Path, tool: &str, args: &[&str], dir: &Path) {
    let out = Command::new(bin.join(tool))
        .args(args)
        .current_dir(dir)
        .env("DBT_PROFILES_DIR", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Points the project's `shop` connection at `shop.db`, scans it and
/// imports the dbt project: the import's report.
fn scan_and_import(root: &Path, dbt: &Path) -> Value {
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        common::with_connections(&text, "  shop:\n    driver: sqlite\n    path: shop.db"),
    )
    .unwrap();
    assert!(lore_in(root, &["scan", "-c", "shop"]).status.success());
    let args = [
        "sl",
        "import",
        "--from",
        "metricflow",
        dbt.to_str().unwrap(),
        "-c",
        "shop",
        "--json",
    ];
    let imported = lore_in(root, &args);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    serde_json::from_slice(&imported.stdout).unwrap()
}

#[test]
fn metricflows_own_tutorial_project_answers_alike() {
    let Some(bin) = metricflow_bin() else { return };
    let work = tempfile::tempdir().unwrap();
    // As a user would: MetricFlow writes its tutorial project, dbt builds it.
    run(&bin, "mf", &["tutorial", "--yes"], work.path());
    let dbt = work.path().join("mf_tutorial_project");
    run(&bin, "dbt", &["build", "-q"], &dbt);

    let (_dir, root) = empty_project();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/metricflow/duckdb_to_sqlite.py"
    );
    let db = root.join("shop.db");
    run(
        &bin,
        "python",
        &[script, "mf_tutorial.duckdb", db.to_str().unwrap(), "main"],
        &dbt,
    );
    let report = scan_and_import(&root, &dbt);
    // Every metric is imported (the cumulative ones as cumulative
    // measures), and the time spine as the model's spine.
    let skipped: Vec<&str> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "metric" && i["outcome"] != "imported")
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, Vec::<&str>::new(), "{report:#}");
    assert!(
        report["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["kind"] == "time_spine" && i["outcome"] == "imported"),
        "{report:#}"
    );

    let t = |m: &str| format!("transactions.{m}");
    for (metrics, group_by, dims) in [
        // Filters on another model's dimension, one and two joins away.
        (
            "cancellations_mx,transaction_usd_na",
            Some("metric_time__month"),
            vec!["transactions.ds:month"],
        ),
        (
            "transactions,quick_buy_transactions,revenue_usd,cancellation_rate",
            Some("customer__customer_country"),
            vec!["customers.customer_country"],
        ),
        (
            "transaction_amount,cancellations,alterations,quick_buy_amount_usd",
            Some("customer__country__region,transaction__is_large"),
            // (MetricFlow lists the local dimension first.)
            vec!["transactions.is_large", "countries.region"],
        ),
        (
            "transactions,transaction_usd_na",
            Some("metric_time__day,transaction__quick_buy_transaction"),
            vec!["transactions.ds:day", "transactions.quick_buy_transaction"],
        ),
        (
            "new_customers",
            Some("country__region"),
            vec!["countries.region"],
        ),
        ("revenue_usd,cancellation_rate", None, vec![]),
        // Cumulative metrics (all time, and a 7-day window) on every day
        // of the time spine, and each month's first day.
        (
            "cumulative_transactions,cumulative_transactions_in_last_7_days",
            Some("metric_time__day"),
            vec!["transactions.ds:day"],
        ),
        (
            "cumulative_transactions,cumulative_transactions_in_last_7_days,transactions",
            Some("metric_time__month"),
            vec!["transactions.ds:month"],
        ),
        (
            "cumulative_transactions_in_last_7_days",
            Some("metric_time__week,customer__customer_country"),
            vec!["transactions.ds:week", "customers.customer_country"],
        ),
        ("cumulative_transactions", None, vec![]),
    ] {
        let mut args: Vec<String> = Vec::new();
        for m in metrics.split(',') {
            args.push("-m".into());
            args.push(if m == "new_customers" {
                format!("customers.{m}")
            } else {
                t(m)
            });
        }
        for d in &dims {
            args.push("-d".into());
            args.push(d.to_string());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(
            lore_rows(&root, &args),
            metricflow(&bin, &dbt, metrics, group_by),
            "{metrics} by {group_by:?}"
        );
    }
}

#[test]
fn imported_metrics_answer_what_metricflow_answers() {
    let Some(bin) = metricflow_bin() else { return };
    let bin = bin.as_path();
    let work = tempfile::tempdir().unwrap();
    let dbt = work.path().join("dbt");
    dbt_project(bin, &dbt);

    // The same rows in Lore's SQLite warehouse.
    let (_dir, root) = empty_project();
    let conn = rusqlite::Connection::open(root.join("shop.db")).unwrap();
    conn.execute_batch(
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, region TEXT, signed_up_at TEXT);
         CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, ordered_at TEXT, status TEXT, amount REAL, channel TEXT);
         CREATE TABLE visits (visit_id INTEGER PRIMARY KEY, customer_id INTEGER, visited_at TEXT, channel TEXT);
         CREATE TABLE balances (balance_id INTEGER PRIMARY KEY, customer_id INTEGER, snapshot_at TEXT, kind TEXT, amount REAL);",
    )
    .unwrap();
    for line in CUSTOMERS.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        conn.execute(
            "INSERT INTO customers VALUES (?1, ?2, ?3)",
            rusqlite::params![f[0], f[1], f[2]],
        )
        .unwrap();
    }
    for line in ORDERS.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        conn.execute(
            "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![f[0], f[1], f[2], f[3], f[4].parse::<f64>().unwrap(), f[5]],
        )
        .unwrap();
    }
    for line in VISITS.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let customer: Option<i64> = f[1].parse().ok();
        conn.execute(
            "INSERT INTO visits VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![f[0], customer, f[2], f[3]],
        )
        .unwrap();
    }
    for line in BALANCES.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        conn.execute(
            "INSERT INTO balances VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![f[0], f[1], f[2], f[3], f[4].parse::<f64>().unwrap()],
        )
        .unwrap();
    }
    // The time spine dbt built, day by day.
    conn.execute_batch(
        "CREATE TABLE metricflow_time_spine (date_day DATE);
         WITH RECURSIVE d(day) AS (SELECT '2023-12-01' UNION ALL SELECT date(day, '+1 day') FROM d WHERE day < '2024-05-31')
         INSERT INTO metricflow_time_spine SELECT day FROM d;",
    )
    .unwrap();
    // The compiled project (target/manifest.json) is what is imported.
    let report = scan_and_import(&root, &dbt);
    assert!(
        report["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["kind"] == "time_spine"
                && i["name"] == "metricflow_time_spine"
                && i["outcome"] == "imported"),
        "{report:#}"
    );
    for metric in [
        "visit_to_order_rate_7d",
        "visit_orders",
        "same_channel_rate",
        "non_ad_visit_to_order_rate",
    ] {
        assert!(
            report["items"]
                .as_array()
                .unwrap()
                .iter()
                .any(|i| i["kind"] == "metric"
                    && i["name"] == metric
                    && i["outcome"] == "imported"),
            "{metric}: {report:#}"
        );
    }

    for (metric, group_by, lore) in [
        (
            "revenue",
            Some("customer__region"),
            vec!["-m", "orders.revenue", "-d", "customers.region"],
        ),
        (
            "revenue_per_order",
            Some("metric_time__month"),
            vec![
                "-m",
                "orders.revenue_per_order",
                "-d",
                "orders.ordered_at:month",
            ],
        ),
        (
            "large_order_share",
            None,
            vec!["-m", "orders.large_order_share"],
        ),
        (
            "large_orders",
            Some("order__status"),
            vec!["-m", "orders.large_orders", "-d", "orders.status"],
        ),
        (
            "north_revenue",
            Some("order__status"),
            vec!["-m", "orders.north_revenue", "-d", "orders.status"],
        ),
        (
            "north_paid_revenue",
            Some("metric_time__month"),
            vec![
                "-m",
                "orders.north_paid_revenue",
                "-d",
                "orders.ordered_at:month",
            ],
        ),
        (
            "orders_per_customer",
            None,
            vec!["-m", "orders.orders_per_customer"],
        ),
        (
            "customers",
            Some("customer__region"),
            vec!["-m", "customers.customers", "-d", "customers.region"],
        ),
        (
            "average_amount",
            Some("order__status"),
            vec!["-m", "orders.average_amount", "-d", "orders.status"],
        ),
        // Cumulative metrics: a 7-day window, month to date, all time
        // (each month's last day) and a filtered month-long window
        // (averaged over each month's days), by day and by month.
        (
            "revenue_7d,revenue_mtd,orders_to_date,paid_orders_1m",
            Some("metric_time__day"),
            vec![
                "-m",
                "orders.revenue_7d",
                "-m",
                "orders.revenue_mtd",
                "-m",
                "orders.orders_to_date",
                "-m",
                "orders.paid_orders_1m",
                "-d",
                "orders.ordered_at:day",
            ],
        ),
        (
            "revenue_7d,revenue_mtd,orders_to_date,paid_orders_1m",
            Some("metric_time__month"),
            vec![
                "-m",
                "orders.revenue_7d",
                "-m",
                "orders.revenue_mtd",
                "-m",
                "orders.orders_to_date",
                "-m",
                "orders.paid_orders_1m",
                "-d",
                "orders.ordered_at:month",
            ],
        ),
        // TimeDimension filters: on metric_time, on the model's own time
        // dimension, on another model's (the customer's sign-up month),
        // and on a cumulative metric's rows.
        (
            "revenue_since_february,february_revenue,revenue_of_january_signups,revenue_mtd_since_feb_5",
            Some("metric_time__month"),
            vec![
                "-m",
                "orders.revenue_since_february",
                "-m",
                "orders.february_revenue",
                "-m",
                "orders.revenue_of_january_signups",
                "-m",
                "orders.revenue_mtd_since_feb_5",
                "-d",
                "orders.ordered_at:month",
            ],
        ),
        (
            "revenue_since_february,revenue_of_january_signups,revenue_mtd_since_feb_5",
            Some("metric_time__day,customer__region"),
            vec![
                "-m",
                "orders.revenue_since_february",
                "-m",
                "orders.revenue_of_january_signups",
                "-m",
                "orders.revenue_mtd_since_feb_5",
                "-d",
                "orders.ordered_at:day",
                "-d",
                "customers.region",
            ],
        ),
        // Derived metrics reading an input at an earlier time: a month
        // back beside the metric itself, a week back, the start of the
        // month; by day, week and month, and by region.
        (
            "revenue_growth,revenue,orders_week_before,orders_at_month_start",
            Some("metric_time__month"),
            vec![
                "-m",
                "orders.revenue_growth",
                "-m",
                "orders.revenue",
                "-m",
                "orders.orders_week_before",
                "-m",
                "orders.orders_at_month_start",
                "-d",
                "orders.ordered_at:month",
            ],
        ),
        (
            "orders_week_before,orders_at_month_start",
            Some("metric_time__day"),
            vec![
                "-m",
                "orders.orders_week_before",
                "-m",
                "orders.orders_at_month_start",
                "-d",
                "orders.ordered_at:day",
            ],
        ),
        (
            "orders_week_before,orders_at_month_start",
            Some("metric_time__week"),
            vec![
                "-m",
                "orders.orders_week_before",
                "-m",
                "orders.orders_at_month_start",
                "-d",
                "orders.ordered_at:week",
            ],
        ),
        (
            "revenue_growth",
            Some("metric_time__month,customer__region"),
            vec![
                "-m",
                "orders.revenue_growth",
                "-d",
                "orders.ordered_at:month",
                "-d",
                "customers.region",
            ],
        ),
        // Non-additive measures: each month's last snapshot, each
        // customer's first, the savings rows' last; by month, by region
        // (the last day of all), overall, and by week and region.
        (
            "balance,opening_balance,savings_balance",
            Some("metric_time__month"),
            vec![
                "-m",
                "balances.balance",
                "-m",
                "balances.opening_balance",
                "-m",
                "balances.savings_balance",
                "-d",
                "balances.snapshot_at:month",
            ],
        ),
        (
            "balance,opening_balance,savings_balance",
            Some("customer__region"),
            vec![
                "-m",
                "balances.balance",
                "-m",
                "balances.opening_balance",
                "-m",
                "balances.savings_balance",
                "-d",
                "customers.region",
            ],
        ),
        (
            "balance,opening_balance",
            None,
            vec!["-m", "balances.balance", "-m", "balances.opening_balance"],
        ),
        (
            "balance",
            Some("metric_time__week,customer__region"),
            vec![
                "-m",
                "balances.balance",
                "-d",
                "balances.snapshot_at:week",
                "-d",
                "customers.region",
            ],
        ),
        // Conversion metrics, one per `mf query` (MetricFlow reuses a
        // source read by two metrics of one query, and its row ids go
        // with it): within 7 days, ever after (a count), in the same
        // channel within 14 days (no conversion counting 0), and of the
        // visits other than ad visits; by day, month, the visit's channel
        // and its customer's region, and overall. (MetricFlow 0.207
        // writes SQL DuckDB cannot parse for a count without a group-by.)
        (
            "visit_to_order_rate_7d",
            None,
            vec!["-m", "visits.visit_to_order_rate_7d"],
        ),
        (
            "visit_to_order_rate_7d",
            Some("metric_time__day"),
            vec![
                "-m",
                "visits.visit_to_order_rate_7d",
                "-d",
                "visits.visited_at:day",
            ],
        ),
        (
            "visit_to_order_rate_7d",
            Some("customer__region"),
            vec![
                "-m",
                "visits.visit_to_order_rate_7d",
                "-d",
                "customers.region",
            ],
        ),
        (
            "visit_orders",
            Some("metric_time__month"),
            vec!["-m", "visits.visit_orders", "-d", "visits.visited_at:month"],
        ),
        (
            "visit_orders",
            Some("visit__channel"),
            vec!["-m", "visits.visit_orders", "-d", "visits.channel"],
        ),
        (
            "same_channel_rate",
            Some("metric_time__day"),
            vec![
                "-m",
                "visits.same_channel_rate",
                "-d",
                "visits.visited_at:day",
            ],
        ),
        (
            "same_channel_rate",
            Some("metric_time__month"),
            vec![
                "-m",
                "visits.same_channel_rate",
                "-d",
                "visits.visited_at:month",
            ],
        ),
        (
            "same_channel_rate",
            Some("visit__channel,customer__region"),
            vec![
                "-m",
                "visits.same_channel_rate",
                "-d",
                "visits.channel",
                "-d",
                "customers.region",
            ],
        ),
        (
            "non_ad_visit_to_order_rate",
            None,
            vec!["-m", "visits.non_ad_visit_to_order_rate"],
        ),
        (
            "non_ad_visit_to_order_rate",
            Some("metric_time__day"),
            vec![
                "-m",
                "visits.non_ad_visit_to_order_rate",
                "-d",
                "visits.visited_at:day",
            ],
        ),
        (
            "non_ad_visit_to_order_rate",
            Some("visit__channel"),
            vec![
                "-m",
                "visits.non_ad_visit_to_order_rate",
                "-d",
                "visits.channel",
            ],
        ),
        (
            "revenue_mtd,revenue",
            Some("metric_time__week,customer__region"),
            vec![
                "-m",
                "orders.revenue_mtd",
                "-m",
                "orders.revenue",
                "-d",
                "orders.ordered_at:week",
                "-d",
                "customers.region",
            ],
        ),
    ] {
        assert_eq!(
            lore_rows(&root, &lore),
            metricflow(bin, &dbt, metric, group_by),
            "{metric} by {group_by:?}"
        );
    }
}
