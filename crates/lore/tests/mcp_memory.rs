//! The memory toolset end to end: every tool through the real MCP protocol
//! (a `lore mcp stdio` process), resources paged across concurrent writes,
//! subscriptions fed by a separate `lore` process, prompts, and the
//! store's safety under two writing processes and a killed one.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::*;
use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

/// The structured result of a successful call, after checking the content
/// blocks every memory tool returns: a text summary, then the same JSON as
/// an embedded `application/json` resource.
async fn ok(client: &Client, tool: &'static str, arguments: Value) -> Value {
    let result = call(client, tool, arguments.clone()).await.unwrap();
    assert_ne!(
        result.is_error,
        Some(true),
        "{tool} {arguments}: {result:?}"
    );
    let structured = result
        .structured_content
        .clone()
        .expect("structuredContent");
    assert_eq!(result.content.len(), 2, "{tool}: text + resource");
    assert!(
        !result.content[0]
            .as_text()
            .expect("text first")
            .text
            .is_empty()
    );
    let resource = result.content[1]
        .as_resource()
        .expect("embedded resource second");
    let ResourceContents::TextResourceContents {
        uri,
        mime_type,
        text,
        ..
    } = &resource.resource
    else {
        panic!("text resource expected");
    };
    assert!(uri.starts_with("knowledge://"), "{uri}");
    assert_eq!(mime_type.as_deref(), Some("application/json"));
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), structured);
    structured
}

/// The `{code, message, retryable}` of a failed call.
async fn fails(client: &Client, tool: &'static str, arguments: Value) -> Value {
    let result = call(client, tool, arguments).await.unwrap();
    error_of(&result)
}

async fn read(client: &Client, uri: &str) -> Value {
    let result = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents {
        text, mime_type, ..
    } = &result.contents[0]
    else {
        panic!("text contents expected");
    };
    assert_eq!(mime_type.as_deref(), Some("application/json"));
    serde_json::from_str(text).unwrap()
}

