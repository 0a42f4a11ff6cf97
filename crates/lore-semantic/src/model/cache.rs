//! The models of a project's connections, kept in memory and reloaded when
//! their files change (a file added, removed, edited or touched).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::load::is_model_file;
use super::{SemanticModel, load_dir};
use crate::error::SemanticError;

/// What the model files looked like when loaded: name, size, mtime.
type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// Per-connection models under `semantic-layer/`.
#[derive(Debug)]
pub struct ModelCache {
    root: PathBuf,
    loaded: Mutex<HashMap<String, (Fingerprint, Arc<SemanticModel>)>>,
}

impl ModelCache {
    /// Models under `root` (the project's `semantic-layer` folder).
    pub fn new(root: &Path) -> ModelCache {
        ModelCache {
            root: root.to_path_buf(),
            loaded: Mutex::new(HashMap::new()),
        }
    }

    /// The folder of `connection`'s model.
    pub fn dir(&self, connection: &str) -> PathBuf {
        self.root.join(connection)
    }

    /// A short text that changes whenever `connection`'s model files do
    /// (added, removed, resized or touched): a freshness stamp for
    /// whatever is derived from the model.
    pub fn stamp(&self, connection: &str) -> String {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = |bytes: &[u8]| {
            for byte in bytes {
                hash ^= u64::from(*byte);
                hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        // Called before every search: hash names, sizes and times directly
        // (no formatting, no path comparisons).
        for (path, size, modified) in fingerprint(&self.dir(connection)) {
            let nanos = modified
                .and_then(|m| m.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            mix(path.as_os_str().as_encoded_bytes());
            mix(&size.to_le_bytes());
            mix(&nanos.to_le_bytes());
            mix(b";");
        }
        format!("{hash:016x}")
    }

    /// `connection`'s model, reloaded when its files changed since the
    /// last call (one directory listing per call otherwise).
    pub fn model(&self, connection: &str) -> Result<Arc<SemanticModel>, SemanticError> {
        let dir = self.dir(connection);
        let fingerprint = fingerprint(&dir);
        if let Ok(loaded) = self.loaded.lock()
            && let Some((seen, model)) = loaded.get(connection)
            && *seen == fingerprint
        {
            return Ok(Arc::clone(model));
        }
        let model = Arc::new(load_dir(&dir)?);
        if let Ok(mut loaded) = self.loaded.lock() {
            loaded.insert(connection.to_string(), (fingerprint, Arc::clone(&model)));
        }
        Ok(model)
    }
}

fn fingerprint(dir: &Path) -> Fingerprint {
    let mut files: Fingerprint = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| is_model_file(Path::new(&e.file_name())))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((e.path(), meta.len(), meta.modified().ok()))
        })
        .collect();
    // One folder: ordering by the raw bytes orders by file name, without
    // comparing paths component by component.
    files.sort_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edited_file_is_seen_on_the_next_call() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("w");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.yaml"), "name: a\ntable: a\n").unwrap();
        let cache = ModelCache::new(root.path());
        assert_eq!(cache.model("w").unwrap().source_names(), vec!["a"]);
        let same = cache.model("w").unwrap();
        assert!(
            Arc::ptr_eq(&same, &cache.model("w").unwrap()),
            "unchanged files are not re-read"
        );
        std::fs::write(dir.join("b.yaml"), "name: b\ntable: b\n").unwrap();
        assert_eq!(cache.model("w").unwrap().source_names(), vec!["a", "b"]);
        std::fs::write(dir.join("b.yaml"), "name: b\ntable: [\n").unwrap();
        assert!(
            cache.model("w").is_err(),
            "a broken edit is reported, not hidden by the cache"
        );
        assert!(cache.model("missing").unwrap().sources.is_empty());
    }
}
