//! Where a project lives and what it looks like on disk.
//!
//! ```text
//! my-project/
//!   lore.yaml            connections and server settings (committed)
//!   wiki/global/         shared knowledge pages (committed)
//!   semantic-layer/      semantic models per connection (committed)
//!   raw-sources/         scan snapshots (committed or not, the team's choice)
//!   .lore/               local state, git-ignored
//! ```
//!
//! A command finds its project in this order: an explicit directory
//! (`--project-dir`, or `LORE_PROJECT_DIR`, both handled by the CLI), then
//! the nearest directory upwards holding a `lore.yaml`, then the current
//! directory.

use std::path::{Path, PathBuf};

use crate::config::{CONFIG_FILE_NAME, ConfigWarning, LoreConfig, load_config};
use crate::error::{ErrorCode, HasErrorCode};

/// The local state folder inside a project.
pub const STATE_DIR_NAME: &str = ".lore";

/// Finds the project directory: `explicit` if given, else the nearest
/// ancestor of `cwd` (itself included) with a `lore.yaml`, else `cwd`.
pub fn resolve_project_dir(explicit: Option<&Path>, cwd: &Path) -> PathBuf {
    if let Some(dir) = explicit {
        return if dir.is_absolute() {
            dir.to_path_buf()
        } else {
            cwd.join(dir)
        };
    }
    cwd.ancestors()
        .find(|dir| dir.join(CONFIG_FILE_NAME).is_file())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// A loaded project: its directory and configuration.
#[derive(Debug, Clone)]
pub struct Project {
    /// The project directory (absolute when resolved from an absolute cwd).
    pub root: PathBuf,
    /// The parsed `lore.yaml`.
    pub config: LoreConfig,
    /// Non-fatal findings from loading `lore.yaml`.
    pub warnings: Vec<ConfigWarning>,
}

impl Project {
    /// Loads the project rooted at `root`; fails if it has no `lore.yaml`.
    pub fn load(root: &Path) -> Result<Project, crate::config::ConfigError> {
        let loaded = load_config(&root.join(CONFIG_FILE_NAME))?;
        Ok(Project {
            root: root.to_path_buf(),
            config: loaded.config,
            warnings: loaded.warnings,
        })
    }

    /// The project rooted at `root` without reading `lore.yaml` (default
    /// settings): for commands that only touch `.lore/` state, such as
    /// stopping a server, which must work when the configuration is broken.
    pub fn state_only(root: &Path) -> Project {
        Project {
            root: root.to_path_buf(),
            config: LoreConfig::default(),
            warnings: Vec::new(),
        }
    }

    /// Path to `lore.yaml`.
    pub fn config_path(&self) -> PathBuf {
        self.root.join(CONFIG_FILE_NAME)
    }

    /// Path to the local state folder `.lore/`.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(STATE_DIR_NAME)
    }

    /// The knowledge store, `.lore/store.db`.
    pub fn store_path(&self) -> PathBuf {
        self.state_dir().join("store.db")
    }

    /// The search index folder, `.lore/index/`.
    pub fn index_dir(&self) -> PathBuf {
        self.state_dir().join("index")
    }

    /// The semantic-layer models, `semantic-layer/<connection>/`.
    pub fn semantic_layer_dir(&self) -> PathBuf {
        self.root.join("semantic-layer")
    }

    /// Resolves a path from `lore.yaml`: absolute paths stay, relative ones
    /// are taken from the project directory.
    pub fn resolve_path(&self, path: &str) -> PathBuf {
        let path = Path::new(path);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.root.join(path)
        }
    }
}

/// Why a project could not be created.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// Creating a folder or file failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// What was being written.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl HasErrorCode for ProjectError {
    fn code(&self) -> ErrorCode {
        match self {
            ProjectError::Write { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                ErrorCode::PermissionDenied
            }
            ProjectError::Write { .. } => ErrorCode::Internal,
        }
    }
}

/// What `init_project` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InitReport {
    /// Paths created, relative to the project directory.
    pub created: Vec<PathBuf>,
    /// Paths that already existed and were left untouched.
    pub kept: Vec<PathBuf>,
}

/// The `lore.yaml` that `lore init` writes when none exists.
pub const STARTER_CONFIG: &str = r#"# Lore project configuration. `lore config schema` prints the JSON Schema.
#
# connections: one entry per database; agents pass the id as connectionId.
#   driver: sqlite | postgres | mysql | clickhouse | snowflake | bigquery | duckdb
#   SQLite and DuckDB take `path` (absolute or relative to this file);
#   server drivers take `url`, written as a literal, env:VAR or file:PATH.
#   Give Lore a database user that can only read.
#   `lore connection add NAME --driver postgres --url URL` writes an entry;
#   or uncomment an example (delete only the `#`, keep the spaces).
connections:
#  warehouse:
#    driver: sqlite
#    path: data/warehouse.db
#    description: Company data warehouse
#    statement_timeout_ms: 30000
#  analytics:
#    driver: postgres
#    url: env:ANALYTICS_DATABASE_URL   # postgres://user:pass@host:5432/db?sslmode=verify-full
#    schemas: [public]                 # what `lore scan` reads (default: all non-system schemas)