#[tokio::test]
async fn every_memory_tool_works_and_fails_clearly_over_mcp() {
    let (_dir, root) = empty_project();
    let client = stdio_client(&root).await;

    let stored = ok(&client, "store", json!({"topic": "deployment", "content": "Use blue-green deploys.", "confidence": 0.92, "tags": ["Ops"]})).await;
    assert_eq!(stored["entry"]["id"], "e-1");
    assert_eq!(stored["entry"]["version"], 1);
    assert_eq!(stored["entry"]["tags"], json!(["ops"]));
    let first_tx = stored["tx_id"].as_i64().unwrap();

    let updated = ok(
        &client,
        "update",
        json!({"id": "e-1", "content": "Use canary deploys.", "expected_version": 1}),
    )
    .await;
    assert_eq!(updated["entry"]["version"], 2);
    let update_tx = updated["tx_id"].as_i64().unwrap();

    // A stale version is a conflict, not retryable, and names the version.
    let conflict = fails(
        &client,
        "update",
        json!({"id": "e-1", "content": "x", "expected_version": 1}),
    )
    .await;
    assert_eq!(conflict["code"], "conflict");
    assert_eq!(conflict["retryable"], false);
    assert!(conflict["message"].as_str().unwrap().contains("version 2"));
    let missing = fails(&client, "update", json!({"id": "e-404", "content": "x"})).await;
    assert_eq!(missing["code"], "not_found");
    let invalid = fails(&client, "store", json!({"topic": " ", "content": "x"})).await;
    assert_eq!(invalid["code"], "invalid_arguments");
    assert!(!invalid["message"].as_str().unwrap().contains("SQL"));
    assert_invalid_arguments(&client, "store", json!({"topic": "t"})).await;
    assert_invalid_arguments(&client, "update", json!({"id": "e-1"})).await;
    assert_invalid_arguments(&client, "query", json!({"colour": "red"})).await;

    // query now and as of the first transaction.
    let now = ok(&client, "query", json!({"topic": "deploy"})).await;
    assert_eq!(now["items"][0]["content"], "Use canary deploys.");
    assert_eq!(now["next_cursor"], Value::Null);
    let then = ok(
        &client,
        "query",
        json!({"text": "deploys", "as_of_tx_id": first_tx}),
    )
    .await;
    assert_eq!(then["items"][0]["content"], "Use blue-green deploys.");
    assert_eq!(then["as_of_tx_id"], first_tx);
    let future = fails(&client, "query", json!({"as_of_tx_id": 10_000})).await;
    assert_eq!(future["code"], "invalid_arguments");

    // relate and walk the graph; cycles are visited once.
    let related = ok(
        &client,
        "relate",
        json!({"subject": "checkout", "predicate": "depends_on", "object": "payments"}),
    )
    .await;
    assert_eq!(related["triple"]["id"], "t-1");
    assert_eq!(related["changed"], true);
    ok(
        &client,
        "relate",
        json!({"subject": "payments", "predicate": "depends_on", "object": "checkout"}),
    )
    .await;
    let again = ok(
        &client,
        "relate",
        json!({"subject": "checkout", "predicate": "depends_on", "object": "payments"}),
    )
    .await;
    assert_eq!(again["changed"], false);
    let graph = ok(
        &client,
        "query_graph",
        json!({"node": "checkout", "direction": "out", "depth": 3}),
    )
    .await;
    assert_eq!(graph["edges"].as_array().unwrap().len(), 2);
    assert_eq!(
        graph["nodes"],
        json!([{"id": "checkout", "depth": 0}, {"id": "payments", "depth": 1}])
    );
    let bad_depth = fails(
        &client,
        "query_graph",
        json!({"node": "checkout", "depth": 9}),
    )
    .await;
    assert_eq!(bad_depth["code"], "invalid_arguments");
    // An empty node is refused like a missing one: the arguments are wrong.
    let empty_node = fails(&client, "query_graph", json!({"node": ""})).await;
    assert_eq!(empty_node["code"], "invalid_arguments");
    assert_invalid_arguments(&client, "query_graph", json!({"depth": 1})).await;

    // undo the update; undoing the first store now conflicts with it.
    let undone = ok(&client, "undo", json!({"tx_id": update_tx})).await;
    assert_eq!(undone["undone_tx_id"], update_tx);
    assert_eq!(undone["changed_ids"], json!(["e-1"]));
    let now = ok(&client, "query", json!({})).await;
    assert_eq!(now["items"][0]["content"], "Use blue-green deploys.");
    let refused = fails(&client, "undo", json!({"tx_id": first_tx})).await;
    assert_eq!(refused["code"], "conflict");
    assert!(
        refused["message"].as_str().unwrap().contains("e-1"),
        "{refused}"
    );
    let forced = ok(&client, "undo", json!({"tx_id": first_tx, "force": true})).await;
    assert_eq!(forced["changed_ids"], json!(["e-1"]));
    assert_eq!(
        fails(&client, "undo", json!({"tx_id": 999})).await["code"],
        "not_found"
    );

    // delete a triple by id; history tells the whole story of e-1.
    let deleted = ok(&client, "delete", json!({"id": "t-1"})).await;
    assert_eq!(deleted["id"], "t-1");
    assert_eq!(
        fails(&client, "delete", json!({"id": "t-1"})).await["code"],
        "not_found"
    );
    let history = ok(&client, "history", json!({"id": "e-1"})).await;
    let kinds: Vec<&str> = history["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["undo", "undo", "update", "store"]);
    assert_eq!(history["items"][0]["state"]["deleted"], true);
    assert_eq!(
        history["items"][2]["state"]["content"],
        "Use canary deploys."
    );
    assert!(
        history["items"][3]["actor"]
            .as_str()
            .unwrap()
            .starts_with("mcp")
    );
    let polled = ok(&client, "history", json!({"since_tx_id": update_tx})).await;
    assert_eq!(polled["items"][0]["tx_id"], update_tx + 1);

    client.cancel().await.unwrap();
}

#[tokio::test]
async fn resources_are_listed_and_paged_stably_while_another_process_writes() {
    let (_dir, root) = empty_project();
    for i in 0..7 {
        let out = lore_in(
            &root,
            &[
                "memory",
                "store",
                "--topic",
                "batch",
                "--content",
                &format!("fact {i}"),
            ],
        );
        assert!(out.status.success());
    }
    let client = stdio_client(&root).await;
    let listed = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "knowledge://entries",
            "knowledge://graph/triples",
            "knowledge://history/transactions"
        ]
    );
    for resource in &listed {
        assert_eq!(resource.mime_type.as_deref(), Some("application/json"));
        assert!(resource.description.is_some());
        assert_eq!(resource.meta.as_ref().unwrap().0["version"], 1);
    }

    let first = read(&client, "knowledge://entries?limit=3").await;
    assert_eq!(first["resource_uri"], "knowledge://entries?limit=3");
    assert_eq!(first["items"].as_array().unwrap().len(), 3);
    let pinned = first["as_of_tx_id"].clone();
    // Another process writes between pages.
    assert!(
        lore_in(
            &root,
            &[
                "memory",
                "store",
                "--topic",
                "batch",
                "--content",
                "late fact"
            ]
        )
        .status
        .success()
    );
    assert!(
        lore_in(&root, &["memory", "delete", "e-2"])
            .status
            .success()
    );
    let mut seen: Vec<String> = first["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["content"].as_str().unwrap().to_string())
        .collect();
    let mut cursor = first["next_cursor"].as_str().map(String::from);
    while let Some(c) = cursor {
        let page = read(&client, &format!("knowledge://entries?limit=3&cursor={c}")).await;
        assert_eq!(page["as_of_tx_id"], pinned);
        seen.extend(
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["content"].as_str().unwrap().to_string()),
        );
        cursor = page["next_cursor"].as_str().map(String::from);
        if cursor.is_none() {
            assert_eq!(page["next_cursor"], Value::Null);
        }
    }
    let expected: Vec<String> = (0..7).rev().map(|i| format!("fact {i}")).collect();
    assert_eq!(seen, expected);

    let history = read(&client, "knowledge://history/transactions?limit=2").await;
    assert_eq!(history["items"][0]["kind"], "delete");
    let one = read(&client, "knowledge://entries/e-1").await;
    assert_eq!(one["item"]["content"], "fact 0");
    let bad = client
        .read_resource(ReadResourceRequestParams::new(
            "knowledge://entries?limit=0",
        ))
        .await;
    assert!(bad.is_err());
    let unknown = client
        .read_resource(ReadResourceRequestParams::new("knowledge://nothing"))
        .await;
    let Err(rmcp::service::ServiceError::McpError(e)) = unknown else {
        panic!("{unknown:?}")
    };
    assert_eq!(e.code, rmcp::model::ErrorCode::RESOURCE_NOT_FOUND);
    let templates = client.list_all_resource_templates().await.unwrap();
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "knowledge://entries/{id}")
    );
    client.cancel().await.unwrap();
}

