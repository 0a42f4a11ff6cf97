//! A root's ledger (`.lore/gateway/ledger/<root>.json`): what each
//! ingested file was (hash, size, time, type), what was removed since,
//! and the index, catalog and rules the files were read under, so a
//! re-ingest reads only what changed and knows when it must read all.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::classify::{ArtifactType, Conventions};
use super::{IngestRun, Root, catalog_stamp};

/// What the ledger remembers of a file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// Its content hash.
    pub hash: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, ms since the epoch.
    pub modified_ms: i64,
    /// Its type.
    pub artifact_type: ArtifactType,
}

/// A file that was ingested once and is gone (deleted, or now skipped).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RemovedEntry {
    /// Its type when it was last ingested.
    pub artifact_type: ArtifactType,
    /// When the run that removed it started (RFC 3339).
    pub removed_at: String,
    /// That run.
    pub run_id: String,
}

/// The version of the rules of what is never served
/// ([`ProjectFiles::never_served`]); 1: the project's own files and
/// files holding credentials.
pub(super) const SERVE_RULES: u32 = 1;

/// Removed files a ledger remembers at most (the newest).
const REMOVED_KEPT: usize = 1_000;

/// A root's ledger: what was ingested, and what was removed since.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Ledger {
    /// Whether its files are those other servers published to the
    /// store's file log ([`followed`]), not files this server read: its
    /// own first ingest of the root reads every file. First, so
    /// [`was_ingested`] tells without reading the rest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) from_store: bool,
    /// The subsystem catalog the files were classified with: a new one
    /// re-classifies every file.
    pub(super) catalog: String,
    /// The index the files were written to ([`GatewayIndex::instance`]):
    /// another index holds none of them.
    #[serde(default)]
    pub(super) index: String,
    /// The rules of what is never served the files were read under
    /// ([`SERVE_RULES`]): a run under newer ones reads every file again.
    #[serde(default)]
    pub(super) rules: u32,
    /// The ingested files, by root-relative path.
    pub files: BTreeMap<String, LedgerEntry>,
    /// Files removed from the index, by root-relative path (until they
    /// come back; the newest 1,000).
    #[serde(default)]
    pub removed: BTreeMap<String, RemovedEntry>,
    /// The kind of records its files were last published with
    /// ([`SHARED_RECORDS`]; 0: none, or chunks only): a shared run under a
    /// newer kind publishes every file again.
    #[serde(default)]
    pub(super) shared_records: u32,
    /// The relations of the root's code graph as the run that wrote this
    /// ledger left it (what a run over another root's files reports of
    /// this one without reading its graph).
    #[serde(default)]
    pub(super) relations: u64,
}

/// The records a shared index publishes: 1, chunks with the graph's facts
/// and the file's text (`index::shared`).
pub(super) const SHARED_RECORDS: u32 = 1;

impl Ledger {
    /// Whether its files came from the store's file log: other servers
    /// read them, this one never ingested the root.
    pub fn is_from_store(&self) -> bool {
        self.from_store
    }

    /// Forgets a file, remembering it as removed by `run`; whether it was
    /// known.
    pub(super) fn forget(&mut self, path: &str, run: &IngestRun) -> bool {
        self.forget_as(path, &run.started_at, &run.run_id)
    }

    /// Forgets a file, remembering it as removed at `removed_at` by
    /// `run_id`; whether it was known.
    pub(super) fn forget_as(&mut self, path: &str, removed_at: &str, run_id: &str) -> bool {
        let Some(entry) = self.files.remove(path) else {
            return false;
        };
        self.removed.insert(
            path.to_string(),
            RemovedEntry {
                artifact_type: entry.artifact_type,
                removed_at: removed_at.to_string(),
                run_id: run_id.to_string(),
            },
        );
        if self.removed.len() > REMOVED_KEPT {
            let oldest = self
                .removed
                .iter()
                .min_by(|a, b| (&a.1.removed_at, a.0).cmp(&(&b.1.removed_at, b.0)))
                .map(|(path, _)| path.clone());
            if let Some(oldest) = oldest {
                self.removed.remove(&oldest);
            }
        }
        true
    }
}

/// Where root `root`'s ledger is kept.
pub(super) fn ledger_path(state: &Path, root: &str) -> PathBuf {
    state.join("ledger").join(format!("{root}.json"))
}

/// The ledger of root `root` (empty before its first ingest).
pub fn read_ledger(state: &Path, root: &str) -> Ledger {
    std::fs::read(ledger_path(state, root))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Whether root `root` was ever ingested here (its ledger exists, and
/// is not one kept from other servers' versions, which starts with
/// `{"from_store":true`).
pub fn was_ingested(state: &Path, root: &str) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(ledger_path(state, root)) else {
        return false;
    };
    let mut head = Vec::with_capacity(32);
    if file.take(32).read_to_end(&mut head).is_err() {
        return false;
    }
    !head.starts_with(br#"{"from_store":true"#)
}

/// Whether a run over some files of `root` keeps the rest of its index:
/// the ledger was written to the index `index_instance`, under today's
/// rules of what is served, catalog and conventions. Otherwise the next
/// run reads every file of the root again, and a run over some files only
/// would leave the root with those alone.
pub fn ledger_is_current(
    project_root: &Path,
    root: &Root,
    ledger: &Ledger,
    index_instance: &str,
) -> bool {
    let conventions = Conventions::read(&root.path);
    ledger.index == index_instance
        && ledger.rules == SERVE_RULES
        && ledger.catalog == catalog_stamp(project_root, &root.path, &conventions)
}
