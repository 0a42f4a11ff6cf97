//! The HTTP server's security and session contract, against the real
//! `lore mcp serve` process: tokens and scopes (401/403), the per-tool
//! scope in `tools/list` and `tools/call`, the Host and Origin gate, rate
//! limits (429), request ids, `/metrics`, and the session lifecycle
//! (initialize, SSE GET, DELETE, unknown and expired sessions → 404).

mod common;

use std::path::Path;

use common::{HttpServer, empty_project, lore, spawn_http_server};
use reqwest::StatusCode;
use serde_json::{Value, json};

const READER: &str = "reader-token-0123456789";
const WRITER: &str = "writer-token-0123456789";
const ADMIN: &str = "admin-token-0123456789ab";

/// Replaces the `mcp:` block of `lore init`'s lore.yaml.
fn configure_mcp(root: &Path, block: &str) {
    let path = root.join("lore.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let (head, _) = text
        .split_once("\nmcp:\n")
        .expect("lore init writes an mcp block");
    std::fs::write(&path, format!("{head}\nmcp:\n{block}")).unwrap();
}

fn tokens_block() -> String {
    format!(
        "  tokens:\n    - {{ name: ci, token: {READER}, scope: reader }}\n    - {{ name: bot, token: {WRITER}, scope: writer }}\n    - {{ name: ops, token: {ADMIN}, scope: admin }}\n"
    )
}

fn start(root: &Path) -> HttpServer {
    let mut command = lore();
    command
        .arg("--project-dir")
        .arg(root)
        .args(["mcp", "serve", "--port", "0", "--log-format", "json"])
        .env("LORE_LOG", "info,rmcp=warn")
        .env_remove("LORE_MCP_TOKEN");
    spawn_http_server(command)
}

/// One JSON-RPC POST to /mcp: status, headers and the JSON-RPC answer (from
/// a JSON body or the SSE stream's data lines).
struct Answer {
    status: StatusCode,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

async fn post(
    http: &reqwest::Client,
    base: &str,
    token: Option<&str>,
    session: Option<&str>,
    message: Value,
) -> Answer {
    let mut request = http
        .post(format!("{base}/mcp"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(message.to_string());
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    if let Some(session) = session {
        request = request
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-06-18");
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v.get("id").is_some())
            .unwrap_or(Value::String(text.clone()))
    });
    Answer {
        status,
        headers,
        body,
    }
}

/// Initialises a session; returns its id.
async fn open_session(http: &reqwest::Client, base: &str, token: Option<&str>) -> String {
    let answer = post(
        http,
        base,
        token,
        None,
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},
            "clientInfo":{"name":"security-test","version":"1"}}}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let session = answer.headers["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    let done = post(
        http,
        base,
        token,
        Some(&session),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    )
    .await;
    assert!(done.status.is_success(), "{}", done.status);
    session
}

async fn tool_names(http: &reqwest::Client, base: &str, token: &str, session: &str) -> Vec<String> {
    let answer = post(
        http,
        base,
        Some(token),
        Some(session),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
    )
    .await;
    answer.body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":name,"arguments":arguments}})
}

