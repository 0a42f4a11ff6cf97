//! `lore scan` of a ClickHouse database, and the catalog tools after it.
//!
//! Run with
//! `LORE_BENCH_CLICKHOUSE_URL=http://USER:PASSWORD@127.0.0.1:8123/default cargo bench -p lore --bench clickhouse_scan`
//! (or with `LORE_TEST_CLICKHOUSE_URL` set, e.g. from
//! `scripts/clickhouse-test-server.sh`): a user that may create databases.
//! In a scratch database it creates N MergeTree tables × 20 columns
//! (the scan bench's column kinds in ClickHouse types: an `Int32` key,
//! two nullable `…_id` columns naming other tables, short text, numbers,
//! a boolean `UInt8`, `DateTime`s, free text, emails) with
//! `LORE_BENCH_ROWS` rows each, runs `lore scan` as a separate process
//! (wall time, peak RSS), then serves the project with `lore mcp stdio`
//! and times `entity_details` and `discover_data` through the protocol.
//! The scratch database is dropped at the end.
//!
//! Environment: `LORE_BENCH_TABLES` (default 1000), `LORE_BENCH_ROWS`
//! (default 50), `LORE_BENCH_CALLS` (default 1000).

mod support;

use std::time::Instant;

use support::{env_count, machine, time_catalog_tools, timed_scan, write_config};

const STATUSES: [&str; 5] = ["open", "closed", "pending", "void", "paid"];
const REGIONS: [&str; 4] = ["NA", "EMEA", "APAC", "LATAM"];
const CHANNELS: [&str; 3] = ["web", "partner", "sales"];

/// Runs one statement with the url's user (full rights) on the server.
fn exec(url: &str, database: Option<&str>, sql: &str) {
    let (scheme, rest) = url.split_once("://").expect("an http:// url");
    let authority = rest.split('/').next().unwrap_or(rest);
    let (userinfo, host) = authority
        .rsplit_once('@')
        .unwrap_or(("default:", authority));
    let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut request = agent
        .post(format!("{scheme}://{host}/"))
        .query("user", user)
        .query("password", password);
    if let Some(db) = database {
        request = request.query("database", db);
    }
    let response = request.send(sql.as_bytes()).expect("ClickHouse answers");
    let status = response.status().as_u16();
    let text = response.into_body().read_to_string().unwrap_or_default();
    assert_eq!(status, 200, "{}: {text}", &sql[..sql.len().min(200)]);
}

/// Table `t`'s DDL and its rows.
fn table_sql(t: usize, tables: usize, rows: usize) -> (String, String) {
    let next = (t + 1) % tables;
    let other = (t + 7) % tables;
    let ddl = format!(
        "CREATE TABLE t{t:05} (id Int32, t{next:05}_id Nullable(Int32), t{other:05}_id Nullable(Int32), \
         status String COMMENT 'open | closed | pending | void | paid', category Nullable(String), name Nullable(String), \
         code Nullable(String), region Nullable(String), channel Nullable(String), amount Nullable(Int64), \
         price Nullable(Float64), qty Nullable(Int32), score Nullable(Float64), is_active UInt8, \
         created_at Nullable(DateTime), updated_at Nullable(DateTime), note Nullable(String), \
         email Nullable(String), owner Nullable(String), priority Nullable(Int32)) \
         ENGINE = MergeTree ORDER BY id"
    );
    let values: Vec<String> = (1..=rows)
        .map(|r| {
            format!(
                "({r}, {}, {}, '{}', 'cat-{}', 'Item {t}-{r}', 'C{t:05}{r:03}', '{}', '{}', {}, {}.5, {}, {}.25, {}, \
                 '2025-{:02}-{:02} 10:00:00', '2025-{:02}-{:02} 12:30:00', '{}', 'user{r}@example.com', 'owner-{}', {})",
                r % rows + 1,
                (r * 3) % rows + 1,
                STATUSES[r % 5],
                r % 10,
                REGIONS[r % 4],
                CHANNELS[r % 3],
                r * 100,
                r,
                r % 9,
                r % 5,
                r % 2,
                1 + r % 12,
                1 + r % 28,
                1 + r % 12,
                1 + r % 28,
                "free text note about this row, long enough to be prose rather than a label; ".repeat(2),
                r % 20,
                r % 4
            )
        })
        .collect();
    (
        ddl,
        format!("INSERT INTO t{t:05} VALUES {}", values.join(", ")),
    )
}

#[tokio::main]
async fn main() {
    let Some(admin_url) = std::env::var("LORE_BENCH_CLICKHOUSE_URL")
        .or_else(|_| std::env::var("LORE_TEST_CLICKHOUSE_URL"))
        .ok()
    else {
        println!(
            "set LORE_BENCH_CLICKHOUSE_URL (or LORE_TEST_CLICKHOUSE_URL) to a ClickHouse server, e.g. from scripts/clickhouse-test-server.sh"
        );
        return;
    };
    let tables = env_count("LORE_BENCH_TABLES", 1000);
    let rows = env_count("LORE_BENCH_ROWS", 50);
    let calls = env_count("LORE_BENCH_CALLS", 1000);
    let name = format!("lore_bench_{}", std::process::id());
    exec(&admin_url, None, &format!("DROP DATABASE IF EXISTS {name}"));
    exec(&admin_url, None, &format!("CREATE DATABASE {name}"));
    let started = Instant::now();
    for t in 0..tables {
        let (ddl, insert) = table_sql(t, tables, rows);
        exec(&admin_url, Some(&name), &ddl);
        exec(&admin_url, Some(&name), &insert);
    }
    let version = {
        let (scheme, rest) = admin_url.split_once("://").unwrap();
        let authority = rest.split('/').next().unwrap();
        let (userinfo, host) = authority
            .rsplit_once('@')
            .unwrap_or(("default:", authority));
        let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
        let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
        agent
            .post(format!("{scheme}://{host}/"))
            .query("user", user)
            .query("password", password)
            .send("SELECT version()")
            .ok()
            .and_then(|r| r.into_body().read_to_string().ok())
            .unwrap_or_default()
    };
    println!(
        "{}; ClickHouse {} on the same machine",
        machine(),
        version.trim()
    );
    println!(
        "(created {tables} tables × 20 columns, {rows} rows each, in {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("clickhouse");
    let (scheme, rest) = admin_url.split_once("://").unwrap();
    let authority = rest.split('/').next().unwrap();
    write_config(
        &root,
        &format!("    driver: clickhouse\n    url: \"{scheme}://{authority}/{name}\"\n"),
    );
    println!();
    println!("| scan | tables × columns | rows per table | wall time | peak RSS |");
    println!("|---|---|---|---|---|");
    let (elapsed, peak) = timed_scan(&root);
    println!(
        "| ClickHouse | {tables} × 20 | {rows} | {:.2} s | {peak:.0} MiB |",
        elapsed.as_secs_f64()
    );

    time_catalog_tools(&root, tables, calls).await;
    exec(&admin_url, None, &format!("DROP DATABASE {name}"));
}
