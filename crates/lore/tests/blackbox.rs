//! A black-box driver: thousands of generated and malformed JSON-RPC
//! messages sent to the real `lore mcp stdio` and `lore mcp serve` on
//! loopback. The process must survive, every answer must be well-formed
//! JSON-RPC, a normal call must still work at the end, and memory must stay
//! bounded. The test suite runs a short pass; the long run is
//! `LORE_BLACKBOX_REQUESTS=20000 cargo test -p lore --test blackbox -- --nocapture`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{demo_project, lore, spawn_http_server};
use serde_json::{Value, json};

/// How many messages each transport gets.
fn requests() -> usize {
    std::env::var("LORE_BLACKBOX_REQUESTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300)
}

/// A small deterministic generator (xorshift), so a failure replays.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn value(&mut self, depth: u32) -> Value {
        match self.below(if depth > 6 { 5 } else { 8 }) {
            0 => Value::Null,
            1 => json!(self.next() as i64),
            2 => json!(f64::from(self.below(1000) as u32) / 7.0),
            3 => json!(["x", "é😀", "a\u{0}b", "'; DROP TABLE t; --", ""][self.below(5) as usize]),
            4 => json!("y".repeat(self.below(100_000) as usize)),
            5 => Value::Array((0..self.below(5)).map(|_| self.value(depth + 1)).collect()),
            _ => Value::Object(
                (0..self.below(5))
                    .map(|i| (format!("k{i}"), self.value(depth + 1)))
                    .collect(),
            ),
        }
    }

    /// One message (a line of JSON text, not always valid) and whether a
    /// JSON-RPC answer with its id must come back.
    fn message(&mut self, id: u64) -> (String, bool) {
        const TOOLS: [&str; 10] = [
            "sql_execution",
            "sl_query",
            "discover_data",
            "entity_details",
            "dictionary_search",
            "wiki_read",
            "query",
            "history",
            "query_graph",
            "connection_list",
        ];
        let tool = TOOLS[self.below(TOOLS.len() as u64) as usize];
        match self.below(10) {
            0 => ("this is not json {".to_string(), false),
            1 => (format!("{}{}", "[".repeat(200), "]".repeat(200)), false),
            2 => (
                json!([{"jsonrpc":"2.0","id":id,"method":"ping"}, 7]).to_string(),
                false,
            ),
            3 => (
                json!({"jsonrpc":"2.0","id":id,"method":"no/such/method"}).to_string(),
                true,
            ),
            // rmcp's stdio transport drops a request whose params do not
            // decode, without an answer (HTTP answers 4xx): survival only.
            4 => (
                json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":"x"}).to_string(),
                false,
            ),
            5 => {
                let terms = 1 + self.below(20_000) as usize;
                let sql = format!(
                    "SELECT {}",
                    vec!["1"; terms].join(["+", " OR ", "||"][self.below(3) as usize])
                );
                let arguments = json!({"connectionId":"warehouse","sql":sql});
                (json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"sql_execution","arguments":arguments}}).to_string(), true)
            }
            6 => {
                let nested = format!(
                    "{}1{}",
                    "(".repeat(self.below(400) as usize),
                    ")".repeat(self.below(400) as usize)
                );
                let arguments = json!({"measures":["invoices.revenue"],"filters":[format!("invoices.id > {nested}")]});
                (json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"sl_query","arguments":arguments}}).to_string(), true)
            }
            _ => {
                let arguments = self.value(0);
                (json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":arguments}}).to_string(), true)
            }
        }
    }
}

/// Resident memory of `pid` in KiB (Linux).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn assert_well_formed(answer: &Value) {
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    assert!(
        answer.get("result").is_some() != answer.get("error").is_some(),
        "exactly one of result and error: {answer}"
    );
}

