//! The background server's lifecycle through the real binary:
//! `lore mcp start`, `status`, `logs`, `stop`; a second start, a
//! conflicting start, a busy port and a stale state file; a stop while a
//! tool call runs lets the call finish.

mod common;

use std::path::Path;

use common::{demo_project, empty_project, error_of, free_port, lore_in, run};
use serde_json::Value;

fn status_json(root: &Path) -> Value {
    let (ok, stdout, stderr) = run(root, &["mcp", "status", "--json"]);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// Stops the daemon even when an assertion fails.
struct StopOnDrop<'a>(&'a Path);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = lore_in(self.0, &["mcp", "stop"]);
    }
}

#[test]
fn start_status_logs_stop() {
    let (_dir, root) = empty_project();
    let port = free_port().to_string();
    let _guard = StopOnDrop(&root);

    let (ok, stdout, stderr) = run(&root, &["mcp", "start", "--port", &port]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains(&format!("http://127.0.0.1:{port}/mcp")),
        "{stdout}"
    );
    assert!(stdout.contains("lore setup agents"), "{stdout}");

    // The state file has the documented fields.
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join(".lore/mcp.json")).unwrap())
            .unwrap();
    for key in [
        "pid",
        "host",
        "port",
        "tokenAuth",
        "projectDir",
        "startedAt",
        "logPath",
        "version",
    ] {
        assert!(state.get(key).is_some(), "mcp.json lacks {key}: {state}");
    }
    let pid = state["pid"].as_u64().unwrap();

    let status = status_json(&root);
    assert_eq!(status["state"], "running");
    assert_eq!(status["pid"], pid);
    assert_eq!(status["tokenAuth"], false);
    let (_, human, _) = run(&root, &["mcp", "status"]);
    assert!(
        human.contains("running") && human.contains(&port),
        "{human}"
    );

    // The same start again is a no-op; a different one names the conflict.
    let (ok, stdout, _) = run(&root, &["mcp", "start", "--port", &port]);
    assert!(ok && stdout.contains("already running"), "{stdout}");
    let other = free_port().to_string();
    let (ok, _, stderr) = run(&root, &["mcp", "start", "--port", &other]);
    assert!(!ok);
    assert!(
        stderr.contains("already runs") && stderr.contains("lore mcp stop"),
        "{stderr}"
    );

    // The log holds JSON lines, one of them the listening address.
    let (ok, logs, _) = run(&root, &["mcp", "logs", "-n", "20"]);
    assert!(ok);
    assert!(
        logs.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .any(|l| l["message"] == "listening" && l["pid"] == pid),
        "{logs}"
    );

    let (ok, stdout, stderr) = run(&root, &["mcp", "stop"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("Stopped"), "{stdout}");
    assert!(!root.join(".lore/mcp.json").exists());
    assert_eq!(status_json(&root)["state"], "stopped");
    // The server logged its own orderly stop.
    let (_, logs, _) = run(&root, &["mcp", "logs"]);
    assert!(logs.contains("\"stopped\""), "{logs}");
    let (ok, stdout, _) = run(&root, &["mcp", "stop"]);
    assert!(ok && stdout.contains("No Lore MCP server"), "{stdout}");
}

#[test]
fn a_stale_state_file_is_reported_and_replaced() {
    let (_dir, root) = empty_project();
    let _guard = StopOnDrop(&root);
    // A process that has exited: its pid is free.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead_pid = gone.id();
    gone.wait().unwrap();
    let port = free_port();
    std::fs::write(
        root.join(".lore/mcp.json"),
        serde_json::json!({
            "pid": dead_pid, "host": "127.0.0.1", "port": port,
            "url": format!("http://127.0.0.1:{port}/mcp"), "tokenAuth": false,
            "projectDir": root.display().to_string(), "startedAt": "2026-01-01T00:00:00.000Z",
            "logPath": "x", "version": "0"
        })
        .to_string(),
    )
    .unwrap();
    assert_eq!(status_json(&root)["state"], "stale");
    let (_, human, _) = run(&root, &["mcp", "status"]);
    assert!(
        human.contains("stale") && human.contains("lore mcp start"),
        "{human}"
    );

    let (ok, _, stderr) = run(&root, &["mcp", "start", "--port", &port.to_string()]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("stale"), "{stderr}");
    assert_eq!(status_json(&root)["state"], "running");
}

