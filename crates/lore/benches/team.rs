//! Two Lore servers over one PostgreSQL store: how long a write through
//! server A takes to reach a `subscriptions/listen` stream on server B
//! (the write's request sent → B's `notifications/resources/updated` for
//! its transaction read by the client).
//!
//! `LORE_BENCH_STORE_URL=postgres://…/db cargo bench -p lore --bench team`
//! (the database's schema `lore` is dropped first: use a scratch database);
//! `LORE_BENCH_WRITES` (default 300) writes, one after another.

#[path = "support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn serve(root: &Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("--project-dir")
        .arg(root)
        .args(["mcp", "serve", "--port", "0"])
        .env_remove("LORE_MCP_TOKEN")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("server exited").unwrap();
        if let Some(url) = line.split("listening on ").nth(1) {
            break url.trim().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (child, url)
}

fn modern(
    http: &reqwest::Client,
    url: &str,
    method: &str,
    mut params: Value,
) -> reqwest::RequestBuilder {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    });
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut request = http
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string());
    if let Some(name) = name {
        request = request.header("Mcp-Name", name);
    }
    request
}

fn main() {
    let Ok(url) = std::env::var("LORE_BENCH_STORE_URL") else {
        eprintln!("set LORE_BENCH_STORE_URL=postgres://… (a scratch database) to run this bench");
        return;
    };
    let writes = support::env_count("LORE_BENCH_WRITES", 300);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
            .batch_execute("DROP SCHEMA IF EXISTS lore CASCADE")
            .await
            .unwrap();
    });
    let dir = tempfile::tempdir().unwrap();
    let mut servers = Vec::new();
    for name in ["a", "b"] {
        let root = dir.path().join(name);
        assert!(
            Command::new(env!("CARGO_BIN_EXE_lore"))
                .arg("init")
                .arg(&root)
                .output()
                .unwrap()
                .status
                .success()
        );
        let config = root.join("lore.yaml");
        let text = std::fs::read_to_string(&config).unwrap();
        let text = text.replace(
            "\nmcp:\n",
            "\nmcp:\n  rate_limit: { requests: 0, window_seconds: 60 }\n",
        );
        std::fs::write(&config, format!("{text}\nstore:\n  url: \"{url}\"\n")).unwrap();
        servers.push(serve(&root));
    }
    let (a, b) = (servers[0].1.clone(), servers[1].1.clone());
    println!("{}\n", support::machine());
    let samples = runtime.block_on(async move {
        let http = reqwest::Client::new();
        // A first write creates the store's schema.
        modern(&http, &a, "tools/call", json!({"name": "store", "arguments": {"topic": "warm", "content": "up"}}))
            .send().await.unwrap().text().await.unwrap();
        let arrived: Arc<Mutex<HashMap<i64, Instant>>> = Arc::default();
        let mut stream = modern(&http, &b, "subscriptions/listen",
            json!({"notifications": {"resourceSubscriptions": ["knowledge://history/transactions"]}}))
            .send().await.unwrap();
        let sink = Arc::clone(&arrived);
        tokio::spawn(async move {
            let mut buffer = String::new();
            while let Ok(Some(chunk)) = stream.chunk().await {
                buffer.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = buffer.find('\n') {
                    let line: String = buffer.drain(..=end).collect();
                    if let Some(at) = line.find("\"tx_id\":") {
                        let digits: String = line[at + 8..].chars().take_while(char::is_ascii_digit).collect();
                        if let Ok(tx) = digits.parse::<i64>() {
                            sink.lock().unwrap().entry(tx).or_insert_with(Instant::now);
                        }
                    }
                }
            }
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mut sent = Vec::new();
        for i in 0..writes {
            let started = Instant::now();
            let text = modern(&http, &a, "tools/call",
                json!({"name": "store", "arguments": {"topic": "bench", "content": format!("write {i}")}}))
                .send().await.unwrap().text().await.unwrap();
            let at = text.find("\\\"tx_id\\\":").or_else(|| text.find("\"tx_id\":")).expect("a tx_id");
            let digits: String = text[at..].chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
            sent.push((digits.parse::<i64>().unwrap(), started));
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        let arrived = arrived.lock().unwrap();
        sent.iter()
            .filter_map(|(tx, started)| arrived.get(tx).map(|at| at.saturating_duration_since(*started)))
            .collect::<Vec<_>>()
    });
    for (mut child, _) in servers {
        let _ = child.kill();
        let _ = child.wait();
    }
    println!("| measurement | samples | min | median | p95 | p99 |");
    println!("|---|---|---|---|---|---|");
    println!(
        "{}",
        support::row(
            &format!(
                "write on A → heard on B ({} of {writes} heard)",
                samples.len()
            ),
            samples
        )
    );
}
