//! Soak: many concurrent HTTP sessions mixing every read tool of the
//! analytics and memory toolsets with memory writes against one release
//! `lore mcp serve` on the demo project, for minutes. Reports calls/s,
//! p50/p99 per tool, errors by code, and the server's resident memory
//! (anonymous and file-backed), threads and open file descriptors over
//! time, so a leak shows as drift.
//!
//! `cargo bench -p lore --bench soak`; `LORE_SOAK_SESSIONS` (default 64),
//! `LORE_SOAK_SECONDS` (default 600), `LORE_SOAK_SAMPLE_SECONDS` (default
//! 30: how often RSS and descriptors are read), `LORE_SOAK_WRITES=0` for
//! reads only (the store then stays the same size). Loopback only.

#[path = "support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

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

/// The JSON-RPC message in an answer (plain JSON or the last SSE `data:`).
fn message(text: &str) -> Option<Value> {
    if let Ok(value) = serde_json::from_str(text) {
        return Some(value);
    }
    text.lines()
        .rev()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter(|d| !d.trim().is_empty())
        .find_map(|d| serde_json::from_str(d.trim()).ok())
}

async fn open_session(http: &reqwest::Client, url: &str) -> String {
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}});
    let response = post(http, url, None, init.to_string())
        .send()
        .await
        .expect("initialize");
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

/// What one call came back as.
enum Outcome {
    Ok(Value),
    /// An in-band tool error: its stable code.
    ToolError(String),
    /// Anything else: an HTTP status, a JSON-RPC error, a broken answer.
    Failure(String),
}

async fn call(
    http: &reqwest::Client,
    url: &str,
    session: &str,
    id: u64,
    tool: &str,
    arguments: Value,
) -> Outcome {
    let body = json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
        "params":{"name":tool,"arguments":arguments}});
    let response = match post(http, url, Some(session), body.to_string())
        .send()
        .await
    {
        Ok(r) => r,
        Err(e) => return Outcome::Failure(format!("transport: {e}")),
    };
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    if status != 200 {
        return Outcome::Failure(format!("http {status}"));
    }
    let Some(message) = message(&text) else {
        return Outcome::Failure("unparseable answer".into());
    };
    if let Some(error) = message.get("error") {
        return Outcome::Failure(format!("json-rpc {}", error["code"]));
    }
    let result = &message["result"];
    if result["isError"] == true {
        let text = result["content"][0]["text"].as_str().unwrap_or("");
        let code = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|r| r["code"].as_str().map(str::to_string))
            .unwrap_or_else(|| "unparseable tool error".into());
        return Outcome::ToolError(code);
    }
    Outcome::Ok(result["structuredContent"].clone())
}

/// Per-tool latencies and error counts of one session.
#[derive(Default)]
struct Tally {
    latencies: BTreeMap<&'static str, Vec<Duration>>,
    errors: BTreeMap<String, u64>,
}

impl Tally {
    fn record(&mut self, tool: &'static str, took: Duration, outcome: &Outcome) {
        self.latencies.entry(tool).or_default().push(took);
        match outcome {
            Outcome::Ok(_) => {}
            Outcome::ToolError(code) => {
                *self.errors.entry(format!("{tool}: {code}")).or_default() += 1
            }
            Outcome::Failure(what) => {
                *self.errors.entry(format!("{tool}: {what}")).or_default() += 1
            }
        }
    }
}

const WORDS: [&str; 6] = [
    "revenue",
    "churn",
    "accounts",
    "tickets",
    "plan",
    "invoice lines",
];

