//! The background server's lifecycle through the real binary:
//! `lore mcp start`, `status`, `logs`, `stop`; a second start, a
//! conflicting start, a busy port and a stale state file.

mod common;

use std::path::Path;

use common::{empty_project, lore_in};
use serde_json::Value;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn run(root: &Path, args: &[&str]) -> (bool, String, String) {
    let output = lore_in(root, args);
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

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
        assert!(ok, "{stderr}");
        serde_json::from_str(&stdout).unwrap()
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
