//! `lore sl import --from metricflow` on a dbt MetricFlow project over a
//! real SQLite warehouse: the report names every item once, the import is
//! one transaction that a re-import does not repeat and that never
//! overwrites a hand edit, and `sl query` on the imported model answers
//! what the metric definitions mean — checked against SQL written from
//! those definitions on the same rows.

mod common;

use common::*;
use serde_json::Value;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/metricflow");

fn shop() -> (tempfile::TempDir, std::path::PathBuf, rusqlite::Connection) {
    let (dir, root) = empty_project();
    let db = root.join("shop.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, region TEXT NOT NULL, signed_up_at TEXT NOT NULL);
         CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
                              ordered_at TEXT NOT NULL, status TEXT NOT NULL, amount REAL NOT NULL, channel TEXT NOT NULL);
         INSERT INTO customers VALUES (1,'north','2024-01-02'),(2,'north','2024-01-15'),(3,'south','2024-02-01'),
                                      (4,'south','2024-02-20'),(5,'west','2024-03-01');
         INSERT INTO orders VALUES
           (1,1,'2024-01-05','paid',120.0,'web'),(2,1,'2024-01-20','paid',35.5,'web'),(3,2,'2024-01-21','refunded',80.0,'store'),
           (4,2,'2024-02-03','paid',150.0,'web'),(5,3,'2024-02-10','paid',20.0,'store'),(6,3,'2024-02-11','open',99.0,'web'),
           (7,4,'2024-02-25','paid',310.0,'web'),(8,4,'2024-03-02','paid',45.0,'store'),(9,1,'2024-03-09','open',100.0,'web'),
           (10,3,'2024-03-30','paid',60.0,'web'),(11,2,'2024-02-01','paid',75.0,'store'),(12,5,'2024-03-04','paid',25.0,'web');
         CREATE TABLE visits (visit_id INTEGER PRIMARY KEY, customer_id INTEGER, visited_at TEXT NOT NULL, channel TEXT NOT NULL);
         INSERT INTO visits VALUES (1,1,'2024-01-02','web'),(2,1,'2024-01-04','ads'),(3,1,'2024-01-10','web'),
           (4,2,'2024-01-21','web'),(5,2,'2024-01-30','store'),(6,3,'2024-02-12','web'),(7,4,'2024-02-20','web'),
           (8,4,'2024-02-28','store'),(9,5,'2024-03-10','web'),(10,1,'2024-03-09','web'),(11,3,'2024-03-25','ads'),
           (12,NULL,'2024-03-01','web');
         CREATE TABLE balances (balance_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, snapshot_at TEXT NOT NULL,
                                kind TEXT NOT NULL, amount REAL NOT NULL);
         INSERT INTO balances VALUES (1,1,'2024-01-31','savings',100.0),(2,2,'2024-01-31','checking',50.0),
           (3,1,'2024-02-15','savings',120.0),(4,3,'2024-02-29','checking',30.0),(5,1,'2024-02-29','checking',10.0),
           (6,2,'2024-03-10','savings',70.0),(7,3,'2024-03-31','savings',40.0),(8,2,'2024-01-15','savings',5.0);",
    )
    .unwrap();
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        common::with_connections(&text, "  shop:\n    driver: sqlite\n    path: shop.db"),
    )
    .unwrap();
    let scan = lore_in(&root, &["scan", "-c", "shop"]);
    assert!(
        scan.status.success(),
        "{}",
        String::from_utf8_lossy(&scan.stderr)
    );
    (dir, root, conn)
}

fn import(root: &std::path::Path, extra: &[&str]) -> Value {
    import_from(root, "metricflow", FIXTURE, extra)
}

/// `lore sl import --from FORMAT PATH -c shop --json EXTRA…`, which must
/// succeed: its report.
fn import_from(root: &std::path::Path, format: &str, path: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "sl", "import", "--from", format, path, "-c", "shop", "--json",
    ];
    args.extend_from_slice(extra);
    let out = lore_in(root, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The report's line for `name` (of any kind).
fn item<'a>(report: &'a Value, kind: &str, name: &str) -> &'a Value {
    report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| (kind.is_empty() || i["kind"] == kind) && i["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in {report:#}"))
}

