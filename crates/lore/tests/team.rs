//! Several Lore servers over one PostgreSQL knowledge store, as a team
//! runs them: two `lore mcp serve` processes in separate project folders
//! (as on separate hosts) with the same `store.url`; a write through one
//! is read and heard (`subscriptions/listen`) through the other, and any
//! modern request may land on either. A server whose PostgreSQL is down
//! starts, answers `store_unavailable` (retryable) for memory, says so in
//! `lore status`, and recovers by itself when the database returns —
//! nothing written twice or lost.
//!
//! Needs `LORE_TEST_POSTGRES_URL` (each test makes a database of its own
//! and drops it); skipped with a notice when unset, required when
//! `LORE_REQUIRE_SERVERS=1`.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{HttpServer, empty_project, lore, lore_in, spawn_http_server};
use serde_json::{Value, json};

/// A database of this test's own on the test server, dropped afterwards.
struct Database {
    admin: String,
    name: String,
    url: String,
}

impl Database {
    async fn create(tag: &str) -> Option<Database> {
        let Ok(admin) = std::env::var("LORE_TEST_POSTGRES_URL") else {
            assert!(
                std::env::var("LORE_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "LORE_REQUIRE_SERVERS=1 but LORE_TEST_POSTGRES_URL is not set"
            );
            eprintln!("skipped: set LORE_TEST_POSTGRES_URL to run the team tests");
            return None;
        };
        let name = format!("lore_team_{tag}_{}", std::process::id());
        execute(
            &admin,
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        )
        .await;
        execute(&admin, &format!("CREATE DATABASE {name}")).await;
        let config: tokio_postgres::Config = admin.parse().unwrap();
        let host = match &config.get_hosts()[0] {
            tokio_postgres::config::Host::Tcp(h) => h.clone(),
            #[allow(unreachable_patterns)]
            _ => "127.0.0.1".to_string(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let user = config.get_user().unwrap_or("postgres");
        let url = format!("postgres://{user}@{host}:{port}/{name}");
        Some(Database { admin, name, url })
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let (admin, name) = (self.admin.clone(), self.name.clone());
        // A runtime of its own: the test's may be gone or busy.
        std::thread::spawn(move || {
            tokio::runtime::Runtime::new().unwrap().block_on(execute(
                &admin,
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            ));
        })
        .join()
        .unwrap();
    }
}

async fn execute(url: &str, sql: &str) {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client.batch_execute(sql).await.unwrap();
}

/// A project whose knowledge store is the database at `url`.
fn team_project(url: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = empty_project();
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}\nstore:\n  url: \"{url}\"\n")).unwrap();
    (dir, root)
}

fn serve(root: &Path) -> HttpServer {
    let mut command = lore();
    command
        .arg("--project-dir")
        .arg(root)
        .args(["mcp", "serve", "--port", "0"])
        .env_remove("LORE_MCP_TOKEN");
    spawn_http_server(command)
}

/// A modern (2026-07-28) request, alone, with its headers.
fn modern(
    http: &reqwest::Client,
    url: &str,
    method: &str,
    name: Option<&str>,
    params: Value,
) -> reqwest::RequestBuilder {
    modern_from(http, url, method, name, params, json!({}))
}

/// [`modern`] from a client that declared the Tasks extension.
fn modern_with_tasks(
    http: &reqwest::Client,
    url: &str,
    method: &str,
    name: Option<&str>,
    params: Value,
) -> reqwest::RequestBuilder {
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    modern_from(http, url, method, name, params, tasks)
}

fn modern_from(
    http: &reqwest::Client,
    url: &str,
    method: &str,
    name: Option<&str>,
    mut params: Value,
    capabilities: Value,
) -> reqwest::RequestBuilder {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "team-test", "version": "1"},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = http
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .body(body.to_string());
    if let Some(name) = name {
        request = request.header("Mcp-Name", name);
    }
    request
}

/// The JSON-RPC answer of a request (JSON or the SSE stream's data).
async fn answer(request: reqwest::RequestBuilder) -> Value {
    let text = request.send().await.unwrap().text().await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v.get("id").is_some())
            .unwrap_or(Value::String(text.clone()))
    })
}

async fn call(http: &reqwest::Client, url: &str, tool: &str, arguments: Value) -> Value {
    answer(modern(
        http,
        url,
        "tools/call",
        Some(tool),
        json!({"name": tool, "arguments": arguments}),
    ))
    .await["result"]
        .clone()
}