/// A bare JSON-RPC client over a `lore mcp stdio` process, to see the
/// notifications exactly as they are on the wire.
struct WireClient {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::sync::mpsc::UnboundedReceiver<Value>,
    /// Messages that arrived while waiting for a response.
    pending: Vec<Value>,
    next_id: i64,
}

impl WireClient {
    async fn start(root: &std::path::Path) -> WireClient {
        use tokio::io::AsyncBufReadExt;
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_lore"))
            .arg("--project-dir")
            .arg(root)
            .args(["mcp", "stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut reader = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let (tx, lines) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(line)) = reader.next_line().await {
                let _ = tx.send(serde_json::from_str(&line).unwrap());
            }
        });
        let mut client = WireClient {
            child,
            stdin,
            lines,
            pending: Vec::new(),
            next_id: 0,
        };
        client
            .request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "wire-test", "version": "1"}}))
            .await;
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    async fn send(&mut self, message: Value) {
        use tokio::io::AsyncWriteExt;
        self.stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    /// Sends a request and returns its result; notifications that arrive
    /// first are kept for [`WireClient::notifications`].
    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = tokio::time::timeout(Duration::from_secs(10), self.lines.recv())
                .await
                .unwrap()
                .unwrap();
            if message["id"] == id {
                return message["result"].clone();
            }
            self.pending.push(message);
        }
    }

    /// The `notifications/resources/updated` received so far and within `wait`.
    async fn notifications(&mut self, wait: Duration) -> Vec<Value> {
        let mut out: Vec<Value> = self
            .pending
            .drain(..)
            .filter(|m| m["method"] == "notifications/resources/updated")
            .map(|m| m["params"].clone())
            .collect();
        while let Ok(Some(message)) = tokio::time::timeout(wait, self.lines.recv()).await {
            if message["method"] == "notifications/resources/updated" {
                out.push(message["params"].clone());
            }
        }
        out
    }
}

