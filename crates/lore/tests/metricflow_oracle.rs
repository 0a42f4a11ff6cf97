//! The MetricFlow import checked against MetricFlow itself: the fixture
//! project (`fixtures/metricflow`) is built with dbt-duckdb on the same
//! rows Lore's SQLite warehouse holds, each metric is asked of `mf query`
//! and of `lore sl query` on the imported model, and the answers must be
//! equal. Needs a Python environment with `dbt-duckdb` and
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
const ORDERS: &str = "order_id,customer_id,ordered_at,status,amount\n1,1,2024-01-05,paid,120.0\n2,1,2024-01-20,paid,35.5\n3,2,2024-01-21,refunded,80.0\n4,2,2024-02-03,paid,150.0\n5,3,2024-02-10,paid,20.0\n6,3,2024-02-11,open,99.0\n7,4,2024-02-25,paid,310.0\n8,4,2024-03-02,paid,45.0\n9,1,2024-03-09,open,100.0\n10,3,2024-03-30,paid,60.0\n";

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

#[test]
fn imported_metrics_answer_what_metricflow_answers() {
    let Some(bin) = std::env::var_os("LORE_TEST_METRICFLOW") else {
        assert!(
            std::env::var("LORE_REQUIRE_METRICFLOW").as_deref() != Ok("1"),
            "LORE_REQUIRE_METRICFLOW=1 but LORE_TEST_METRICFLOW is not set"
        );
        eprintln!(
            "skipped: set LORE_TEST_METRICFLOW to a bin folder with dbt (dbt-duckdb) and mf (dbt-metricflow)"
        );
        return;
    };
    let bin = Path::new(&bin);
    let work = tempfile::tempdir().unwrap();
    let dbt = work.path().join("dbt");
    dbt_project(bin, &dbt);

    // The same rows in Lore's SQLite warehouse.
    let (_dir, root) = empty_project();
    let conn = rusqlite::Connection::open(root.join("shop.db")).unwrap();
    conn.execute_batch(
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, region TEXT, signed_up_at TEXT);
         CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, ordered_at TEXT, status TEXT, amount REAL);",
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
            "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![f[0], f[1], f[2], f[3], f[4].parse::<f64>().unwrap()],
        )
        .unwrap();
    }
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replacen(
            "connections: {}",
            "connections:\n  shop:\n    driver: sqlite\n    path: shop.db",
            1,
        ),
    )
    .unwrap();
    assert!(lore_in(&root, &["scan", "-c", "shop"]).status.success());
    // The compiled project (target/manifest.json) is what is imported.
    let imported = lore_in(
        &root,
        &[
            "sl",
            "import",
            "--from",
            "metricflow",
            dbt.to_str().unwrap(),
            "-c",
            "shop",
        ],
    );
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );

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
    ] {
        let mut ours = lore_rows(&root, &lore);
        // A known difference, reported by the import as approximated: a
        // filtered metric lists a dimension value none of whose rows
        // passes the filter with null, where MetricFlow leaves it out.
        ours.retain(|row| row.last().is_some_and(|v| v != "null"));
        assert_eq!(
            ours,
            metricflow(bin, &dbt, metric, group_by),
            "{metric} by {group_by:?}"
        );
    }
}