#[tokio::test]
async fn two_servers_over_one_postgres_store_read_and_hear_each_others_writes() {
    let Some(db) = Database::create("two").await else {
        return;
    };
    let (_a_dir, a) = team_project(&db.url);
    let (_b_dir, b) = team_project(&db.url);
    let (server_a, server_b) = (serve(&a), serve(&b));
    let http = reqwest::Client::new();

    // B listens for changes of the entries.
    let listen = modern(
        &http,
        &server_b.url,
        "subscriptions/listen",
        None,
        json!({"notifications": {"resourceSubscriptions": ["knowledge://entries"]}}),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(listen.status(), 200);
    let heard = tokio::spawn(async move {
        let mut listen = listen;
        let mut text = String::new();
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            match tokio::time::timeout(Duration::from_secs(30), listen.chunk()).await {
                Ok(Ok(Some(chunk))) => {
                    text.push_str(&String::from_utf8_lossy(&chunk));
                    if text.contains("notifications/resources/updated") {
                        return text;
                    }
                }
                _ => break,
            }
        }
        text
    });
    // Give the stream its acknowledgment before writing.
    tokio::time::sleep(Duration::from_millis(300)).await;

    // A writes.
    let stored = call(
        &http,
        &server_a.url,
        "store",
        json!({"topic": "deploy", "content": "Blue-green deploys, written through server A"}),
    )
    .await;
    assert_eq!(stored["isError"], false, "{stored}");
    let tx_id = stored["structuredContent"]["tx_id"].as_i64().unwrap();

    // B hears it…
    let events = heard.await.unwrap();
    assert!(
        events.contains("notifications/resources/updated"),
        "{events}"
    );
    assert!(events.contains("knowledge://entries"), "{events}");
    assert!(events.contains(&format!("\"tx_id\":{tx_id}")), "{events}");

    // …and reads it, through a tool and a resource, and so does its CLI.
    let found = call(&http, &server_b.url, "query", json!({"topic": "deploy"})).await;
    assert_eq!(
        found["structuredContent"]["items"][0]["content"],
        "Blue-green deploys, written through server A",
        "{found}"
    );
    let read = answer(modern(
        &http,
        &server_b.url,
        "resources/read",
        Some("knowledge://entries"),
        json!({"uri": "knowledge://entries"}),
    ))
    .await;
    assert!(
        read.to_string().contains("written through server A"),
        "{read}"
    );
    let cli = lore_in(&b, &["memory", "query", "--topic", "deploy"]);
    assert!(String::from_utf8_lossy(&cli.stdout).contains("written through server A"));

    // Writes through both servers share one history: B's update follows
    // A's store, and undo through A takes B's change back.
    let updated = call(
        &http,
        &server_b.url,
        "update",
        json!({"id": "e-1", "content": "Canary deploys, updated through server B", "expected_version": 1}),
    )
    .await;
    assert_eq!(updated["isError"], false, "{updated}");
    let update_tx = updated["structuredContent"]["tx_id"].as_i64().unwrap();
    assert_eq!(update_tx, tx_id + 1);
    let undone = call(&http, &server_a.url, "undo", json!({"tx_id": update_tx})).await;
    assert_eq!(undone["isError"], false, "{undone}");
    let now = call(&http, &server_b.url, "query", json!({"topic": "deploy"})).await;

    // A wiki page written through A is in B's search index and B's
    // wiki folder (each server follows the shared store).
    let page = call(
        &http,
        &server_a.url,
        "wiki_write",
        json!({"key": "zebra-onboarding", "summary": "How zebras are onboarded", "body": "Every new zebra gets a striped badge on day one."}),
    )
    .await;
    assert_eq!(page["isError"], false, "{page}");
    let mut found = Value::Null;
    for _ in 0..50 {
        found = call(
            &http,
            &server_b.url,
            "wiki_search",
            json!({"query": "zebra onboarding"}),
        )
        .await;
        if found["structuredContent"]["results"][0]["key"] == "zebra-onboarding" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        found["structuredContent"]["results"][0]["key"], "zebra-onboarding",
        "{found}"
    );
    let mirrored = b.join("wiki/global/zebra-onboarding.md");
    for _ in 0..50 {
        if mirrored.is_file() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        std::fs::read_to_string(&mirrored)
            .unwrap()
            .contains("striped badge")
    );

    // A backup is the shared store as an SQLite store file; restoring it
    // over the shared database is refused, saying why.
    let backups = tempfile::tempdir().unwrap();
    let dest = backups.path().to_str().unwrap();
    let created = lore_in(&a, &["backup", "create", "--dest", dest, "--json"]);
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    let created: Value = serde_json::from_slice(&created.stdout).unwrap();
    let archive = created["archive"].as_str().unwrap();
    let restore = lore_in(&a, &["backup", "restore", archive, "--force"]);
    assert!(!restore.status.success());
    let err = String::from_utf8_lossy(&restore.stderr);
    assert!(
        err.contains("unsupported_operation") && err.contains("PostgreSQL"),
        "{err}"
    );
    assert_eq!(
        now["structuredContent"]["items"][0]["content"],
        "Blue-green deploys, written through server A",
        "{now}"
    );
}

