//! Helpers shared by the end-to-end tests: a demo project on disk, the
//! real `lore` binary, and an MCP client that records progress.

#![allow(dead_code)]

pub mod schema;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ProgressNotificationParam,
    ResourceUpdatedNotificationParam,
};
use rmcp::service::{NotificationContext, RunningService, ServiceError};
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;

/// The built `lore` binary.
pub fn lore() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lore"))
}

/// A fresh demo project (warehouse generated, server not started).
pub fn demo_project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    let output = lore()
        .arg("demo")
        .arg(&root)
        .arg("--no-serve")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "lore demo failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (dir, root)
}

/// A fresh empty project made by `lore init`.
pub fn empty_project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let output = lore().arg("init").arg(&root).output().unwrap();
    assert!(
        output.status.success(),
        "lore init failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (dir, root)
}

/// Runs `lore --project-dir ROOT ARGS…`.
/// `lore.yaml`'s text with `entries` (YAML lines, indented two spaces)
/// as its connections, in place of the starter file's `connections:` line.
pub fn with_connections(config: &str, entries: &str) -> String {
    config
        .lines()
        .map(|line| {
            if line.starts_with("connections:") {
                format!("connections:\n{entries}")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

pub fn lore_in(root: &Path, args: &[&str]) -> Output {
    lore()
        .arg("--project-dir")
        .arg(root)
        .args(args)
        .output()
        .unwrap()
}

/// `lore --project-dir root args…`: whether it succeeded, its stdout and
/// its stderr.
pub fn run(root: &Path, args: &[&str]) -> (bool, String, String) {
    let output = lore_in(root, args);
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A loopback port nothing listens on (at the time of asking).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// An MCP client that keeps every progress message and the URI of every
/// resource update it receives.
#[derive(Clone, Default)]
pub struct Recorder {
    pub progress: Arc<Mutex<Vec<String>>>,
    pub updated: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Recorder {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress
            .lock()
            .unwrap()
            .push(params.message.unwrap_or_default());
    }
}

pub type Client = RunningService<RoleClient, Recorder>;

/// An MCP client of a `lore mcp stdio` process serving the project at `root`.
pub async fn stdio_client(root: &Path) -> Client {
    use rmcp::ServiceExt;
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_lore"));
    command
        .arg("--project-dir")
        .arg(root)
        .args(["mcp", "stdio"]);
    let transport = rmcp::transport::TokioChildProcess::new(command).unwrap();
    Recorder::default().serve(transport).await.unwrap()
}

/// An MCP client of the Streamable HTTP server at `url`.
pub async fn http_client(url: &str) -> Client {
    use rmcp::ServiceExt;
    Recorder::default()
        .serve(rmcp::transport::StreamableHttpClientTransport::from_uri(
            url.to_string(),
        ))
        .await
        .unwrap()
}

/// Asserts that calling `tool` with `arguments` is answered in-band with
/// `invalid_arguments` whose message names the tool; returns the message.
pub async fn assert_invalid_arguments(
    client: &Client,
    tool: &'static str,
    arguments: Value,
) -> String {
    let result = call(client, tool, arguments.clone())
        .await
        .unwrap_or_else(|e| panic!("{tool} {arguments}: expected an in-band error, got {e:?}"));
    let error = error_of(&result);
    assert_eq!(
        error["code"], "invalid_arguments",
        "{tool} {arguments}: {error}"
    );
    assert_eq!(error["retryable"], false);
    let message = error["message"].as_str().unwrap().to_string();
    assert!(message.starts_with(tool), "{message}");
    message
}

/// Calls a tool with JSON arguments; a successful result's
/// `structuredContent` is checked against the tool's `outputSchema`.
pub async fn call(
    client: &Client,
    name: &'static str,
    arguments: Value,
) -> Result<CallToolResult, ServiceError> {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    let result = client
        .call_tool(CallToolRequestParams::new(name).with_arguments(arguments))
        .await?;
    // An error's `{"error": …}` must fit the schema too: SDK clients
    // check structured results even for errors.
    if let Some(structured) = &result.structured_content {
        assert_matches_output_schema(client, name, structured).await;
    }
    Ok(result)
}

/// The structured result of a call that must succeed.
pub async fn ok(client: &Client, tool: &'static str, arguments: Value) -> Value {
    let result = call(client, tool, arguments.clone()).await.unwrap();
    assert_ne!(
        result.is_error,
        Some(true),
        "{tool} {arguments}: {result:?}"
    );
    result.structured_content.unwrap()
}

/// Asserts that `structured` is valid under `tool`'s `outputSchema` as
/// `tools/list` gives it.
pub async fn assert_matches_output_schema(client: &Client, tool: &str, structured: &Value) {
    let tools = client.list_all_tools().await.unwrap();
    let schema = tools
        .iter()
        .find(|t| t.name == tool)
        .and_then(|t| t.output_schema.as_ref())
        .map(|s| Value::Object(s.as_ref().clone()))
        .unwrap_or_else(|| panic!("{tool}: no outputSchema"));
    if let Some(broken) = schema::violation(&schema, &schema, structured, "") {
        panic!("{tool}: structuredContent does not match its outputSchema: {broken}\n{structured}");
    }
}

/// The `{code, message, retryable}` of an in-band error result.
pub fn error_of(result: &CallToolResult) -> Value {
    assert_eq!(
        result.is_error,
        Some(true),
        "expected an in-band error: {result:?}"
    );
    let text = result.content[0]
        .as_text()
        .expect("text block")
        .text
        .clone();
    let error: Value = serde_json::from_str(&text).expect("error text is JSON");
    assert_eq!(
        result.structured_content,
        Some(serde_json::json!({ "error": error })),
        "the structured result carries the same error as the text"
    );
    error
}

/// The path of the committed `tools/list` snapshot.
pub const TOOLS_SNAPSHOT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../lore-mcp/tests/snapshots/tools_list.json"
);

/// What a user sees over either transport, asserted end to end.
pub async fn exercise_analytics_tools(client: &Client) {
    // tools/list over the wire is exactly the committed contract.
    let tools = client.list_all_tools().await.unwrap();
    let listed: Value = serde_json::to_value(&tools).unwrap();
    let snapshot: Value =
        serde_json::from_str(&std::fs::read_to_string(TOOLS_SNAPSHOT).unwrap()).unwrap();
    assert_eq!(listed, snapshot, "tools/list differs from the snapshot");

    // connection_list shows the demo warehouse.
    let listed = call(client, "connection_list", serde_json::json!({}))
        .await
        .unwrap();
    let structured = listed.structured_content.clone().unwrap();
    assert_eq!(structured["connections"][0]["id"], "warehouse");
    assert_eq!(structured["connections"][0]["dialect"], "sqlite");
    // The demo is scanned when it is created, so agents can read its tables.
    assert_eq!(structured["connections"][0]["lastScan"]["tableCount"], 9);
    // The text block is the same JSON, for text-only clients.
    let text: Value = serde_json::from_str(&listed.content[0].as_text().unwrap().text).unwrap();
    assert_eq!(text, structured);

    // A real query, with progress notifications.
    client.service().progress.lock().unwrap().clear();
    let counted = call(
        client,
        "sql_execution",
        serde_json::json!({"connectionId": "warehouse", "sql": "SELECT count(*) AS accounts FROM accounts WHERE deleted_at IS NULL"}),
    )
    .await
    .unwrap();
    assert_ne!(counted.is_error, Some(true), "{counted:?}");
    let result = counted.structured_content.clone().unwrap();
    assert_eq!(result["headers"], serde_json::json!(["accounts"]));
    assert_eq!(result["rowCount"], 1);
    assert_eq!(result["truncated"], false);
    let accounts = result["rows"][0][0].as_i64().unwrap();
    assert!(
        accounts > 1000 && accounts < 1200,
        "{accounts} live accounts"
    );
    let expected = ["Validating SQL", "Executing", "Fetched 1 rows"];
    let mut progress = Vec::new();
    for _ in 0..100 {
        progress = client.service().progress.lock().unwrap().clone();
        if progress.len() >= expected.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(progress, expected);

    // The row cap is honest about truncation and says how to get more.
    let capped = call(
        client,
        "sql_execution",
        serde_json::json!({"connectionId": "warehouse", "sql": "SELECT id, name FROM accounts ORDER BY id", "maxRows": 5}),
    )
    .await
    .unwrap()
    .structured_content
    .unwrap();
    assert_eq!(capped["rowCount"], 5);
    assert_eq!(capped["truncated"], true);
    assert!(capped["notice"].as_str().unwrap().contains("maxRows"));

    // A write attempt is refused in-band with a stable code.
    let refused = call(
        client,
        "sql_execution",
        serde_json::json!({"connectionId": "warehouse", "sql": "WITH x AS (SELECT 1) DELETE FROM accounts"}),
    )
    .await
    .unwrap();
    let error = error_of(&refused);
    assert_eq!(error["code"], "read_only_violation");
    assert_eq!(error["retryable"], false);
    assert!(
        error["message"].as_str().unwrap().contains("DELETE"),
        "{error}"
    );

    // SQL that does not parse says where.
    let invalid = call(
        client,
        "sql_execution",
        serde_json::json!({"connectionId": "warehouse", "sql": "SELEC 1"}),
    )
    .await
    .unwrap();
    let error = error_of(&invalid);
    assert_eq!(error["code"], "invalid_sql");
    assert!(
        error["message"].as_str().unwrap().contains("Line: 1"),
        "{error}"
    );

    // An unknown connection lists the real ones.
    let unknown = call(
        client,
        "sql_execution",
        serde_json::json!({"connectionId": "nope", "sql": "SELECT 1"}),
    )
    .await
    .unwrap();
    let error = error_of(&unknown);
    assert_eq!(error["code"], "not_found");
    assert!(
        error["message"].as_str().unwrap().contains("warehouse"),
        "{error}"
    );

    exercise_catalog_tools(client).await;
    exercise_semantic_tools(client).await;

    // Input that does not fit the schema is an in-band invalid_arguments.
    for bad in [
        serde_json::json!({"connectionId": "warehouse"}),
        serde_json::json!({"connectionId": "warehouse", "sql": "SELECT 1", "maxRows": 0}),
        serde_json::json!({"connectionId": "warehouse", "sql": "SELECT 1", "maxRows": "ten"}),
        serde_json::json!({"connectionId": "", "sql": "SELECT 1"}),
    ] {
        assert_invalid_arguments(client, "sql_execution", bad).await;
    }
}

/// entity_details and dictionary_search on the scanned demo.
async fn exercise_catalog_tools(client: &Client) {
    let details = call(
        client,
        "entity_details",
        serde_json::json!({"connectionId": "warehouse", "entities": [
            {"table": "accounts", "columns": ["segment", "deleted_at"]},
            "acounts",
            {"table": {"schema": "main", "table": "subscriptions"}},
            {"table": "invoices", "columns": ["total", "total_cents"]}
        ]}),
    )
    .await
    .unwrap();
    assert_ne!(details.is_error, Some(true), "{details:?}");
    let out = details.structured_content.clone().unwrap();
    let sync_id = out["snapshot"]["syncId"].as_str().unwrap().to_string();
    let accounts = &out["entities"][0];
    assert_eq!(accounts["status"], "ok");
    assert_eq!(accounts["display"], "accounts");
    assert_eq!(accounts["snapshot"]["syncId"], sync_id.as_str());
    let columns: Vec<&str> = accounts["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(columns, ["segment", "deleted_at"]);
    assert!(
        accounts["columns"][1]["comment"]
            .as_str()
            .unwrap()
            .contains("soft delete"),
        "{accounts}"
    );
    assert_eq!(
        accounts["columns"][0]["stats"]["sampleValues"],
        serde_json::json!(["SMB", "Mid-Market", "Enterprise"])
    );
    let typo = &out["entities"][1];
    assert_eq!(typo["status"], "error");
    assert_eq!(typo["error"]["code"], "table_not_found");
    assert_eq!(typo["error"]["candidates"], serde_json::json!(["accounts"]));
    let aliased = &out["entities"][2];
    assert_eq!(aliased["status"], "ok", "{{schema, table}} resolves");
    assert_eq!(aliased["tableRef"]["name"], "subscriptions");
    let partial = &out["entities"][3];
    assert_eq!(partial["status"], "partial");
    assert_eq!(partial["error"]["code"], "column_not_found");
    assert!(
        partial["error"]["candidates"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("total_cents")),
        "{partial}"
    );
    assert_eq!(partial["columns"].as_array().unwrap().len(), 1);

    let found = call(
        client,
        "dictionary_search",
        serde_json::json!({"values": ["acme labs", "past due", "Wonka Industries"]}),
    )
    .await
    .unwrap()
    .structured_content
    .unwrap();
    assert_eq!(found["searched"][0]["status"], "ready");
    let acme = &found["results"][0]["matches"][0];
    assert_eq!(acme["sourceName"], "accounts");
    assert_eq!(acme["columnName"], "name");
    assert_eq!(acme["matchedValue"], "Acme Labs");
    assert_eq!(acme["matchType"], "exact");
    let spellings: Vec<&str> = found["results"][1]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["matchedValue"].as_str().unwrap())
        .collect();
    assert_eq!(spellings, ["PastDue", "past_due"], "every legacy spelling");
    let miss = &found["results"][2];
    assert_eq!(miss["matches"], serde_json::json!([]));
    assert_eq!(miss["misses"][0]["reason"], "value_not_in_sample");
    assert!(found["notice"].as_str().unwrap().contains("not proof"));

    // An unknown connection is an in-band not_found naming the real ones.
    let unknown = call(
        client,
        "entity_details",
        serde_json::json!({"connectionId": "nope", "entities": ["accounts"]}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&unknown)["code"], "not_found");
    for bad in [
        serde_json::json!({"connectionId": "warehouse", "entities": []}),
        serde_json::json!({"connectionId": "warehouse", "entities": [{"table": {"db": "main"}}]}),
        serde_json::json!({"values": []}),
        serde_json::json!({"values": [" "]}),
    ] {
        let tool = if bad.get("values").is_some() {
            "dictionary_search"
        } else {
            "entity_details"
        };
        assert_invalid_arguments(client, tool, bad).await;
    }
}

/// Rounds the numbers of rows to cents, so sums added in another order compare equal.
fn cents(rows: &Value) -> Vec<Vec<String>> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|v| match v.as_f64() {
                    Some(f) => format!("{f:.2}"),
                    None => v.to_string(),
                })
                .collect()
        })
        .collect()
}

/// sl_read_source and sl_query on the demo's semantic model.
async fn exercise_semantic_tools(client: &Client) {
    let source = call(
        client,
        "sl_read_source",
        serde_json::json!({"connectionId": "warehouse", "sourceName": "invoices"}),
    )
    .await
    .unwrap()
    .structured_content
    .unwrap();
    assert!(
        source["yaml"].as_str().unwrap().contains("revenue"),
        "{source}"
    );
    assert!(
        source["measures"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("invoices.revenue")),
        "{source}"
    );
    let missing = call(
        client,
        "sl_read_source",
        serde_json::json!({"connectionId": "warehouse", "sourceName": "invoice"}),
    )
    .await
    .unwrap();
    let error = error_of(&missing);
    assert_eq!(error["code"], "not_found");
    assert!(
        error["message"].as_str().unwrap().contains("invoices"),
        "{error}"
    );

    // The one connection is found without connectionId; the numbers are
    // the ones hand-written SQL gives.
    let answer = call(
        client,
        "sl_query",
        serde_json::json!({"measures": ["invoices.revenue"], "dimensions": ["accounts.segment"],
                           "order_by": [{"field": "invoices.revenue", "direction": "desc"}], "limit": 2,
                           "include": ["sql", "plan"]}),
    )
    .await
    .unwrap();
    assert_ne!(answer.is_error, Some(true), "{answer:?}");
    let out = answer.structured_content.unwrap();
    assert_eq!(
        out["headers"],
        serde_json::json!(["accounts.segment", "invoices.revenue"])
    );
    assert_eq!(out["rowCount"], 2);
    assert_eq!(out["truncated"], true, "three segments, limit 2");
    assert!(out["sql"].as_str().unwrap().starts_with("WITH"), "{out}");
    assert_eq!(out["plan"][0]["strategy"], "direct");
    let oracle = call(
        client,
        "sql_execution",
        serde_json::json!({"connectionId": "warehouse", "sql":
            "SELECT a.segment, SUM(CASE WHEN i.status = 'paid' THEN i.total_cents / 100.0 END) AS r \
             FROM invoices i JOIN accounts a ON a.id = i.account_id GROUP BY 1 ORDER BY r DESC LIMIT 2"}),
    )
    .await
    .unwrap()
    .structured_content
    .unwrap();
    assert_eq!(cents(&out["rows"]), cents(&oracle["rows"]));

    // A fan-out join is handled and explained.
    let fan = call(
        client,
        "sl_query",
        serde_json::json!({"connectionId": "warehouse", "measures": ["invoices.revenue"],
                           "dimensions": ["invoice_lines.line_type"]}),
    )
    .await
    .unwrap()
    .structured_content
    .unwrap();
    assert!(
        fan["notes"][0].as_str().unwrap().contains("one-to-many"),
        "{fan}"
    );

    // Tickets per paying account by plan: two fact sources (chasm) and a
    // one-to-many step from accounts to subscriptions (fan), in one call.
    let ratio = call(
        client,
        "sl_query",
        serde_json::json!({"measures": [{"expr": "support_tickets.tickets / subscriptions.paying_accounts", "name": "tickets_per_paying_account"}],
                           "dimensions": ["plans.name"],
                           "filters": ["subscriptions.status_normalized = 'active'"]}),
    )
    .await
    .unwrap();
    assert_ne!(ratio.is_error, Some(true), "{ratio:?}");
    let ratio = ratio.structured_content.unwrap();
    assert!(ratio["rowCount"].as_u64().unwrap() >= 3, "{ratio}");
    let notes = ratio["notes"].to_string();
    assert!(
        notes.contains("chasm") && notes.contains("one-to-many"),
        "{notes}"
    );

    // A typo is answered in-band with the names that exist.
    let typo = call(
        client,
        "sl_query",
        serde_json::json!({"measures": ["invoices.revenu"]}),
    )
    .await
    .unwrap();
    let error = error_of(&typo);
    assert_eq!(error["code"], "not_found");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("invoices.revenu"),
        "{error}"
    );
}