/// One session's loop: every read tool, then a store → update → undo →
/// relate → delete cycle of memory writes on its own entry.
async fn session_loop(
    http: reqwest::Client,
    url: Arc<str>,
    session: String,
    number: usize,
    until: Instant,
    writes: bool,
) -> Tally {
    let mut tally = Tally::default();
    let mut id = 1u64;
    let mut round = 0usize;
    let topic = format!("soak/session-{number}");
    while Instant::now() < until {
        let word = WORDS[(round + number) % WORDS.len()];
        round += 1;
        let reads: [(&'static str, Value); 12] = [
            ("connection_list", json!({})),
            ("discover_data", json!({"query": word})),
            (
                "dictionary_search",
                json!({"values": ["Acme", "past due"], "connectionId": "warehouse"}),
            ),
            (
                "entity_details",
                json!({"connectionId": "warehouse", "entities": ["accounts", "invoices"]}),
            ),
            (
                "sl_read_source",
                json!({"connectionId": "warehouse", "sourceName": "invoices"}),
            ),
            (
                "sl_query",
                json!({"connectionId": "warehouse", "measures": ["invoices.revenue"],
                "dimensions": ["accounts.segment"], "limit": 10}),
            ),
            (
                "sql_execution",
                json!({"connectionId": "warehouse",
                "sql": "SELECT region, count(*) AS accounts FROM accounts WHERE deleted_at IS NULL GROUP BY region"}),
            ),
            ("wiki_search", json!({"query": word})),
            ("wiki_read", json!({"key": "revenue"})),
            ("query", json!({"topic": "soak"})),
            ("history", json!({})),
            ("query_graph", json!({"node": topic, "depth": 2})),
        ];
        for (tool, arguments) in reads {
            id += 1;
            let t = Instant::now();
            let outcome = call(&http, &url, &session, id, tool, arguments).await;
            tally.record(tool, t.elapsed(), &outcome);
        }

        if !writes {
            continue;
        }
        id += 1;
        let t = Instant::now();
        let stored = call(&http, &url, &session, id, "store",
            json!({"topic": topic, "content": format!("Round {round} of session {number}."), "tags": ["soak"]})).await;
        tally.record("store", t.elapsed(), &stored);
        let Outcome::Ok(stored) = stored else {
            continue;
        };
        let Some(entry) = stored["entry"]["id"].as_str().map(str::to_string) else {
            continue;
        };

        id += 1;
        let t = Instant::now();
        let updated = call(&http, &url, &session, id, "update",
            json!({"id": entry, "content": format!("Round {round}, revised."), "expected_version": 1})).await;
        tally.record("update", t.elapsed(), &updated);
        if let Outcome::Ok(updated) = updated {
            id += 1;
            let t = Instant::now();
            let undone = call(
                &http,
                &url,
                &session,
                id,
                "undo",
                json!({"tx_id": updated["tx_id"]}),
            )
            .await;
            tally.record("undo", t.elapsed(), &undone);
        }

        id += 1;
        let t = Instant::now();
        let related = call(
            &http,
            &url,
            &session,
            id,
            "relate",
            json!({"subject": topic, "predicate": "wrote", "object": entry}),
        )
        .await;
        tally.record("relate", t.elapsed(), &related);

        id += 1;
        let t = Instant::now();
        let deleted = call(&http, &url, &session, id, "delete", json!({"id": entry})).await;
        tally.record("delete", t.elapsed(), &deleted);
    }
    tally
}

/// Bytes of the files under `path` (a file or a folder).
fn disk_bytes(path: &Path) -> u64 {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::read_dir(path)
            .map(|entries| entries.flatten().map(|e| disk_bytes(&e.path())).sum())
            .unwrap_or(0),
        Ok(meta) => meta.len(),
        Err(_) => 0,
    }
}

/// The knowledge store (with its WAL) and the search index, in MiB: what
/// the server's memory may legitimately grow with.
fn data_mib(root: &Path) -> (f64, f64) {
    let state = root.join(".lore");
    let store = ["store.db", "store.db-wal"]
        .iter()
        .map(|f| disk_bytes(&state.join(f)))
        .sum::<u64>();
    let index = disk_bytes(&state.join("index"));
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    (mib(store), mib(index))
}

