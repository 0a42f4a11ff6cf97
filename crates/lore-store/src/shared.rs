//! What servers sharing one store coordinate through it besides knowledge:
//! leases (one holder of a named job at a time, for a bounded time) and the
//! gateway's file log (each ingested file's chunks, so every server's
//! index can follow an ingest another server ran).
//!
//! Neither is knowledge: no transaction of the log, no undo. The file log
//! is append-only all the same (a row is never updated or deleted; a file
//! gone is a closing row without chunks), so what any server has applied
//! is a sequence number and every version stays readable. A lease is one
//! row per name, rewritten in place by each holder (its last holder stays
//! readable after it is released: "last ingested by").
//!
//! Backups ([`crate::KnowledgeStore::backup_to`]) and the move to
//! PostgreSQL ([`crate::migrate_sqlite_to_postgres`]) copy the file log
//! with its sequence numbers, and the copy numbers its next version after
//! the highest one copied: a server that has applied the log "up to N"
//! goes on reading a restored or migrated store without missing a version,
//! and a new server rebuilds its index from it. Leases are never copied:
//! they are locks of processes running now, so a restored or migrated
//! store starts with none (the first to ask for a lease there takes it).

use serde::{Deserialize, Serialize};

use crate::error::StoreError;

/// A named lease as the store holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Lease {
    /// What it is for (`gateway-ingest:<root>`).
    pub name: String,
    /// Who holds it (or last held it).
    pub holder: String,
    /// When the holder took it (ms since the epoch, the store's clock).
    pub acquired_ms: i64,
    /// When it ends unless renewed, or when it was released.
    pub expires_ms: i64,
    /// Whether its holder released it (else it lapses at `expires_ms`).
    pub released: bool,
}

impl Lease {
    /// Whether it is held at `now_ms`.
    pub fn is_held(&self, now_ms: i64) -> bool {
        !self.released && self.expires_ms > now_ms
    }
}

/// The answer to [`crate::KnowledgeStore::acquire_lease`].
#[derive(Debug, Clone, PartialEq)]
pub struct LeaseGrant {
    /// Whether the caller holds the lease now (taken, or renewed).
    pub granted: bool,
    /// The lease afterwards: the caller's, or the other holder's.
    pub lease: Lease,
    /// The store's clock when it answered (ms since the epoch).
    pub now_ms: i64,
}

/// One file's version to write to the file log.
#[derive(Debug, Clone, PartialEq)]
pub struct SharedFile {
    /// The gateway root's name.
    pub root: String,
    /// Root-relative path.
    pub path: String,
    /// The hash of the file's text (a version with the live one's hash is
    /// not written again).
    pub hash: String,
    /// The file's chunks with their metadata (JSON, the gateway's format);
    /// `None` closes the file (deleted, or no longer served).
    pub chunks: Option<String>,
}

/// One version in the file log.
#[derive(Debug, Clone, PartialEq)]
pub struct SharedFileVersion {
    /// Its place in the log (strictly increasing, in commit order).
    pub seq: i64,
    /// Who wrote it (the writing server's index).
    pub origin: String,
    /// When (ms since the epoch).
    pub written_ms: i64,
    /// The file and its chunks (`chunks: None` when it closed the file).
    pub file: SharedFile,
}

/// What [`crate::KnowledgeStore::publish_files`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    /// The newest sequence number of the log afterwards.
    pub seq: i64,
    /// Versions written (files whose hash or state moved).
    pub written: usize,
}

/// Checks a lease request.
pub(crate) fn check_lease(name: &str, holder: &str, ttl_ms: i64) -> Result<(), StoreError> {
    if name.trim().is_empty() || holder.trim().is_empty() {
        return Err(StoreError::Invalid(
            "a lease needs a name and a holder".to_string(),
        ));
    }
    if !(1..=86_400_000).contains(&ttl_ms) {
        return Err(StoreError::Invalid(format!(
            "a lease lasts 1 ms to one day, not {ttl_ms} ms"
        )));
    }
    Ok(())
}

/// Checks files to publish: named, and each file once.
pub(crate) fn check_files(files: &[SharedFile]) -> Result<(), StoreError> {
    let mut seen = std::collections::HashSet::new();
    for file in files {
        if file.root.is_empty() || file.path.is_empty() {
            return Err(StoreError::Invalid(
                "a shared file needs a root and a path".to_string(),
            ));
        }
        if !seen.insert((file.root.as_str(), file.path.as_str())) {
            return Err(StoreError::Invalid(format!(
                "{}/{} is published twice in one write",
                file.root, file.path
            )));
        }
    }
    Ok(())
}

/// The files of `files` that change the log, given the live hash of each
/// file of their roots (`None` for a closed file): a new hash, or a
/// closing of a live file.
pub(crate) fn moved<'a>(
    files: &'a [SharedFile],
    live: &std::collections::HashMap<(String, String), Option<String>>,
) -> Vec<&'a SharedFile> {
    files
        .iter()
        .filter(|file| {
            let now = live.get(&(file.root.clone(), file.path.clone()));
            match (&file.chunks, now) {
                // Closing what is not live changes nothing.
                (None, None) | (None, Some(None)) => false,
                (None, Some(Some(_))) => true,
                (Some(_), Some(Some(hash))) => *hash != file.hash,
                (Some(_), _) => true,
            }
        })
        .collect()
}

/// Now on this machine's clock (ms since the epoch).
pub(crate) fn now_ms() -> i64 {
    lore_core::time::UtcMillis::now().0
}