#[tokio::test]
async fn subscribers_hear_of_writes_from_another_process_until_they_unsubscribe() {
    let (_dir, root) = empty_project();
    let mut client = WireClient::start(&root).await;
    let ack = client
        .request("resources/subscribe", json!({"uri": "knowledge://entries"}))
        .await;
    assert_eq!(ack, json!({}));

    // A separate process writes.
    let out = lore_in(
        &root,
        &[
            "memory",
            "store",
            "--topic",
            "oncall",
            "--content",
            "Page Ana first.",
        ],
    );
    assert!(out.status.success());
    let heard = client.notifications(Duration::from_secs(2)).await;
    assert_eq!(heard.len(), 1, "{heard:?}");
    let update = &heard[0];
    assert_eq!(update["uri"], "knowledge://entries");
    assert_eq!(update["resource_uri"], "knowledge://entries");
    assert_eq!(update["tx_id"], 1);
    assert_eq!(update["change_type"], "upsert");
    assert_eq!(update["changed_ids"], json!(["e-1"]));
    assert_eq!(update["changed_ids_truncated"], false);

    // The server's own writes notify too, deletes as deletes; relations do
    // not touch the entries resource.
    client
        .request(
            "tools/call",
            json!({"name": "delete", "arguments": {"id": "e-1"}}),
        )
        .await;
    client.request("tools/call", json!({"name": "relate", "arguments": {"subject": "a", "predicate": "b", "object": "c"}})).await;
    let heard = client.notifications(Duration::from_secs(1)).await;
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0]["change_type"], "delete");
    assert_eq!(heard[0]["changed_ids"], json!(["e-1"]));

    // After the unsubscribe is acknowledged, nothing more arrives.
    let ack = client
        .request(
            "resources/unsubscribe",
            json!({"uri": "knowledge://entries"}),
        )
        .await;
    assert_eq!(ack, json!({}));
    assert!(
        lore_in(
            &root,
            &["memory", "store", "--topic", "x", "--content", "after"]
        )
        .status
        .success()
    );
    client
        .request(
            "tools/call",
            json!({"name": "store", "arguments": {"topic": "y", "content": "after too"}}),
        )
        .await;
    assert_eq!(
        client.notifications(Duration::from_millis(800)).await,
        Vec::<Value>::new()
    );
    client.child.kill().await.unwrap();
}

#[tokio::test]
async fn prompts_are_listed_and_rendered_ready_to_run() {
    let (_dir, root) = empty_project();
    let client = stdio_client(&root).await;
    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["ingest_memory", "retrieve_context", "correct_stale_fact"]
    );
    let mut arguments = serde_json::Map::new();
    arguments.insert("fact".into(), json!("The Pro plan costs 9 USD."));
    arguments.insert("correction".into(), json!("The Pro plan costs 49 USD."));
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("correct_stale_fact").with_arguments(arguments))
        .await
        .unwrap();
    let text = serde_json::to_string(&prompt.messages).unwrap();
    assert!(text.contains("49 USD") && text.contains("`update`") && text.contains("confirmation"));
    let missing = client
        .get_prompt(GetPromptRequestParams::new("correct_stale_fact"))
        .await;
    assert!(missing.is_err());
    client.cancel().await.unwrap();
}

fn write_import(path: &std::path::Path, label: &str, count: usize) {
    let lines: String = (0..count)
        .map(|i| json!({"topic": label, "content": format!("{label} fact {i}")}).to_string() + "\n")
        .collect();
    std::fs::write(path, lines).unwrap();
}

