//! Backups of a project's knowledge: the store and the gateway's state
//! (index, ledgers, graph ledgers, run log) in one zip archive with a
//! checksum manifest (`lore backup create | list | restore`,
//! `km-backup-trigger`).
//!
//! Consistent while writes go on: the store is copied by its own online
//! snapshot ([`KnowledgeStore::backup_to`]: one read transaction, writers
//! not blocked), and the gateway's files while this backup holds the
//! index's writer lock, so no ingest is half-way (an ingest starting
//! meanwhile waits for the lock or reports the conflict; store writes by
//! other tools go on). Archives go to a folder outside every gateway root
//! and outside `.lore/` (never into what they archive), are written under
//! a temporary name and renamed when whole, and the oldest beyond
//! `gateway.backups.keep` are removed. Of the index folder only the files
//! of its last commit are archived (not segments awaiting garbage
//! collection, nor stray files), so two backups of the same state hold
//! the same files. Taking a backup is [`create`]'s and restoring is
//! [`restore`]'s (each its own module).
//!
//! [`KnowledgeStore::backup_to`]: lore_store::KnowledgeStore::backup_to

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

mod create;
mod restore;
pub use create::create;
pub use restore::{RESTORE_FLOOR_BYTES, RESTORE_SIZE_MULTIPLE, restore, restore_cap};

/// The archive format this build writes and reads.
pub const FORMAT: &str = "lore-backup-1";
/// The manifest's name in an archive.
const MANIFEST: &str = "manifest.json";
/// The most bytes of manifest read.
const MANIFEST_MAX_BYTES: u64 = 16 << 20;
/// The store's name in an archive.
const STORE: &str = "store.db";
/// How long a backup waits for a running ingest to end.
const LOCK_WAIT: Duration = Duration::from_secs(60);

/// One file of an archive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArchivedFile {
    /// Its path in the archive (`store.db`, `gateway/index/meta.json`, …).
    pub path: String,
    /// Its size.
    pub bytes: u64,
    /// SHA-256 of its bytes, hex.
    pub sha256: String,
}

/// What an archive holds (`manifest.json`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Manifest {
    /// `lore-backup-1`.
    pub format: String,
    /// When the backup was taken (RFC 3339).
    pub created_at: String,
    /// The Lore version that wrote it.
    pub lore_version: String,
    /// The project folder's name.
    pub project: String,
    /// The project's identity: a hash of its folder's absolute path (none
    /// in archives of earlier builds, which are told apart by `project`
    /// alone). A restore into another project needs `foreign`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// The store's newest transaction in the copy (none without a store).
    pub store_head_tx: Option<i64>,
    /// The gateway's last successful ingest run in the copy.
    pub index_run_id: Option<String>,
    /// Every file, with its checksum.
    pub files: Vec<ArchivedFile>,
}

/// A backup written.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BackupWritten {
    /// The archive (absolute path).
    pub archive: String,
    /// Its size.
    pub bytes: u64,
    /// What it holds.
    pub manifest: Manifest,
    /// Older archives removed to keep `gateway.backups.keep`.
    pub removed: Vec<String>,
}

/// An archive in the backup folder.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BackupListed {
    /// The archive (absolute path).
    pub archive: String,
    /// Its size.
    pub bytes: u64,
    /// Its manifest (none when it cannot be read).
    pub manifest: Option<Manifest>,
    /// Why it cannot be read, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub damaged: Option<String>,
}

/// A restore done.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Restored {
    /// The archive restored.
    pub archive: String,
    /// What it held.
    pub manifest: Manifest,
    /// Where the project's previous data was kept (with `force`), under
    /// `.lore/replaced/`.
    pub previous_saved_to: Option<String>,
}

/// What backups work on.
pub struct BackupPlace<'a> {
    /// The project folder.
    pub project_root: &'a Path,
    /// `.lore/`.
    pub state_dir: &'a Path,
    /// `.lore/gateway/`.
    pub gateway_state: &'a Path,
    /// The store file (`.lore/store.db`).
    pub store_path: &'a Path,
    /// The gateway roots' folders.
    pub roots: Vec<PathBuf>,
    /// `gateway.backups.dir`.
    pub dir: Option<&'a str>,
    /// `gateway.backups.keep`.
    pub keep: u32,
    /// `gateway.backups.restore_max_bytes`: the most bytes a restore may
    /// unpack (default [`restore_cap`]).
    pub restore_max_bytes: Option<u64>,
}

/// How a restore may go.
#[derive(Debug, Clone, Copy, Default)]
pub struct RestoreOptions {
    /// Replace a project that has a store or index (what is there is kept
    /// under `.lore/replaced/<time>/`).
    pub force: bool,
    /// Accept an archive taken from another project (or from this one
    /// before it moved to another folder).
    pub foreign: bool,
}

