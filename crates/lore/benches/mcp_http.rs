//! HTTP throughput and latency: `tools/call connection_list` (a cheap read
//! tool) over Streamable HTTP with 1, 8 and 64 concurrent callers, in
//! each protocol era (handshake sessions; 2026-07-28 stateless requests), against
//! a release `lore mcp serve` on the demo project, and the background
//! server's start-to-healthy time (`lore mcp start` until it returns, which
//! it does once `/health` answers).
//!
//! `cargo bench -p lore --bench mcp_http`; `LORE_BENCH_SECONDS` (default 5)
//! per concurrency level, `LORE_BENCH_STARTS` (default 10) daemon starts.

#[path = "support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

fn lore(root: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lore"));
    command.arg("--project-dir").arg(root);
    command
}

fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: String,
) -> reqwest::RequestBuilder {
    let mut request = http
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(body);
    if let Some(session) = session {
        request = request
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-06-18");
    }
    request
}

async fn open_session(http: &reqwest::Client, url: &str) -> String {
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}});
    let response = post(http, url, None, init.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    response.text().await.unwrap();
    let done = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    post(http, url, Some(&session), done.to_string())
        .send()
        .await
        .unwrap();
    session
}

/// Calls per second and every call's latency: one caller per element of
/// `callers` (a session id, or none), each sending `call` back to back for
/// `seconds`; `modern` adds the 2026-07-28 headers.
async fn drive(
    http: reqwest::Client,
    url: &str,
    callers: Vec<Option<String>>,
    call: String,
    modern: bool,
    seconds: u64,
) -> (f64, Vec<Duration>) {
    let url: Arc<str> = Arc::from(url);
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for session in callers {
        let (http, url, call) = (http.clone(), url.clone(), call.clone());
        tasks.push(tokio::spawn(async move {
            let mut samples = Vec::new();
            while Instant::now() < until {
                let t = Instant::now();
                let mut request = post(&http, &url, session.as_deref(), call.clone());
                if modern {
                    request = request
                        .header("MCP-Protocol-Version", "2026-07-28")
                        .header("Mcp-Method", "tools/call")
                        .header("Mcp-Name", "connection_list");
                }
                let response = request.send().await.unwrap();
                assert_eq!(response.status(), 200);
                let text = response.text().await.unwrap();
                assert!(text.contains("\"result\""), "{text}");
                samples.push(t.elapsed());
            }
            samples
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    let elapsed = started.elapsed().as_secs_f64();
    (all.len() as f64 / elapsed, all)
}

fn client(callers: usize) -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(callers)
        .build()
        .unwrap()
}

/// The handshake era: `sessions` sessions, each initialised first.
async fn load(url: &str, sessions: usize, seconds: u64) -> (f64, Vec<Duration>) {
    let http = client(sessions);
    let mut ids = Vec::new();
    for _ in 0..sessions {
        ids.push(Some(open_session(&http, url).await));
    }
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params":{"name":"connection_list","arguments":{}}})
    .to_string();
    drive(http, url, ids, call, false, seconds).await
}

/// The 2026-07-28 era: no session, every request alone (protocol version,
/// capabilities and client in `_meta`, `Mcp-Method`/`Mcp-Name` headers).
async fn load_modern(url: &str, clients: usize, seconds: u64) -> (f64, Vec<Duration>) {
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params":{"name":"connection_list","arguments":{},"_meta":{
            "io.modelcontextprotocol/protocolVersion":"2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":{},
            "io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}})
    .to_string();
    drive(
        client(clients),
        url,
        vec![None; clients],
        call,
        true,
        seconds,
    )
    .await
}

fn main() {
    let seconds = support::env_count("LORE_BENCH_SECONDS", 5) as u64;
    let starts = support::env_count("LORE_BENCH_STARTS", 10);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    let made = Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("demo")
        .arg(&root)
        .arg("--no-serve")
        .output()
        .unwrap();
    assert!(made.status.success());
    // The benchmark is one client: no rate limit.
    let config = std::fs::read_to_string(root.join("lore.yaml")).unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        config.replace(
            "\nmcp:\n",
            "\nmcp:\n  rate_limit: { requests: 0, window_seconds: 60 }\n",
        ),
    )
    .unwrap();

    println!("{}\n", support::machine());

    // Daemon start-to-healthy, as the user sees it.
    let mut start_samples = Vec::new();
    for _ in 0..starts {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
            .to_string();
        let t = Instant::now();
        let out = lore(&root)
            .args(["mcp", "start", "--port", &port])
            .output()
            .unwrap();
        start_samples.push(t.elapsed());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stopped = lore(&root).args(["mcp", "stop"]).output().unwrap();
        assert!(stopped.status.success());
    }
    println!("| measurement | samples | min | median | p95 | p99 |");
    println!("|---|---|---|---|---|---|");
    println!(
        "{}",
        support::row("`lore mcp start` → healthy (returns)", start_samples)
    );

    let mut server = lore(&root)
        .args(["mcp", "serve", "--port", "0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("server exited").unwrap();
        if let Some(url) = line.split("listening on ").nth(1) {
            break url.trim().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!();
    println!("| era | concurrent callers | calls/s | calls | p50 | p99 |");
    println!("|---|---|---|---|---|---|");
    for sessions in [1, 8, 64] {
        for era in ["handshake (2025-06-18, sessions)", "2026-07-28 (stateless)"] {
            let (rate, samples) = if era.starts_with("handshake") {
                runtime.block_on(load(&url, sessions, seconds))
            } else {
                runtime.block_on(load_modern(&url, sessions, seconds))
            };
            let n = samples.len();
            let s = support::stats(samples);
            println!(
                "| {era} | {sessions} | {rate:.0} | {n} | {} | {} |",
                support::ms(s.median),
                support::ms(s.p99)
            );
        }
    }
    let _ = server.kill();
    let _ = server.wait();
}
