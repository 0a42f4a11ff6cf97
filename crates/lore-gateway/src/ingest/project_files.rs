//! The project's own files, which the gateway keeps out of even when a
//! root holds them (the README's quick start makes the project folder
//! itself a root).
//!
//! - **Never served** (not ingested, not uploaded, not returned by a
//!   search): Lore's configuration and state (`lore.yaml`, `.lore/`),
//!   files named like ones that hold credentials (`.env*`, `*.pem`,
//!   `*.key`, `id_rsa*`, `credentials*.json`, …), service-account key
//!   files (JSON with `"type": "service_account"` and a `private_key`), and
//!   the files `lore.yaml`'s `file:PATH` secrets read.
//! - **Never written** by `km-storetext` and `km-upload`: all of those, and
//!   the files Lore and its connections run on, each written by its own
//!   tool: every SQLite or DuckDB connection's database file (and its
//!   journal), the wiki, the semantic layer, the scan snapshots, the
//!   recipes and the subsystem catalog.
//!
//! Paths are compared resolved (`.`, `..`, links) and without regard to
//! case (a case-insensitive file system opens `LORE.YAML` as `lore.yaml`).
//! Messages name files relative to the project, never by machine path.

use std::path::{Component, Path, PathBuf};

use lore_core::config::{CONFIG_FILE_NAME, Driver, LoreConfig};
use lore_core::project::{Project, STATE_DIR_NAME};

use crate::ingest::walk::SkipReason;

/// Why the gateway never serves a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fenced {
    /// How an ingest report lists it: `lore_file` or `secret`.
    pub reason: SkipReason,
    /// What the file is and what writes it instead, for the caller (no
    /// machine path).
    pub message: String,
}

/// What a fenced path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Lore's configuration or state: never served, never written.
    Lore,
    /// Holds a secret: never served, never written.
    Secret,
    /// Lore or a connection runs on it: served, but written only by its
    /// own tool.
    Control,
}

/// A file or folder of the project the gateway keeps out of.
#[derive(Debug, Clone)]
struct Fence {
    /// The path as configured and as resolved, lower-cased, `/`-separated.
    forms: Vec<String>,
    kind: Kind,
    /// What it is (`wiki/ holds the project's wiki pages`).
    what: String,
    /// What to do instead (`write them with wiki_write`).
    instead: String,
}

/// The project's own files: where the project is, and which of its files
/// the gateway never serves or never writes.
#[derive(Debug, Clone)]
pub struct ProjectFiles {
    root: PathBuf,
    fences: Vec<Fence>,
}

/// SQLite's and DuckDB's files beside a database (its journals).
const DATABASE_SIBLINGS: [&str; 4] = ["-wal", "-shm", "-journal", ".wal"];

impl ProjectFiles {
    /// The files of a loaded project.
    pub fn for_project(project: &Project) -> ProjectFiles {
        ProjectFiles::new(&project.root, &project.config)
    }

    /// The files of the project at `root` with the default settings (no
    /// connections, no secrets read from files).
    pub fn at(root: &Path) -> ProjectFiles {
        ProjectFiles::new(root, &LoreConfig::default())
    }

    /// The files of the project at `root` configured by `config`.
    pub fn new(root: &Path, config: &LoreConfig) -> ProjectFiles {
        let mut files = ProjectFiles {
            root: root.to_path_buf(),
            fences: Vec::new(),
        };
        files.fence(
            CONFIG_FILE_NAME,
            Kind::Lore,
            "lore.yaml is the project's configuration (it may hold tokens, URLs and passwords)",
            "edit it by hand; `lore config check` checks it and `lore gateway ingest PATH` adds a root",
        );
        files.fence(
            STATE_DIR_NAME,
            Kind::Lore,
            ".lore/ is Lore's state (the knowledge store, the indexes, the runs)",
            "Lore writes it itself; `lore backup restore` restores it",
        );
        for (setting, file) in config.secret_files() {
            files.fence(
                &file,
                Kind::Secret,
                &format!("{file} holds the secret of {setting} in lore.yaml"),
                "edit it by hand",
            );
        }
        for (id, connection) in &config.connections {
            let (Driver::Sqlite | Driver::Duckdb, Some(path)) =
                (connection.driver, connection.path.as_deref())
            else {
                continue;
            };
            let what = format!("this is the database file of connection `{id}`");
            let instead = "Lore only reads it; change it with the database's own tools";
            files.fence(path, Kind::Control, &what, instead);
            for sibling in DATABASE_SIBLINGS {
                files.fence(&format!("{path}{sibling}"), Kind::Control, &what, instead);
            }
        }
        for (folder, what, instead) in [
            (
                "wiki",
                "wiki/ holds the project's wiki pages",
                "write pages with wiki_write or memory_ingest (`lore wiki write`), which keep their history",
            ),
            (
                "semantic-layer",
                "semantic-layer/ holds the project's semantic models",
                "write models with memory_ingest, `lore sl generate` or `lore sl import` (or edit the files and run `lore sl sync`)",
            ),
            (
                "raw-sources",
                "raw-sources/ holds the scan snapshots",
                "`lore scan` writes them",
            ),
            (
                crate::recipe::PROJECT_FOLDER,
                "recipes/ holds the project's recipes (km-recipe-run runs them)",
                "edit them by hand in the project",
            ),
            (
                crate::ingest::subsystem::CATALOG_FILE,
                "subsystems.yaml is the project's subsystem catalog",
                "edit it by hand in the project",
            ),
        ] {
            files.fence(folder, Kind::Control, what, instead);
        }
        files
    }