/// A running `lore … mcp serve`, killed when dropped, with its stderr kept
/// (the server's log lines).
pub struct HttpServer {
    pub child: std::process::Child,
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// What the server wrote to stderr after it started listening.
    pub log: Arc<Mutex<Vec<String>>>,
}

impl HttpServer {
    /// The URL without `/mcp`.
    pub fn base(&self) -> &str {
        self.url.trim_end_matches("/mcp")
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Spawns `command` (a `lore … mcp serve --port 0`) and waits until it says
/// where it listens; its stderr is then drained into `log`.
pub fn spawn_http_server(mut command: Command) -> HttpServer {
    use std::io::{BufRead, BufReader};
    let mut child = command
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("server exited before listening")
            .unwrap();
        if let Some(url) = line.split("listening on ").nth(1) {
            break url.trim().to_string();
        }
    };
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            sink.lock().unwrap().push(line);
        }
    });
    HttpServer { child, url, log }
}

/// A chat model on loopback speaking the real wire protocol (OpenAI's or
/// Anthropic's JSON over HTTP): each request gets the next scripted
/// `(status, body)`; the request bodies are kept. Returns the base URL
/// (`http://127.0.0.1:<port>/v1`).
pub fn chat_double(answers: Vec<(u16, String)>) -> (String, Arc<Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&bodies);
    std::thread::spawn(move || {
        for (status, body) in answers {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream);
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut request = vec![0; length];
            let _ = reader.read_exact(&mut request);
            kept.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&request).to_string());
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nRetry-After: 0\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, bodies)
}