/// How the report says `kind` `name` came across.
fn outcome_of(report: &Value, kind: &str, name: &str) -> String {
    report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == kind && i["name"] == name)
        .map(|i| i["outcome"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("{kind} {name} not in the report: {report}"))
}

/// `sl query` rows as (dimension values…, measure) text, sorted.
fn query(root: &std::path::Path, args: &[&str]) -> Vec<Vec<String>> {
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
        .map(|r| r.as_array().unwrap().iter().map(cell).collect())
        .collect();
    rows.sort();
    rows
}

fn cell(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("{:.4}", n.as_f64().unwrap()),
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// The same, from SQL on the warehouse.
fn oracle(conn: &rusqlite::Connection, sql: &str) -> Vec<Vec<String>> {
    let mut statement = conn.prepare(sql).unwrap();
    let n = statement.column_count();
    let mut rows: Vec<Vec<String>> = statement
        .query_map([], |row| {
            Ok((0..n)
                .map(|i| match row.get_ref(i).unwrap() {
                    rusqlite::types::ValueRef::Integer(x) => format!("{:.4}", x as f64),
                    rusqlite::types::ValueRef::Real(x) => format!("{x:.4}"),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).to_string(),
                    rusqlite::types::ValueRef::Null => "null".into(),
                    rusqlite::types::ValueRef::Blob(_) => "blob".into(),
                })
                .collect())
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_metricflow_project_imports_with_an_honest_report_and_answers_as_its_metrics_mean() {
    let (_dir, root, conn) = shop();
    let report = import(&root, &[]);
    let outcome = |kind: &str, name: &str| outcome_of(&report, kind, name);
    for metric in [
        "revenue",
        "large_orders",
        "orders",
        "revenue_per_order",
        "large_order_share",
        "customers",
        "orders_per_customer",
        "average_amount",
        "north_revenue",
        "north_paid_revenue",
    ] {
        assert_eq!(outcome("metric", metric), "imported", "{metric}");
    }
    for metric in [
        "revenue_7d",
        "revenue_mtd",
        "orders_to_date",
        "paid_orders_1m",
        "revenue_since_february",
        "february_revenue",
        "revenue_of_january_signups",
        "revenue_mtd_since_feb_5",
    ] {
        assert_eq!(outcome("metric", metric), "imported", "{metric}");
    }
    for metric in [
        "revenue_growth",
        "orders_week_before",
        "orders_at_month_start",
    ] {
        assert_eq!(outcome("metric", metric), "imported", "{metric}");
    }
    for metric in [
        "balance",
        "opening_balance",
        "savings_balance",
        "visit_to_order_rate_7d",
        "visit_orders",
        "same_channel_rate",
        "non_ad_visit_to_order_rate",
    ] {
        assert_eq!(outcome("metric", metric), "imported", "{metric}");
    }
    // An offset ratio is left out, with the reason.
    let ratio = item(&report, "metric", "revenue_per_order_growth");
    assert_eq!(ratio["outcome"], "skipped");
    assert!(
        ratio["detail"].as_str().unwrap().contains("ratio metric"),
        "{ratio}"
    );
    // A cumulative metric filtered on metric_time chooses MetricFlow's
    // days, which a measure's filter cannot say: skipped, with the reason.
    let shown = item(&report, "metric", "revenue_mtd_shown_from_feb_5");
    assert_eq!(shown["outcome"], "skipped");
    assert!(
        shown["detail"]
            .as_str()
            .unwrap()
            .contains("chooses the days"),
        "{shown}"
    );
    assert_eq!(outcome("semantic_model", "orders"), "approximated");
    assert_eq!(outcome("dimension", "orders.is_large"), "imported");
    assert!(report["tx_id"].as_i64().is_some(), "{report}");
    assert_eq!(report["conflicts"], serde_json::json!([]));
    // The scan has every table and column the model reads.
    assert!(
        !report["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["kind"] == "check"),
        "{report}"
    );

    for (args, sql) in [
        (
            vec!["-m", "orders.revenue"],
            "SELECT SUM(amount) FROM orders WHERE status = 'paid'",
        ),
        (
            vec!["-m", "orders.revenue", "-d", "customers.region"],
            "SELECT c.region, SUM(o.amount) FROM orders o JOIN customers c USING (customer_id) WHERE o.status = 'paid' GROUP BY 1",
        ),
        (
            vec![
                "-m",
                "orders.revenue_per_order",
                "-d",
                "orders.ordered_at:month",
            ],
            "SELECT strftime('%Y-%m-01', ordered_at), SUM(CASE WHEN status = 'paid' THEN amount END) * 1.0 / COUNT(*) FROM orders GROUP BY 1",
        ),
        (
            vec!["-m", "orders.large_order_share"],
            "SELECT SUM(CASE WHEN amount >= 100 THEN 1 ELSE 0 END) * 1.0 / COUNT(*) FROM orders",
        ),
        (
            vec!["-m", "orders.orders_per_customer"],
            "SELECT (SELECT COUNT(*) FROM orders) * 1.0 / (SELECT COUNT(DISTINCT customer_id) FROM customers)",
        ),
        (
            vec!["-m", "orders.buyers", "-d", "customers.region"],
            "SELECT c.region, COUNT(DISTINCT o.customer_id) FROM orders o JOIN customers c USING (customer_id) GROUP BY 1",
        ),
        (
            vec!["-m", "orders.average_amount", "-d", "orders.status"],
            "SELECT status, AVG(amount) FROM orders GROUP BY 1",
        ),
        // Filters on the customer's region (another semantic model).
        (
            vec![
                "-m",
                "orders.north_revenue",
                "-m",
                "orders.north_paid_revenue",
                "-d",
                "orders.status",
            ],
            "SELECT o.status, SUM(o.amount), SUM(CASE WHEN o.status = 'paid' THEN o.amount END) FROM orders o \
             JOIN customers c USING (customer_id) WHERE c.region = 'north' GROUP BY 1",
        ),
        (
            vec![
                "-m",
                "customers.customers",
                "-m",
                "orders.orders",
                "-d",
                "customers.region",
            ],
            "SELECT c.region, COUNT(DISTINCT c.customer_id), (SELECT SUM(1) FROM orders o JOIN customers c2 USING (customer_id) WHERE c2.region = c.region) FROM customers c GROUP BY 1",
        ),
        // TimeDimension filters: the order's month, the customer's.
        (
            vec![
                "-m",
                "orders.revenue_since_february",
                "-m",
                "orders.revenue_of_january_signups",
                "-d",
                "orders.status",
            ],
            "SELECT o.status, SUM(CASE WHEN o.ordered_at >= '2024-02-01' THEN o.amount END), \
                    SUM(CASE WHEN c.signed_up_at LIKE '2024-01-%' THEN o.amount END) \
             FROM orders o JOIN customers c USING (customer_id) GROUP BY 1",
        ),
        // Revenue against the month before (no order is on a month's last
        // days, so a month back is the same day of the month before).
        (
            vec![
                "-m",
                "orders.revenue_growth",
                "-d",
                "orders.ordered_at:month",
            ],
            "WITH r AS (SELECT strftime('%Y-%m-01', ordered_at) m, SUM(amount) v FROM orders WHERE status = 'paid' GROUP BY 1), \
                  p AS (SELECT strftime('%Y-%m-01', date(ordered_at, '+1 month')) m, SUM(amount) v FROM orders WHERE status = 'paid' GROUP BY 1), \
                  k AS (SELECT m FROM r UNION SELECT m FROM p) \
             SELECT k.m, r.v - p.v FROM k LEFT JOIN r USING (m) LEFT JOIN p USING (m)",
        ),
        // Balances: each month's last snapshot day, each customer's first.
        (
            vec![
                "-m",
                "balances.balance",
                "-m",
                "balances.opening_balance",
                "-d",
                "balances.snapshot_at:month",
            ],
            "SELECT strftime('%Y-%m-01', b.snapshot_at), \
                    (SELECT SUM(amount) FROM balances l WHERE l.snapshot_at = MAX(b.snapshot_at)), \
                    (SELECT SUM(f.amount) FROM balances f WHERE strftime('%Y-%m', f.snapshot_at) = strftime('%Y-%m', b.snapshot_at) \
                       AND f.snapshot_at = (SELECT MIN(g.snapshot_at) FROM balances g WHERE g.customer_id = f.customer_id \
                                            AND strftime('%Y-%m', g.snapshot_at) = strftime('%Y-%m', f.snapshot_at))) \
             FROM balances b GROUP BY 1",
        ),
        // Cumulative metrics by month, each month showing one day's value:
        // month to date on its first day with rows is that day's revenue;
        // the orders so far on its last day (the days end with the last
        // order, as the project has no time spine).
        (
            vec!["-m", "orders.revenue_mtd", "-d", "orders.ordered_at:month"],
            "SELECT strftime('%Y-%m-01', o.ordered_at), SUM(o.amount) FROM orders o \
             WHERE date(o.ordered_at) = (SELECT MIN(date(o2.ordered_at)) FROM orders o2 \
                                         WHERE strftime('%Y-%m', o2.ordered_at) = strftime('%Y-%m', o.ordered_at)) \
             GROUP BY 1",
        ),
        (
            vec![
                "-m",
                "orders.orders_to_date",
                "-d",
                "orders.ordered_at:month",
            ],
            "SELECT m, (SELECT COUNT(*) FROM orders o WHERE date(o.ordered_at) <= e) FROM \
             (SELECT strftime('%Y-%m-01', ordered_at) m, \
                     MIN(date(ordered_at, 'start of month', '+1 month', '-1 day'), (SELECT MAX(date(ordered_at)) FROM orders)) e \
              FROM orders GROUP BY 1)",
        ),
        // Conversions: each order matched to its customer's latest visit
        // on or before its day (within 7 days), counted for that visit.
        (
            vec![
                "-m",
                "visits.visit_to_order_rate_7d",
                "-d",
                "visits.channel",
            ],
            "WITH m AS (SELECT (SELECT v.visit_id FROM visits v WHERE v.customer_id = o.customer_id                                   AND date(v.visited_at) <= date(o.ordered_at) AND date(v.visited_at) > date(o.ordered_at, '-7 days')                                 ORDER BY v.visited_at DESC, v.visit_id DESC LIMIT 1) AS visit_id FROM orders o),                   c AS (SELECT v.channel, COUNT(*) AS n FROM m JOIN visits v USING (visit_id) GROUP BY 1)              SELECT v.channel, c.n * 1.0 / COUNT(*) FROM visits v LEFT JOIN c ON c.channel = v.channel GROUP BY v.channel",
        ),
        (
            vec!["-m", "visits.visit_orders", "-d", "visits.visited_at:month"],
            "WITH m AS (SELECT (SELECT v.visit_id FROM visits v WHERE v.customer_id = o.customer_id                                   AND date(v.visited_at) <= date(o.ordered_at)                                 ORDER BY v.visited_at DESC, v.visit_id DESC LIMIT 1) AS visit_id FROM orders o),                   c AS (SELECT strftime('%Y-%m-01', v.visited_at) AS mo, COUNT(*) AS n FROM m JOIN visits v USING (visit_id) GROUP BY 1)              SELECT mo, n FROM (SELECT DISTINCT strftime('%Y-%m-01', visited_at) AS mo FROM visits) LEFT JOIN c USING (mo)",
        ),
    ] {
        assert_eq!(query(&root, &args), oracle(&conn, sql), "{args:?}");
    }

    // Unchanged input: nothing written again.
    let again = import(&root, &[]);
    assert!(again["tx_id"].is_null(), "{again}");
    // A hand edit is kept and reported, never overwritten.
    let file = root.join("semantic-layer/shop/orders.yaml");
    let edited = std::fs::read_to_string(&file)
        .unwrap()
        .replace("One row per order.", "One row per order (edited).");
    std::fs::write(&file, &edited).unwrap();
    let third = import(&root, &[]);
    assert_eq!(
        third["conflicts"],
        serde_json::json!(["semantic-layer/shop/orders.yaml"])
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), edited);
}

#[test]
fn a_dry_run_writes_nothing_and_bad_input_says_what_to_fix() {
    let (_dir, root, _conn) = shop();
    let report = import(&root, &["--dry-run"]);
    assert_eq!(report["dry_run"], true);
    assert!(report["tx_id"].is_null());
    assert_eq!(
        report["files"].as_array().unwrap().len(),
        4,
        "orders, customers, balances, visits"
    );
    assert!(!root.join("semantic-layer/shop/orders.yaml").exists());
    for (args, code) in [
        (
            vec![
                "sl",
                "import",
                "--from",
                "metricflow",
                "/nowhere",
                "-c",
                "shop",
            ],
            "[invalid_arguments]",
        ),
        (
            vec![
                "sl",
                "import",
                "--from",
                "metricflow",
                FIXTURE,
                "-c",
                "nope",
            ],
            "nope",
        ),
        (
            vec!["sl", "import", "--from", "lookml", FIXTURE, "-c", "shop"],
            "holds no .lkml files",
        ),
    ] {
        let out = lore_in(&root, &args);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(code), "{args:?}: {err}");
    }
    // A project without semantic models.
    let empty = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(empty.path().join("models")).unwrap();
    std::fs::write(empty.path().join("models/x.yml"), "models:\n  - name: x\n").unwrap();
    let out = lore_in(
        &root,
        &[
            "sl",
            "import",
            "--from",
            "metricflow",
            empty.path().to_str().unwrap(),
            "-c",
            "shop",
        ],
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no semantic_models"));
    let broken = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(broken.path().join("models")).unwrap();
    std::fs::write(
        broken.path().join("models/x.yml"),
        "semantic_models: [unclosed\n",
    )
    .unwrap();
    let out = lore_in(
        &root,
        &[
            "sl",
            "import",
            "--from",
            "metricflow",
            broken.path().to_str().unwrap(),
            "-c",
            "shop",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("x.yml: not YAML"), "{err}");
}

const CUBE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cube");

#[test]
fn a_cube_project_imports_and_answers_as_its_measures_mean() {
    let (_dir, root, conn) = shop();
    let report = import_from(&root, "cube", CUBE, &[]);
    let outcome = |kind: &str, name: &str| outcome_of(&report, kind, name);
    assert_eq!(outcome("measure", "orders.revenue"), "imported");
    assert_eq!(outcome("measure", "orders.buyers"), "approximated");
    assert_eq!(outcome("measure", "orders.running_revenue"), "skipped");
    assert_eq!(outcome("view", "shop_overview"), "skipped");
    assert_eq!(outcome("join", "orders → customers"), "imported");
    // The customers cube is a JavaScript model file.
    assert_eq!(outcome("view", "customer_directory"), "skipped");
    for (args, sql) in [
        (
            vec!["-m", "customers.northCount", "-d", "customers.regionName"],
            "SELECT UPPER(region), COUNT(*) FROM customers WHERE region = 'north' GROUP BY 1",
        ),
        (
            vec!["-m", "orders.revenue", "-d", "customers.region"],
            "SELECT c.region, SUM(o.amount) FROM orders o JOIN customers c USING (customer_id) WHERE o.status = 'paid' GROUP BY 1",
        ),
        (
            vec!["-m", "orders.revenue_per_order", "-d", "orders.amount_band"],
            "SELECT CASE WHEN amount >= 100 THEN 'large' ELSE 'small' END, SUM(CASE WHEN status = 'paid' THEN amount END) * 1.0 / COUNT(*) FROM orders GROUP BY 1",
        ),
        (
            vec!["-m", "orders.count", "-s", "orders.open"],
            "SELECT COUNT(*) FROM orders WHERE status = 'open'",
        ),
        (
            vec![
                "-m",
                "orders.buyers",
                "-m",
                "customers.count",
                "-d",
                "customers.region",
            ],
            // West has no orders: Lore answers null there where Cube
            // answers 0, as the report says of count measures.
            "SELECT c.region, (SELECT NULLIF(COUNT(DISTINCT o.customer_id), 0) FROM orders o JOIN customers c2 USING (customer_id) WHERE c2.region = c.region), COUNT(*) FROM customers c GROUP BY 1",
        ),
    ] {
        assert_eq!(query(&root, &args), oracle(&conn, sql), "{args:?}");
    }
}

const LOOKML: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lookml");

#[test]
fn a_lookml_project_imports_and_answers_as_its_measures_mean() {
    let (_dir, root, conn) = shop();
    let report = import_from(&root, "lookml", LOOKML, &[]);
    let outcome = |kind: &str, name: &str| outcome_of(&report, kind, name);
    assert_eq!(outcome("measure", "orders.revenue"), "imported");
    assert_eq!(outcome("measure", "orders.status_list"), "skipped");
    assert_eq!(outcome("dimension_group", "orders.ordered"), "approximated");
    assert_eq!(outcome("join", "orders.customers"), "imported");
    // `extends`: the base is no source of its own; its fields are the
    // extending view's, whose own definitions win.
    assert_eq!(outcome("view", "customer_keys"), "imported");
    assert!(!root.join("semantic-layer/shop/customer_keys.yaml").exists());
    for (args, sql) in [
        (
            vec!["-m", "orders.revenue", "-d", "customers.region"],
            "SELECT UPPER(c.region), SUM(o.amount) FROM orders o JOIN customers c USING (customer_id) WHERE o.status = 'paid' GROUP BY 1",
        ),
        (
            vec!["-m", "customers.count", "-d", "customers.region"],
            "SELECT UPPER(region), COUNT(*) FROM customers GROUP BY 1",
        ),
        (
            vec![
                "-m",
                "orders.revenue_per_order",
                "-d",
                "orders.ordered:month",
            ],
            "SELECT strftime('%Y-%m-01', ordered_at), SUM(CASE WHEN status = 'paid' THEN amount END) * 1.0 / COUNT(*) FROM orders GROUP BY 1",
        ),
        (
            vec!["-m", "orders.large_open_orders"],
            "SELECT COUNT(*) FROM orders WHERE status = 'open' AND amount >= 99",
        ),
    ] {
        assert_eq!(query(&root, &args), oracle(&conn, sql), "{args:?}");
    }

    // A native derived table: the orders explore's query per customer
    // (refunded orders left out), written by Lore's planner, and measures
    // over its rows; a derived_column ranks them.
    assert_eq!(
        outcome("native_derived_table", "customer_facts"),
        "imported"
    );
    let lost = item(&report, "native_derived_table", "lost_facts");
    assert_eq!(lost["outcome"], "skipped");
    assert!(
        lost["detail"]
            .as_str()
            .unwrap()
            .contains("no explore of that name"),
        "{lost}"
    );
    assert!(!root.join("semantic-layer/shop/lost_facts.yaml").exists());
    let facts = "(SELECT customer_id, SUM(CASE WHEN status = 'paid' THEN amount END) AS rev, COUNT(*) AS n \
                 FROM orders WHERE status <> 'refunded' GROUP BY customer_id) f";
    for (args, sql) in [
        (
            vec![
                "-m",
                "customer_facts.average_lifetime_revenue",
                "-d",
                "customer_facts.region",
            ],
            format!(
                "SELECT UPPER(c.region), AVG(f.rev) FROM {facts} JOIN customers c USING (customer_id) GROUP BY 1"
            ),
        ),
        (
            vec![
                "-m",
                "customer_facts.repeat_customers",
                "-m",
                "customer_facts.customers",
            ],
            format!("SELECT SUM(f.n > 1), COUNT(*) FROM {facts}"),
        ),
        (
            vec![
                "-m",
                "customer_facts.customers",
                "-d",
                "customer_facts.revenue_rank",
                "-d",
                "customer_facts.customer_id",
            ],
            format!("SELECT RANK() OVER (ORDER BY f.rev DESC), f.customer_id, 1 FROM {facts}"),
        ),
    ] {
        assert_eq!(query(&root, &args), oracle(&conn, &sql), "{args:?}");
    }
    let broken = tempfile::tempdir().unwrap();
    std::fs::write(
        broken.path().join("x.view.lkml"),
        "view: x {\n  sql_table_name: t\n}\n",
    )
    .unwrap();
    let out = lore_in(
        &root,
        &[
            "sl",
            "import",
            "--from",
            "lookml",
            broken.path().to_str().unwrap(),
            "-c",
            "shop",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("x.view.lkml, line") && err.contains("is not ended by ;;"),
        "{err}"
    );

    // Views extending each other in a circle are skipped, named.
    let circle = tempfile::tempdir().unwrap();
    std::fs::write(
        circle.path().join("v.view.lkml"),
        "view: a {\n  extends: [b]\n}\nview: b {\n  extends: [a]\n}\nview: customers {\n  sql_table_name: customers ;;\n  dimension: customer_id {\n    primary_key: yes\n  }\n  dimension: region {}\n}\n",
    )
    .unwrap();
    let report = import_from(
        &root,
        "lookml",
        circle.path().to_str().unwrap(),
        &["--dry-run"],
    );
    let item = item(&report, "view", "a");
    assert_eq!(item["outcome"], "skipped");
    assert!(
        item["detail"].as_str().unwrap().contains("a -> b -> a"),
        "{item}"
    );
}

#[test]
fn a_lookml_model_file_imports_what_it_includes_and_leaves_out_what_lore_refuses() {
    let (_dir, root, conn) = shop();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    std::fs::create_dir_all(p.join("views")).unwrap();
    std::fs::create_dir_all(p.join("scratch")).unwrap();
    std::fs::write(
        p.join("shop.model.lkml"),
        "connection: \"shop\"\ninclude: \"views/*.view\"\ninclude: \"//marketplace/geo.view\"\nexplore: customers {}\n",
    )
    .unwrap();
    // No sql_table_name: Looker reads the table named as the view.
    std::fs::write(
        p.join("views/customers.view.lkml"),
        "view: customers {\n  dimension: customer_id {\n    primary_key: yes\n    type: number\n  }\n  dimension: region {}\n  dimension: whole_row {\n    sql: ${TABLE} ;;\n  }\n  measure: count {\n    type: count\n  }\n}\n",
    )
    .unwrap();
    // Not included by the model: another definition of the same view.
    std::fs::write(
        p.join("scratch/customers.view.lkml"),
        "view: customers {\n  sql_table_name: old_customers ;;\n}\n",
    )
    .unwrap();
    let model = p.join("shop.model.lkml");
    let report = import_from(&root, "lookml", model.to_str().unwrap(), &[]);
    let outcome = |kind: &str, name: &str| outcome_of(&report, kind, name);
    assert_eq!(outcome("include", "//marketplace/geo.view"), "skipped");
    // `${TABLE}` alone is no column Lore can read: that dimension is left
    // out, named with the loader's reason, and the rest imports.
    let whole_row = item(&report, "", "customers.whole_row");
    assert_eq!(whole_row["outcome"], "skipped", "{report:#}");
    assert!(
        whole_row["detail"]
            .as_str()
            .unwrap()
            .starts_with("Lore's model refuses it"),
        "{whole_row}"
    );
    assert!(
        !report["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["detail"].as_str().unwrap().contains("scratch")),
        "{report:#}"
    );
    assert_eq!(
        query(&root, &["-m", "customers.count", "-d", "customers.region"]),
        oracle(&conn, "SELECT region, COUNT(*) FROM customers GROUP BY 1")
    );

    // The folder holds both definitions: the second is reported, not mixed in.
    let report = import_from(&root, "lookml", p.to_str().unwrap(), &["--dry-run"]);
    assert!(
        report["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["kind"] == "view"
                && i["outcome"] == "skipped"
                && i["detail"].as_str().unwrap().contains("defined again")),
        "{report:#}"
    );
}