#[tokio::test]
async fn tokens_and_scopes_decide_what_a_caller_sees_and_may_call() {
    let (_dir, root) = empty_project();
    configure_mcp(&root, &tokens_block());
    let server = start(&root);
    let base = server.base();
    let http = reqwest::Client::new();
    let initialize = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});

    // No credentials: 401 with the challenge; a wrong token: 403.
    let missing = post(&http, base, None, None, initialize.clone()).await;
    assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
    assert_eq!(missing.body["code"], "unauthorized");
    assert!(missing.headers.contains_key("www-authenticate"));
    let wrong = post(
        &http,
        base,
        Some("not-a-valid-token-at-all"),
        None,
        initialize,
    )
    .await;
    assert_eq!(wrong.status, StatusCode::FORBIDDEN);
    assert_eq!(wrong.body["code"], "forbidden");

    // A reader sees exactly the read-only tools.
    let session = open_session(&http, base, Some(READER)).await;
    let reader_tools = tool_names(&http, base, READER, &session).await;
    for read_only in [
        "discover_data",
        "sql_execution",
        "query",
        "wiki_read",
        "history",
    ] {
        assert!(
            reader_tools.contains(&read_only.to_string()),
            "{reader_tools:?}"
        );
    }
    for write in ["store", "update", "delete", "relate", "undo", "wiki_write"] {
        assert!(
            !reader_tools.contains(&write.to_string()),
            "{write} shown to a reader"
        );
    }
    // …may call them, and is refused a write with 403 naming the scope.
    let query = post(
        &http,
        base,
        Some(READER),
        Some(&session),
        call("query", json!({})),
    )
    .await;
    assert_eq!(query.status, StatusCode::OK);
    assert!(query.body["result"].is_object(), "{}", query.body);
    let store = call("store", json!({"topic":"t","content":"c"}));
    let refused = post(&http, base, Some(READER), Some(&session), store.clone()).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.body["code"], "forbidden");
    let message = refused.body["message"].as_str().unwrap();
    assert!(
        message.contains("writer") && message.contains("`ci`"),
        "{message}"
    );

    // A writer sees and may call the writes; the refused write left nothing.
    let session = open_session(&http, base, Some(WRITER)).await;
    let writer_tools = tool_names(&http, base, WRITER, &session).await;
    assert!(writer_tools.contains(&"store".to_string()));
    assert!(writer_tools.len() > reader_tools.len());
    let stored = post(&http, base, Some(WRITER), Some(&session), store).await;
    assert_eq!(stored.status, StatusCode::OK);
    assert_eq!(stored.body["result"]["isError"], false, "{}", stored.body);
    let listed = post(
        &http,
        base,
        Some(WRITER),
        Some(&session),
        call("query", json!({})),
    )
    .await;
    assert_eq!(
        listed.body["result"]["structuredContent"]["items"]
            .as_array()
            .map(Vec::len),
        Some(1),
        "{}",
        listed.body
    );

    // /metrics: admin only when the server has tokens.
    let metrics = |token: Option<&str>| {
        let mut request = http.get(format!("{base}/metrics"));
        if let Some(token) = token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        request.send()
    };
    assert_eq!(
        metrics(None).await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        metrics(Some(READER)).await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    let text = metrics(Some(ADMIN)).await.unwrap().text().await.unwrap();
    assert!(
        text.contains(r#"lore_mcp_requests_total{tool="store",result="ok"} 1"#),
        "{text}"
    );
    assert!(
        text.contains(r#"lore_mcp_requests_total{tool="query",result="ok"} 2"#),
        "{text}"
    );
    assert!(text.contains("lore_mcp_sessions 2"), "{text}");
    assert!(
        text.contains(r#"lore_mcp_http_rejections_total{reason="forbidden"}"#),
        "{text}"
    );

    // The Host gate holds even for a valid token.
    let rebinding = http
        .get(format!("{base}/health"))
        .header("Host", "attacker.example")
        .send()
        .await
        .unwrap();
    assert_eq!(rebinding.status(), StatusCode::FORBIDDEN);

    // Every call was logged as JSON with its tool and argument shapes, and
    // no token appears anywhere in the log.
    // The log lines arrive on the server's stderr: wait until the store
    // call's line is there.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !server
        .log
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.contains("\"tool\":\"store\""))
    {
        assert!(std::time::Instant::now() < deadline, "no store line logged");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let log = server.log.lock().unwrap().join("\n");
    let stored_line = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["tool"] == "store" && l["result"] == "ok")
        .unwrap_or_else(|| panic!("no log line for the store call in:\n{log}"));
    assert_eq!(stored_line["client"], "bot");
    assert!(
        stored_line["args"]
            .as_str()
            .unwrap()
            .contains("content: string(1)")
    );
    assert!(stored_line["duration_ms"].is_number());
    for secret in [READER, WRITER, ADMIN, "not-a-valid-token-at-all"] {
        assert!(!log.contains(secret), "a token leaked into the log");
    }
}

#[tokio::test]
async fn each_client_is_rate_limited_with_a_retry_after() {
    let (_dir, root) = empty_project();
    configure_mcp(
        &root,
        &format!(
            "{}  rate_limit: {{ requests: 3, window_seconds: 60 }}\n",
            tokens_block()
        ),
    );
    let server = start(&root);
    let http = reqwest::Client::new();
    let ping = json!({"jsonrpc":"2.0","id":9,"method":"ping"});
    let session = open_session(&http, server.base(), Some(READER)).await; // 2 requests
    let third = post(
        &http,
        server.base(),
        Some(READER),
        Some(&session),
        ping.clone(),
    )
    .await;
    assert_eq!(third.status, StatusCode::OK);
    let fourth = post(
        &http,
        server.base(),
        Some(READER),
        Some(&session),
        ping.clone(),
    )
    .await;
    assert_eq!(fourth.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(fourth.body["code"], "rate_limited");
    assert_eq!(fourth.body["retryable"], true);
    let retry: u64 = fourth.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    // Another token is another client.
    let other = open_session(&http, server.base(), Some(WRITER)).await;
    assert!(!other.is_empty());
}

#[tokio::test]
async fn request_ids_are_echoed_or_made_up() {
    let (_dir, root) = empty_project();
    let server = start(&root);
    let http = reqwest::Client::new();
    let given = http
        .get(format!("{}/health", server.base()))
        .header("X-Request-ID", "trace-42.a")
        .send()
        .await
        .unwrap();
    assert_eq!(given.headers()["x-request-id"], "trace-42.a");
    let made = http
        .get(format!("{}/health", server.base()))
        .header("X-Request-ID", "bad id with spaces")
        .send()
        .await
        .unwrap();
    let id = made.headers()["x-request-id"].to_str().unwrap().to_string();
    assert_eq!(id.len(), 32, "{id}");
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    let health: Value = serde_json::from_str(&made.text().await.unwrap()).unwrap();
    assert_eq!(health["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(health["tokenAuth"], false);
    // Without tokens, /metrics answers loopback callers.
    let metrics = http
        .get(format!("{}/metrics", server.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(metrics.status(), StatusCode::OK);
}

#[tokio::test]
async fn sessions_open_stream_end_and_expire() {
    let (_dir, root) = empty_project();
    configure_mcp(&root, "  session_idle_seconds: 2\n");
    let server = start(&root);
    let base = server.base();
    let http = reqwest::Client::new();
    let ping = json!({"jsonrpc":"2.0","id":5,"method":"ping"});

    let session = open_session(&http, base, None).await;
    assert!(session.len() >= 16, "{session}");
    // GET opens the session's event stream.
    let stream = http
        .get(format!("{base}/mcp"))
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    assert!(
        stream.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    drop(stream);
    // DELETE ends it; the id is then unknown: 404, so clients re-initialise.
    let deleted = http
        .delete(format!("{base}/mcp"))
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    let after = post(&http, base, None, Some(&session), ping.clone()).await;
    assert_eq!(after.status, StatusCode::NOT_FOUND);
    assert_eq!(after.body["code"], "not_found", "{}", after.body);
    let unknown = post(&http, base, None, Some("no-such-session"), ping.clone()).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(
        unknown.body["message"]
            .as_str()
            .unwrap()
            .contains("initialize"),
        "{}",
        unknown.body
    );

    // An idle session expires after mcp.session_idle_seconds.
    let idle = open_session(&http, base, None).await;
    let alive = post(&http, base, None, Some(&idle), ping.clone()).await;
    assert_eq!(alive.status, StatusCode::OK);
    tokio::time::sleep(std::time::Duration::from_millis(3500)).await;
    let expired = post(&http, base, None, Some(&idle), ping).await;
    assert_eq!(expired.status, StatusCode::NOT_FOUND);
}

#[test]
fn a_server_beyond_loopback_needs_a_token_of_sufficient_length() {
    let (_dir, root) = empty_project();
    let run = |token: Option<&str>| {
        let mut command = lore();
        command
            .arg("--project-dir")
            .arg(&root)
            .args(["mcp", "serve", "--host", "0.0.0.0", "--port", "0"])
            .env_remove("LORE_MCP_TOKEN");
        if let Some(token) = token {
            command.env("LORE_MCP_TOKEN", token);
        }
        command.output().unwrap()
    };
    let refused = run(None);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("without a token") && stderr.contains("LORE_MCP_TOKEN"),
        "{stderr}"
    );
    let short = run(Some("short"));
    let stderr = String::from_utf8_lossy(&short.stderr);
    assert!(stderr.contains("too short"), "{stderr}");
    assert!(
        !stderr.contains("short is"),
        "the token itself is not echoed"
    );
}

#[tokio::test]
async fn every_refusal_has_a_json_body_a_wrong_content_type_is_415_and_malformed_json_rpc_400() {
    let (_dir, root) = empty_project();
    configure_mcp(
        &root,
        &format!("  tokens:\n    - {{ name: r, token: {READER}, scope: reader }}\n"),
    );
    let server = start(&root);
    let base = server.base();
    let http = reqwest::Client::new();
    let json_of = |text: &str| -> Value {
        serde_json::from_str(text).unwrap_or_else(|_| panic!("not JSON: {text}"))
    };
    // 415: a body that is not JSON-RPC as JSON.
    let wrong = http
        .post(format!("{base}/mcp"))
        .header("Authorization", format!("Bearer {READER}"))
        .header("Content-Type", "text/plain")
        .header("Accept", "application/json, text/event-stream")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let body = json_of(&wrong.text().await.unwrap());
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("application/json"),
        "{body}"
    );
    // 400 with a JSON-RPC error: broken JSON (-32700), a batch and JSON
    // that is no JSON-RPC message (-32600).
    for (body, code) in [
        (r#"{"jsonrpc": "2.0", "id": 1, "method": "#, -32700),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600),
        (r#"{"hello": "world"}"#, -32600),
    ] {
        let refused = http
            .post(format!("{base}/mcp"))
            .header("Authorization", format!("Bearer {READER}"))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{body}");
        let answer = json_of(&refused.text().await.unwrap());
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert_eq!(answer["id"], Value::Null, "{answer}");
        assert_eq!(answer["error"]["code"], code, "{body}: {answer}");
        assert_eq!(answer["error"]["data"]["code"], "invalid_request");
    }
    // 401 and 403 from the token check, 404 for a path and for a session.
    let missing = http.post(format!("{base}/mcp")).send().await.unwrap();
    assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        json_of(&missing.text().await.unwrap())["code"],
        "unauthorized"
    );
    let bad = http
        .post(format!("{base}/mcp"))
        .header("Authorization", "Bearer not-a-token-of-this-server")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::FORBIDDEN);
    assert_eq!(json_of(&bad.text().await.unwrap())["code"], "forbidden");
    let nowhere = http.get(format!("{base}/nowhere")).send().await.unwrap();
    assert_eq!(nowhere.status(), StatusCode::NOT_FOUND);
    assert_eq!(json_of(&nowhere.text().await.unwrap())["code"], "not_found");
    let gone = post(
        &http,
        base,
        Some(READER),
        Some("no-such-session"),
        json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
    )
    .await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    assert_eq!(gone.body["code"], "not_found", "{}", gone.body);
}

#[tokio::test]
async fn gateway_reports_and_controls_follow_the_scopes() {
    let (_dir, root) = empty_project();
    configure_mcp(&root, &tokens_block());
    std::fs::create_dir_all(root.join("repo/src")).unwrap();
    std::fs::write(root.join("repo/src/app.py"), "def run():\n    return 1\n").unwrap();
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}gateway:\n  roots:\n    - path: repo\n"),
    )
    .unwrap();
    let server = start(&root);
    let base = server.base();
    let http = reqwest::Client::new();

    // A reader searches and reads coverage; the lifecycle report, ingest
    // controls and file writes are neither listed nor callable.
    let session = open_session(&http, base, Some(READER)).await;
    let reader_tools = tool_names(&http, base, READER, &session).await;
    for read in [
        "km-search",
        "km-coverage-summary",
        "km-graph-node",
        "km-help",
    ] {
        assert!(reader_tools.contains(&read.to_string()), "{reader_tools:?}");
    }
    for admin in [
        "km-lifecycle-report",
        "km-ingest-status",
        "km-feedback-submit",
        "km-backup-trigger",
        "km-recipe-run",
        "km-ingest-trigger",
        "km-upload",
        "km-storetext",
    ] {
        assert!(
            !reader_tools.contains(&admin.to_string()),
            "{admin} shown to a reader"
        );
    }
    let refused = post(
        &http,
        base,
        Some(READER),
        Some(&session),
        call("km-lifecycle-report", json!({})),
    )
    .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.body["code"], "forbidden");
    let coverage = post(
        &http,
        base,
        Some(READER),
        Some(&session),
        call("km-coverage-summary", json!({})),
    )
    .await;
    assert_eq!(coverage.status, StatusCode::OK);
    assert_eq!(
        coverage.body["result"]["isError"], false,
        "{}",
        coverage.body
    );

    // The spec's maintainer tools are an admin's: a writer token neither
    // sees nor calls them (it could otherwise write into a root).
    let session = open_session(&http, base, Some(WRITER)).await;
    let writer_tools = tool_names(&http, base, WRITER, &session).await;
    for admin in [
        "km-ingest-status",
        "km-feedback-submit",
        "km-upload",
        "km-storetext",
    ] {
        assert!(
            !writer_tools.contains(&admin.to_string()),
            "{admin} shown to a writer"
        );
    }
    let refused = post(
        &http,
        base,
        Some(WRITER),
        Some(&session),
        call(
            "km-storetext",
            json!({"content": "x", "destination": "notes.md"}),
        ),
    )
    .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(!root.join("repo/notes.md").exists());

    // An admin has them all.
    let session = open_session(&http, base, Some(ADMIN)).await;
    let admin_tools = tool_names(&http, base, ADMIN, &session).await;
    for tool in ["km-lifecycle-report", "km-ingest-trigger", "km-upload"] {
        assert!(admin_tools.contains(&tool.to_string()), "{admin_tools:?}");
    }
    let ingest = post(
        &http,
        base,
        Some(ADMIN),
        Some(&session),
        call("km-ingest-trigger", json!({})),
    )
    .await;
    assert_eq!(ingest.body["result"]["isError"], false, "{}", ingest.body);
    let report = post(
        &http,
        base,
        Some(ADMIN),
        Some(&session),
        call("km-lifecycle-report", json!({})),
    )
    .await;
    assert_eq!(report.body["result"]["isError"], false, "{}", report.body);
    assert_eq!(
        report.body["result"]["structuredContent"]["missing_tests"][0]["subsystem"], "src",
        "{}",
        report.body
    );
    // Recipes run their steps with the admin's rights, logged by token.
    let recipe = post(
        &http,
        base,
        Some(ADMIN),
        Some(&session),
        call("km-recipe-run", json!({"recipe": "stale-audit"})),
    )
    .await;
    assert_eq!(
        recipe.body["result"]["structuredContent"]["status"], "success",
        "{}",
        recipe.body
    );
    let log = std::fs::read_to_string(root.join(".lore/gateway/recipes.jsonl")).unwrap();
    assert!(log.contains("\"actor\":\"token:"), "{log}");

    // Feedback is counted per token: the voter is the token's name.
    let found = post(
        &http,
        base,
        Some(ADMIN),
        Some(&session),
        call("km-search", json!({"query": "run"})),
    )
    .await;
    let found = &found.body["result"]["structuredContent"];
    let vote = post(
        &http,
        base,
        Some(ADMIN),
        Some(&session),
        call(
            "km-feedback-submit",
            json!({"request_id": found["metadata"]["request_id"], "chunk_id": found["results"][0]["chunk"]["chunk_id"], "vote": 1}),
        ),
    )
    .await;
    assert_eq!(
        vote.body["result"]["structuredContent"]["feedback"]["voter"], "token:ops",
        "{}",
        vote.body
    );
}

#[tokio::test]
async fn gateway_tool_scopes_lower_a_maintainer_tool_only_when_set() {
    let (_dir, root) = empty_project();
    configure_mcp(&root, &tokens_block());
    std::fs::create_dir_all(root.join("repo")).unwrap();
    std::fs::write(root.join("repo/app.py"), "def run():\n    return 1\n").unwrap();
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!(
            "{text}gateway:\n  roots:\n    - path: repo\n  tool_scopes:\n    km-feedback-submit: writer\n    km-ingest-status: reader\n"
        ),
    )
    .unwrap();
    let server = start(&root);
    let base = server.base();
    let http = reqwest::Client::new();

    let session = open_session(&http, base, Some(WRITER)).await;
    let writer_tools = tool_names(&http, base, WRITER, &session).await;
    assert!(writer_tools.contains(&"km-feedback-submit".to_string()));
    assert!(!writer_tools.contains(&"km-storetext".to_string()));
    // The call reaches the tool (which finds no such search).
    let vote = post(
        &http,
        base,
        Some(WRITER),
        Some(&session),
        call(
            "km-feedback-submit",
            json!({"request_id": "req-none", "chunk_id": "app.py::run", "vote": 1}),
        ),
    )
    .await;
    assert_eq!(vote.status, StatusCode::OK, "{}", vote.body);
    assert_eq!(vote.body["result"]["isError"], true, "{}", vote.body);
    assert!(
        vote.body["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not_found"),
        "{}",
        vote.body
    );

    let session = open_session(&http, base, Some(READER)).await;
    let reader_tools = tool_names(&http, base, READER, &session).await;
    assert!(reader_tools.contains(&"km-ingest-status".to_string()));
    assert!(!reader_tools.contains(&"km-feedback-submit".to_string()));
}