/// Forwards every connection to `127.0.0.1:port_to` until dropped: the
/// database "coming back" on the port a store url names.
fn forward(listener: std::net::TcpListener, port_to: u16) {
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", port_to)) else {
                continue;
            };
            let (mut c1, mut s1) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (mut c2, mut s2) = (client, server);
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut c1, &mut s1);
                let _ = s1.shutdown(std::net::Shutdown::Both);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut s2, &mut c2);
                let _ = c2.shutdown(std::net::Shutdown::Both);
            });
        }
    });
}

#[tokio::test]
async fn a_server_whose_store_is_down_starts_says_so_and_recovers_when_it_returns() {
    let Some(db) = Database::create("down").await else {
        return;
    };
    // The store url names a port where nothing listens yet.
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let real: tokio_postgres::Config = db.url.parse().unwrap();
    let real_port = real.get_ports().first().copied().unwrap_or(5432);
    let url = db
        .url
        .replace(&format!(":{real_port}/"), &format!(":{port}/"));
    let (_dir, root) = team_project(&url);
    let server = serve(&root);
    let http = reqwest::Client::new();

    // Memory answers the retryable store_unavailable; the rest serves.
    let refused = call(
        &http,
        &server.url,
        "store",
        json!({"topic": "t", "content": "while down"}),
    )
    .await;
    assert_eq!(refused["isError"], true, "{refused}");
    let error: Value =
        serde_json::from_str(refused["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(error["code"], "store_unavailable", "{error}");
    assert_eq!(error["retryable"], true, "{error}");
    let listed = call(&http, &server.url, "connection_list", json!({})).await;
    assert_eq!(listed["isError"], false, "{listed}");
    let status = lore_in(&root, &["status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    let store = status["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "store")
        .unwrap();
    assert_eq!(store["status"], "fail", "{store}");
    assert!(
        store["detail"]
            .as_str()
            .unwrap()
            .contains("store_unavailable"),
        "{store}"
    );

    // The database comes back on that port: the next call succeeds, with
    // no restart, and the refused write was never applied.
    forward(
        std::net::TcpListener::bind(("127.0.0.1", port)).unwrap(),
        real_port,
    );
    let stored = call(
        &http,
        &server.url,
        "store",
        json!({"topic": "t", "content": "after it returned"}),
    )
    .await;
    assert_eq!(stored["isError"], false, "{stored}");
    assert_eq!(stored["structuredContent"]["tx_id"], 1, "{stored}");
    let all = call(&http, &server.url, "query", json!({"topic": "t"})).await;
    let items = all["structuredContent"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{all}");
    assert_eq!(items[0]["content"], "after it returned");
}

#[tokio::test]
async fn an_embedded_store_moves_to_postgres_with_its_history() {
    let Some(db) = Database::create("move").await else {
        return;
    };
    let (_dir, root) = empty_project();
    for (topic, content) in [
        ("deploy", "Blue-green deploys."),
        ("billing", "Invoices in cents."),
    ] {
        let stored = lore_in(
            &root,
            &["memory", "store", "--topic", topic, "--content", content],
        );
        assert!(stored.status.success());
    }
    let updated = lore_in(
        &root,
        &[
            "memory",
            "update",
            "--id",
            "e-1",
            "--content",
            "Canary deploys.",
        ],
    );
    assert!(
        updated.status.success(),
        "{}",
        String::from_utf8_lossy(&updated.stderr)
    );

    let mut command = lore();
    let moved = command
        .arg("--project-dir")
        .arg(&root)
        .args([
            "store",
            "migrate",
            "--to",
            "env:LORE_TEAM_TEST_URL",
            "--json",
        ])
        .env("LORE_TEAM_TEST_URL", &db.url)
        .output()
        .unwrap();
    assert!(
        moved.status.success(),
        "{}",
        String::from_utf8_lossy(&moved.stderr)
    );
    let moved: Value = serde_json::from_slice(&moved.stdout).unwrap();
    assert_eq!(moved["report"]["head_tx_id"], 3, "{moved}");
    assert_eq!(moved["storeUrl"], "env:LORE_TEAM_TEST_URL");

    // Pointed at the database, the project reads the same history.
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}\nstore:\n  url: \"{}\"\n", db.url)).unwrap();
    let history = lore_in(&root, &["memory", "history", "--id", "e-1"]);
    let history = String::from_utf8_lossy(&history.stdout);
    assert!(
        history.contains("Blue-green deploys.") && history.contains("Canary deploys."),
        "{history}"
    );
    let next = lore_in(
        &root,
        &[
            "memory",
            "store",
            "--topic",
            "oncall",
            "--content",
            "Pager rotates weekly.",
        ],
    );
    let next: Value = serde_json::from_slice(&next.stdout).unwrap();
    assert_eq!(next["tx_id"], 4, "{next}");

    // A second move into the now non-empty database is refused.
    let again = lore()
        .arg("--project-dir")
        .arg(&root)
        .args(["store", "migrate", "--to", &db.url])
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("conflict"));
}