# search.embeddings: an optional semantic lane for discover_data and
# wiki_search (and km-search with gateway.embeddings: true), from any
# OpenAI-compatible /v1/embeddings server.
#search:
#  embeddings:
#    url: https://api.openai.com/v1    # or http://127.0.0.1:11434/v1 (Ollama)
#    model: text-embedding-3-small
#    api_key: env:OPENAI_API_KEY

mcp:
  host: 127.0.0.1
  port: 7878
#  tokens:                       # or LORE_MCP_TOKEN (admin); needed beyond loopback
#    - { name: ci, token: env:LORE_READER_TOKEN, scope: reader }   # reader | writer | admin
#  rate_limit: { requests: 1200, window_seconds: 60 }
"#;

/// Creates the project layout in `root`. Idempotent: existing files
/// (including `lore.yaml`) are kept as they are. `config_text` is written as
/// `lore.yaml` when the project has none.
pub fn init_project(root: &Path, config_text: &str) -> Result<InitReport, ProjectError> {
    let mut report = InitReport::default();
    for dir in [
        "wiki/global",
        "semantic-layer",
        "raw-sources",
        STATE_DIR_NAME,
    ] {
        let path = root.join(dir);
        if path.is_dir() {
            report.kept.push(PathBuf::from(dir));
        } else {
            std::fs::create_dir_all(&path).map_err(|source| ProjectError::Write {
                path: path.clone(),
                source,
            })?;
            report.created.push(PathBuf::from(dir));
        }
    }
    let files = [
        (
            PathBuf::from(STATE_DIR_NAME).join(".gitignore"),
            "# Local Lore state: never commit.\n*\n",
        ),
        (PathBuf::from(CONFIG_FILE_NAME), config_text),
    ];
    for (relative, contents) in files {
        let path = root.join(&relative);
        if path.exists() {
            report.kept.push(relative);
        } else {
            write_atomically(&path, contents)?;
            report.created.push(relative);
        }
    }
    Ok(report)
}

/// The start of the name of [`write_atomically`]'s temporary files.
const TEMP_PREFIX: &str = ".lore-";

/// The end of the name of [`write_atomically`]'s temporary files.
const TEMP_SUFFIX: &str = ".tmp";

/// Whether a file name is one of [`write_atomically`]'s temporary files
/// (`.lore-*.tmp`), which a process killed mid-write leaves behind.
pub fn is_temp_file_name(name: &str) -> bool {
    name.len() > TEMP_PREFIX.len() + TEMP_SUFFIX.len()
        && name.starts_with(TEMP_PREFIX)
        && name.ends_with(TEMP_SUFFIX)
}

/// Removes the temporary files of [`write_atomically`] directly in `dir`
/// (not below) last changed at least `older_than` ago: a write in
/// progress changes its file as it goes, so only files a killed process
/// left are old. Returns the files removed.
pub fn remove_stale_temp_files(dir: &Path, older_than: std::time::Duration) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let stale = entry
            .metadata()
            .ok()
            .filter(|meta| meta.file_type().is_file())
            .and_then(|meta| meta.modified().ok())
            .and_then(|at| at.elapsed().ok())
            .is_some_and(|age| age >= older_than);
        if stale
            && entry.file_name().to_str().is_some_and(is_temp_file_name)
            && std::fs::remove_file(entry.path()).is_ok()
        {
            removed.push(entry.path());
        }
    }
    removed
}

/// The permissions a file written at `path` should have, as its folder
/// usually has them: an existing file's own; for a new file, its folder's
/// read and write bits (a `0755` folder gives `0644`, a `0700` one
/// `0600`). None where the platform has no such bits or nothing can be
/// read (the temporary file's own `0600` then stays).
pub fn usual_permissions(path: &Path) -> Option<std::fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            return Some(meta.permissions());
        }
        let folder = std::fs::metadata(path.parent()?).ok()?;
        let mode = folder.permissions().mode() & 0o666;
        Some(std::fs::Permissions::from_mode(mode | 0o600))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Writes `contents` to `path` through a temporary file and a rename, so a
