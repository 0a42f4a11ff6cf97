//! Scans and catalog tools at scale, with the real binary.
//!
//! Run with `cargo bench -p lore --bench scan` (release build). For each
//! size it generates a SQLite warehouse of N tables × 20 columns (ids,
//! two keys named after other tables, short text, numbers, booleans,
//! timestamps, free text, emails; `LORE_BENCH_ROWS` rows each), runs
//! `lore scan` as a separate process and reports its wall time and peak
//! resident memory. At the largest size it then serves the project with
//! `lore mcp stdio` and times `entity_details` and `dictionary_search`
//! through the MCP protocol, with the server's resident memory.
//!
//! When `LORE_BENCH_POSTGRES_URL` (or `LORE_TEST_POSTGRES_URL`) points at
//! a server where the user may create databases, the same schemas are
//! scanned on PostgreSQL too (in a scratch database, dropped afterwards).
//!
//! Environment: `LORE_BENCH_SIZES` (default `1000,10000`),
//! `LORE_BENCH_ROWS` (default 50), `LORE_BENCH_CALLS` (default 2000),
//! `LORE_BENCH_DIR` (generate the projects there and keep them, for
//! profiling; default a temporary folder).

mod support;

use std::time::Instant;

use rmcp::ServiceExt;
use support::{
    call_tool, env_count, generate_sqlite, machine, row, rss_mib, spawn_stdio, table_sql,
    timed_scan, write_config,
};

async fn postgres_scratch(admin_url: &str) -> (tokio_postgres::Client, String, String) {
    let (admin, connection) = tokio_postgres::connect(admin_url, tokio_postgres::NoTls)
        .await
        .expect("connect to the PostgreSQL benchmark URL");
    tokio::spawn(connection);
    let name = format!("lore_bench_{}", std::process::id());
    // One statement per call: DROP/CREATE DATABASE refuse to run in the
    // implicit transaction of a multi-statement batch.
    for sql in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
    ] {
        admin.batch_execute(&sql).await.unwrap();
    }
    let base = admin_url
        .rsplit_once('/')
        .map(|(b, _)| b)
        .unwrap_or(admin_url);
    (admin, name.clone(), format!("{base}/{name}"))
}

#[tokio::main]
async fn main() {
    let sizes: Vec<usize> = std::env::var("LORE_BENCH_SIZES")
        .unwrap_or_else(|_| "1000,10000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let rows = env_count("LORE_BENCH_ROWS", 50);
    let calls = env_count("LORE_BENCH_CALLS", 2000);
    let temp = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("LORE_BENCH_DIR").map(std::path::PathBuf::from);
    let dir = kept.as_deref().unwrap_or(temp.path());
    println!("{}", machine());
    println!();
    println!("| scan | tables × columns | rows per table | wall time | peak RSS |");
    println!("|---|---|---|---|---|");
    let mut largest = None;
    for &tables in &sizes {
        let root = dir.join(format!("sqlite-{tables}"));
        let _ = std::fs::remove_dir_all(&root);
        let db = root.join("w.db");
        write_config(
            &root,
            &format!("    driver: sqlite\n    path: {}\n", db.display()),
        );
        generate_sqlite(&db, tables, rows);
        let (elapsed, peak) = timed_scan(&root);
        println!(
            "| SQLite | {tables} × 20 | {rows} | {:.2} s | {peak:.0} MiB |",
            elapsed.as_secs_f64()
        );
        largest = Some((tables, root));
    }
    let postgres_url = std::env::var("LORE_BENCH_POSTGRES_URL")
        .or_else(|_| std::env::var("LORE_TEST_POSTGRES_URL"))
        .ok();
    if let Some(admin_url) = postgres_url {
        for &tables in &sizes {
            let (admin, name, url) = postgres_scratch(&admin_url).await;
            let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            for chunk in (0..tables).collect::<Vec<_>>().chunks(200) {
                let batch: String = chunk
                    .iter()
                    .map(|&t| table_sql(t, tables, rows, true))
                    .collect();
                client.batch_execute(&batch).await.unwrap();
            }
            client.batch_execute("ANALYZE").await.unwrap();
            drop(client);
            let root = dir.join(format!("postgres-{tables}"));
            let _ = std::fs::remove_dir_all(&root);
            write_config(
                &root,
                &format!("    driver: postgres\n    url: \"{url}\"\n"),
            );
            let (elapsed, peak) = timed_scan(&root);
            println!(
                "| PostgreSQL | {tables} × 20 | {rows} | {:.2} s | {peak:.0} MiB |",
                elapsed.as_secs_f64()
            );
            admin
                .batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)"))
                .await
                .unwrap();
        }
    }

    let Some((tables, root)) = largest else {
        return;
    };
    let transport = spawn_stdio(&root);
    let pid = transport.id().expect("server pid");
    let client = ().serve(transport).await.expect("initialize");
    let started = Instant::now();
    call_tool(
        &client,
        "entity_details",
        serde_json::json!({"connectionId": "w", "entities": ["t00000"]}),
    )
    .await;
    let first_call = started.elapsed();
    let rss_loaded = rss_mib(pid).unwrap_or(0.0);

    let mut entity = Vec::with_capacity(calls);
    let mut exact = Vec::with_capacity(calls);
    let mut broad = Vec::with_capacity(calls);
    let mut miss = Vec::with_capacity(calls);
    for i in 0..calls {
        let t = (i * 7919) % tables;
        let started = Instant::now();
        let out = call_tool(
            &client,
            "entity_details",
            serde_json::json!({"connectionId": "w", "entities": [format!("t{t:05}")]}),
        )
        .await;
        entity.push(started.elapsed());
        assert_eq!(out["entities"][0]["status"], "ok");
        for (samples, value) in [
            (&mut exact, format!("Item {t}-{}", 1 + i % rows)),
            (&mut broad, "pend".to_string()),
            (&mut miss, "Zanzibar".to_string()),
        ] {
            let started = Instant::now();
            call_tool(
                &client,
                "dictionary_search",
                serde_json::json!({"values": [value], "connectionId": "w"}),
            )
            .await;
            samples.push(started.elapsed());
        }
    }
    let rss_after = rss_mib(pid).unwrap_or(0.0);
    client.cancel().await.unwrap();
    println!();
    println!(
        "MCP over stdio at {tables} tables: first entity_details after start (loads the snapshot) {:.0} ms; \
         server RSS {rss_loaded:.0} MiB after loading, {rss_after:.0} MiB after the calls.",
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
        row("dictionary_search, exact value held by one table", exact)
    );
    println!(
        "{}",
        row(
            "dictionary_search, `pend`: a substring of a value in every table",
            broad
        )
    );
    println!("{}", row("dictionary_search, a value in no table", miss));
}
