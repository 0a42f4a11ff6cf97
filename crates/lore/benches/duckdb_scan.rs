//! `lore scan` of a DuckDB file, and the catalog tools after it.
//!
//! Run with `cargo bench -p lore --features duckdb --bench duckdb_scan`.
//! It writes a DuckDB file of N tables × 20 columns (the ClickHouse
//! bench's column kinds in DuckDB types: an `INTEGER PRIMARY KEY`, two
//! `…_id` columns naming other tables, short text, numbers, a boolean,
//! timestamps, free text, emails) with `LORE_BENCH_ROWS` rows each, runs
//! `lore scan` as a separate process (wall time, peak RSS), then serves
//! the project with `lore mcp stdio` and times `entity_details` and
//! `discover_data` through the protocol.
//!
//! Environment: `LORE_BENCH_TABLES` (default 1000), `LORE_BENCH_ROWS`
//! (default 50), `LORE_BENCH_CALLS` (default 1000).

mod support;

use std::time::Instant;

use lore_warehouse::duckdb_engine::Connection;
use support::{env_count, machine, time_catalog_tools, timed_scan, write_config};

/// Table `t`'s DDL and the statement filling it.
fn table_sql(t: usize, tables: usize, rows: usize) -> String {
    let next = (t + 1) % tables;
    let other = (t + 7) % tables;
    format!(
        "CREATE TABLE t{t:05} (id INTEGER PRIMARY KEY, t{next:05}_id INTEGER, t{other:05}_id INTEGER, \
         status VARCHAR NOT NULL, category VARCHAR, name VARCHAR, code VARCHAR, region VARCHAR, \
         channel VARCHAR, amount BIGINT, price DOUBLE, qty INTEGER, score DOUBLE, is_active BOOLEAN, \
         created_at TIMESTAMP, updated_at TIMESTAMP, note VARCHAR, email VARCHAR, owner VARCHAR, \
         priority INTEGER);\n\
         COMMENT ON COLUMN t{t:05}.status IS 'open | closed | pending | void | paid';\n\
         INSERT INTO t{t:05} SELECT r, r % {rows} + 1, (r * 3) % {rows} + 1, \
         ['open', 'closed', 'pending', 'void', 'paid'][r % 5 + 1], 'cat-' || (r % 10), \
         'Item {t}-' || r, printf('C{t:05}%03d', r), ['NA', 'EMEA', 'APAC', 'LATAM'][r % 4 + 1], \
         ['web', 'partner', 'sales'][r % 3 + 1], r * 100, r + 0.5, r % 9, r % 5 + 0.25, r % 2 = 0, \
         TIMESTAMP '2025-01-01 10:00:00' + INTERVAL (r % 300) DAY, \
         TIMESTAMP '2025-01-01 12:30:00' + INTERVAL (r % 300) DAY, \
         repeat('free text note about this row, long enough to be prose rather than a label; ', 2), \
         'user' || r || '@example.com', 'owner-' || (r % 20), r % 4 \
         FROM range(1, {rows} + 1) AS s(r);"
    )
}

/// Writes the fixture file at `path` and prints DuckDB's version. Runs in
/// a child process of the bench: Linux counts the RSS a process had when
/// it spawned a child into that child's peak (`ru_maxrss` survives
/// `exec`), so DuckDB's memory from writing the file must never be the
/// bench's own, or it would be reported as the scan's.
fn write_fixture(path: &str, tables: usize, rows: usize) {
    let conn = Connection::open(path).expect("a new DuckDB file");
    let mut batch = String::from("BEGIN;\n");
    for t in 0..tables {
        batch.push_str(&table_sql(t, tables, rows));
        batch.push('\n');
    }
    batch.push_str("COMMIT;");
    conn.execute_batch(&batch).expect("the fixture is written");
    let version: String = conn
        .query_row("SELECT library_version FROM pragma_version()", [], |r| {
            r.get(0)
        })
        .unwrap_or_default();
    print!("{version}");
}

#[tokio::main]
async fn main() {
    let tables = env_count("LORE_BENCH_TABLES", 1000);
    let rows = env_count("LORE_BENCH_ROWS", 50);
    let calls = env_count("LORE_BENCH_CALLS", 1000);
    if let Ok(path) = std::env::var("LORE_BENCH_DUCKDB_WRITE") {
        return write_fixture(&path, tables, rows);
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("duckdb");
    std::fs::create_dir_all(&root).unwrap();
    let started = Instant::now();
    let written = std::process::Command::new(std::env::current_exe().unwrap())
        .env("LORE_BENCH_DUCKDB_WRITE", root.join("wh.duckdb"))
        .output()
        .expect("the bench runs itself to write the fixture");
    assert!(
        written.status.success(),
        "writing the fixture failed: {}",
        String::from_utf8_lossy(&written.stderr)
    );
    let version = String::from_utf8_lossy(&written.stdout).into_owned();
    println!("{}; DuckDB {version} in the process", machine());
    println!(
        "(created {tables} tables × 20 columns, {rows} rows each, in {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    write_config(&root, "    driver: duckdb\n    path: wh.duckdb\n");
    println!();
    println!("| scan | tables × columns | rows per table | wall time | peak RSS |");
    println!("|---|---|---|---|---|");
    let (elapsed, peak) = timed_scan(&root);
    println!(
        "| DuckDB | {tables} × 20 | {rows} | {:.2} s | {peak:.0} MiB |",
        elapsed.as_secs_f64()
    );

    time_catalog_tools(&root, tables, calls).await;
}
