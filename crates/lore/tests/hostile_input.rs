//! Requests that used to crash the server, through the real binary: long
//! flat SQL chains (which parse into trees as deep as they are long) and a
//! tool that panics. Each must be answered in-band while the process and
//! every other session keep serving.

mod common;

use common::{
    Client, Recorder, call, demo_project, error_of, http_client, lore, lore_in, ok,
    spawn_http_server, stdio_client,
};
use rmcp::ServiceExt;
use serde_json::{Value, json};

/// `first` repeated `terms` times, joined by `op`.
fn chain(first: &str, op: &str, terms: usize) -> String {
    vec![first; terms].join(op)
}

/// Every crash input the issue lists, as (tool, arguments).
fn crash_inputs() -> Vec<(&'static str, Value)> {
    let sql = |text: String| json!({"connectionId": "warehouse", "sql": text});
    let sl = |measure: String, filter: Option<String>| {
        let mut query = json!({"connectionId": "warehouse", "measures": [measure]});
        if let Some(filter) = filter {
            query["filters"] = json!([filter]);
        }
        query
    };
    vec![
        (
            "sql_execution",
            sql(format!("SELECT 1 WHERE {}", chain("1=1", " OR ", 40_000))),
        ),
        (
            "sql_execution",
            sql(format!("SELECT {}", chain("1", "+", 100_000))),
        ),
        (
            "sql_execution",
            sql(format!("SELECT {}", chain("'a'", "||", 100_000))),
        ),
        (
            "sql_execution",
            sql(format!("SELECT {}", chain("1", "*", 100_000))),
        ),
        (
            "sl_query",
            sl(
                "invoices.revenue".into(),
                Some(chain("invoices.id > 5", " AND ", 10_000)),
            ),
        ),
        (
            "sl_query",
            sl(format!("sum({})", chain("invoices.id", "+", 5_000)), None),
        ),
        (
            "sl_query",
            sl(
                "invoices.revenue".into(),
                Some(format!("invoices.id > {}", chain("1", "+", 2_000))),
            ),
        ),
    ]
}

/// Sends every crash input and asserts each is refused as `invalid_sql`
/// naming the limit, then that ordinary and long-but-legal calls still work.
async fn assert_crash_inputs_are_refused(client: &Client) {
    for (tool, arguments) in crash_inputs() {
        let result = call(client, tool, arguments)
            .await
            .unwrap_or_else(|e| panic!("{tool}: the server did not answer (crashed?): {e}"));
        let error = error_of(&result);
        assert_eq!(error["code"], "invalid_sql", "{tool}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("limits.sql_depth") && message.contains("IN ("),
            "{tool}: the message names the limit and how to rewrite: {message}"
        );
    }
    // The server still answers, and long queries within the limit run.
    let count = ok(
        client,
        "sql_execution",
        json!({
            "connectionId": "warehouse",
            "sql": format!("SELECT count(*) AS n FROM invoices WHERE {}", (1..=300).map(|i| format!("id = {i}")).collect::<Vec<_>>().join(" OR ")),
        }),
    )
    .await;
    assert_eq!(count["rows"][0][0], 300, "{count}");
    let revenue = ok(
        client,
        "sl_query",
        json!({
            "connectionId": "warehouse",
            "measures": ["invoices.revenue"],
            "filters": [chain("invoices.id > 0", " AND ", 200)],
        }),
    )
    .await;
    assert_eq!(
        revenue["rows"].as_array().map(Vec::len),
        Some(1),
        "{revenue}"
    );
}

#[tokio::test]
async fn crash_inputs_are_refused_over_stdio_and_the_server_keeps_serving() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    assert_crash_inputs_are_refused(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn crash_inputs_are_refused_over_http_and_other_sessions_keep_serving() {
    let (_dir, root) = demo_project();
    let mut command = lore();
    command
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "serve", "--port", "0"]);
    let mut server = spawn_http_server(command);
    let bystander = http_client(&server.url).await;
    let attacker = http_client(&server.url).await;
    assert_crash_inputs_are_refused(&attacker).await;
    ok(&bystander, "connection_list", json!({})).await;
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server exited"
    );
    attacker.cancel().await.unwrap();
    bystander.cancel().await.unwrap();
}