/// The billing model the warehouse end-to-end tests query (plans,
/// accounts, invoices with their lines, tickets): a fan trap (revenue by the
/// products of invoice lines) and a chasm trap (revenue and tickets by
/// segment) wait in it.
pub const BILLING_MODEL: &str = r#"
- { name: plans, table: plans, grain: [id], columns: [{ name: id, type: number }, { name: name, type: string }] }
- name: accounts
  table: accounts
  grain: [id]
  columns: [{ name: id, type: number }, { name: name, type: string }, { name: segment, type: string }, { name: plan_id, type: number }]
  joins: [{ to: plans, "on": "plan_id = plans.id", relationship: many_to_one }]
  measures: [{ name: count, expr: "count(*)" }]
- name: invoices
  table: invoices
  grain: [id]
  columns: [{ name: id, type: number }, { name: account_id, type: number }, { name: amount_cents, type: number }, { name: status, type: string }, { name: issued_at, type: time }]
  joins: [{ to: accounts, "on": "account_id = accounts.id", relationship: many_to_one }]
  measures: [{ name: revenue, expr: "sum(amount_cents) / 100.0" }]
- name: invoice_lines
  table: invoice_lines
  grain: [id]
  columns: [{ name: id, type: number }, { name: invoice_id, type: number }, { name: product, type: string }]
  joins: [{ to: invoices, "on": "invoice_id = invoices.id", relationship: many_to_one }]