#[test]
fn a_busy_port_is_a_clear_error_and_starts_nothing() {
    let (_dir, root) = empty_project();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let (ok, _, stderr) = run(&root, &["mcp", "start", "--port", &port]);
    assert!(!ok);
    assert!(
        stderr.contains("already in use") && stderr.contains("--port"),
        "{stderr}"
    );
    assert!(!root.join(".lore/mcp.json").exists());
    assert_eq!(status_json(&root)["state"], "stopped");
}

#[test]
fn a_token_server_reports_token_auth_without_showing_the_token() {
    let (_dir, root) = empty_project();
    let _guard = StopOnDrop(&root);
    let port = free_port().to_string();
    let token = "daemon-secret-token-123456";
    let output = common::lore()
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "start", "--port", &port])
        .env("LORE_MCP_TOKEN", token)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("token auth on"));
    let status = status_json(&root);
    assert_eq!(status["tokenAuth"], true);
    // Neither the state file, the log nor the process's arguments hold it.
    let pid = status["pid"].as_u64().unwrap();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    assert!(!String::from_utf8_lossy(&cmdline).contains(token));
    for file in [".lore/mcp.json", ".lore/logs/mcp.log"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(!text.contains(token), "{file} holds the token");
    }
}

#[test]
fn lore_status_names_the_next_command_for_what_is_missing() {
    let (_dir, root) = empty_project();
    let _guard = StopOnDrop(&root);
    let status = |root: &Path| -> Value {
        let (ok, stdout, stderr) = run(root, &["status", "--json"]);
        let status: Value = serde_json::from_str(&stdout).unwrap();
        let failed = status["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["status"] == "fail");
        // A failed check is a failed command; warnings alone are not.
        assert_eq!(ok, !failed, "{status}{stderr}");
        status
    };
    let check = |status: &Value, name: &str| -> Value {
        status["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} check in {status}"))
    };
    let before = status(&root);
    assert_eq!(before["ready"], false);
    assert_eq!(check(&before, "config")["status"], "ok");
    assert_eq!(check(&before, "server")["next"], "lore mcp start");
    assert!(
        check(&before, "agents")["next"]
            .as_str()
            .unwrap()
            .starts_with("lore setup agents")
    );
    let (_, human, _) = run(&root, &["status"]);
    assert!(human.contains("Next: "), "{human}");

    let port = free_port().to_string();
    let (ok, _, stderr) = run(&root, &["mcp", "start", "--port", &port]);
    assert!(ok, "{stderr}");
    let after = status(&root);
    let server = check(&after, "server");
    assert_eq!(server["status"], "ok");
    assert!(
        server["detail"].as_str().unwrap().contains(&port),
        "{server}"
    );

    // Outside any project, the first step is `lore init`.
    let nowhere = tempfile::tempdir().unwrap();
    let outside = status(nowhere.path());
    assert_eq!(check(&outside, "project")["status"], "fail");
    assert!(
        check(&outside, "project")["next"]
            .as_str()
            .unwrap()
            .starts_with("lore init")
    );
}

/// A read that never ends on its own: it counts until the warehouse's
/// statement timeout interrupts it (or the call is cut off), so how long it
/// runs is set by a timer, not by how fast this machine counts.
fn counting_forever() -> rmcp::model::CallToolRequestParams {
    let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c";
    rmcp::model::CallToolRequestParams::new("sql_execution").with_arguments(
        serde_json::json!({"connectionId": "warehouse", "sql": sql})
            .as_object()
            .unwrap()
            .clone(),
    )
}