    /// Adds `path` (relative to the project, or absolute) as written and
    /// as resolved.
    fn fence(&mut self, path: &str, kind: Kind, what: &str, instead: &str) {
        let path = self.root.join(path);
        let mut forms = vec![key(&lexical(&path)), key(&resolved(&path))];
        forms.dedup();
        self.fences.push(Fence {
            forms,
            kind,
            what: what.to_string(),
            instead: instead.to_string(),
        });
    }

    /// The project folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Why the file at `path` is never served: ingested, uploaded or
    /// returned by a search. `path` is absolute and resolved (see
    /// [`resolved`]); `text`, when read, is checked for a service-account
    /// key. The one rule ingest, upload and search all follow.
    pub fn never_served(&self, path: &Path, text: Option<&str>) -> Option<Fenced> {
        let fenced = self
            .fence_of(path)
            .filter(|(fence, _)| fence.kind != Kind::Control)
            .map(|(fence, shown)| Fenced {
                reason: match fence.kind {
                    Kind::Secret => SkipReason::Secret,
                    _ => SkipReason::LoreFile,
                },
                message: format!(
                    "{} (`{shown}`): the gateway never reads or serves it",
                    fence.what
                ),
            });
        fenced
            .or_else(|| secret_by_name(path))
            .or_else(|| text.and_then(secret_by_content))
    }

    /// Why the file at `path` is never written by `km-storetext` or
    /// `km-upload`: a file never served, or one Lore or a connection runs
    /// on. The message names what writes it instead. `path` need not
    /// exist; it is resolved here.
    pub fn never_written(&self, path: &Path) -> Option<String> {
        let path = resolved(path);
        if let Some((fence, shown)) = self.fence_of(&path) {
            return Some(format!(
                "`{shown}` is not written by the gateway: {}; {}",
                fence.what, fence.instead
            ));
        }
        secret_by_name(&path).map(|fenced| format!("{}; choose another name", fenced.message))
    }