#[test]
fn two_processes_writing_at_once_lose_nothing() {
    let (dir, root) = empty_project();
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    write_import(&a, "alpha", 1000);
    write_import(&b, "beta", 1000);
    let spawn = |file: &std::path::Path| {
        lore()
            .arg("--project-dir")
            .arg(&root)
            .args(["memory", "import"])
            .arg(file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (first, second) = (spawn(&a), spawn(&b));
    for child in [first, second] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let db = rusqlite::Connection::open(root.join(".lore/store.db")).unwrap();
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(count("SELECT count(*) FROM transactions"), 2000);
    assert_eq!(
        count("SELECT count(DISTINCT tx_id) FROM transactions"),
        2000
    );
    assert_eq!(
        count(
            "SELECT count(DISTINCT content) FROM entry_versions WHERE content LIKE 'alpha fact %'"
        ),
        1000
    );
    assert_eq!(
        count(
            "SELECT count(DISTINCT content) FROM entry_versions WHERE content LIKE 'beta fact %'"
        ),
        1000
    );
    assert_eq!(count("SELECT count(DISTINCT id) FROM entry_versions"), 2000);
}

#[test]
fn a_killed_writer_loses_no_committed_transaction_and_leaves_no_partial_one() {
    let (dir, root) = empty_project();
    let per_line = dir.path().join("lines.jsonl");
    let atomic = dir.path().join("atomic.jsonl");
    write_import(&per_line, "kept", 200_000);
    write_import(&atomic, "whole", 200_000);
    assert!(
        lore_in(
            &root,
            &[
                "memory",
                "store",
                "--topic",
                "before",
                "--content",
                "committed first"
            ]
        )
        .status
        .success()
    );

    for (file, flags) in [(&per_line, vec![]), (&atomic, vec!["--atomic"])] {
        let mut child = lore()
            .arg("--project-dir")
            .arg(&root)
            .args(["memory", "import"])
            .arg(file)
            .args(flags)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill it once it is writing (the WAL file grows).
        let wal = root.join(".lore/store.db-wal");
        let start = Instant::now();
        while std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0) < 256 * 1024
            && start.elapsed() < Duration::from_secs(30)
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        // SIGKILL: no destructor, no rollback runs in the writer.
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "the import finished before it was killed"
        );

        // The file opens, passes its integrity check, and (closing the
        // last connection) checkpoints, so the next round starts afresh.
        let check = lore_in(&root, &["memory", "check"]);
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stderr)
        );
        let health: Value = serde_json::from_slice(&check.stdout).unwrap();
        assert_eq!(health["integrity_ok"], true);
        assert_eq!(health["transactions_without_rows"], 0);
    }
    let db = rusqlite::Connection::open(root.join(".lore/store.db")).unwrap();
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    // Every committed line is there, one transaction each; the atomic
    // import left nothing.
    let kept = count("SELECT count(*) FROM entry_versions WHERE topic = 'kept'");
    assert!(kept > 0 && kept < 200_000, "{kept} lines committed");
    assert_eq!(count("SELECT count(*) FROM transactions"), kept + 1);
    assert_eq!(
        count("SELECT count(*) FROM entry_versions WHERE topic = 'whole'"),
        0
    );
    assert_eq!(
        count("SELECT count(*) FROM entry_versions WHERE content = 'committed first'"),
        1
    );
    // And the store still takes writes.
    assert!(
        lore_in(
            &root,
            &[
                "memory",
                "store",
                "--topic",
                "after",
                "--content",
                "still works"
            ]
        )
        .status
        .success()
    );
}

