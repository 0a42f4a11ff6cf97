//! What the benchmarks share: sample statistics, formatting, the machine
//! description, spawning `lore mcp stdio` and calling a tool.

#![allow(dead_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;

/// A count from the environment, or `default`.
pub fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `lore --project-dir ROOT mcp stdio` as an rmcp transport.
pub fn spawn_stdio(root: &Path) -> TokioChildProcess {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_lore"));
    command
        .arg("--project-dir")
        .arg(root)
        .args(["mcp", "stdio"]);
    TokioChildProcess::new(command).expect("spawn lore mcp stdio")
}

/// Calls a tool and fails the benchmark on any error.
pub async fn call_tool(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    name: &'static str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let result = client
        .call_tool(
            CallToolRequestParams::new(name).with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .expect("call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result.structured_content.unwrap_or_default()
}

/// Order statistics of a set of timings.
pub struct Stats {
    pub min: Duration,
    pub median: Duration,
    pub p95: Duration,
    pub p99: Duration,
}

/// The statistics of `samples` (at least one).
pub fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    Stats {
        min: samples[0],
        median: at(0.5),
        p95: at(0.95),
        p99: at(0.99),
    }
}

/// Milliseconds with three decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// One Markdown row: name, samples, min, median, p95, p99.
pub fn row(name: &str, samples: Vec<Duration>) -> String {
    let n = samples.len();
    let s = stats(samples);
    format!(
        "| {name} | {n} | {} | {} | {} | {} |",
        ms(s.min),
        ms(s.median),
        ms(s.p95),
        ms(s.p99)
    )
}

/// `Machine: <cpu>, <n> cores; lore <version>`.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    format!(
        "Machine: {cpu}, {cores} cores; lore {}",
        env!("CARGO_PKG_VERSION")
    )
}

/// Resident memory of a process now, in MiB (Linux).
pub fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

const STATUSES: [&str; 5] = ["open", "closed", "pending", "void", "paid"];
const REGIONS: [&str; 4] = ["NA", "EMEA", "APAC", "LATAM"];
const CHANNELS: [&str; 3] = ["web", "partner", "sales"];

/// Table `t`'s DDL and rows, for SQLite (`postgres = false`) or PostgreSQL.
pub fn table_sql(t: usize, tables: usize, rows: usize, postgres: bool) -> String {
    let ts = if postgres { "TIMESTAMP" } else { "TEXT" };
    let next = (t + 1) % tables;
    let other = (t + 7) % tables;
    let mut sql = format!(
        "CREATE TABLE t{t:05} (\n  id INTEGER PRIMARY KEY,\n  t{next:05}_id INTEGER,\n  t{other:05}_id INTEGER,\n  \
         status TEXT NOT NULL, -- open | closed | pending | void | paid\n  category TEXT,\n  name TEXT,\n  code TEXT,\n  \
         region TEXT,\n  channel TEXT,\n  amount INTEGER,\n  price REAL,\n  qty INTEGER,\n  score REAL,\n  \
         is_active BOOLEAN,\n  created_at {ts},\n  updated_at {ts},\n  note TEXT,\n  email TEXT,\n  owner TEXT,\n  priority INTEGER\n);\n"
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
                if r % 2 == 0 { "TRUE" } else { "FALSE" },
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
    sql.push_str(&format!(
        "INSERT INTO t{t:05} VALUES {};\n",
        values.join(", ")
    ));
    sql
}

/// A SQLite warehouse of `tables` tables × 20 columns with `rows` rows each.
pub fn generate_sqlite(path: &Path, tables: usize, rows: usize) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;")
        .unwrap();
    for t in 0..tables {
        conn.execute_batch(&table_sql(t, tables, rows, false))
            .unwrap();
    }
    conn.execute_batch("COMMIT;").unwrap();
}

/// Runs `lore scan` on the project: wall time and peak RSS in MiB.
///
/// The peak is the child's `ru_maxrss`, which Linux starts at the RSS the
/// bench itself had when it spawned the child (it survives `exec`): a
/// bench must not hold much memory of its own when it calls this (the
/// DuckDB bench writes its file in a child process for that reason).
pub fn timed_scan(root: &Path) -> (Duration, f64) {
    let started = Instant::now();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("--project-dir")
        .arg(root)
        .args(["scan", "w"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child and fills `usage`; `child` is not
    // waited for again.
    let waited = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert!(
        waited > 0 && status == 0,
        "lore scan failed (status {status})"
    );
    std::mem::forget(child);
    (started.elapsed(), usage.ru_maxrss as f64 / 1024.0)
}

/// `lore.yaml` with one connection `w`, whose YAML body is `connection`.
pub fn write_config(root: &Path, connection: &str) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        format!("connections:\n  w:\n{connection}"),
    )
    .unwrap();
}

/// Serves the project at `root` with `lore mcp stdio` and times the
/// catalog tools after a scan of `tables` tables named `t00000`…: the first
/// `entity_details` (which loads the snapshot), then `calls` rounds of
/// `entity_details` on one table and `discover_data` on prose, values and
/// table names; prints the figures as Markdown.
pub async fn time_catalog_tools(root: &Path, tables: usize, calls: usize) {
    use rmcp::ServiceExt;
    use serde_json::json;
    let transport = spawn_stdio(root);
    let pid = transport.id().expect("server pid");
    let client = ().serve(transport).await.expect("initialize");
    let started = Instant::now();
    call_tool(
        &client,
        "entity_details",
        json!({"connectionId": "w", "entities": ["t00000"]}),
    )
    .await;
    let first_call = started.elapsed();
    let queries = [
        "status".to_string(),
        "customer email".to_string(),
        "created at timestamp".to_string(),
        "Item 42-7".to_string(),
        "zanzibar".to_string(),
    ];
    let mut entity = Vec::with_capacity(calls);
    let mut discover = Vec::with_capacity(calls);
    for i in 0..calls {
        let t = (i * 7919) % tables;
        let started = Instant::now();
        let out = call_tool(
            &client,
            "entity_details",
            json!({"connectionId": "w", "entities": [format!("t{t:05}")]}),
        )
        .await;
        entity.push(started.elapsed());
        assert_eq!(out["entities"][0]["status"], "ok", "{out}");
        let query = if i % 6 == 5 {
            format!("t{t:05}")
        } else {
            queries[i % queries.len()].clone()
        };
        let started = Instant::now();
        call_tool(&client, "discover_data", json!({"query": query})).await;
        discover.push(started.elapsed());
    }
    let rss_after = rss_mib(pid).unwrap_or(0.0);
    client.cancel().await.unwrap();
    println!();
    println!(
        "MCP over stdio at {tables} tables: first entity_details after start (loads the snapshot) {:.0} ms; server RSS {rss_after:.0} MiB after the calls.",
        first_call.as_secs_f64() * 1000.0
    );
    println!();
    println!("| measurement | samples | min | median | p95 | p99 |");
    println!("|---|---|---|---|---|---|");
    println!(
        "{}",
        row("entity_details, one table with all 20 columns", entity)
    );
    println!(
        "{}",
        row("discover_data, prose, values and table names", discover)
    );
}