#[test]
fn stdio_survives_generated_and_malformed_messages() {
    let (_dir, root) = demo_project();
    let mut child = lore()
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let send = |stdin: &mut std::process::ChildStdin, text: &str| {
        writeln!(stdin, "{text}").unwrap();
        stdin.flush().unwrap();
    };
    send(&mut stdin, &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"blackbox","version":"1"}}}).to_string());
    let first: Value =
        serde_json::from_str(&rx.recv_timeout(Duration::from_secs(30)).unwrap()).unwrap();
    assert_well_formed(&first);
    send(
        &mut stdin,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let rss_before = rss_kib(child.id());

    let mut generator = Gen(0x5eed_1234_abcd_0001);
    let mut expected = std::collections::BTreeSet::new();
    let mut sent = std::collections::BTreeMap::new();
    for id in 1..=requests() as u64 {
        let (line, answered) = generator.message(id);
        if answered {
            expected.insert(id);
            sent.insert(id, line.chars().take(160).collect::<String>());
        }
        send(&mut stdin, &line);
    }
    // A normal call at the end must still be answered.
    let last = requests() as u64 + 1;
    send(&mut stdin, &json!({"jsonrpc":"2.0","id":last,"method":"tools/call","params":{"name":"connection_list","arguments":{}}}).to_string());
    expected.insert(last);
    let deadline = Instant::now() + Duration::from_secs(60 + requests() as u64 / 10);
    let mut last_result = None;
    while !expected.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx.recv_timeout(left).unwrap_or_else(|_| {
            let missing: Vec<&String> = expected
                .iter()
                .take(5)
                .filter_map(|id| sent.get(id))
                .collect();
            panic!(
                "no answer for {} messages, e.g. {missing:#?} (process alive: {:?})",
                expected.len(),
                child.try_wait()
            )
        });
        let answer: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:.200}"));
        assert_well_formed(&answer);
        if let Some(id) = answer["id"].as_u64() {
            expected.remove(&id);
            if id == last {
                last_result = Some(answer);
            }
        }
    }
    let last_result = last_result.unwrap();
    assert!(
        last_result["result"]["structuredContent"]["connections"].is_array(),
        "{last_result}"
    );
    assert!(child.try_wait().unwrap().is_none(), "the server exited");
    if let (Some(before), Some(after)) = (rss_before, rss_kib(child.id())) {
        println!(
            "stdio: {} messages, RSS {before} KiB → {after} KiB",
            requests()
        );
        assert!(
            after < before + 300 * 1024,
            "RSS grew from {before} to {after} KiB"
        );
    }
    drop(stdin);
    let _ = child.wait();
}

#[tokio::test]
async fn http_survives_generated_and_malformed_messages() {
    let (_dir, root) = demo_project();
    let mut command = Command::new(env!("CARGO_BIN_EXE_lore"));
    command
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "serve", "--port", "0"]);
    let mut server = spawn_http_server(command);
    let http = reqwest::Client::new();
    let post = |session: Option<String>, body: String| {
        let mut request = http
            .post(server.url.clone())
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(body);
        if let Some(session) = session {
            request = request
                .header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-06-18");
        }
        request.send()
    };
    let opened = post(None, json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"blackbox","version":"1"}}}).to_string()).await.unwrap();
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    post(
        Some(session.clone()),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
    )
    .await
    .unwrap();
    let rss_before = rss_kib(server.child.id());
    let mut generator = Gen(0x0dd_ba11_0000_0002);
    for id in 1..=requests() as u64 {
        let (body, _) = generator.message(id);
        let response = post(Some(session.clone()), body).await.unwrap();
        let status = response.status().as_u16();
        assert!(status < 500, "HTTP {status} for message {id}");
        let text = response.text().await.unwrap();
        let json_text = text
            .lines()
            .find_map(|l| l.strip_prefix("data:").map(str::trim))
            .unwrap_or(text.trim());
        if !json_text.is_empty() {
            let answer: Value = serde_json::from_str(json_text)
                .unwrap_or_else(|e| panic!("HTTP {status}: not JSON ({e}): {json_text:.200}"));
            if status == 200 {
                assert_well_formed(&answer);
            } else {
                assert!(
                    answer.get("code").is_some() || answer.get("error").is_some(),
                    "{answer}"
                );
            }
        }
    }
    let last = post(Some(session), json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"connection_list","arguments":{}}}).to_string()).await.unwrap();
    assert_eq!(last.status(), 200);
    assert!(last.text().await.unwrap().contains("warehouse"));
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server exited"
    );
    if let (Some(before), Some(after)) = (rss_before, rss_kib(server.child.id())) {
        println!(
            "http: {} messages, RSS {before} KiB → {after} KiB",
            requests()
        );
        assert!(
            after < before + 300 * 1024,
            "RSS grew from {before} to {after} KiB"
        );
    }
}
