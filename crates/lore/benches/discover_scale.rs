//! `discover_data` and `wiki_search` on a large catalog, through the MCP
//! protocol of the real binary.
//!
//! Run with `cargo bench -p lore --bench discover_scale` (release build).
//! It generates a SQLite warehouse of `LORE_BENCH_TABLES` tables × 20
//! columns (default 10 000; `LORE_BENCH_ROWS` rows each, default 5) and
//! scans it with `lore scan`, writes `LORE_BENCH_SOURCES` semantic-layer
//! sources (default 500) and `LORE_BENCH_PAGES` wiki pages (default
//! 1 000), builds the index with `lore reindex` (which imports the pages
//! into the knowledge store first), then serves the project with
//! `lore mcp stdio` and times `LORE_BENCH_CALLS` calls (default 1 000) of
//! each tool, with the server's resident memory. Every call checks its
//! sources for freshness, as in production. Finally it edits a page on
//! disk and times the first call after the edit, which must find it.
//!
//! `LORE_BENCH_DIR` keeps the generated project (default: a temporary
//! folder).

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use serde_json::json;
use support::{
    call_tool, env_count, generate_sqlite, machine, ms, row, rss_mib, spawn_stdio, timed_scan,
    write_config,
};

const DOMAINS: [&str; 8] = [
    "billing",
    "sales",
    "support",
    "marketing",
    "finance",
    "product",
    "logistics",
    "people",
];
const METRICS: [&str; 10] = [
    "revenue",
    "churn",
    "retention",
    "conversion",
    "backlog",
    "margin",
    "headcount",
    "shipments",
    "refunds",
    "activation",
];

/// Questions mixing prose, identifiers and values, cycled through.
const QUERIES: [&str; 10] = [
    "how is revenue defined for billing",
    "which table has the order status",
    "customer email address",
    "t04321 amount",
    "owner priority of tickets",
    "churn retention by region",
    "created at timestamp",
    "total amount of sales",
    "is active flag",
    "shipments backlog definition",
];

fn write_sources(root: &Path, sources: usize) {
    let dir = root.join("semantic-layer/w");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..sources {
        let domain = DOMAINS[i % DOMAINS.len()];
        let metric = METRICS[i % METRICS.len()];
        std::fs::write(
            dir.join(format!("src_{i:04}.yaml")),
            format!(
                "name: src_{i:04}\ndescription: {domain} {metric} facts of table t{i:05}\ntable: t{i:05}\ngrain: [id]\ncolumns:\n  - {{ name: id, type: number }}\n  - {{ name: status, type: string, description: open closed pending void paid }}\n  - {{ name: region, type: string }}\n  - {{ name: amount, type: number }}\n  - {{ name: created_at, type: time }}\nmeasures:\n  - {{ name: {metric}_{i:04}, expr: \"sum(amount)\", description: \"Total {metric} of {domain}\" }}\n  - {{ name: row_count, expr: \"count(*)\" }}\n"
            ),
        )
        .unwrap();
    }
}

fn write_pages(root: &Path, pages: usize) {
    let dir = root.join("wiki/global");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..pages {
        let domain = DOMAINS[i % DOMAINS.len()];
        let metric = METRICS[(i / 8) % METRICS.len()];
        std::fs::write(
            dir.join(format!("{domain}-{metric}-{i:04}.md")),
            format!(
                "---\nsummary: \"How {metric} is defined for {domain} (note {i})\"\ntags: [\"{domain}\", \"{metric}\"]\n---\n\n# {metric} in {domain}\n\n\
                 The {metric} of the {domain} team is computed from table t{t:05}, column amount, \
                 excluding rows whose status is void. Owners review it every month; see [[{domain}-{metric}-{n:04}]].\n\n\
                 Gotcha {i}: amounts are stored in cents and the created_at timestamp is UTC. \
                 Regions are NA, EMEA, APAC and LATAM; priority runs from 0 to 3.\n",
                t = (i * 7) % 10_000,
                n = (i + 8) % pages,
            ),
        )
        .unwrap();
    }
}

