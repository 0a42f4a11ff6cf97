//! Latency of the real binary over stdio, as an MCP client sees it.
//!
//! Run with `cargo bench -p lore --bench mcp_stdio` (release build). It
//! prints a Markdown table for BENCHMARKS.md:
//!
//! - cold start: spawn `lore mcp stdio`, `initialize`, first `tools/list`
//!   answered (process start to answer);
//! - `sql_execution` round trip of `SELECT 1` on a warm session;
//! - a grouped query over the demo warehouse, for scale.
//!
//! Environment: `LORE_BENCH_STARTS` (default 30), `LORE_BENCH_CALLS`
//! (default 2000).

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn spawn_stdio(root: &Path) -> TokioChildProcess {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_lore"));
    command
        .arg("--project-dir")
        .arg(root)
        .args(["mcp", "stdio"]);
    TokioChildProcess::new(command).expect("spawn lore mcp stdio")
}

struct Stats {
    min: Duration,
    median: Duration,
    p95: Duration,
    p99: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    Stats {
        min: samples[0],
        median: at(0.5),
        p95: at(0.95),
        p99: at(0.99),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

async fn call(client: &rmcp::service::RunningService<rmcp::RoleClient, ()>, sql: &str) {
    let arguments = serde_json::json!({"connectionId": "warehouse", "sql": sql});
    let result = client
        .call_tool(
            CallToolRequestParams::new("sql_execution")
                .with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .expect("call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
}

#[tokio::main]
async fn main() {
    let starts = env_count("LORE_BENCH_STARTS", 30);
    let calls = env_count("LORE_BENCH_CALLS", 2000);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("demo")
        .arg(&root)
        .arg("--no-serve")
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());

    let mut cold = Vec::with_capacity(starts);
    for _ in 0..starts {
        let started = Instant::now();
        let client = ().serve(spawn_stdio(&root)).await.expect("initialize");
        let tools = client.list_all_tools().await.expect("tools/list");
        cold.push(started.elapsed());
        assert!(!tools.is_empty());
        client.cancel().await.unwrap();
    }

    let client = ().serve(spawn_stdio(&root)).await.expect("initialize");
    for _ in 0..50 {
        call(&client, "SELECT 1").await;
    }
    let mut select_one = Vec::with_capacity(calls);
    for _ in 0..calls {
        let started = Instant::now();
        call(&client, "SELECT 1").await;
        select_one.push(started.elapsed());
    }
    let grouped_sql = "SELECT a.segment, strftime('%Y', i.issued_at) AS year, sum(i.total_cents) / 100.0 AS revenue \
                       FROM invoices i JOIN accounts a ON a.id = i.account_id WHERE i.status = 'paid' GROUP BY 1, 2";
    let mut grouped = Vec::new();
    for _ in 0..(calls / 20).max(10) {
        let started = Instant::now();
        call(&client, grouped_sql).await;
        grouped.push(started.elapsed());
    }
    client.cancel().await.unwrap();

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
    println!(
        "Machine: {cpu}, {cores} cores; lore {}",
        env!("CARGO_PKG_VERSION")
    );
    println!();
    println!("| measurement | samples | min | median | p95 | p99 |");
    println!("|---|---|---|---|---|---|");
    for (name, samples) in [
        ("cold start: spawn → initialize → first tools/list", cold),
        (
            "sql_execution `SELECT 1` round trip (warm stdio session)",
            select_one,
        ),
        (
            "sql_execution paid revenue by segment and year (7.9k invoices ⋈ 1.2k accounts)",
            grouped,
        ),
    ] {
        let n = samples.len();
        let s = stats(samples);
        println!(
            "| {name} | {n} | {} | {} | {} | {} |",
            ms(s.min),
            ms(s.median),
            ms(s.p95),
            ms(s.p99)
        );
    }
}
