//! Run and task states that tell the truth, against the real `lore mcp
//! serve` process: a `memory_ingest` run whose server died right after its
//! commit is `done` (and undoable by run) after a restart; temporary files
//! a killed write left are removed at start; a run taken back reads
//! `undone`; `tasks/cancel` either stops a run before it writes or lets
//! the task complete; a task is its caller's alone; and a memory `query`
//! of now agrees with the same query as of the head.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{HttpServer, empty_project, lore, spawn_http_server};
use serde_json::{Value, json};

const WRITER: &str = "writer-token-0123456789";
const OTHER_WRITER: &str = "writer2-token-0123456789";
const READER: &str = "reader-token-0123456789";

fn start(root: &Path, env: &[(&str, &str)]) -> HttpServer {
    let mut command = lore();
    command
        .arg("--project-dir")
        .arg(root)
        .args(["mcp", "serve", "--port", "0"])
        .env_remove("LORE_MCP_TOKEN");
    for (key, value) in env {
        command.env(key, value);
    }
    spawn_http_server(command)
}

/// A stand-alone 2026-07-28 request from a client with the Tasks
/// extension, POSTed with `token`: the JSON-RPC answer.
async fn request(url: &str, token: Option<&str>, method: &str, params: Value) -> Value {
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    request_as(url, token, method, params, tasks).await
}

/// [`request`] from a client with `capabilities`.
async fn request_as(
    url: &str,
    token: Option<&str>,
    method: &str,
    mut params: Value,
    capabilities: Value,
) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "run-states-test", "version": "1"},
    });
    let name = params
        .get("name")
        .or_else(|| params.get("taskId"))
        .and_then(|v| v.as_str())
        .map(str::to_string);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut post = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .body(body.to_string());
    if let Some(name) = name {
        post = post.header("Mcp-Name", name);
    }
    if let Some(token) = token {
        post = post.header("Authorization", format!("Bearer {token}"));
    }
    let text = post.send().await.unwrap().text().await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v.get("id").is_some())
            .unwrap_or(Value::String(text.clone()))
    })
}

/// A tool's structured answer (which must not be an error), called
/// without the Tasks extension.
async fn tool(url: &str, token: Option<&str>, name: &str, arguments: Value) -> Value {
    let answer = request_as(
        url,
        token,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
        json!({}),
    )
    .await;
    assert_eq!(answer["result"]["isError"], false, "{name}: {answer}");
    answer["result"]["structuredContent"].clone()
}

