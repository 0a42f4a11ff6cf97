//! MCP 2026-07-28 beside the handshake era, against the real `lore mcp`
//! processes: modern requests stand alone (no initialize, no session),
//! carry cache hints, and are refused when their `Mcp-Method`/`Mcp-Name`
//! headers disagree with the body; and the official Python SDK (2.x)
//! negotiates 2026-07-28 (`mode="auto"`) or the handshake era
//! (`mode="legacy"`) over stdio and HTTP, and hears a change another
//! process makes (`subscriptions/listen`, or `resources/subscribe`).
//! The SDK part needs `LORE_TEST_MCP_PY` (a Python with `mcp>=2` installed);
//! skipped with a notice when unset, required when `LORE_REQUIRE_MCP_PY=1`
//! (`.ci/run` installs it from PyPI when it can).

mod common;

use std::path::Path;

use common::{HttpServer, empty_project, lore, spawn_http_server};
use serde_json::{Value, json};

fn start(root: &Path) -> HttpServer {
    let mut command = lore();
    command
        .arg("--project-dir")
        .arg(root)
        .args(["mcp", "serve", "--port", "0"])
        .env_remove("LORE_MCP_TOKEN");
    spawn_http_server(command)
}

/// A modern request: the protocol version, capabilities and client in
/// `_meta`, as 2026-07-28 clients send them on every request.
fn modern(id: u64, method: &str, params: Value) -> Value {
    modern_with(id, method, params, json!({}))
}

/// A modern request from a client with `capabilities`.
fn modern_with(id: u64, method: &str, mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// POSTs `body` with the given `Mcp-Method` / `Mcp-Name` headers: the
/// HTTP status and the JSON-RPC answer.
async fn post(url: &str, body: &Value, method: &str, name: Option<&str>) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .body(body.to_string());
    if let Some(name) = name {
        request = request.header("Mcp-Name", name);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let answer = serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v.get("id").is_some())
            .unwrap_or(Value::String(text.clone()))
    });
    (status, answer)
}

#[tokio::test]
async fn modern_requests_stand_alone_carry_cache_hints_and_must_match_their_headers() {
    let (_dir, root) = empty_project();
    let server = start(&root);

    // No initialize, no session: a discover, then each request alone.
    let (status, answer) = post(
        &server.url,
        &modern(1, "server/discover", json!({})),
        "server/discover",
        None,
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert!(
        answer["result"]["supportedVersions"]
            .as_array()
            .is_some_and(
                |v| v.iter().any(|v| v == "2026-07-28") && v.iter().any(|v| v == "2025-11-25")
            ),
        "{answer}"
    );
    let (status, answer) = post(
        &server.url,
        &modern(2, "tools/list", json!({})),
        "tools/list",
        None,
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["ttlMs"], 300_000, "{answer}");
    assert_eq!(answer["result"]["cacheScope"], "private", "{answer}");
    let call = modern(
        3,
        "tools/call",
        json!({"name": "store", "arguments": {"topic": "modern", "content": "one request"}}),
    );
    let (status, answer) = post(&server.url, &call, "tools/call", Some("store")).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    // The current state may change with any write; a read pinned to a
    // transaction never does.
    let read = |id, uri: &str| modern(id, "resources/read", json!({"uri": uri}));
    let (_, answer) = post(
        &server.url,
        &read(4, "knowledge://entries"),
        "resources/read",
        Some("knowledge://entries"),
    )
    .await;
    assert_eq!(answer["result"]["ttlMs"], 0, "{answer}");
    let pinned = "knowledge://entries?as_of_tx_id=1";
    let (_, answer) = post(
        &server.url,
        &read(5, pinned),
        "resources/read",
        Some(pinned),
    )
    .await;
    assert_eq!(answer["result"]["ttlMs"], 86_400_000, "{answer}");

    // Headers that disagree with the body: the spec's header mismatch.
    let (status, answer) = post(&server.url, &call, "tools/list", Some("store")).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], -32020, "{answer}");
    let (status, answer) = post(&server.url, &call, "tools/call", Some("undo")).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], -32020, "{answer}");
    // Nothing was written by the refused calls.
    let entries = common::lore_in(&root, &["memory", "query", "--topic", "modern"]);
    let text = String::from_utf8_lossy(&entries.stdout);
    assert_eq!(text.matches("one request").count(), 1, "{text}");
}