/// reader never sees a half-written file; a file written again keeps its
/// permissions, a new one is its owner's alone (`0600`: some hold keys).
pub fn write_atomically(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), ProjectError> {
    use std::io::Write;
    let write_err = |source| ProjectError::Write {
        path: path.to_path_buf(),
        source,
    };
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent).map_err(write_err)?;
    // A uniquely named file beside the target, renamed over it: readers
    // see the old or the new file whole, and two writers never share a
    // temporary file. Dropped on failure, it removes itself.
    let mut file = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(parent)
        .map_err(write_err)?;
    file.write_all(contents.as_ref()).map_err(write_err)?;
    if let Ok(meta) = std::fs::metadata(path) {
        let permissions = meta.permissions();
        file.as_file()
            .set_permissions(permissions)
            .map_err(write_err)?;
    }
    file.persist(path).map_err(|e| write_err(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lores_own_old_temporary_files_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for name in [".lore-abc.tmp", "notes.tmp", ".lore-keep.md", ".lore-.tmp"] {
            let file = std::fs::File::create(dir.path().join(name)).unwrap();
            file.set_modified(old).unwrap();
        }
        std::fs::write(dir.path().join(".lore-fresh.tmp"), "being written").unwrap();
        std::fs::create_dir(dir.path().join(".lore-dir.tmp")).unwrap();
        let removed = remove_stale_temp_files(dir.path(), std::time::Duration::from_secs(60));
        assert_eq!(removed, vec![dir.path().join(".lore-abc.tmp")]);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                ".lore-.tmp",
                ".lore-dir.tmp",
                ".lore-fresh.tmp",
                ".lore-keep.md",
                "notes.tmp"
            ]
        );
    }

    #[test]
    fn init_writes_the_layout_and_a_loadable_config() {
        let dir = tempfile::tempdir().unwrap();
        let report = init_project(dir.path(), STARTER_CONFIG).unwrap();
        for path in [
            "lore.yaml",
            "wiki/global",
            "semantic-layer",
            "raw-sources",
            ".lore/.gitignore",
        ] {
            assert!(dir.path().join(path).exists(), "{path} missing");
        }
        assert!(report.kept.is_empty());
        let project = Project::load(dir.path()).unwrap();
        assert!(project.config.connections.is_empty());
        assert!(project.warnings.is_empty(), "{:?}", project.warnings);
    }

    #[test]
    fn every_starter_example_loads_once_uncommented() {
        for example in ["warehouse", "analytics"] {
            let mut inside = false;
            let text: String = STARTER_CONFIG
                .lines()
                .map(|line| {
                    if let Some(key) = line.strip_prefix("#  ").filter(|l| !l.starts_with(' ')) {
                        inside = key.starts_with(&format!("{example}:"));
                    } else if !line.starts_with("#    ") {
                        inside = false;
                    }
                    let line = if inside { &line[1..] } else { line };
                    format!("{line}\n")
                })
                .collect();
            let loaded = crate::config::parse_config(&text, Path::new("lore.yaml"))
                .unwrap_or_else(|e| panic!("{example}: {e}\n{text}"));
            assert!(loaded.config.connections.contains_key(example), "{text}");
        }
    }

    #[test]
    fn init_twice_keeps_an_edited_config() {
        let dir = tempfile::tempdir().unwrap();
        init_project(dir.path(), STARTER_CONFIG).unwrap();
        std::fs::write(dir.path().join("lore.yaml"), "connections: {}\n# mine\n").unwrap();
        let report = init_project(dir.path(), STARTER_CONFIG).unwrap();
        assert!(report.created.is_empty());
        let text = std::fs::read_to_string(dir.path().join("lore.yaml")).unwrap();
        assert!(text.contains("# mine"));
    }

    #[test]
    fn project_is_found_in_the_nearest_ancestor_with_lore_yaml() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lore.yaml"), "").unwrap();
        let nested = dir.path().join("a/b");
        std::fs::create_dir_all(&nested).unwrap();
        assert_eq!(resolve_project_dir(None, &nested), dir.path());
        let explicit = tempfile::tempdir().unwrap();
        assert_eq!(
            resolve_project_dir(Some(explicit.path()), &nested),
            explicit.path()
        );
    }

    #[test]
    fn without_any_lore_yaml_the_current_directory_is_the_project() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(resolve_project_dir(None, dir.path()), dir.path());
    }

    #[test]
    fn atomic_writes_leave_one_whole_file_and_no_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/page.md");
        let writers: Vec<_> = (0..8)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || write_atomically(&path, format!("{i}").repeat(10_000)))
            })
            .collect();
        for writer in writers {
            writer.join().unwrap().unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.len(), 10_000);
        assert!(
            text.chars().all(|c| c == text.chars().next().unwrap()),
            "interleaved writes"
        );
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("page.md")]);
    }
}
