//! ClickHouse scratch databases, written to over the HTTP interface with
//! the full rights of the test user (not through Lore, whose every query
//! is sent with `readonly=1`).

use super::ScratchDb;
use lore_core::config::Driver;

/// `(base, user, password, database)` of an `http://user:pass@host:port/db` url.
fn parts(url: &str) -> (String, String, String, Option<String>) {
    let (scheme, rest) = url.split_once("://").expect("scheme");
    let rest = rest.split('?').next().unwrap_or(rest);
    let (authority, database) = match rest.split_once('/') {
        Some((a, d)) if !d.is_empty() => (a, Some(d.to_string())),
        Some((a, _)) => (a, None),
        None => (rest, None),
    };
    let (userinfo, host) = authority
        .rsplit_once('@')
        .unwrap_or(("default:", authority));
    let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    (
        format!("{scheme}://{host}/"),
        user.to_string(),
        password.to_string(),
        database,
    )
}

/// Runs one statement with full rights in the url's database; the answer
/// as text, or the server's error.
pub fn exec(url: &str, sql: &str) -> Result<String, String> {
    use base64::Engine;
    let (base, user, password, database) = parts(url);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut target = base;
    if let Some(db) = database {
        target.push_str(&format!("?database={db}"));
    }
    let auth = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    let response = agent
        .post(&target)
        .header("Authorization", format!("Basic {auth}"))
        .send(sql.as_bytes())
        .map_err(|e| e.to_string())?;
    let ok = response.status().as_u16() == 200;
    let text = response
        .into_body()
        .read_to_string()
        .map_err(|e| e.to_string())?;
    if ok { Ok(text) } else { Err(text) }
}

/// A scratch ClickHouse database (plus a second one), or `None` (with a
/// notice) when `LORE_TEST_CLICKHOUSE_URL` is unset.
pub async fn scratch(test: &str) -> Option<ScratchDb> {
    let admin_url = super::server_url("LORE_TEST_CLICKHOUSE_URL", test)?;
    let name = super::unique_name();
    let second = format!("{name}_b");
    for db in [&name, &second] {
        exec(&admin_url, &format!("CREATE DATABASE {db}"))
            .unwrap_or_else(|e| panic!("create scratch database: {e}"));
    }
    Some(ScratchDb {
        driver: Driver::Clickhouse,
        url: super::with_database(&admin_url, &name),
        name,
        second: Some(second),
        admin_url,
    })
}

/// Drops the scratch databases.
pub fn drop_databases(admin_url: &str, names: &[String]) {
    for name in names {
        let _ = exec(admin_url, &format!("DROP DATABASE IF EXISTS {name}"));
    }
}

/// The shared scan fixture in ClickHouse's terms: MergeTree tables sorted
/// by their keys, `Nullable` where the fixture has NULLs, column comments
/// (ClickHouse 18.x has no table comments), the same rows, and views
/// written with one join each. ClickHouse declares no foreign keys, so
/// every relationship of the fixture is for inference to find.
pub fn fixture(sales: &str, billing: &str) -> Vec<String> {
    let mut statements = vec![
        format!(
            "CREATE TABLE {sales}.customers (id Int32, name String, \
             segment String COMMENT 'SMB | Enterprise', email Nullable(String)) \
             ENGINE = MergeTree ORDER BY id"
        ),
        format!(
            "CREATE TABLE {sales}.promos (id Int32, code String) ENGINE = MergeTree ORDER BY id"
        ),
        format!(
            "CREATE TABLE {sales}.orders (id Int32, customer_id Int32, promo_id Nullable(Int32), \
             status String, amount_cents Int32 COMMENT 'in cents', created_at DateTime) \
             ENGINE = MergeTree ORDER BY id"
        ),
        format!(
            "CREATE TABLE {sales}.order_lines (order_id Int32, line_no Int32, sku String) \
             ENGINE = MergeTree ORDER BY (order_id, line_no)"
        ),
        format!(
            "CREATE TABLE {sales}.shipments (order_id Int32, line_no Int32, shipped_at Nullable(DateTime)) \
             ENGINE = MergeTree ORDER BY (order_id, line_no)"
        ),
        format!(
            "CREATE VIEW {sales}.big_customers AS SELECT id, name, orders FROM {sales}.customers \
             ANY INNER JOIN (SELECT customer_id AS id, count() AS orders FROM {sales}.orders GROUP BY customer_id) USING id"
        ),
        format!(
            "INSERT INTO {sales}.customers VALUES (1, 'Acme Corp', 'Enterprise', 'ops@acme.test'), \
             (2, 'Globex', 'SMB', 'hi@globex.test'), (3, 'Initech', 'SMB', NULL), \
             (4, 'Umbrella', 'Enterprise', 'x@umbrella.test'), (5, 'Hooli', 'SMB', NULL)"
        ),
        format!("INSERT INTO {sales}.promos VALUES (1, 'SPRING'), (2, 'SUMMER'), (3, 'FALL')"),
    ];
    let mut orders = Vec::new();
    for i in 1..=20 {
        let customer = (i % 5) + 1;
        let promo = if i % 2 == 0 {
            format!("{}", 900 + i % 6)
        } else {
            "NULL".into()
        };
        let status = ["paid", "paid", "refunded", "Paid"][i % 4];
        orders.push(format!(
            "({i}, {customer}, {promo}, '{status}', {}, '2024-0{}-1{} 10:00:00')",
            i * 1000,
            1 + i % 9,
            i % 10
        ));
    }
    statements.push(format!(
        "INSERT INTO {sales}.orders VALUES {}",
        orders.join(", ")
    ));
    statements.push(format!(
        "INSERT INTO {sales}.order_lines VALUES (1, 1, 'A-1'), (1, 2, 'B-2'), (2, 1, 'A-1')"
    ));
    statements.push(format!(
        "INSERT INTO {sales}.shipments VALUES (1, 1, '2024-02-01 09:00:00'), (2, 1, NULL)"
    ));
    statements.push(format!(
        "CREATE TABLE {billing}.invoices (id Int32, customer_id Int32) ENGINE = MergeTree ORDER BY id"
    ));
    statements.push(format!(
        "INSERT INTO {billing}.invoices VALUES (1, 1), (2, 2)"
    ));
    statements.push(format!(
        "CREATE VIEW {billing}.big_customers AS SELECT id FROM {sales}.customers"
    ));
    statements
}