/// The gateway index held while a backup copies it.
pub struct HeldIndex {
    /// The index's writer lock: no ingest commits while it is held.
    pub lock: Box<dyn std::any::Any>,
    /// The files of the index's last commit, relative to `index/`
    /// ([`crate::index::GatewayIndex::live_files`]).
    pub live_files: BTreeSet<String>,
}

fn invalid(message: impl Into<String>) -> ErrorReport {
    ErrorReport::new(ErrorCode::InvalidArguments, message)
}

fn io_error(what: &str, path: &Path, e: impl std::fmt::Display) -> ErrorReport {
    ErrorReport::new(
        ErrorCode::Internal,
        format!("{what} {}: {e}", path.display()),
    )
}

/// A path with `.` and `..` resolved lexically, and links resolved where
/// the path exists (its nearest existing ancestor).
fn resolved(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut out = std::fs::canonicalize(&existing).unwrap_or(existing);
    for name in rest.into_iter().rev() {
        if name == ".." {
            out.pop();
        } else if name != "." {
            out.push(name);
        }
    }
    out
}

impl BackupPlace<'_> {
    /// The backup folder: `destination`, else `gateway.backups.dir`, else
    /// the user's data folder; refused inside a root or `.lore/`.
    pub fn folder(&self, destination: Option<&str>) -> Result<PathBuf, ErrorReport> {
        let chosen = match destination.or(self.dir) {
            Some(dir) if dir.trim().is_empty() => {
                return Err(invalid("the backup folder is empty; name a folder"));
            }
            Some(dir) => {
                let dir = Path::new(dir);
                if dir.is_absolute() {
                    dir.to_path_buf()
                } else {
                    self.project_root.join(dir)
                }
            }
            None => default_folder(self.project_root)?,
        };
        let folder = resolved(&chosen);
        let state = resolved(self.state_dir);
        if folder.starts_with(&state) {
            return Err(ErrorReport::new(
                ErrorCode::Forbidden,
                format!(
                    "{} is inside {}: a backup must not be written into what it archives; choose a folder outside the project's .lore/",
                    folder.display(),
                    state.display()
                ),
            ));
        }
        for root in &self.roots {
            let root = resolved(root);
            if folder.starts_with(&root) {
                return Err(ErrorReport::new(
                    ErrorCode::Forbidden,
                    format!(
                        "{} is inside the gateway root {}: ingest would read the archives; choose a folder outside every root (gateway.backups.dir)",
                        folder.display(),
                        root.display()
                    ),
                ));
            }
        }
        Ok(folder)
    }

    /// The archives of this project in `folder`, oldest first.
    fn archives(&self, folder: &Path) -> Vec<PathBuf> {
        let prefix = archive_prefix(self.project_root);
        let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".zip"))
                    })
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        found
    }

    /// Retention: the newest `keep` archives of this project in `folder`
    /// stay; the older ones (never `target`) are removed, and returned.
    fn prune(&self, folder: &Path, target: &Path) -> Vec<String> {
        let mut removed = Vec::new();
        let archives = self.archives(folder);
        let excess = archives.len().saturating_sub(self.keep as usize);
        for old in archives.into_iter().take(excess) {
            if old != target && std::fs::remove_file(&old).is_ok() {
                removed.push(old.to_string_lossy().into_owned());
            }
        }
        removed
    }
}

/// `$XDG_DATA_HOME/lore/backups/<project>-<id>` (or under
/// `~/.local/share`).
fn default_folder(project_root: &Path) -> Result<PathBuf, ErrorReport> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .ok_or_else(|| {
            ErrorReport::new(
                ErrorCode::ConfigError,
                "no home folder to keep backups in: set gateway.backups.dir in lore.yaml or pass a destination",
            )
        })?;
    let absolute = resolved(project_root);
    let id = &lore_core::hash::content_hash(absolute.to_string_lossy().as_bytes())[..8];
    Ok(data
        .join("lore/backups")
        .join(format!("{}-{id}", project_name(project_root))))
}

fn project_name(project_root: &Path) -> String {
    let name = resolved(project_root)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".to_string());
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn archive_prefix(project_root: &Path) -> String {
    format!("lore-backup-{}-", project_name(project_root))
}

fn sha256_of(path: &Path) -> Result<(u64, String), ErrorReport> {
    let mut file = std::fs::File::open(path).map_err(|e| io_error("cannot read", path, e))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut bytes = 0u64;
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|e| io_error("cannot read", path, e))?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        hasher.update(&buffer[..n]);
    }
    Ok((bytes, hex(&hasher.finalize())))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every file under `dir` but locks and temporary files (`*.lock`,
/// `*.tmp`: an interrupted write's), as (path relative to `dir`,
/// file), sorted.
fn files_under(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.ends_with(".lock") || name.ends_with(".tmp") {
                    continue;
                }
                if let Ok(relative) = path.strip_prefix(dir) {
                    out.push((relative.to_string_lossy().replace('\\', "/"), path));
                }
            }
        }
    }
    out.sort();
    out
}