    /// The fence `path` is (or is inside), with `path` as the project
    /// names it.
    fn fence_of(&self, path: &Path) -> Option<(&Fence, String)> {
        let candidate = key(path);
        let fence = self.fences.iter().find(|fence| {
            fence.forms.iter().any(|form| {
                candidate == *form
                    || candidate
                        .strip_prefix(form.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
        })?;
        let shown = path
            .strip_prefix(&self.root)
            .ok()
            .map(Path::to_path_buf)
            .or_else(|| {
                let root = self.root.canonicalize().ok()?;
                path.strip_prefix(root).ok().map(Path::to_path_buf)
            })
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .or_else(|| path.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        Some((fence, shown))
    }
}

/// A file named like one that holds credentials.
fn secret_by_name(path: &Path) -> Option<Fenced> {
    let name = path.file_name()?.to_str()?.to_lowercase();
    let secret = name.starts_with(".env")
        || [".pem", ".key", ".p12", ".pfx", ".keystore", ".jks"]
            .iter()
            .any(|ext| name.ends_with(ext))
        || ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"]
            .iter()
            .any(|key| name.starts_with(key))
        || (name.starts_with("credentials") && name.ends_with(".json"));
    secret.then(|| Fenced {
        reason: SkipReason::Secret,
        message: format!(
            "`{name}` is named like a file that holds credentials (.env*, *.pem, *.key, id_rsa*, credentials*.json): the gateway never reads, serves or writes such files"
        ),
    })
}

/// A service-account key file: JSON with `"type": "service_account"` and
/// a `private_key`.
fn secret_by_content(text: &str) -> Option<Fenced> {
    // Cheap tests first: most files are not JSON at all.
    if !text.trim_start().starts_with('{')
        || !text.contains("service_account")
        || !text.contains("private_key")
    {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let key = value.get("type").and_then(|t| t.as_str()) == Some("service_account")
        && value.get("private_key").is_some();
    key.then(|| Fenced {
        reason: SkipReason::Secret,
        message: "the file is a service-account key (JSON with \"type\": \"service_account\" and a private_key): the gateway never reads or serves it".to_string(),
    })
}

/// `path` with `.` and `..` resolved without touching the disk.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` resolved: its deepest existing folder with links followed, then
/// the rest as written (`.` and `..` resolved first). What a write to
/// `path` would write to.
pub fn resolved(path: &Path) -> PathBuf {
    let lexical = lexical(path);
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |path, part| path.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return lexical,
        }
    }
}

/// A path as compared: lower-cased, `/`-separated, no trailing `/`.
fn key(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/").to_lowercase();
    let trimmed = text.trim_end_matches('/');
    if trimmed.is_empty() {
        text
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, ProjectFiles) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let config = lore_core::config::parse_config(
            "connections:\n  warehouse:\n    driver: sqlite\n    path: data/warehouse.db\n  pg:\n    driver: postgres\n    url: file:secrets/pg-url\n",
            Path::new("lore.yaml"),
        )
        .unwrap()
        .config;
        std::fs::create_dir_all(root.join("data")).unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("lore.yaml"), "connections: {}\n").unwrap();
        (dir, ProjectFiles::new(&root, &config))
    }

    #[test]
    fn lore_files_and_secrets_are_never_served() {
        let (_dir, files) = project();
        let root = files.root().to_path_buf();
        for (path, reason) in [
            ("lore.yaml", SkipReason::LoreFile),
            (".lore/store.db", SkipReason::LoreFile),
            ("secrets/pg-url", SkipReason::Secret),
            ("deploy/server.pem", SkipReason::Secret),
            ("keys/ID_RSA", SkipReason::Secret),
            ("config/.env.production", SkipReason::Secret),
            ("gcp/credentials-prod.json", SkipReason::Secret),
        ] {
            let fenced = files.never_served(&root.join(path), None);
            assert_eq!(fenced.map(|f| f.reason), Some(reason), "{path}");
        }
        // Read, not written by the gateway: the wiki, the database.
        for path in ["wiki/global/a.md", "data/warehouse.db", "docs/lore.md"] {
            assert_eq!(files.never_served(&root.join(path), None), None, "{path}");
        }
        let key = r#"{"type": "service_account", "project_id": "p", "private_key": "-----BEGIN PRIVATE KEY-----"}"#;
        let fenced = files.never_served(&root.join("gcp/prod-1234.json"), Some(key));
        assert_eq!(fenced.map(|f| f.reason), Some(SkipReason::Secret));
        let plain = r#"{"type": "service_account_docs", "private_key_hint": 1}"#;
        assert_eq!(
            files.never_served(&root.join("docs/x.json"), Some(plain)),
            None
        );
    }

    #[test]
    fn control_files_are_never_written_however_the_path_is_spelled() {
        let (_dir, files) = project();
        let root = files.root().to_path_buf();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("data"), root.join("docs/data-link")).unwrap();
        #[cfg(unix)]
        assert!(
            files
                .never_written(&root.join("docs/data-link/warehouse.db"))
                .is_some()
        );
        for path in [
            "lore.yaml",
            "./docs/../lore.yaml",
            "LORE.YAML",
            "lore.yaml/",
            "lore.yaml/x.md",
            ".lore/config",
            "data/warehouse.db",
            "data/warehouse.db-wal",
            "data/warehouse.db-journal",
            "wiki/global/x.md",
            "semantic-layer/warehouse/orders.yaml",
            "recipes/mine.yaml",
            "subsystems.yaml",
            "secrets/pg-url",
            "notes/server.key",
        ] {
            let message = files.never_written(&root.join(path));
            assert!(message.is_some(), "{path} may be written");
            let message = message.unwrap();
            assert!(
                !message.contains(root.to_str().unwrap()),
                "{path}: {message}"
            );
        }
        for path in [
            "docs/notes.md",
            "data/other.md",
            "wikis/x.md",
            "lore.yaml.md",
        ] {
            assert_eq!(files.never_written(&root.join(path)), None, "{path}");
        }
        let wiki = files.never_written(&root.join("wiki/x.md")).unwrap();
        assert!(wiki.contains("wiki_write"), "{wiki}");
        let config = files.never_written(&root.join("lore.yaml")).unwrap();
        assert!(config.contains("by hand"), "{config}");
    }
}