/// A tool's in-band error `{code, message}`.
async fn tool_error(url: &str, name: &str, arguments: Value) -> Value {
    let answer = request_as(
        url,
        None,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
        json!({}),
    )
    .await;
    assert_eq!(answer["result"]["isError"], true, "{name}: {answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    serde_json::from_str(text).unwrap()
}

async fn status(url: &str, token: Option<&str>, run_id: &str) -> Value {
    tool(url, token, "memory_ingest_status", json!({"runId": run_id})).await
}

/// Polls `tasks/get` until the task is no longer working (15 s at most).
async fn wait_for_task(url: &str, token: Option<&str>, task_id: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..150 {
        last = request(url, token, "tasks/get", json!({"taskId": task_id})).await;
        if last["result"]["status"] != "working" {
            return last["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("task {task_id} never ended: {last}");
}

/// The transactions whose summary names a `memory_ingest` run.
async fn ingest_transactions(url: &str) -> Vec<Value> {
    let history = tool(url, None, "history", json!({"limit": 200})).await;
    history["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            t["summary"]
                .as_str()
                .is_some_and(|s| s.starts_with("memory_ingest "))
        })
        .cloned()
        .collect()
}

fn touch_old(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::fs::File::create(path).unwrap();
    file.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
}

#[tokio::test]
async fn a_run_whose_server_died_after_its_commit_is_done_and_undone_by_run() {
    let (_dir, root) = empty_project();
    let mut server = start(&root, &[("LORE_TEST_KILL_AFTER_COMMIT", "1")]);
    // The server may end before it answers: the run id is then read
    // from the log after the restart.
    let url = server.url.clone();
    let started = tokio::spawn(async move {
        tool(
            &url,
            None,
            "memory_ingest",
            json!({"content": "# Churn\n\n**Churned account** is an account whose last subscription ended."}),
        )
        .await
    });
    // The server ends right after the run's transaction committed.
    let mut ended = None;
    for _ in 0..200 {
        ended = server.child.try_wait().unwrap();
        if ended.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        ended.is_some_and(|s| !s.success()),
        "the server did not die"
    );
    drop(server);

    // What a killed write leaves: Lore's temporary files (removed at
    // start), next to files that are not Lore's (kept).
    std::fs::create_dir_all(root.join("wiki/global")).unwrap();
    std::fs::write(root.join("wiki/.lore-AbC123.tmp"), "").unwrap();
    std::fs::write(root.join("wiki/global/.lore-x.tmp"), "half a page").unwrap();
    std::fs::write(root.join("wiki/draft.tmp"), "mine").unwrap();
    touch_old(&root.join(".lore/.lore-old.tmp"));
    std::fs::write(root.join(".lore/.lore-being-written.tmp"), "").unwrap();

    let answered = started.await.ok().map(|a| a["runId"].clone());
    let server = start(&root, &[]);
    let stamped = ingest_transactions(&server.url).await;
    assert_eq!(stamped.len(), 1, "{stamped:?}");
    let run_id = stamped[0]["summary"].as_str().unwrap()["memory_ingest ".len()..]
        .split(':')
        .next()
        .unwrap()
        .to_string();
    if let Some(answered) = answered {
        assert_eq!(answered, run_id.as_str());
    }
    assert!(!root.join("wiki/.lore-AbC123.tmp").exists());
    assert!(!root.join("wiki/global/.lore-x.tmp").exists());
    assert!(!root.join(".lore/.lore-old.tmp").exists());
    assert!(root.join("wiki/draft.tmp").exists());
    // Fresh: it may be another process's write in progress.
    assert!(root.join(".lore/.lore-being-written.tmp").exists());

    // The run follows the store: done, with the transaction that holds
    // its pages.
    let run = status(&server.url, None, &run_id).await;
    assert_eq!(run["status"], "done", "{run}");
    assert_eq!(run["done"], true, "{run}");
    assert!(run.get("error").is_none(), "{run}");
    let tx = run["txId"].as_i64().expect("a transaction");
    assert_eq!(ingest_transactions(&server.url).await[0]["tx_id"], tx);
    assert!(
        run["captured"]["wiki"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == "glossary/churned-account"),
        "{run}"
    );
    assert!(
        run["warnings"]
            .to_string()
            .contains("completed from the transaction log"),
        "{run}"
    );
    let page = tool(
        &server.url,
        None,
        "wiki_read",
        json!({"key": "glossary/churned-account"}),
    )
    .await;
    assert_eq!(page["found"], true, "{page}");

    // Undoable by run; then the run says it was undone, and by what.
    let undone = tool(&server.url, None, "undo", json!({"run_id": run_id})).await;
    assert_eq!(undone["undone_tx_id"], tx, "{undone}");
    let run = status(&server.url, None, &run_id).await;
    assert_eq!(run["status"], "undone", "{run}");
    assert_eq!(run["undoneByTxId"], undone["tx_id"], "{run}");
    assert_eq!(run["txId"], tx, "{run}");
    let page = tool(
        &server.url,
        None,
        "wiki_read",
        json!({"key": "glossary/churned-account"}),
    )
    .await;
    assert_eq!(page["found"], false, "{page}");
    let again = tool_error(&server.url, "undo", json!({"run_id": run_id})).await;
    assert_eq!(again["code"], "invalid_request", "{again}");
    assert!(
        again["message"].as_str().unwrap().contains(&format!(
            "already undone by transaction {}",
            undone["tx_id"]
        )),
        "{again}"
    );

    // Undoing the undo puts the run back: done again.
    tool(&server.url, None, "undo", json!({"tx_id": undone["tx_id"]})).await;
    let run = status(&server.url, None, &run_id).await;
    assert_eq!(run["status"], "done", "{run}");
    assert!(run.get("undoneByTxId").is_none(), "{run}");
}

/// Holds the wiki mirror's file lock (as another Lore process writing
/// wiki pages would) until dropped.
fn hold_wiki_lock(root: &Path) -> std::fs::File {
    let file = std::fs::File::create(root.join(".lore/wiki.lock")).unwrap();
    file.lock().unwrap();
    file
}

/// Starts `content` as a `memory_ingest` task: its id.
async fn ingest_task(url: &str, token: Option<&str>, content: &str) -> String {
    let answer = request(
        url,
        token,
        "tools/call",
        json!({"name": "memory_ingest", "arguments": {"content": content}}),
    )
    .await;
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    answer["result"]["taskId"].as_str().unwrap().to_string()
}

/// Polls `tasks/get` until its status message is `message`.
async fn wait_for_message(url: &str, task_id: &str, message: &str) {
    let mut last = Value::Null;
    for _ in 0..200 {
        last = request(url, None, "tasks/get", json!({"taskId": task_id})).await;
        if last["result"]["statusMessage"] == message {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {task_id} never said {message}: {last}");
}

/// Makes the server's wiki mirror current (a search syncs it until it
/// finds nothing to do), so a run reads the wiki without its lock.
async fn settle_wiki(url: &str) {
    for _ in 0..3 {
        tool(url, None, "query", json!({"text": "anything"})).await;
    }
}

#[tokio::test]
async fn a_cancelled_ingest_task_writes_nothing_or_completes_with_what_it_wrote() {
    let (_dir, root) = empty_project();
    let server = start(&root, &[]);
    settle_wiki(&server.url).await;

    // Cancelled before the run writes: a page edited on disk makes the run
    // wait for the wiki's lock while it reads the wiki (before its write).
    let lock = hold_wiki_lock(&root);
    std::fs::create_dir_all(root.join("wiki/global")).unwrap();
    std::fs::write(
        root.join("wiki/global/edited.md"),
        "# Edited\n\nWritten on disk.\n",
    )
    .unwrap();
    let task_id = ingest_task(
        &server.url,
        None,
        "**Lapsed account** is an account that stopped paying.",
    )
    .await;
    wait_for_message(&server.url, &task_id, "memory_ingest: triaging").await;
    let cancel = request(
        &server.url,
        None,
        "tasks/cancel",
        json!({"taskId": task_id}),
    )
    .await;
    assert!(cancel.get("error").is_none(), "{cancel}");
    drop(lock);
    let task = wait_for_task(&server.url, None, &task_id).await;
    assert_eq!(task["status"], "cancelled", "{task}");
    let message = task["statusMessage"].as_str().unwrap();
    let run_id = message
        .split_whitespace()
        .find(|w| w.starts_with("run-"))
        .unwrap_or_else(|| panic!("no run named: {message}"))
        .trim_end_matches(')');
    let run = status(&server.url, None, run_id).await;
    assert_eq!(run["status"], "cancelled", "{run}");
    assert_eq!(run["txId"], Value::Null, "{run}");
    assert!(ingest_transactions(&server.url).await.is_empty());
    let page = tool(
        &server.url,
        None,
        "wiki_read",
        json!({"key": "glossary/lapsed-account"}),
    )
    .await;
    assert_eq!(page["found"], false, "{page}");

    // Cancelled once the run writes: it runs to its end, and the task
    // completes with what it wrote.
    settle_wiki(&server.url).await;
    let lock = hold_wiki_lock(&root);
    let task_id = ingest_task(
        &server.url,
        None,
        "**Expansion revenue** is added MRR from upgrades.",
    )
    .await;
    wait_for_message(&server.url, &task_id, "memory_ingest: writing").await;
    let cancel = request(
        &server.url,
        None,
        "tasks/cancel",
        json!({"taskId": task_id}),
    )
    .await;
    assert!(cancel.get("error").is_none(), "{cancel}");
    drop(lock);
    let task = wait_for_task(&server.url, None, &task_id).await;
    assert_eq!(task["status"], "completed", "{task}");
    let result = &task["result"]["structuredContent"];
    assert_eq!(result["status"], "done", "{task}");
    let tx = result["txId"].as_i64().expect("a transaction");
    assert_eq!(ingest_transactions(&server.url).await[0]["tx_id"], tx);
    let page = tool(
        &server.url,
        None,
        "wiki_read",
        json!({"key": "glossary/expansion-revenue"}),
    )
    .await;
    assert_eq!(page["found"], true, "{page}");
}

/// Replaces the `mcp:` block of `lore init`'s lore.yaml with tokens.
fn with_tokens(root: &Path) {
    let path = root.join("lore.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let (head, _) = text.split_once("\nmcp:\n").unwrap();
    std::fs::write(
        &path,
        format!(
            "{head}\nmcp:\n  tokens:\n    - {{ name: bot, token: {WRITER}, scope: writer }}\n    - {{ name: bot2, token: {OTHER_WRITER}, scope: writer }}\n    - {{ name: ci, token: {READER}, scope: reader }}\n"
        ),
    )
    .unwrap();
}

#[tokio::test]
async fn a_task_is_seen_and_cancelled_only_by_the_token_that_started_it() {
    let (_dir, root) = empty_project();
    with_tokens(&root);
    let server = start(&root, &[]);
    let task_id = ingest_task(
        &server.url,
        Some(WRITER),
        "**Net revenue** is paid invoices minus refunds.",
    )
    .await;
    // Another token, whatever its scope, is told the task does not exist,
    // exactly as for a task that does not.
    let unknown = request(
        &server.url,
        Some(WRITER),
        "tasks/get",
        json!({"taskId": "no-such-task"}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert_eq!(unknown["error"]["data"]["code"], "not_found", "{unknown}");
    for token in [READER, OTHER_WRITER] {
        for method in ["tasks/get", "tasks/cancel"] {
            let answer =
                request(&server.url, Some(token), method, json!({"taskId": task_id})).await;
            assert_eq!(answer["error"]["code"], -32602, "{method}: {answer}");
            assert_eq!(
                answer["error"]["data"]["code"], "not_found",
                "{method}: {answer}"
            );
            assert_eq!(
                answer["error"]["message"],
                format!("unknown task: {task_id}"),
                "{method}: {answer}"
            );
        }
        let update = request(
            &server.url,
            Some(token),
            "tasks/update",
            json!({"taskId": task_id, "inputResponses": {}}),
        )
        .await;
        assert_eq!(update["error"]["data"]["code"], "not_found", "{update}");
    }
    // The owner follows it to its end: nobody else's cancel reached it.
    let task = wait_for_task(&server.url, Some(WRITER), &task_id).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(
        task["result"]["structuredContent"]["status"], "done",
        "{task}"
    );
    let cancel = request(
        &server.url,
        Some(WRITER),
        "tasks/cancel",
        json!({"taskId": task_id}),
    )
    .await;
    assert!(cancel.get("error").is_none(), "{cancel}");
}

/// A semantic-layer source of connection `warehouse` that talks of cents.
const INVOICES_MODEL: &str = "name: invoices
description: One row per invoice; amounts in cents.
table: invoices
grain: [id]
columns:
  - { name: id, type: number }
  - { name: total_cents, type: number, description: The invoice total in cents }
measures:
  - { name: billed_cents, expr: \"sum(total_cents)\", description: Billed amount in cents }
";

#[tokio::test]
async fn a_query_of_now_and_a_query_as_of_the_head_find_the_same_entries() {
    let (_dir, root) = empty_project();
    std::fs::create_dir_all(root.join("semantic-layer/warehouse")).unwrap();
    std::fs::write(
        root.join("semantic-layer/warehouse/invoices.yaml"),
        INVOICES_MODEL,
    )
    .unwrap();
    let server = start(&root, &[]);
    tool(
        &server.url,
        None,
        "store",
        json!({"topic": "billing", "content": "Invoice totals are stored in cents, not dollars."}),
    )
    .await;
    for text in ["cents", "total_cents", "invoice"] {
        let now = tool(&server.url, None, "query", json!({"text": text})).await;
        let head = now["as_of_tx_id"].clone();
        let as_of = tool(
            &server.url,
            None,
            "query",
            json!({"text": text, "as_of_tx_id": head}),
        )
        .await;
        let ids = |page: &Value| -> Vec<String> {
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["id"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(ids(&now), ids(&as_of), "{text}: {now} vs {as_of}");
        let kinds: Vec<&str> = now["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap())
            .collect();
        // The semantic-layer file is an entry like the note.
        assert!(kinds.contains(&"model"), "{text}: {now}");
    }
    let note = tool(&server.url, None, "query", json!({"text": "cents"})).await;
    assert!(
        note["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["topic"] == "billing"),
        "{note}"
    );
}
