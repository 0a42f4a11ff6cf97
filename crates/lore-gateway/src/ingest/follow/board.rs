//! How fresh each root is, as `km-ingest-status` and `lore status` show
//! it. The follower publishes its view on a [`Board`]: in memory for its
//! own process, and in `.lore/follow.json` for the others. One
//! process follows a project at a time: it holds `.lore/follow.lock` for as
//! long as it follows (the system releases it however the process ends),
//! so a reader knows the file is current when the lock is held. Without a
//! follower, freshness is found by walking the roots against the ledgers.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use lore_core::time::UtcMillis;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::changes::{Known, Remembered, changed_files};
use crate::Gateway;
use crate::ingest::{IngestRun, last_run, read_ledger, was_ingested};

/// How a root's changes are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FollowMode {
    /// A running server re-ingests changes as the system reports them.
    Inotify,
    /// A running server walks the root every `gateway.follow.walk_interval_ms`.
    Walk,
    /// Following is turned off (`gateway.follow.enabled: false`).
    Off,
    /// No server follows the project now.
    None,
    /// Another server sharing the store ingests it; this server applies
    /// what that server publishes to the store's file log.
    Store,
}

/// One root's freshness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RootFreshness {
    /// The root.
    pub root: String,
    /// How its changes are followed.
    pub follow: FollowMode,
    /// Whether the index holds every file as it is now (nothing pending,
    /// the last run succeeded).
    pub fresh: bool,
    /// Files changed and not ingested yet.
    pub pending: u64,
    /// When the follower last saw a change (ISO-8601 UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_at: Option<String>,
    /// When the root's last ingest finished (ISO-8601 UTC), whoever ran
    /// it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingested_at: Option<String>,
    /// The server whose ingest this server's answers come from, when it
    /// is another one (`follow: store`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingested_by: Option<String>,
    /// Whether that ingest succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Anything else worth knowing (why it walks, why it is not followed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `km-ingest-status`: the last run, and each root's freshness.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct IngestStatus {
    /// This server's last run; none on a server that only answers from
    /// the store what other servers ingested.
    #[serde(flatten)]
    pub run: Option<IngestRun>,
    /// Each root's freshness.
    pub freshness: Vec<RootFreshness>,
}

/// What a follower published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Published {
    /// The following process.
    pid: u32,
    roots: Vec<RootFreshness>,
}

/// What the follower of this process publishes (nothing until one
/// starts).
#[derive(Debug, Default)]
pub struct Board {
    published: Mutex<Option<Published>>,
}

/// `.lore/follow.json`: beside the gateway's state, not in it (a backup
/// archives that folder; this file is the live server's).
fn board_file(state: &Path) -> PathBuf {
    state.parent().unwrap_or(state).join("follow.json")
}

/// `.lore/follow.lock`.
fn lock_file(state: &Path) -> PathBuf {
    state.parent().unwrap_or(state).join("follow.lock")
}

impl Board {
    /// Publishes the roots' freshness (written to `follow.json` when it
    /// changed).
    pub(super) fn publish(&self, state: &Path, roots: Vec<RootFreshness>) {
        let published = Published {
            pid: std::process::id(),
            roots,
        };
        let mut slot = self.published.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref() == Some(&published) {
            return;
        }
        if let Ok(bytes) = serde_json::to_vec_pretty(&published)
            && let Err(e) = lore_core::project::write_atomically(&board_file(state), bytes)
        {
            tracing::warn!("follow.json not written: {e}");
        }
        *slot = Some(published);
    }

    /// Takes the board down (the follower stopped).
    pub(super) fn clear(&self, state: &Path) {
        *self.published.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let _ = std::fs::remove_file(board_file(state));
    }

    fn roots(&self) -> Option<Vec<RootFreshness>> {
        let slot = self.published.lock().unwrap_or_else(|p| p.into_inner());
        slot.as_ref().map(|p| p.roots.clone())
    }
}

/// The project's follow lock, held by the process that follows it.
pub(super) struct FollowLock {
    _file: File,
}

impl FollowLock {
    /// The lock, or none while another process follows the project.
    pub(super) fn take(state: &Path) -> Option<FollowLock> {
        let path = lock_file(state);
        std::fs::create_dir_all(path.parent()?).ok()?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .ok()?;
        file.try_lock().ok()?;
        Some(FollowLock { _file: file })
    }

    /// Whether a process holds the lock now.
    fn held(state: &Path) -> bool {
        let Ok(file) = File::open(lock_file(state)) else {
            return false;
        };
        matches!(file.try_lock_shared(), Err(TryLockError::WouldBlock))
    }
}

/// Each root's freshness: the follower's view (this process's, or the
/// following process's), else found by walking the roots; then, with a
/// store several servers share, the roots answered from its file log.
/// Blocking.
pub fn freshness(gateway: &Gateway) -> Vec<RootFreshness> {
    let mut roots = local_freshness(gateway);
    crate::ingest::followed::add_freshness(gateway, &mut roots);
    roots
}

/// The roots' freshness as this server's folders and follower know it.
fn local_freshness(gateway: &Gateway) -> Vec<RootFreshness> {
    if let Some(roots) = gateway.board.roots() {
        return roots;
    }
    let state = &gateway.state;
    if gateway.config.follow.enabled && FollowLock::held(state) {
        let published = std::fs::read(board_file(state))
            .ok()
            .and_then(|b| serde_json::from_slice::<Published>(&b).ok());
        if let Some(published) = published {
            return published.roots;
        }
    }
    let last = last_run(state, None);
    gateway
        .roots
        .iter()
        .map(|root| {
            let ingested = was_ingested(state, &root.name);
            let ledger = read_ledger(state, &root.name);
            let ran = last
                .as_ref()
                .filter(|run| ingested && run.roots.contains(&root.name));
            let pending = match ran {
                Some(run) if ingested => {
                    let known = Known {
                        ledger: &ledger,
                        remembered: &Remembered::new(),
                        // Files left out by the last run (binary ones) are
                        // not changes; files new since it are.
                        unknown_since_ms: UtcMillis::parse_iso(&run.started_at)
                            .map_or(i64::MIN, |at| at.0),
                    };
                    changed_files(&gateway.files, root, gateway.config.max_file_bytes, &known).len()
                        as u64
                }
                _ => 0,
            };
            let (follow, note) = if gateway.config.follow.enabled {
                (
                    FollowMode::None,
                    "not followed: no server is running (lore mcp start follows the roots)",
                )
            } else {
                (FollowMode::Off, "following is off (gateway.follow.enabled)")
            };
            let note = if ingested {
                note.to_string()
            } else if ledger.is_from_store() {
                format!(
                    "ingested by another server only: answered from the store's file log until this server ingests it (lore gateway ingest); {note}"
                )
            } else {
                format!("never ingested (lore gateway ingest); {note}")
            };
            RootFreshness {
                root: root.name.clone(),
                follow,
                fresh: ingested && pending == 0 && ran.is_none_or(|run| run.success),
                pending,
                changed_at: None,
                ingested_at: ran.map(finished_at),
                ingested_by: None,
                ok: ran.map(|run| run.success),
                error: ran.and_then(|run| run.error.clone()),
                note: Some(note),
            }
        })
        .collect()
}

/// When a run finished (ISO-8601 UTC).
pub(super) fn finished_at(run: &IngestRun) -> String {
    match UtcMillis::parse_iso(&run.started_at) {
        Some(start) => UtcMillis(start.0 + (run.duration_seconds * 1_000.0) as i64).to_iso(),
        None => run.started_at.clone(),
    }
}