- name: tickets
  table: tickets
  grain: [id]
  columns: [{ name: id, type: number }, { name: account_id, type: number }, { name: priority, type: string }]
  joins: [{ to: accounts, "on": "account_id = accounts.id", relationship: many_to_one }]
  measures: [{ name: ticket_count, expr: "count(*)" }]
"#;

/// Rows as `label → number` pairs, sorted (null labels read `∅`).
pub fn label_number_pairs(rows: &Value) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let label = match &r[0] {
                Value::Null => "∅".to_string(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let n = match &r[1] {
                Value::Number(n) => n.as_f64().unwrap(),
                Value::String(s) => s.parse().unwrap(),
                Value::Null => f64::NAN,
                other => panic!("{other}"),
            };
            (label, n)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// What agents see of a warehouse holding the billing fixture, scanned
/// and modelled with [`BILLING_MODEL`]: values found by dictionary_search,
/// tables by discover_data, and the fan-trap and chasm-trap questions
/// answered as computed by hand.
pub async fn assert_billing_answers(client: &Client, connection: &str) {
    use serde_json::json;
    let found = ok(
        client,
        "dictionary_search",
        json!({"values": ["enterprise"]}),
    )
    .await;
    assert!(found.to_string().contains("segment"), "{found}");
    let discovered = ok(
        client,
        "discover_data",
        json!({"query": "tickets priority"}),
    )
    .await;
    assert!(discovered.to_string().contains("tickets"), "{discovered}");
    // A fan trap (revenue by product of its lines) and a chasm trap
    // (revenue and tickets by segment), against hand-computed answers.
    let fan = ok(
        client,
        "sl_query",
        json!({"connectionId": connection, "measures": ["invoices.revenue"], "dimensions": ["invoice_lines.product"], "include": ["plan"]}),
    )
    .await;
    assert_eq!(fan["plan"][0]["strategy"], "distinct_keys", "{fan}");
    assert_eq!(
        label_number_pairs(&fan["rows"]),
        [
            ("seats".to_string(), 1020.0),
            ("storage".to_string(), 170.0),
            ("support".to_string(), 800.0),
            // Invoice 2 has no lines.
            ("∅".to_string(), 25.0),
        ]
    );
    let chasm = ok(
        client,
        "sl_query",
        json!({"connectionId": connection, "measures": ["invoices.revenue", "tickets.ticket_count"], "dimensions": ["accounts.segment"]}),
    )
    .await;
    let mut got: Vec<String> = chasm["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.to_string())
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            "[\"enterprise\",920.0,2]".to_string(),
            "[\"smb\",195.0,3]".to_string(),
            "[null,null,1]".to_string(),
        ],
        "{chasm}"
    );
}
