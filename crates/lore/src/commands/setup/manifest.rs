//! `.lore/agents/install-manifest.json`: every change `setup agents` made,
//! with what it replaced, so `--remove` can undo exactly those changes.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use lore_core::hash::content_hash;

/// One recorded change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// `json-key` or `file`.
    pub kind: String,
    /// The client (`claude-code`, …).
    pub target: String,
    /// `project`, `local` or `user`.
    pub scope: String,
    /// The file changed (absolute).
    pub path: PathBuf,
    /// json-key: the keys leading to the entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<Vec<String>>,
    /// json-key: what Lore wrote there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// json-key: what was there before, restored on removal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Value>,
    /// Whether Lore created the file (removed again when left empty).
    #[serde(default)]
    pub created_file: bool,
    /// file: the fingerprint of what Lore wrote; a changed file is left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// file: where the user's own file was kept when `--force` replaced
    /// it; removal puts it back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<PathBuf>,
    /// Folders Lore created for the file, deepest first: removal takes
    /// away those left empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<PathBuf>,
}

impl Entry {
    pub fn json_key(
        target: &str,
        scope: &str,
        path: &Path,
        pointer: &[String],
        value: &Value,
        previous: Option<Value>,
        created_file: bool,
    ) -> Entry {
        Entry {
            kind: "json-key".into(),
            target: target.into(),
            scope: scope.into(),
            path: path.to_path_buf(),
            pointer: Some(pointer.to_vec()),
            value: Some(value.clone()),
            previous,
            created_file,
            hash: None,
            backup: None,
            created_dirs: Vec::new(),
        }
    }

    pub fn file(target: &str, scope: &str, path: &Path, contents: &[u8], existed: bool) -> Entry {
        Entry {
            kind: "file".into(),
            target: target.into(),
            scope: scope.into(),
            path: path.to_path_buf(),
            pointer: None,
            value: None,
            previous: None,
            created_file: !existed,
            hash: Some(content_hash(contents)),
            backup: None,
            created_dirs: Vec::new(),
        }
    }

    fn same_place(&self, other: &Entry) -> bool {
        self.kind == other.kind
            && self.target == other.target
            && self.scope == other.scope
            && self.path == other.path
            && self.pointer == other.pointer
    }
}

/// The manifest file's contents.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Manifest {
    #[serde(default = "version")]
    version: u32,
    #[serde(default)]
    entries: Vec<Entry>,
}

fn version() -> u32 {
    1
}

impl Manifest {
    /// The manifest at `path`, or an empty one.
    pub fn load(path: &Path) -> anyhow::Result<Manifest> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).with_context(|| {
                format!(
                    "{} is not a valid install manifest; move it aside to start afresh",
                    path.display()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Manifest {
                version: 1,
                entries: Vec::new(),
            }),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    /// Writes the manifest, or removes it when nothing is recorded.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        if self.entries.is_empty() {
            if path.exists() {
                std::fs::remove_file(path)
                    .with_context(|| format!("cannot remove {}", path.display()))?;
            }
            return Ok(());
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let text = format!("{}\n", serde_json::to_string_pretty(self)?);
        lore_core::project::write_atomically(path, &text).map_err(anyhow::Error::from)
    }

    /// Records a change. Writing the same place again keeps what was there
    /// before Lore's first write, so removal restores the user's value.
    pub fn record(&mut self, mut entry: Entry) {
        if let Some(old) = self.entries.iter().position(|e| e.same_place(&entry)) {
            let old = self.entries.remove(old);
            entry.previous = old.previous;
            entry.created_file = old.created_file;
            entry.backup = entry.backup.or(old.backup);
            if entry.created_dirs.is_empty() {
                entry.created_dirs = old.created_dirs;
            }
        }
        self.entries.push(entry);
    }

    /// Whether a recorded setup wrote the content with this hash at `path`.
    pub fn wrote(&self, path: &Path, hash: &str) -> bool {
        self.entries
            .iter()
            .any(|e| e.path == path && e.hash.as_deref() == Some(hash))
    }

    /// Whether a recorded setup wrote `value` at `pointer` in `path`.
    pub fn wrote_key(&self, path: &Path, pointer: &[String], value: &Value) -> bool {
        self.entries.iter().any(|e| {
            e.path == path
                && e.pointer.as_deref() == Some(pointer)
                && e.value.as_ref() == Some(value)
        })
    }

    /// Whether another recorded change still needs the file at `path`.
    pub fn uses(&self, path: &Path) -> bool {
        self.entries
            .iter()
            .any(|e| e.path == path && e.pointer.is_none())
    }

    /// `target (scope)` of every recorded change, without repeats.
    pub fn targets(&self) -> Vec<String> {
        let mut targets: Vec<String> = self
            .entries
            .iter()
            .map(|e| format!("{} ({})", e.target, e.scope))
            .collect();
        targets.sort();
        targets.dedup();
        targets
    }

    /// Takes out the entries of a target and scope, newest first.
    pub fn take(&mut self, target: &str, scope: &str) -> Vec<Entry> {
        let (mut taken, kept): (Vec<Entry>, Vec<Entry>) = std::mem::take(&mut self.entries)
            .into_iter()
            .partition(|e| e.target == target && e.scope == scope);
        self.entries = kept;
        taken.reverse();
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_write_keeps_the_first_previous_value() {
        let mut manifest = Manifest::default();
        let pointer = vec!["mcpServers".to_string(), "lore".to_string()];
        let path = Path::new("/x/.mcp.json");
        let theirs = serde_json::json!({"url": "http://theirs"});
        let ours = serde_json::json!({"url": "http://ours"});
        manifest.record(Entry::json_key(
            "c",
            "project",
            path,
            &pointer,
            &ours,
            Some(theirs.clone()),
            false,
        ));
        manifest.record(Entry::json_key(
            "c",
            "project",
            path,
            &pointer,
            &ours,
            Some(ours.clone()),
            false,
        ));
        let taken = manifest.take("c", "project");
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].previous, Some(theirs));
        assert!(manifest.take("c", "project").is_empty());
    }
}
