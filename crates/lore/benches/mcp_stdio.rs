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

mod support;

use std::time::Instant;

use rmcp::ServiceExt;
use support::{call_tool, env_count, machine, row, spawn_stdio};

async fn call(client: &rmcp::service::RunningService<rmcp::RoleClient, ()>, sql: &str) {
    call_tool(
        client,
        "sql_execution",
        serde_json::json!({"connectionId": "warehouse", "sql": sql}),
    )
    .await;
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
    // The same question through the semantic layer, and the chasm-trap
    // question the reference system refuses.
    let revenue = serde_json::json!({"measures": ["invoices.revenue"],
        "dimensions": ["accounts.segment", {"field": "invoices.issued_at", "granularity": "year"}]});
    let per_account = serde_json::json!({
        "measures": [{"expr": "support_tickets.tickets / subscriptions.paying_accounts", "name": "per_account"}],
        "dimensions": ["plans.name"], "filters": ["subscriptions.status_normalized = 'active'"]});
    let mut semantic = Vec::new();
    let mut chasm = Vec::new();
    for _ in 0..(calls / 20).max(10) {
        let started = Instant::now();
        call_tool(&client, "sl_query", revenue.clone()).await;
        semantic.push(started.elapsed());
        let started = Instant::now();
        call_tool(&client, "sl_query", per_account.clone()).await;
        chasm.push(started.elapsed());
    }
    client.cancel().await.unwrap();

    println!("{}", machine());
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
        (
            "sl_query invoices.revenue by accounts.segment and year (same question)",
            semantic,
        ),
        (
            "sl_query tickets per paying account by plan (chasm + fan, 3.2k tickets, 1.2k subscriptions)",
            chasm,
        ),
    ] {
        println!("{}", row(name, samples));
    }
}