#[tokio::test]
async fn a_store_that_cannot_open_is_a_clear_error_until_it_is_fixed() {
    let (_dir, root) = empty_project();
    // Something that is not a database sits where the store goes.
    let blocker = root.join(".lore/store.db");
    std::fs::create_dir_all(blocker.join("not-a-file")).unwrap();
    let client = stdio_client(&root).await;
    let failed = fails(&client, "store", json!({"topic": "t", "content": "c"})).await;
    assert_eq!(failed["code"], "upstream_error");
    assert!(
        failed["message"]
            .as_str()
            .unwrap()
            .contains("knowledge store"),
        "{failed}"
    );
    // Fixing it needs no restart.
    std::fs::remove_dir_all(&blocker).unwrap();
    let stored = ok(&client, "store", json!({"topic": "t", "content": "c"})).await;
    assert_eq!(stored["entry"]["id"], "e-1");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn text_queries_use_the_shared_index_and_page_stably_while_others_write() {
    let (_dir, root) = empty_project();
    let client = stdio_client(&root).await;
    ok(
        &client,
        "store",
        json!({"topic": "lineItemTotals", "content": "Sum per invoice, before discounts.", "tags": ["billing"]}),
    )
    .await;
    for n in 0..25 {
        let tags = if n % 5 == 0 {
            json!(["ops"])
        } else {
            json!([])
        };
        ok(
            &client,
            "store",
            json!({"topic": format!("deploy note {n}"), "content": format!("Rollback step {n} of the release."), "tags": tags}),
        )
        .await;
    }
    // Identifier-aware, as discover_data: the words of a camelCase topic.
    let found = ok(&client, "query", json!({"text": "line item totals"})).await;
    assert_eq!(found["items"][0]["topic"], "lineItemTotals", "{found}");
    assert_eq!(found["items"].as_array().unwrap().len(), 1);
    // Wiki pages are entries too.
    let written = call(
        &client,
        "wiki_write",
        json!({"key": "release-rollbacks", "summary": "How a release is rolled back", "body": "# Release rollbacks\n\nRevert the deploy, then the migration.\n"}),
    )
    .await
    .unwrap();
    assert_ne!(written.is_error, Some(true), "{written:?}");
    let pages = ok(
        &client,
        "query",
        json!({"text": "release rollbacks", "limit": 3}),
    )
    .await;
    assert_eq!(pages["items"][0]["kind"], "wiki", "{pages}");

    // Filters apply to the ranked entries.
    let ops = ok(
        &client,
        "query",
        json!({"text": "rollback", "tags": ["OPS"]}),
    )
    .await;
    assert_eq!(ops["items"].as_array().unwrap().len(), 5);
    let topic = ok(
        &client,
        "query",
        json!({"text": "rollback", "topic": "Deploy note 1"}),
    )
    .await;
    assert!(!topic["items"].as_array().unwrap().is_empty());
    assert!(
        topic["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["topic"].as_str().unwrap().starts_with("deploy note 1"))
    );

    // Pages stay pinned while another process writes.
    let first = ok(
        &client,
        "query",
        json!({"text": "rollback step", "limit": 10}),
    )
    .await;
    let pinned = first["as_of_tx_id"].as_i64().unwrap();
    let output = lore_in(
        &root,
        &[
            "memory",
            "store",
            "--topic",
            "deploy note late",
            "--content",
            "Rollback step late.",
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut seen: Vec<String> = Vec::new();
    let mut page = first;
    loop {
        assert_eq!(page["as_of_tx_id"].as_i64().unwrap(), pinned);
        for item in page["items"].as_array().unwrap() {
            seen.push(item["id"].as_str().unwrap().to_string());
        }
        let Some(cursor) = page["next_cursor"].as_str().map(String::from) else {
            break;
        };
        page = ok(
            &client,
            "query",
            json!({"text": "rollback step", "limit": 10, "cursor": cursor}),
        )
        .await;
    }
    let distinct: std::collections::BTreeSet<&String> = seen.iter().collect();
    // The 25 notes and the page ("rollbacks"), not the late note.
    assert_eq!(seen.len(), 26, "{seen:?}");
    assert_eq!(distinct.len(), 26);
    let fresh = ok(
        &client,
        "query",
        json!({"text": "rollback step", "limit": 50}),
    )
    .await;
    assert_eq!(fresh["items"].as_array().unwrap().len(), 27);
    assert!(
        fresh["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["topic"] == "deploy note late")
    );

    // A cursor replayed with other filters is refused.
    let cursor = ok(
        &client,
        "query",
        json!({"text": "rollback step", "limit": 2}),
    )
    .await["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    let refused = fails(
        &client,
        "query",
        json!({"text": "rollback", "limit": 2, "cursor": cursor}),
    )
    .await;
    assert_eq!(refused["code"], "invalid_arguments");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("other filters")
    );
    // Reads of the past keep the store's versioned text search.
    let past = ok(
        &client,
        "query",
        json!({"text": "rollback step", "as_of_tx_id": pinned - 1, "limit": 50}),
    )
    .await;
    assert_eq!(
        past["items"].as_array().unwrap().len(),
        25,
        "before the page"
    );
    client.cancel().await.unwrap();

    // A restarted server recomputes a cursor's ranking while the memory is
    // unchanged; once it changed, the cursor has expired and says so.
    let client = stdio_client(&root).await;
    let page2 = ok(
        &client,
        "query",
        json!({"text": "rollback step", "limit": 2, "cursor": cursor}),
    )
    .await;
    assert_eq!(page2["items"].as_array().unwrap().len(), 2);
    client.cancel().await.unwrap();
    let output = lore_in(
        &root,
        &[
            "memory",
            "store",
            "--topic",
            "one more",
            "--content",
            "Rollback step again.",
        ],
    );
    assert!(output.status.success());
    let client = stdio_client(&root).await;
    let expired = fails(
        &client,
        "query",
        json!({"text": "rollback step", "limit": 2, "cursor": cursor}),
    )
    .await;
    assert_eq!(expired["code"], "invalid_arguments");
    assert!(
        expired["message"]
            .as_str()
            .unwrap()
            .contains("run the query again without cursor"),
        "{expired}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn prompt_and_template_arguments_complete_by_prefix() {
    use rmcp::model::{ArgumentInfo, CompleteRequestParams, Reference};
    let (_dir, root) = empty_project();
    std::fs::write(
        root.join("lore.yaml"),
        "connections:\n  warehouse: { driver: sqlite, path: shop.db }\n  web_events: { driver: sqlite, path: events.db }\n",
    )
    .unwrap();
    let client = stdio_client(&root).await;
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.completions.is_some(), "{info:?}");
    for (topic, tags) in [
        ("billing rules", json!(["finance", "rules"])),
        ("Billing refunds", json!(["finance"])),
        ("deployment", json!(["ops"])),
    ] {
        ok(
            &client,
            "store",
            json!({"topic": topic, "content": format!("{topic}: details"), "tags": tags}),
        )
        .await;
    }
    ok(
        &client,
        "relate",
        json!({"subject": "orders", "predicate": "depends_on", "object": "customers"}),
    )
    .await;
    let complete = |reference: Reference, name: &str, value: &str| {
        client.complete(CompleteRequestParams::new(
            reference,
            ArgumentInfo::new(name, value),
        ))
    };
    let topics = complete(Reference::for_prompt("retrieve_context"), "topic", "bil")
        .await
        .unwrap()
        .completion;
    assert_eq!(topics.values, ["Billing refunds", "billing rules"]);
    assert_eq!((topics.total, topics.has_more), (Some(2), Some(false)));
    let connections = complete(Reference::for_prompt("ingest_memory"), "connection", "w")
        .await
        .unwrap()
        .completion;
    assert_eq!(connections.values, ["warehouse", "web_events"]);
    // A free-text argument is known and has nothing to suggest.
    let free = complete(Reference::for_prompt("ingest_memory"), "material", "We")
        .await
        .unwrap();
    assert!(free.completion.values.is_empty());

    // Resource templates: the last of a comma-separated tag list, ids,
    // graph nodes.
    let entries = "knowledge://entries{?text,topic,tags,min_confidence,as_of_tx_id,limit,cursor}";
    let tags = complete(Reference::for_resource(entries), "tags", "finance,r")
        .await
        .unwrap()
        .completion;
    assert_eq!(tags.values, ["finance,rules"]);
    let ids = complete(
        Reference::for_resource("knowledge://entries/{id}"),
        "id",
        "e-",
    )
    .await
    .unwrap()
    .completion;
    assert_eq!(ids.values.len(), 3, "{ids:?}");
    let triples = "knowledge://graph/triples{?subject,predicate,object,as_of_tx_id,limit,cursor}";
    let objects = complete(Reference::for_resource(triples), "object", "CUS")
        .await
        .unwrap()
        .completion;
    assert_eq!(objects.values, ["customers"]);

    // A prompt or template Lore does not have gets no suggestions (the
    // MCP conformance suite asks about its own fixture prompt).
    for reference in [
        Reference::for_prompt("test_prompt_with_arguments"),
        Reference::for_resource("knowledge://nothing/{id}"),
    ] {
        let answer = complete(reference.clone(), "arg1", "x").await.unwrap();
        assert!(answer.completion.values.is_empty(), "{reference:?}");
    }
    // An argument Lore's own prompts and templates lack is refused.
    for (reference, name) in [
        (Reference::for_prompt("retrieve_context"), "recipe"),
        (Reference::for_resource("knowledge://entries/{id}"), "topic"),
    ] {
        let error = complete(reference.clone(), name, "x").await.unwrap_err();
        let rmcp::ServiceError::McpError(error) = error else {
            panic!("{reference:?} {name}: {error:?}");
        };
        assert_eq!(
            error.code,
            rmcp::model::ErrorCode::INVALID_PARAMS,
            "{error:?}"
        );
        assert!(error.message.contains("has no argument"), "{error:?}");
    }
    client.cancel().await.unwrap();
}