#[tokio::main]
async fn main() {
    let tables = env_count("LORE_BENCH_TABLES", 10_000);
    let rows = env_count("LORE_BENCH_ROWS", 5);
    let sources = env_count("LORE_BENCH_SOURCES", 500);
    let pages = env_count("LORE_BENCH_PAGES", 1000);
    let calls = env_count("LORE_BENCH_CALLS", 1000);
    let temp = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("LORE_BENCH_DIR").map(std::path::PathBuf::from);
    let root = kept.as_deref().unwrap_or(temp.path()).join("discover");
    let _ = std::fs::remove_dir_all(&root);
    println!("{}", machine());
    println!(
        "Catalog: {tables} tables × 20 columns ({} documents), {sources} semantic sources, {pages} wiki pages",
        tables * 21
    );

    let db = root.join("w.db");
    write_config(
        &root,
        &format!("    driver: sqlite\n    path: {}\n", db.display()),
    );
    generate_sqlite(&db, tables, rows);
    let (scan, _) = timed_scan(&root);
    write_sources(&root, sources);
    write_pages(&root, pages);
    let started = Instant::now();
    let reindex = std::process::Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("--project-dir")
        .arg(&root)
        .arg("reindex")
        .output()
        .unwrap();
    let build = started.elapsed();
    assert!(
        reindex.status.success(),
        "{}",
        String::from_utf8_lossy(&reindex.stderr)
    );
    println!(
        "scan {:.1} s; index build (lore reindex: import {pages} pages into the store, index everything) {:.1} s: {}",
        scan.as_secs_f64(),
        build.as_secs_f64(),
        String::from_utf8_lossy(&reindex.stderr).trim()
    );

    let transport = spawn_stdio(&root);
    let pid = transport.id().expect("server pid");
    let client = ().serve(transport).await.expect("initialize");
    // Sanity: each kind is there.
    let found = call_tool(&client, "discover_data", json!({"query": "src_0042"})).await;
    assert_eq!(found["refs"][0]["kind"], "sl_source", "{found}");
    let last = format!("t{:05}", tables - 1);
    let found = call_tool(&client, "discover_data", json!({"query": last})).await;
    assert_eq!(found["refs"][0]["id"], last, "{found}");
    let found = call_tool(&client, "wiki_search", json!({"query": "gotcha 42"})).await;
    assert!(
        found["results"][0]["key"]
            .as_str()
            .unwrap()
            .ends_with("-0042"),
        "{found}"
    );

    println!();
    println!("| call (through MCP stdio) | calls | min | median | p95 | p99 |");
    println!("|---|---|---|---|---|---|");
    for (tool, field) in [("discover_data", "refs"), ("wiki_search", "results")] {
        let mut samples = Vec::with_capacity(calls);
        for i in 0..calls {
            let query = QUERIES[i % QUERIES.len()];
            let started = Instant::now();
            let out = call_tool(&client, tool, json!({"query": query})).await;
            samples.push(started.elapsed());
            assert!(
                out[field].as_array().is_some_and(|a| !a.is_empty()) || tool == "wiki_search",
                "{tool} {query}: {out}"
            );
        }
        println!("{}", row(&format!("`{tool}`"), samples));
    }
    let rss = rss_mib(pid).unwrap_or(0.0);

    // A page edited on disk: the next call imports it, re-indexes it and
    // finds it.
    let page = root.join("wiki/global/billing-revenue-0000.md");
    let text = std::fs::read_to_string(&page).unwrap();
    std::fs::write(&page, text.replace("Gotcha 0", "Gotcha 0: zanzibar")).unwrap();
    let started = Instant::now();
    let found = call_tool(&client, "discover_data", json!({"query": "zanzibar"})).await;
    let fresh: Duration = started.elapsed();
    assert_eq!(found["refs"][0]["id"], "billing-revenue-0000", "{found}");
    println!();
    println!(
        "First `discover_data` after a page was edited on disk (import + re-index + search): {}",
        ms(fresh)
    );
    println!("Server resident memory after the calls: {rss:.0} MiB");
    client.cancel().await.unwrap();
}
