//! Servers run in the foreground (`lore mcp serve`, `lore mcp stdio`)
//! through the real binary: `lore status` and `lore mcp status` see them
//! while they run and stop seeing them once they end (Ctrl-C, or the
//! client closing stdin); `lore mcp stop` leaves them alone and says
//! where to stop them.

#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{empty_project, free_port, lore, run};
use serde_json::Value;

fn mcp_status(root: &Path) -> Value {
    let (ok, stdout, stderr) = run(root, &["mcp", "status", "--json"]);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

fn server_check(root: &Path) -> Value {
    let (_, stdout, stderr) = run(root, &["status", "--json"]);
    let status: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stderr}"));
    status["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "server")
        .cloned()
        .unwrap()
}

/// A foreground server of `root` (killed if a test fails before it ends).
struct Foreground {
    child: Child,
    record: PathBuf,
}

impl Foreground {
    fn spawn(root: &Path, args: &[&str]) -> Foreground {
        let child = lore()
            .arg("--project-dir")
            .arg(root)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let record = root.join(format!(".lore/servers/{}.json", child.id()));
        let started = Instant::now();
        while !record.exists() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the server never announced itself at {}",
                record.display()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Foreground { child, record }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn interrupt(&mut self) {
        // SAFETY: signals our own child, which has not been reaped.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
    }

    /// Waits for the process to end; whether it ended on its own (not
    /// killed by a signal) within 30 s.
    fn ended_in_order(&mut self) -> bool {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().is_some();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

impl Drop for Foreground {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_foreground_http_server_is_seen_by_status_and_left_alone_by_stop() {
    let (_dir, root) = empty_project();
    let port = free_port().to_string();
    let mut server = Foreground::spawn(&root, &["mcp", "serve", "--port", &port]);
    let pid = server.pid();
    let url = format!("http://127.0.0.1:{port}/mcp");

    let status = mcp_status(&root);
    assert_eq!(status["state"], "running", "{status}");
    assert_eq!(status["mode"], "foreground", "{status}");
    assert_eq!(status["pid"], pid, "{status}");
    assert_eq!(status["transport"], "http", "{status}");
    assert_eq!(status["url"], url.as_str(), "{status}");
    assert_eq!(status["foreground"].as_array().unwrap().len(), 1);
    let (_, human, _) = run(&root, &["mcp", "status"]);
    assert!(
        human.contains(&format!(
            "Lore MCP server: running (foreground, pid {pid}, http {url})"
        )),
        "{human}"
    );
    let check = server_check(&root);
    assert_eq!(check["status"], "ok", "{check}");
    assert_eq!(
        check["detail"],
        format!("running (foreground, pid {pid}, http {url})"),
        "{check}"
    );

    // `lore mcp stop` did not start it and does not stop it: it says so,
    // and where to stop it.
    let (ok, _, stderr) = run(&root, &["mcp", "stop"]);
    assert!(!ok);
    assert!(stderr.contains("[conflict]"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "runs in the foreground (foreground, pid {pid}, http"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("Ctrl-C"), "{stderr}");
    assert!(server.child.try_wait().unwrap().is_none(), "still running");

    // Ctrl-C ends it in order, and it takes its record with it.
    server.interrupt();
    assert!(server.ended_in_order());
    assert!(!server.record.exists());
    let status = mcp_status(&root);
    assert_eq!(status["state"], "stopped", "{status}");
    assert_eq!(status["foreground"], serde_json::json!([]));
    assert_eq!(server_check(&root)["detail"], "stopped");
    let (ok, stdout, _) = run(&root, &["mcp", "stop"]);
    assert!(ok && stdout.contains("No Lore MCP server"), "{stdout}");
}

#[test]
fn a_stdio_server_is_seen_while_its_client_is_connected_and_gone_after_ctrl_c_or_eof() {
    let (_dir, root) = empty_project();
    let mut server = Foreground::spawn(&root, &["mcp", "stdio"]);
    let pid = server.pid();
    let status = mcp_status(&root);
    assert_eq!(status["state"], "running", "{status}");
    assert_eq!(status["mode"], "foreground", "{status}");
    assert_eq!(status["transport"], "stdio", "{status}");
    assert_eq!(status["pid"], pid);
    assert!(status.get("url").is_none(), "{status}");
    let (_, human, _) = run(&root, &["status"]);
    assert!(
        human.contains(&format!("running (foreground, pid {pid}, stdio)")),
        "{human}"
    );

    // Two clients, two servers; the second ends when its client closes
    // stdin.
    let mut second = Foreground::spawn(&root, &["mcp", "stdio"]);
    assert_eq!(mcp_status(&root)["foreground"].as_array().unwrap().len(), 2);
    drop(second.child.stdin.take());
    assert!(second.ended_in_order());
    assert!(!second.record.exists());

    server.interrupt();
    assert!(server.ended_in_order());
    assert!(!server.record.exists());
    assert_eq!(mcp_status(&root)["state"], "stopped");
}

#[test]
fn the_record_of_a_server_that_died_is_ignored_and_removed() {
    let (_dir, root) = empty_project();
    let mut server = Foreground::spawn(&root, &["mcp", "stdio"]);
    // `kill -9` leaves the record behind.
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    assert!(server.record.exists());
    assert_eq!(mcp_status(&root)["state"], "stopped");
    assert!(!server.record.exists(), "the next reader removes it");
    assert_eq!(server_check(&root)["detail"], "stopped");
}
