//! Servers running in the foreground (`lore mcp stdio`, `lore mcp serve`)
//! announce themselves while they run, so `lore status` and
//! `lore mcp status` see them beside the background server of
//! `.lore/mcp.json`: each writes `.lore/servers/<pid>.json` once it serves
//! and removes it when it exits (Ctrl-C and SIGTERM included).
//!
//! A record whose process is gone (a `kill -9`, a crash) is ignored and
//! removed by the next reader; so is one whose pid now belongs to another
//! process (its start time differs from the recorded one, where the
//! process table tells). No record holds a credential: `lore mcp stop`
//! does not stop these servers (see `mcp.rs`).

use std::path::{Path, PathBuf};

use lore_core::project::{Project, write_atomically};
use lore_core::time::UtcMillis;
use serde::{Deserialize, Serialize};

use super::daemon;

/// How a foreground server is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "transport")]
pub enum Transport {
    /// One session over the stdin and stdout of the client that spawned it.
    Stdio,
    /// Streamable HTTP at `url`.
    Http {
        /// The MCP endpoint clients use.
        url: String,
    },
}

/// What `.lore/servers/<pid>.json` records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForegroundServer {
    /// The server's process id.
    pub pid: u32,
    /// How clients reach it.
    #[serde(flatten)]
    pub transport: Transport,
    /// When the process started, in clock ticks since boot (Linux's
    /// `/proc/<pid>/stat`), to tell it from a later process given the
    /// same pid; absent where the process table cannot be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_start: Option<u64>,
    /// The project it serves.
    pub project_dir: String,
    /// When it started serving (RFC 3339, UTC).
    pub started_at: String,
    /// Lore's version.
    pub version: String,
}

impl ForegroundServer {
    /// `foreground, pid 42, stdio` or `foreground, pid 42, http http://…/mcp`.
    pub fn describe(&self) -> String {
        match &self.transport {
            Transport::Stdio => format!("foreground, pid {}, stdio", self.pid),
            Transport::Http { url } => format!("foreground, pid {}, http {url}", self.pid),
        }
    }

    /// The record as `lore mcp status --json` shows it.
    pub fn to_json(&self) -> serde_json::Value {
        let mut value = serde_json::json!({
            "pid": self.pid,
            "transport": match self.transport {
                Transport::Stdio => "stdio",
                Transport::Http { .. } => "http",
            },
            "projectDir": self.project_dir,
            "startedAt": self.started_at,
            "uptimeSeconds": UtcMillis::parse_iso(&self.started_at).map(UtcMillis::seconds_ago),
            "version": self.version,
        });
        if let Transport::Http { url } = &self.transport {
            value["url"] = serde_json::json!(url);
        }
        value
    }

    /// Whether the recorded process still runs (and is the one recorded).
    fn is_alive(&self) -> bool {
        daemon::process_alive(self.pid)
            && match (self.process_start, process_start(self.pid)) {
                (Some(recorded), Some(now)) => recorded == now,
                _ => true,
            }
    }
}

/// `.lore/servers/`.
fn records_dir(project: &Project) -> PathBuf {
    project.state_dir().join("servers")
}

/// This process's record, removed when dropped.
#[derive(Debug)]
pub struct Announcement {
    path: PathBuf,
}

impl Drop for Announcement {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Records this process as a foreground server of `project` reached by
/// `transport`, until the returned value is dropped. A project whose
/// `.lore/` cannot be written is served unannounced (said in the log).
pub fn announce(project: &Project, transport: Transport) -> Option<Announcement> {
    let pid = std::process::id();
    let record = ForegroundServer {
        pid,
        transport,
        process_start: process_start(pid),
        project_dir: project.root.display().to_string(),
        started_at: UtcMillis::now().to_iso(),
        version: env!("CARGO_PKG_VERSION").to_string(),
    };
    let path = records_dir(project).join(format!("{pid}.json"));
    let written = std::fs::create_dir_all(records_dir(project))
        .map_err(anyhow::Error::from)
        .and_then(|()| Ok(serde_json::to_string_pretty(&record)?))
        .and_then(|text| write_atomically(&path, &text).map_err(anyhow::Error::from));
    match written {
        Ok(()) => Some(Announcement { path }),
        Err(e) => {
            tracing::warn!(
                error = %e,
                "cannot write {}; `lore status` will not see this server",
                path.display()
            );
            None
        }
    }
}

/// The foreground servers of `project` that run now, oldest first. The
/// records of processes that are gone are removed.
pub fn running(project: &Project) -> Vec<ForegroundServer> {
    let Ok(entries) = std::fs::read_dir(records_dir(project)) else {
        return Vec::new();
    };
    let mut servers: Vec<ForegroundServer> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .filter_map(|path| {
            let record = read_record(&path)?;
            if record.is_alive() {
                Some(record)
            } else {
                let _ = std::fs::remove_file(&path);
                None
            }
        })
        .collect();
    servers.sort_by(|a, b| (&a.started_at, a.pid).cmp(&(&b.started_at, b.pid)));
    servers
}

/// A record, if it parses and names the pid its file is named after.
fn read_record(path: &Path) -> Option<ForegroundServer> {
    let record: ForegroundServer =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let named = path.file_stem()?.to_str()?.parse::<u32>().ok()?;
    (named == record.pid).then_some(record)
}

/// When process `pid` started (clock ticks since boot), where `/proc`
/// tells.
fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name in parentheses: state is field 3, the start
    // time field 22.
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(root: &Path) -> Project {
        Project {
            root: root.to_path_buf(),
            config: Default::default(),
            warnings: Vec::new(),
        }
    }

    #[test]
    #[cfg(unix)]
    fn a_record_lives_as_long_as_its_announcement_and_a_dead_pid_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let project = project(dir.path());
        let announced = announce(
            &project,
            Transport::Http {
                url: "http://127.0.0.1:7878/mcp".into(),
            },
        );
        let running_now = running(&project);
        assert_eq!(running_now.len(), 1);
        assert_eq!(
            running_now[0].describe(),
            format!(
                "foreground, pid {}, http http://127.0.0.1:7878/mcp",
                std::process::id()
            )
        );
        drop(announced);
        assert!(running(&project).is_empty());

        // A record left by a process that is gone is ignored and removed.
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let dead = gone.id();
        gone.wait().unwrap();
        let stale = ForegroundServer {
            pid: dead,
            transport: Transport::Stdio,
            process_start: None,
            project_dir: String::new(),
            started_at: UtcMillis::now().to_iso(),
            version: String::new(),
        };
        let path = records_dir(&project).join(format!("{dead}.json"));
        std::fs::write(&path, serde_json::to_string(&stale).unwrap()).unwrap();
        assert!(running(&project).is_empty());
        assert!(!path.exists());
    }

    #[test]
    fn a_record_of_a_reused_pid_is_not_its_server() {
        let dir = tempfile::tempdir().unwrap();
        let project = project(dir.path());
        let Some(start) = process_start(std::process::id()) else {
            return; // no /proc: start times are not compared
        };
        let earlier = ForegroundServer {
            pid: std::process::id(),
            transport: Transport::Stdio,
            process_start: Some(start.saturating_sub(1)),
            project_dir: String::new(),
            started_at: UtcMillis::now().to_iso(),
            version: String::new(),
        };
        std::fs::create_dir_all(records_dir(&project)).unwrap();
        let path = records_dir(&project).join(format!("{}.json", std::process::id()));
        std::fs::write(&path, serde_json::to_string(&earlier).unwrap()).unwrap();
        assert!(running(&project).is_empty());
    }
}