/// Open file descriptors of a process (Linux).
/// Anonymous and file-backed resident memory (MiB) and the thread count,
/// from `/proc/<pid>/status`.
fn memory_parts(pid: u32) -> Option<(f64, f64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<f64> {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    Some((
        field("RssAnon:")? / 1024.0,
        (field("RssFile:")? + field("RssShmem:").unwrap_or(0.0)) / 1024.0,
        field("Threads:")? as u64,
    ))
}

fn open_fds(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

fn main() {
    let sessions = support::env_count("LORE_SOAK_SESSIONS", 64);
    let seconds = support::env_count("LORE_SOAK_SECONDS", 600) as u64;
    let sample_every = support::env_count("LORE_SOAK_SAMPLE_SECONDS", 30).max(1) as u64;
    let writes = support::env_count("LORE_SOAK_WRITES", 1) != 0;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    let made = Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("demo")
        .arg(&root)
        .arg("--no-serve")
        .output()
        .unwrap();
    assert!(made.status.success());
    // One client on loopback: no rate limit.
    let config = std::fs::read_to_string(root.join("lore.yaml")).unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        config.replace(
            "\nmcp:\n",
            "\nmcp:\n  rate_limit: { requests: 0, window_seconds: 60 }\n",
        ),
    )
    .unwrap();

    println!("{}", support::machine());
    println!(
        "{sessions} sessions for {seconds} s, {}\n",
        if writes {
            "reads and memory writes"
        } else {
            "reads only"
        }
    );

    let mut server = lore(&root)
        .args(["mcp", "serve", "--port", "0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = server.id();
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
    let idle = (support::rss_mib(pid), open_fds(pid));
    let (tallies, samples, elapsed) = runtime.block_on(async {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(sessions)
            .build()
            .unwrap();
        let mut ids = Vec::new();
        for _ in 0..sessions {
            ids.push(open_session(&http, &url).await);
        }
        let url: Arc<str> = Arc::from(url.as_str());
        let started = Instant::now();
        let until = started + Duration::from_secs(seconds);
        let data_root = root.clone();
        let sampler = tokio::spawn(async move {
            let mut samples = Vec::new();
            loop {
                samples.push((
                    started.elapsed(),
                    support::rss_mib(pid),
                    open_fds(pid),
                    data_mib(&data_root),
                    memory_parts(pid),
                ));
                if Instant::now() >= until {
                    return samples;
                }
                let next = Duration::from_secs(sample_every).min(until - Instant::now());
                tokio::time::sleep(next).await;
            }
        });
        let mut tasks = Vec::new();
        for (number, session) in ids.into_iter().enumerate() {
            let (http, url) = (http.clone(), url.clone());
            tasks.push(tokio::spawn(session_loop(
                http, url, session, number, until, writes,
            )));
        }
        let mut tallies = Vec::new();
        for task in tasks {
            tallies.push(task.await.unwrap());
        }
        let elapsed = started.elapsed();
        (tallies, sampler.await.unwrap(), elapsed)
    });
    let alive = server.try_wait().unwrap().is_none();

    let mut latencies: BTreeMap<&str, Vec<Duration>> = BTreeMap::new();
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    for tally in tallies {
        for (tool, l) in tally.latencies {
            latencies.entry(tool).or_default().extend(l);
        }
        for (code, n) in tally.errors {
            *errors.entry(code).or_default() += n;
        }
    }
    let total: usize = latencies.values().map(Vec::len).sum();
    let all: Vec<Duration> = latencies.values().flatten().copied().collect();
    let overall = support::stats(all);
    println!(
        "{total} calls in {:.0} s: {:.0} calls/s, p50 {}, p99 {}; server alive at the end: {alive}\n",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        support::ms(overall.median),
        support::ms(overall.p99)
    );
    println!("| tool | calls | p50 | p99 |");
    println!("|---|---|---|---|");
    for (tool, l) in latencies {
        let n = l.len();
        let s = support::stats(l);
        println!(
            "| {tool} | {n} | {} | {} |",
            support::ms(s.median),
            support::ms(s.p99)
        );
    }
    println!();
    if errors.is_empty() {
        println!("errors: none");
    } else {
        println!("| errors (tool: code) | count |");
        println!("|---|---|");
        for (code, n) in errors {
            println!("| {code} | {n} |");
        }
    }
    let show = |rss: Option<f64>, fds: Option<usize>| {
        format!(
            "{} | {}",
            rss.map(|r| format!("{r:.1} MiB")).unwrap_or("?".into()),
            fds.map(|f| f.to_string()).unwrap_or("?".into())
        )
    };
    println!(
        "\n| moment | RSS | open fds | store file | search index | anonymous / file-backed RSS | threads |"
    );
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| idle, before the sessions | {} | | | | |",
        show(idle.0, idle.1)
    );
    for (at, rss, fds, (store, index), parts) in samples {
        let (anon, file, threads) = parts.unwrap_or((0.0, 0.0, 0));
        println!(
            "| {:.0} s | {} | {store:.1} MiB | {index:.1} MiB | {anon:.1} / {file:.1} MiB | {threads} |",
            at.as_secs_f64(),
            show(rss, fds)
        );
    }
    let _ = server.kill();
    let _ = server.wait();
}