type CallHandle =
    tokio::task::JoinHandle<Result<rmcp::model::CallToolResult, rmcp::service::ServiceError>>;

/// A background server on the demo with one tool call running and a
/// `lore mcp stop` under way that the server has begun to act on (see
/// `stop_during_a_call`).
struct Stopping {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    base: String,
    call: CallHandle,
    stop: tokio::task::JoinHandle<(bool, String, String)>,
}

/// Starts the server on a demo whose warehouse interrupts statements
/// after `timeout_ms`, starts a call that runs until then, and stops the
/// server while the call runs.
async fn stop_during_a_call(timeout_ms: u64) -> Stopping {
    use rmcp::ServiceExt;
    use std::time::{Duration, Instant};

    let (dir, root) = demo_project();
    let config = root.join("lore.yaml");
    let yaml = std::fs::read_to_string(&config).unwrap();
    assert!(yaml.contains("statement_timeout_ms: 30000"), "{yaml}");
    std::fs::write(
        &config,
        yaml.replace(
            "statement_timeout_ms: 30000",
            &format!("statement_timeout_ms: {timeout_ms}"),
        ),
    )
    .unwrap();
    let port = free_port();
    let (ok, _, stderr) = run(&root, &["mcp", "start", "--port", &port.to_string()]);
    assert!(ok, "{stderr}");
    let base = format!("http://127.0.0.1:{port}");
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(format!("{base}/mcp"));
    let client = ().serve(transport).await.unwrap();
    let call = tokio::spawn(async move {
        let answer = client.call_tool(counting_forever()).await;
        drop(client);
        answer
    });

    // Wait until the server counts the call as running, then stop it.
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let metrics = http
            .get(format!("{base}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if metrics.contains("lore_mcp_in_flight_calls 1") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the call never started: {metrics}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let stop = tokio::task::spawn_blocking({
        let root = root.clone();
        move || run(&root, &["mcp", "stop"])
    });
    let log = root.join(".lore/logs/mcp.log");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("\"draining\"")
    {
        assert!(Instant::now() < deadline, "the server never began to drain");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    if call.is_finished() {
        // Either it failed at once (the test proves nothing) or the stop
        // cut it off without waiting.
        panic!(
            "the call ended as the server began to drain: {:?}",
            call.await.unwrap()
        );
    }
    Stopping {
        _dir: dir,
        root,
        base,
        call,
        stop,
    }
}

/// The running call's answer; a stop must never leave it without one.
async fn answer_of(call: CallHandle) -> rmcp::model::CallToolResult {
    tokio::time::timeout(std::time::Duration::from_secs(30), call)
        .await
        .expect("the running call got no answer: the stop cut it off")
        .unwrap()
        .expect("the running call failed: the stop cut it off")
}

/// The `draining` line of the server's log.
fn drain_record(root: &Path) -> Value {
    std::fs::read_to_string(root.join(".lore/logs/mcp.log"))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["message"] == "draining")
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_lets_a_running_tool_call_finish_and_refuses_new_connections() {
    // The call runs 5 s, well inside the 9 s the server gives running
    // calls, and ends with the warehouse's own timeout answer.
    let stopping = stop_during_a_call(5_000).await;
    let _guard = StopOnDrop(&stopping.root);
    // A draining server takes no new connection…
    let refused = reqwest::Client::new()
        .get(format!("{}/health", stopping.base))
        .timeout(std::time::Duration::from_secs(2))
        .send()
        .await;
    assert!(refused.is_err(), "a draining server accepted {refused:?}");

    // …but the call that was running runs to its own end and gets its
    // answer: the warehouse's timeout, not the stop's `unavailable`.
    let report = error_of(&answer_of(stopping.call).await);
    assert_eq!(report["code"], "timeout", "{report}");
    // The same statement would run past its timeout again.
    assert_eq!(report["retryable"], false, "{report}");
    let (ok, stdout, stderr) = stopping.stop.await.unwrap();
    assert!(ok, "{stderr}");
    assert!(stdout.contains("Stopped"), "{stdout}");
    assert!(!stdout.contains("killed"), "{stdout}");
    assert_eq!(drain_record(&stopping.root)["in_flight"], 1);
    let log = std::fs::read_to_string(stopping.root.join(".lore/logs/mcp.log")).unwrap();
    assert!(log.contains("\"stopped\""), "{log}");
    assert!(!stopping.root.join(".lore/mcp.json").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_longer_than_the_stop_grace_answers_unavailable_and_the_server_exits_itself() {
    // The call would run 60 s, longer than the 9 s the server gives
    // running calls.
    let stopping = stop_during_a_call(60_000).await;
    let _guard = StopOnDrop(&stopping.root);
    let report = error_of(&answer_of(stopping.call).await);
    assert_eq!(report["code"], "unavailable", "{report}");
    assert_eq!(report["retryable"], true);
    // The server ended on its own: `stop` did not need SIGKILL.
    let (ok, stdout, stderr) = stopping.stop.await.unwrap();
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("Stopped") && !stdout.contains("killed"),
        "{stdout}"
    );
    let log = std::fs::read_to_string(stopping.root.join(".lore/logs/mcp.log")).unwrap();
    assert!(log.contains("stop grace period over"), "{log}");
}

#[test]
fn status_logs_and_stop_work_from_the_server_record_when_lore_yaml_is_broken() {
    let (_dir, root) = empty_project();
    let port = free_port().to_string();
    let _guard = StopOnDrop(&root);
    let (ok, _, stderr) = run(&root, &["mcp", "start", "--port", &port]);
    assert!(ok, "{stderr}");
    // Someone breaks the configuration while the server runs.
    std::fs::write(root.join("lore.yaml"), "connections: [unclosed\n").unwrap();
    let (ok, _, stderr) = run(&root, &["status"]);
    assert!(!ok, "a broken lore.yaml fails other commands: {stderr}");

    assert_eq!(status_json(&root)["state"], "running");
    let (ok, logs, stderr) = run(&root, &["mcp", "logs", "-n", "5"]);
    assert!(ok && logs.contains("listening"), "{logs}{stderr}");
    let (ok, stdout, stderr) = run(&root, &["mcp", "stop"]);
    assert!(ok && stdout.contains("Stopped"), "{stdout}{stderr}");
    assert_eq!(status_json(&root)["state"], "stopped");
}

/// The commands a `next` text names: each `lore …` part, up to an
/// explanation in parentheses.
fn suggested_commands(next: &str) -> Vec<Vec<String>> {
    next.split(", then ")
        .flat_map(|part| part.split(" && "))
        .map(|part| part.split(" (").next().unwrap().trim())
        .filter(|part| part.starts_with("lore "))
        .map(|part| part.split_whitespace().skip(1).map(String::from).collect())
        .collect()
}

#[test]
fn every_command_lore_status_suggests_runs() {
    let (_dir, root) = demo_project();
    let _guard = StopOnDrop(&root);
    // Take away what the demo has, so status suggests how to get it back.
    std::fs::remove_dir_all(root.join("semantic-layer/warehouse")).unwrap();
    std::fs::remove_dir_all(root.join("raw-sources")).unwrap();
    let _ = std::fs::remove_dir_all(root.join(".lore/index"));
    let (_, stdout, _) = run(&root, &["status", "--json"]);
    let status: Value = serde_json::from_str(&stdout).unwrap();
    let mut ran = Vec::new();
    for check in status["checks"].as_array().unwrap() {
        let Some(next) = check["next"].as_str() else {
            continue;
        };
        for command in suggested_commands(next) {
            let args: Vec<&str> = command.iter().map(String::as_str).collect();
            let (ok, _, stderr) = run(&root, &args);
            assert!(
                ok,
                "`lore {}` (suggested for {}) failed: {stderr}",
                args.join(" "),
                check["check"]
            );
            ran.push(args.join(" "));
        }
    }
    for expected in [
        "scan warehouse",
        "sl generate -c warehouse",
        "reindex",
        "mcp start",
    ] {
        assert!(
            ran.iter().any(|r| r == expected),
            "{expected} not suggested: {ran:?}"
        );
    }
}

#[test]
fn a_half_written_snapshot_is_ignored_reported_and_cleaned_by_the_next_scan() {
    let (_dir, root) = demo_project();
    let dir = root.join("raw-sources/warehouse/live-database");
    // A folder named far in the future, left half-written (no completion
    // record): a killed copy, a crashed older Lore.
    let broken = dir.join("29991231T235959999Z-dead");
    std::fs::create_dir_all(broken.join("tables")).unwrap();
    std::fs::write(broken.join("connection.json"), "{\"truncated").unwrap();

    // Catalog reads still answer from the last completed scan.
    let (ok, stdout, stderr) = run(&root, &["entity", "-c", "warehouse", "invoices"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("total_cents"), "{stdout}");
    let (_, stdout, _) = run(&root, &["status", "--json"]);
    let status: Value = serde_json::from_str(&stdout).unwrap();
    let scan = status["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "scan")
        .unwrap()
        .clone();
    assert!(
        scan["detail"]
            .as_str()
            .unwrap()
            .contains("29991231T235959999Z-dead"),
        "{scan}"
    );
    assert_eq!(scan["next"], "lore scan warehouse");
    let (ok, _, stderr) = run(&root, &["scan", "warehouse"]);
    assert!(ok, "{stderr}");
    assert!(!broken.exists());
}

#[test]
fn the_demo_server_is_the_one_lore_mcp_and_lore_status_see() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    let port = free_port().to_string();
    let mut demo = common::lore()
        .arg("demo")
        .arg(&root)
        .args(["--port", &port])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _guard = StopOnDrop(&root);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !root.join(".lore/mcp.json").exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the demo never recorded its server"
        );
        assert!(demo.try_wait().unwrap().is_none(), "the demo exited");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = status_json(&root);
    assert_eq!(status["state"], "running", "{status}");
    assert_eq!(status["port"].to_string(), port);
    let (_, stdout, _) = run(&root, &["status", "--json"]);
    let checks: Value = serde_json::from_str(&stdout).unwrap();
    let server = checks["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "server")
        .unwrap()
        .clone();
    assert_eq!(server["status"], "ok", "{server}");
    let (ok, stdout, _) = run(&root, &["mcp", "start", "--port", &port]);
    assert!(ok && stdout.contains("already running"), "{stdout}");
    let (ok, stdout, stderr) = run(&root, &["mcp", "stop"]);
    assert!(ok && stdout.contains("Stopped"), "{stdout}{stderr}");
    assert!(demo.wait().unwrap().success());
    assert!(!root.join(".lore/mcp.json").exists());
}

#[test]
fn stop_never_signals_a_process_it_cannot_confirm_is_this_projects_lore() {
    let (_dir, root) = empty_project();
    let mut other = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let state = serde_json::json!({
        "pid": other.id(),
        "host": "127.0.0.1",
        "port": free_port(),
        "url": "http://127.0.0.1:9/mcp",
        "tokenAuth": false,
        "projectDir": root.display().to_string(),
        "startedAt": "2026-11-25T00:00:00.000Z",
        "logPath": "x",
        "version": "0",
        "stopKey": "a-key-nobody-serves",
    });
    std::fs::create_dir_all(root.join(".lore")).unwrap();
    std::fs::write(root.join(".lore/mcp.json"), state.to_string()).unwrap();
    let (ok, _, stderr) = run(&root, &["mcp", "stop"]);
    assert!(!ok);
    assert!(stderr.contains("nothing was signalled"), "{stderr}");
    assert!(
        other.try_wait().unwrap().is_none(),
        "the other process was signalled"
    );
    let _ = other.kill();
    let _ = other.wait();
}