/// The gateway's files to archive, as (path in the archive, file): its
/// ledgers, graph ledgers and logs, and of `index/` only the files of the
/// last commit (`live_index`; none without an index).
fn gateway_files(
    gateway_state: &Path,
    live_index: Option<&BTreeSet<String>>,
) -> Vec<(String, PathBuf)> {
    files_under(gateway_state)
        .into_iter()
        .filter(|(relative, _)| match relative.strip_prefix("index/") {
            Some(in_index) => live_index.is_some_and(|live| live.contains(in_index)),
            None => true,
        })
        .map(|(relative, path)| (format!("gateway/{relative}"), path))
        .collect()
}

/// A project's identity in manifests: a hash of its folder's absolute
/// path (links resolved).
fn project_id(project_root: &Path) -> String {
    lore_core::hash::content_hash(resolved(project_root).to_string_lossy().as_bytes())
}

fn write_zip(
    target: &Path,
    manifest: &Manifest,
    files: &[(String, PathBuf)],
) -> Result<(), ErrorReport> {
    let file = std::fs::File::create(target).map_err(|e| io_error("cannot write", target, e))?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    let failed = |e: &dyn std::fmt::Display| io_error("cannot write", target, e);
    zip.start_file(MANIFEST, options).map_err(|e| failed(&e))?;
    let json = serde_json::to_vec_pretty(manifest).map_err(|e| failed(&e))?;
    zip.write_all(&json).map_err(|e| failed(&e))?;
    for (archived, source) in files {
        zip.start_file(archived.as_str(), options)
            .map_err(|e| failed(&e))?;
        let mut input =
            std::fs::File::open(source).map_err(|e| io_error("cannot read", source, e))?;
        std::io::copy(&mut input, &mut zip).map_err(|e| failed(&e))?;
    }
    let mut out = zip.finish().map_err(|e| failed(&e))?;
    out.flush().map_err(|e| failed(&e))?;
    out.get_ref().sync_all().map_err(|e| failed(&e))?;
    Ok(())
}

/// An archive's file name, for messages (the folder it is in is the
/// machine's business).
fn archive_name(archive: &Path) -> String {
    archive
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "the archive".to_string())
}

fn damaged(archive: &Path, why: impl std::fmt::Display) -> ErrorReport {
    invalid(format!(
        "{} is damaged or not a Lore backup ({why}); nothing was restored — use another archive (`lore backup list`)",
        archive_name(archive)
    ))
}

/// Reads an archive's manifest (no checksums checked).
pub fn read_manifest(archive: &Path) -> Result<Manifest, ErrorReport> {
    let file = std::fs::File::open(archive).map_err(|e| {
        ErrorReport::new(
            ErrorCode::NotFound,
            format!("cannot open {}: {e}", archive.display()),
        )
    })?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| damaged(archive, e))?;
    let mut entry = zip
        .by_name(MANIFEST)
        .map_err(|e| damaged(archive, format!("{MANIFEST}: {e}")))?;
    // A manifest is a few hundred bytes per file: one past the bound is
    // not read into memory.
    let mut text = String::new();
    (&mut entry)
        .take(MANIFEST_MAX_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| damaged(archive, format!("{MANIFEST}: {e}")))?;
    if text.len() as u64 > MANIFEST_MAX_BYTES {
        return Err(damaged(
            archive,
            format!("{MANIFEST} is over {} MiB", MANIFEST_MAX_BYTES >> 20),
        ));
    }
    let manifest: Manifest =
        serde_json::from_str(&text).map_err(|e| damaged(archive, format!("{MANIFEST}: {e}")))?;
    if manifest.format != FORMAT {
        return Err(damaged(
            archive,
            format!("format `{}`, this build reads {FORMAT}", manifest.format),
        ));
    }
    Ok(manifest)
}

/// The archives of this project in the backup folder, newest first.
pub fn list(
    place: &BackupPlace<'_>,
    destination: Option<&str>,
) -> Result<Vec<BackupListed>, ErrorReport> {
    let folder = place.folder(destination)?;
    let mut out: Vec<BackupListed> = place
        .archives(&folder)
        .into_iter()
        .map(|archive| {
            let bytes = std::fs::metadata(&archive).map(|m| m.len()).unwrap_or(0);
            let (manifest, damaged) = match read_manifest(&archive) {
                Ok(m) => (Some(m), None),
                Err(e) => (None, Some(e.message)),
            };
            BackupListed {
                archive: archive.to_string_lossy().into_owned(),
                bytes,
                manifest,
                damaged,
            }
        })
        .collect();
    out.reverse();
    Ok(out)
}