#[tokio::test]
async fn long_calls_run_as_tasks_for_clients_that_declare_the_extension() {
    let (_dir, root) = empty_project();
    let server = start(&root);
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let ingest = |id, content: &str, capabilities: Value| {
        modern_with(
            id,
            "tools/call",
            json!({"name": "memory_ingest", "arguments": {"content": content}}),
            capabilities,
        )
    };

    // Without the extension: the tool's own answer, a run id to poll.
    let (_, answer) = post(
        &server.url,
        &ingest(1, "**Churn** is accounts lost in a month.", json!({})),
        "tools/call",
        Some("memory_ingest"),
    )
    .await;
    assert!(
        answer["result"]["structuredContent"]["runId"].is_string(),
        "{answer}"
    );
    assert!(answer["result"].get("taskId").is_none(), "{answer}");

    // With it: a task at once, followed by tasks/get to the run's end.
    let (status, answer) = post(
        &server.url,
        &ingest(2, "**Revenue** is paid invoices.", tasks.clone()),
        "tools/call",
        Some("memory_ingest"),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    let task_id = answer["result"]["taskId"].as_str().unwrap().to_string();
    let get = modern_with(3, "tasks/get", json!({"taskId": task_id}), tasks.clone());
    let mut last = Value::Null;
    for _ in 0..100 {
        let (_, answer) = post(&server.url, &get, "tasks/get", Some(&task_id)).await;
        last = answer["result"].clone();
        if last["status"] != "working" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(last["status"], "completed", "{last}");
    let result = &last["result"]["structuredContent"];
    assert_eq!(result["status"], "done", "{last}");
    assert!(
        result["captured"]["wiki"]
            .as_array()
            .unwrap()
            .iter()
            .any(|page| page["id"] == "glossary/revenue"),
        "{last}"
    );
    assert_eq!(last["statusMessage"], "memory_ingest: done", "{last}");

    // A task this server never made, and tasks/get from a client that
    // did not declare the extension.
    let unknown = modern_with(
        4,
        "tasks/get",
        json!({"taskId": "no-such-task"}),
        tasks.clone(),
    );
    let (_, answer) = post(&server.url, &unknown, "tasks/get", Some("no-such-task")).await;
    assert!(answer["error"]["code"].is_i64(), "{answer}");
    let undeclared = modern(5, "tasks/get", json!({"taskId": task_id}));
    let (_, answer) = post(&server.url, &undeclared, "tasks/get", Some(&task_id)).await;
    assert!(answer["error"]["code"].is_i64(), "{answer}");
}

/// Runs the SDK client script: its JSON report.
fn sdk(python: &str, mode: &str, target: &str, root: &Path) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/sdk_client.py");
    let out = std::process::Command::new(python)
        .args([
            script,
            mode,
            target,
            root.to_str().unwrap(),
            env!("CARGO_BIN_EXE_lore"),
        ])
        .env_remove("LORE_MCP_TOKEN")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{mode} {target}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_official_python_sdk_speaks_both_eras_over_stdio_and_http() {
    let Ok(python) = std::env::var("LORE_TEST_MCP_PY") else {
        assert!(
            std::env::var("LORE_REQUIRE_MCP_PY").as_deref() != Ok("1"),
            "LORE_REQUIRE_MCP_PY=1 but LORE_TEST_MCP_PY is not set"
        );
        eprintln!(
            "skipped: set LORE_TEST_MCP_PY to a Python with the MCP SDK 2.x (pip install 'mcp>=2,<3')"
        );
        return;
    };
    let (_dir, root) = empty_project();
    let server = start(&root);
    let mut tools = Vec::new();
    for target in ["stdio", server.url.as_str()] {
        let over = if target == "stdio" { "stdio" } else { "http" };
        let modern = sdk(&python, "auto", target, &root);
        assert_eq!(modern["protocol"], "2026-07-28", "{over}: {modern}");
        assert_eq!(modern["server"], "lore");
        assert_eq!(modern["store_error"], false, "{modern}");
        assert_eq!(modern["read_mentions_store"], true, "{modern}");
        assert_eq!(modern["tools_hints"]["ttlMs"], 300_000, "{modern}");
        assert_eq!(
            modern["tools_hints"]["cacheScope"],
            if over == "stdio" { "public" } else { "private" },
            "{modern}"
        );
        assert_eq!(modern["read_hints"]["ttlMs"], 0, "{modern}");
        // A write by another process (the CLI) reaches the listener.
        assert_eq!(
            modern["listen_honored"],
            json!(["knowledge://entries"]),
            "{modern}"
        );
        assert_eq!(modern["listen_event"], "ResourceUpdated", "{modern}");
        assert_eq!(modern["listen_uri"], "knowledge://entries", "{modern}");

        let legacy = sdk(&python, "legacy", target, &root);
        assert_eq!(legacy["protocol"], "2025-11-25", "{over}: {legacy}");
        assert_eq!(legacy["store_error"], false, "{legacy}");
        assert_eq!(legacy["legacy_update"], "knowledge://entries", "{legacy}");
        // The same tools in both eras.
        assert_eq!(modern["tools"], legacy["tools"]);
        tools.push(modern["tools"].clone());
    }
    assert_eq!(tools[0], tools[1], "stdio and HTTP list the same tools");
    assert!(
        tools[0]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "discover_data")
    );
}
