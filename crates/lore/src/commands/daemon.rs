//! The background MCP server's bookkeeping: its state file
//! (`.lore/mcp.json`), its log (`.lore/logs/mcp.log`), whether its process
//! lives, and what its `/health` says.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use lore_core::project::{Project, write_atomically};
use lore_core::time::UtcMillis;
use serde::{Deserialize, Serialize};

/// What `.lore/mcp.json` records about a running server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonState {
    /// The server's process id.
    pub pid: u32,
    /// The address it bound.
    pub host: String,
    /// The port it bound.
    pub port: u16,
    /// The MCP endpoint clients use.
    pub url: String,
    /// Whether requests need a bearer token.
    pub token_auth: bool,
    /// The project it serves.
    pub project_dir: String,
    /// When it started (RFC 3339, UTC).
    pub started_at: String,
    /// The key `POST /shutdown` takes (the file is readable by its owner
    /// only); absent in states written before stops went through it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_key: Option<String>,
    /// Where it logs.
    pub log_path: String,
    /// Lore's version.
    pub version: String,
}

/// `.lore/mcp.json`.
pub fn state_path(project: &Project) -> PathBuf {
    project.state_dir().join("mcp.json")
}

/// `.lore/logs/mcp.log`.
pub fn log_path(project: &Project) -> PathBuf {
    project.state_dir().join("logs").join("mcp.log")
}

/// The recorded state, if any. A file that does not parse is treated as
/// absent (and replaced by the next start).
pub fn read_state(project: &Project) -> Option<DaemonState> {
    let text = std::fs::read_to_string(state_path(project)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Records the state atomically.
pub fn write_state(project: &Project, state: &DaemonState) -> anyhow::Result<()> {
    let path = state_path(project);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(state)?;
    write_atomically(&path, &text).map_err(anyhow::Error::from)?;
    // The stop key is a credential: the owner alone reads the record.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .with_context(|| format!("cannot restrict {}", path.display()))?;
    }
    Ok(())
}

/// Removes the state file if it still describes process `pid`.
pub fn remove_state_of(project: &Project, pid: u32) {
    if read_state(project).is_some_and(|s| s.pid == pid) {
        let _ = std::fs::remove_file(state_path(project));
    }
}

/// What is known about the recorded server.
#[derive(Debug, Clone)]
pub enum Liveness {
    /// No state file.
    Stopped,
    /// A state file whose process is gone.
    Stale(DaemonState),
    /// The process lives; `health` is its `/health` answer, if it gave one.
    Running {
        state: DaemonState,
        health: Option<serde_json::Value>,
    },
}

/// Checks the state file against the process table and `/health`.
pub fn liveness(project: &Project) -> Liveness {
    let Some(state) = read_state(project) else {
        return Liveness::Stopped;
    };
    if !process_alive(state.pid) {
        return Liveness::Stale(state);
    }
    let health = probe_health(&state.host, state.port, Duration::from_secs(2));
    Liveness::Running { state, health }
}

/// Whether `pid` is a live process (not a zombie). Where processes cannot
/// be asked (not Unix), it is taken to live: the server's `/health` then
/// tells whether it answers, and stopping goes through its stop endpoint.
#[cfg(not(unix))]
pub fn process_alive(_pid: u32) -> bool {
    true
}

/// Whether `pid` is a live process (not a zombie).
#[cfg(unix)]
pub fn process_alive(pid: u32) -> bool {
    let Ok(pid_t) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 only checks that the process exists and
    // may be signalled; it sends nothing.
    let exists = unsafe { libc::kill(pid_t, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    if !exists {
        return false;
    }
    // A zombie still answers kill(0) until its parent reaps it.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_none_or(|state| state != "Z"),
        Err(_) => true,
    }
}

/// Sends `signal` to `pid`; false when the process is gone.
#[cfg(unix)]
pub fn signal(pid: u32, signal: libc::c_int) -> bool {
    let Ok(pid_t) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: sending a signal to a process id has no memory effects here.
    unsafe { libc::kill(pid_t, signal) == 0 }
}

/// The address to reach a server bound to `host` from this machine.
pub fn reach_host(host: &str) -> String {
    match host {
        "0.0.0.0" | "" => "127.0.0.1".to_string(),
        "::" => "::1".to_string(),
        "localhost" => "127.0.0.1".to_string(),
        other => other.to_string(),
    }
}

/// `http://host:port` with IPv6 hosts bracketed.
pub fn base_url(host: &str, port: u16) -> String {
    let host = reach_host(host);
    if host.contains(':') {
        format!("http://[{host}]:{port}")
    } else {
        format!("http://{host}:{port}")
    }
}

/// `GET /health` of the server at `host:port`, if it answers in time.
pub fn probe_health(host: &str, port: u16, timeout: Duration) -> Option<serde_json::Value> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let mut response = agent
        .get(format!("{}/health", base_url(host, port)))
        .call()
        .ok()?;
    if response.status() != 200 {
        return None;
    }
    let text = response.body_mut().read_to_string().ok()?;
    serde_json::from_str(&text).ok()
}

/// The last `lines` lines of the file at `path` (all of a short file).
pub fn tail(path: &Path, lines: usize) -> std::io::Result<Vec<String>> {
    let text = std::fs::read_to_string(path)?;
    let all: Vec<&str> = text.lines().collect();
    let from = all.len().saturating_sub(lines);
    Ok(all[from..].iter().map(|l| l.to_string()).collect())
}

/// How long the recorded server has been running, in seconds.
pub fn uptime_seconds(state: &DaemonState) -> Option<i64> {
    UtcMillis::parse_iso(&state.started_at).map(UtcMillis::seconds_ago)
}

/// A number of seconds as `2d 3h`, `3h 12m`, `5m 2s` or `40s`.
pub fn format_age(seconds: i64) -> String {
    match seconds {
        s if s >= 86_400 => format!("{}d {}h", s / 86_400, s % 86_400 / 3600),
        s if s >= 3600 => format!("{}h {}m", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{}m {}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn this_process_lives_and_a_free_pid_does_not() {
        assert!(process_alive(std::process::id()));
        assert!(!process_alive(u32::MAX - 7));
    }

    #[test]
    fn wildcard_binds_are_reached_on_loopback() {
        assert_eq!(base_url("0.0.0.0", 7878), "http://127.0.0.1:7878");
        assert_eq!(base_url("::", 7878), "http://[::1]:7878");
        assert_eq!(base_url("127.0.0.1", 1), "http://127.0.0.1:1");
    }
}