#[test]
fn the_cli_refuses_crash_inputs_with_the_limit_and_a_non_zero_exit() {
    let (_dir, root) = demo_project();
    let filter = format!("invoices.id > {}", chain("1", "+", 50_000));
    let out = lore_in(
        &root,
        &["sl", "query", "-m", "invoices.revenue", "-f", &filter],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("limits.sql_depth"), "{stderr}");

    use std::io::Write;
    let mut child = lore()
        .arg("--project-dir")
        .arg(&root)
        .args(["sql", "-c", "warehouse", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let sql = format!("SELECT {}", chain("1", "+", 100_000));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(sql.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("invalid_sql") || stderr.contains("limits.sql_depth"),
        "{stderr}"
    );
}

#[test]
fn the_limits_are_read_from_lore_yaml() {
    let (_dir, root) = demo_project();
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}\nlimits:\n  sql_depth: 10\n  sql_bytes: 4096\n"),
    )
    .unwrap();
    let deep = lore_in(
        &root,
        &[
            "sql",
            "-c",
            "warehouse",
            &format!("SELECT {}", chain("1", "+", 20)),
        ],
    );
    assert!(!deep.status.success());
    assert!(String::from_utf8_lossy(&deep.stderr).contains("over the limit of 10"));
    let long = lore_in(
        &root,
        &[
            "sql",
            "-c",
            "warehouse",
            &format!("SELECT '{}'", "x".repeat(5000)),
        ],
    );
    assert!(!long.status.success());
    assert!(String::from_utf8_lossy(&long.stderr).contains("over the limit of 4096"));
    let fine = lore_in(
        &root,
        &[
            "sql",
            "-c",
            "warehouse",
            &format!("SELECT {}", chain("1", "+", 5)),
        ],
    );
    assert!(
        fine.status.success(),
        "{}",
        String::from_utf8_lossy(&fine.stderr)
    );
}

#[tokio::test]
async fn a_panicking_call_answers_internal_and_both_transports_keep_serving() {
    let (_dir, root) = demo_project();
    // stdio: the session that saw the panic keeps working.
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_lore"));
    command
        .env("LORE_TEST_PANIC_IN_TOOL", "entity_details")
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "stdio"]);
    let (transport, stderr) = rmcp::transport::TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let client = Recorder::default().serve(transport).await.unwrap();
    let args = json!({"connectionId": "warehouse", "entities": ["invoices"]});
    let error = error_of(&call(&client, "entity_details", args.clone()).await.unwrap());
    assert_eq!(error["code"], "internal", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("request jsonrpc-"),
        "{error}"
    );
    ok(&client, "connection_list", json!({})).await;
    client.cancel().await.unwrap();
    let mut log = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stderr.unwrap(), &mut log)
        .await
        .unwrap();
    assert!(
        log.contains("injected by LORE_TEST_PANIC_IN_TOOL") && log.contains("backtrace"),
        "{log}"
    );

    // HTTP: the panic is logged with a backtrace and the request id; the
    // same session and another one keep working.
    let mut command = lore();
    command
        .env("LORE_TEST_PANIC_IN_TOOL", "entity_details")
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "serve", "--port", "0"]);
    let mut server = spawn_http_server(command);
    let first = http_client(&server.url).await;
    let second = http_client(&server.url).await;
    let error = error_of(&call(&first, "entity_details", args).await.unwrap());
    assert_eq!(error["code"], "internal", "{error}");
    ok(&first, "connection_list", json!({})).await;
    ok(&second, "connection_list", json!({})).await;
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server exited"
    );
    let log = server.log.lock().unwrap().join("\n");
    assert!(log.contains("injected by LORE_TEST_PANIC_IN_TOOL"), "{log}");
    assert!(log.contains("backtrace"), "{log}");
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