#[tokio::test]
async fn a_task_started_on_one_server_is_followed_and_cancelled_through_another() {
    let Some(db) = Database::create("tasks").await else {
        return;
    };
    let (_a_dir, a) = team_project(&db.url);
    let (_b_dir, b) = team_project(&db.url);
    let (server_a, server_b) = (serve(&a), serve(&b));
    let http = reqwest::Client::new();
    let start = |content: &str| {
        modern_with_tasks(
            &http,
            &server_a.url,
            "tools/call",
            Some("memory_ingest"),
            json!({"name": "memory_ingest", "arguments": {"content": content}}),
        )
    };
    let get = |url: &str, task_id: &str| {
        modern_with_tasks(
            &http,
            url,
            "tasks/get",
            Some(task_id),
            json!({"taskId": task_id}),
        )
    };

    // Started on A, followed to its end through B.
    let started = answer(start("**Churn** is the share of accounts lost in a month.")).await;
    assert_eq!(started["result"]["resultType"], "task", "{started}");
    let task_id = started["result"]["taskId"].as_str().unwrap().to_string();
    let mut last = Value::Null;
    for _ in 0..150 {
        last = answer(get(&server_b.url, &task_id)).await;
        if last["result"]["status"].is_string() && last["result"]["status"] != "working" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let seen_on_b = &last["result"];
    assert_eq!(seen_on_b["status"], "completed", "{last}");
    assert_eq!(
        seen_on_b["result"]["structuredContent"]["status"], "done",
        "{last}"
    );
    // B tells what A tells.
    let seen_on_a = answer(get(&server_a.url, &task_id)).await;
    assert_eq!(
        seen_on_a["result"]["result"], seen_on_b["result"],
        "{seen_on_a}"
    );

    // Cancelled through B while A runs it: the request reaches A's record
    // (A stops it, or it had already finished: both end it).
    let started = answer(start(
        "**Revenue** is the sum of paid invoices, net of refunds.",
    ))
    .await;
    let task_id = started["result"]["taskId"].as_str().unwrap().to_string();
    let cancel = answer(modern_with_tasks(
        &http,
        &server_b.url,
        "tasks/cancel",
        Some(&task_id),
        json!({"taskId": task_id}),
    ))
    .await;
    // The record may not be written yet the instant the task starts.
    let cancel = if cancel.get("error").is_some() {
        tokio::time::sleep(Duration::from_millis(600)).await;
        answer(modern_with_tasks(
            &http,
            &server_b.url,
            "tasks/cancel",
            Some(&task_id),
            json!({"taskId": task_id}),
        ))
        .await
    } else {
        cancel
    };
    assert!(cancel.get("error").is_none(), "{cancel}");
    let mut ended = Value::Null;
    for _ in 0..150 {
        ended = answer(get(&server_a.url, &task_id)).await;
        if ended["result"]["status"] != "working" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let status = ended["result"]["status"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        ["cancelled", "completed"].contains(&status.as_str()),
        "{ended}"
    );
    let (client, connection) = tokio_postgres::connect(&db.url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let row = client
        .query_one(
            "SELECT cancel_requested FROM lore.tasks WHERE task_id = $1",
            &[&task_id],
        )
        .await
        .unwrap();
    assert!(
        row.get::<_, bool>(0),
        "the cancellation did not reach the store"
    );

    // A task no server made is unknown on both.
    for url in [&server_a.url, &server_b.url] {
        let unknown = answer(get(url, "no-such-task")).await;
        assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    }
}

/// A team project with a gateway root `name` at `repo/` holding `files`.
fn gateway_project(
    url: &str,
    name: &str,
    files: &[(&str, &str)],
) -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = team_project(url);
    for (path, text) in files {
        let file = root.join("repo").join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}\ngateway:\n  roots:\n    - path: repo\n      name: {name}\n"),
    )
    .unwrap();
    (dir, root)
}

/// `km-search` "quokka" on `url` until a result of root `app` comes back
/// (its results), failing with `missing` after 10 s.
async fn app_found(http: &reqwest::Client, url: &str, missing: &str) -> Vec<Value> {
    let started = Instant::now();
    loop {
        let found = call(http, url, "km-search", json!({"query": "quokka"})).await;
        let results = found["structuredContent"]["results"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if results.iter().any(|r| r["chunk"]["root"] == "app") {
            return results;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{missing}: {found}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_repository_ingested_through_one_server_is_searched_through_another() {
    let Some(db) = Database::create("gateway").await else {
        return;
    };
    let (_a_dir, a) = gateway_project(
        &db.url,
        "app",
        &[(
            "billing/invoice.py",
            "def total_quokka(amount):\n    return amount * 2\n",
        )],
    );
    // B has a root of its own and none of the app's files.
    let (_b_dir, b) = gateway_project(
        &db.url,
        "notes",
        &[("todo.md", "# Todo\n\nWater the plants.\n")],
    );
    let (server_a, server_b) = (serve(&a), serve(&b));
    let http = reqwest::Client::new();
    let ran = call(&http, &server_b.url, "km-ingest-trigger", json!({})).await;
    assert_eq!(ran["structuredContent"]["success"], true, "{ran}");

    let ran = call(&http, &server_a.url, "km-ingest-trigger", json!({})).await;
    assert_eq!(ran["structuredContent"]["success"], true, "{ran}");
    let found = app_found(&http, &server_b.url, "B never found A's file").await;
    assert_eq!(found[0]["chunk"]["artifact_path"], "billing/invoice.py");
    assert!(!b.join("repo/billing").exists());

    // A server with no root of its own serves the gateway on a shared
    // store, and finds the app too.
    let (_c_dir, c) = team_project(&db.url);
    let server_c = serve(&c);
    app_found(
        &http,
        &server_c.url,
        "a rootless server never served or found A's file",
    )
    .await;

    // B's status names the server that ingested the app.
    let status = call(&http, &server_b.url, "km-ingest-status", json!({})).await;
    let elsewhere = &status["structuredContent"]["ingested_elsewhere"];
    assert_eq!(elsewhere[0]["root"], "app", "{status}");
    assert!(
        elsewhere[0]["by"]
            .as_str()
            .unwrap()
            .contains(&a.display().to_string()),
        "{status}"
    );

    // C ran no ingest, yet its status reports the app it answers from the
    // store: who ingested it, and nothing left to apply (once its books
    // caught up with its index, a moment after the search found the app).
    let started = Instant::now();
    let status = loop {
        let status = call(&http, &server_c.url, "km-ingest-status", json!({})).await;
        if status["structuredContent"]["freshness"][0]["fresh"] == true {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let answer = &status["structuredContent"];
    assert!(answer.get("run_id").is_none(), "{status}");
    let app = &answer["freshness"][0];
    assert_eq!(
        (&app["root"], &app["follow"], &app["fresh"]),
        (&json!("app"), &json!("store"), &json!(true)),
        "{status}"
    );
    assert!(
        app["ingested_by"]
            .as_str()
            .unwrap_or_default()
            .contains(&a.display().to_string()),
        "{status}"
    );
    // So does `lore gateway status` on C's project.
    let shown = lore_in(&c, &["gateway", "status"]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success(), "{text}");
    assert!(
        text.contains("no ingest has run on this server")
            && text.contains("app fresh, answered from the store as"),
        "{text}"
    );
    // And `lore status`, though C lists no root.
    let shown = lore_in(&c, &["status"]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("gateway     no root of its own; app fresh, answered from the store as"),
        "{text}"
    );
}
