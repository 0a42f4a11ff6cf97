//! What changed in a root since its last ingest, found by walking it: the
//! files whose size or time differ from the ledger's (new ones included)
//! and the ledger's files that are gone. The walk is the ingest's own
//! (same ignore rules), and files the gateway never serves are left out,
//! so Lore's own writes (`lore.yaml`, `.lore/`) never count as changes.

use std::collections::{BTreeMap, BTreeSet};

use crate::ingest::project_files::ProjectFiles;
use crate::ingest::walk::{is_ignored, walk};
use crate::ingest::{Ledger, Root};

/// A file's size and modification time (ms), as the walk and the ledger
/// record them.
pub type Stamp = (u64, i64);

/// Files handed to an ingest that the ledger did not keep (binary ones,
/// unreadable ones), with the stamp they had: unchanged, they are not
/// handed over again.
pub type Remembered = BTreeMap<String, Stamp>;

/// What a walk compares the files with.
pub struct Known<'a> {
    /// The root's ledger.
    pub ledger: &'a Ledger,
    /// Files handed over before that the ledger did not keep.
    pub remembered: &'a Remembered,
    /// A file the ledger does not know counts only when it was modified
    /// at or after this time (ms; a binary file left out by every ingest
    /// is not a change).
    pub unknown_since_ms: i64,
}

/// The root-relative paths of `root` that differ from what is `known`,
/// sorted.
pub fn changed_files(
    project: &ProjectFiles,
    root: &Root,
    max_file_bytes: u64,
    known: &Known<'_>,
) -> BTreeSet<String> {
    let ledger = known.ledger;
    let found = walk(&root.path, max_file_bytes);
    let mut present = BTreeSet::new();
    let mut changed = BTreeSet::new();
    for file in &found.files {
        if project.never_served(&file.absolute, None).is_some() {
            continue;
        }
        present.insert(file.path.as_str());
        let stamp = (file.size, file.modified_ms);
        let changed_here = match ledger.files.get(&file.path) {
            Some(entry) => (entry.size, entry.modified_ms) != stamp,
            None => file.modified_ms >= known.unknown_since_ms,
        };
        if changed_here && known.remembered.get(&file.path) != Some(&stamp) {
            changed.insert(file.path.clone());
        }
    }
    for path in ledger.files.keys() {
        if !present.contains(path.as_str()) {
            changed.insert(path.clone());
        }
    }
    changed
}

/// Whether a change seen at root-relative `path` can matter to the index:
/// a file the ledger knows (it may be gone or now ignored), or one that
/// is there (an editor's temporary file may be gone already), that the
/// walk would take and the gateway serves.
pub fn matters(project: &ProjectFiles, root: &Root, ledger: &Ledger, path: &str) -> bool {
    let absolute = root.path.join(path);
    ledger.files.contains_key(path)
        || (std::fs::symlink_metadata(&absolute).is_ok()
            && !is_ignored(&root.path, path)
            && project.never_served(&absolute, None).is_none())
}

/// The stamp of the file at `path` in `root` now (none when it is gone).
pub fn stamp_of(root: &Root, path: &str) -> Option<Stamp> {
    let meta = std::fs::metadata(root.path.join(path)).ok()?;
    Some((meta.len(), crate::ingest::walk::modified_ms(&meta)))
}