#[tokio::test]
async fn results_stay_within_their_byte_budget() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    // 10,000 wide rows: cut at the budget, with the reason and how to page.
    let wide = call(
        &client,
        "sql_execution",
        json!({"connectionId": "warehouse", "maxRows": 10000, "sql": "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000) SELECT i, printf('%.150c', 'x') AS a, printf('%.150c', 'y') AS b FROM c"}),
    )
    .await
    .unwrap();
    let text = &wide.content[0].as_text().unwrap().text;
    assert!(text.len() < 700 * 1024, "{} bytes of text", text.len());
    let out = wide.structured_content.unwrap();
    assert_eq!(out["truncated"], true);
    let rows = out["rows"].as_array().unwrap().len();
    assert!(rows > 100 && rows < 10_000, "{rows} rows");
    let notice = out["notice"].as_str().unwrap();
    assert!(
        notice.contains("limits.result_bytes") && notice.contains("ORDER BY"),
        "{notice}"
    );
    // One value larger than a result may carry is cut with a marker.
    let big = ok(
        &client,
        "sql_execution",
        json!({"connectionId": "warehouse", "sql": "SELECT 1 AS id, printf('%.2000000c', 'z') AS blob_text"}),
    )
    .await;
    let cell = &big["rows"][0][1]["$truncated"];
    assert_eq!(cell["bytes"], 2_000_002, "{big}");
    assert!(cell["preview"].as_str().unwrap().starts_with("zzz"));
    assert_eq!(big["rows"][0][0], 1);
    // A value SQLite would have to build in 600 MB is refused, not built.
    let huge = call(
        &client,
        "sql_execution",
        json!({"connectionId": "warehouse", "sql": "SELECT zeroblob(600000000)"}),
    )
    .await
    .unwrap();
    let error = error_of(&huge);
    assert!(
        error["message"].as_str().unwrap().contains("too big"),
        "{error}"
    );
    ok(&client, "connection_list", json!({})).await;
    client.cancel().await.unwrap();
}

/// One JSON-RPC request to `url` as a client sends it; the session id the
/// server gave and the raw messages of its answer (event-stream `data:`
/// lines, or the body itself).
async fn post_raw(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: Value,
) -> (Option<String>, Vec<String>) {
    let mut request = http
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session);
    }
    let response = request.send().await.unwrap();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let text = response.text().await.unwrap();
    let messages = if text.trim_start().starts_with('{') {
        vec![text]
    } else {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    };
    (session, messages)
}

#[tokio::test]
async fn a_wide_result_fits_one_megabyte_on_the_wire_and_says_it_was_cut() {
    let (_dir, root) = demo_project();
    let mut command = lore();
    command
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "serve", "--port", "0"]);
    let server = spawn_http_server(command);
    let http = reqwest::Client::new();
    let (session, _) = post_raw(
        &http,
        &server.url,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "wire", "version": "1"}}}),
    )
    .await;
    let session = session.expect("a session id");
    post_raw(
        &http,
        &server.url,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    // 10,000 wide rows of text: the text copy escapes every quote, so it
    // is larger than the structured answer.
    let (_, messages) = post_raw(
        &http,
        &server.url,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "sql_execution",
            "arguments": {"connectionId": "warehouse", "maxRows": 10000,
                "sql": "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000) SELECT i, printf('%.150c', 'x') AS a, printf('%.150c', 'y') AS b, printf('%.20c', '\"') AS q FROM c"}}}),
    )
    .await;
    let answer = messages
        .iter()
        .find(|m| m.contains("\"id\":2"))
        .expect("the call's answer");
    assert!(
        answer.len() <= 1_000_000,
        "{} bytes on the wire",
        answer.len()
    );
    let answer: Value = serde_json::from_str(answer).unwrap();
    let result = &answer["result"];
    assert_ne!(result["isError"], true, "{result}");
    let out = &result["structuredContent"];
    assert_eq!(out["truncated"], true);
    let rows = out["rows"].as_array().unwrap().len();
    assert!(rows > 500 && rows < 10_000, "{rows} rows");
    assert_eq!(out["rowCount"], rows);
    let notice = out["notice"].as_str().unwrap();
    assert!(
        notice.contains("limits.message_bytes") && notice.contains("ORDER BY"),
        "{notice}"
    );
    // The text copy is the same answer, cut the same way.
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["rows"].as_array().unwrap().len(), rows);
}
