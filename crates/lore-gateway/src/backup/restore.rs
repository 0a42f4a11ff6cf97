//! Restoring an archive, checked whole before the project is touched.
//!
//! In order: no process serves the project (the restore takes
//! `.lore/serving.lock` exclusively and keeps it to the end, so no server
//! starts meanwhile either); the archive is this project's, or `foreign`
//! says another's is meant; its paths are plain files (`store.db`,
//! `gateway/...`), none beneath another; the sizes it declares fit the cap
//! ([`restore_cap`]); the project has no data, or `force`. Then each file
//! is unpacked into a scratch folder in `.lore/` — never a byte past the
//! size the manifest lists, never a link — and its checksum compared, and
//! the store's integrity checked. Only then is the live data moved aside
//! (to `.lore/replaced/<time>/`) and the restored data moved in. A refusal
//! at any step leaves the project as it was (the scratch folder goes with
//! it), and its message names no folder of the machine's.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use lore_core::hold::ProjectHold;
use lore_core::time::UtcMillis;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::KnowledgeStore;
use sha2::{Digest, Sha256};

use super::{
    BackupPlace, Manifest, RestoreOptions, Restored, STORE, archive_name, damaged, files_under,
    hex, project_id, project_name, read_manifest,
};

/// The least a restore may unpack by default: 1 GiB.
pub const RESTORE_FLOOR_BYTES: u64 = 1 << 30;
/// By default a restore may unpack this many times the store and gateway
/// state the project has now (when that is over [`RESTORE_FLOOR_BYTES`]).
pub const RESTORE_SIZE_MULTIPLE: u64 = 4;

/// The most bytes a restore into `place` unpacks:
/// `gateway.backups.restore_max_bytes`, else [`RESTORE_SIZE_MULTIPLE`]
/// times the store and the gateway's state there now, at least
/// [`RESTORE_FLOOR_BYTES`].
pub fn restore_cap(place: &BackupPlace<'_>) -> u64 {
    if let Some(configured) = place.restore_max_bytes {
        return configured;
    }
    let size = |path: &Path| std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let store: u64 = ["", "-wal"]
        .iter()
        .map(|suffix| {
            size(Path::new(&format!(
                "{}{suffix}",
                place.store_path.display()
            )))
        })
        .sum();
    let gateway: u64 = files_under(place.gateway_state)
        .iter()
        .map(|(_, path)| size(path))
        .sum();
    store
        .saturating_add(gateway)
        .saturating_mul(RESTORE_SIZE_MULTIPLE)
        .max(RESTORE_FLOOR_BYTES)
}

/// A path for a message: relative to the project (`.lore/...`).
fn shown(place: &BackupPlace<'_>, path: &Path) -> String {
    match path.strip_prefix(place.project_root) {
        Ok(relative) => relative.display().to_string(),
        Err(_) => path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

fn io_failed(
    place: &BackupPlace<'_>,
    what: &str,
    path: &Path,
    e: impl std::fmt::Display,
) -> ErrorReport {
    ErrorReport::new(
        ErrorCode::Internal,
        format!("{what} {}: {e}; nothing was restored", shown(place, path)),
    )
}

/// Whether the project holds data a restore would replace.
fn has_data(place: &BackupPlace<'_>) -> bool {
    let store = std::fs::metadata(place.store_path).is_ok_and(|m| m.len() > 0);
    store || !files_under(place.gateway_state).is_empty()
}

/// Restores `archive` into the project (see the module's documentation
/// for what is checked first). Blocking.
pub fn restore(
    place: &BackupPlace<'_>,
    archive: &Path,
    options: RestoreOptions,
) -> Result<Restored, ErrorReport> {
    let _hold = hold_exclusively(place)?;
    let manifest = read_manifest(archive)?;
    check_origin(place, archive, &manifest, options)?;
    check_paths(archive, &manifest)?;
    check_size(place, archive, &manifest)?;
    if has_data(place) && !options.force {
        return Err(ErrorReport::new(
            ErrorCode::Conflict,
            "this project already has a store or gateway index; restore with --force (force: true) to replace them — what is there now is kept under .lore/replaced/",
        ));
    }
    // Unpacked and checked beside the live files (same disk: the final
    // moves are renames).
    let scratch = tempfile::Builder::new()
        .prefix(".restoring-")
        .tempdir_in(place.state_dir)
        .map_err(|e| io_failed(place, "cannot write in", place.state_dir, e))?;
    unpack(place, archive, &manifest, scratch.path())?;
    check_store(archive, &manifest, scratch.path())?;
    let previous_saved_to = move_in(place, scratch.path())?;
    Ok(Restored {
        archive: archive.to_string_lossy().into_owned(),
        manifest,
        previous_saved_to,
    })
}

/// The project, exclusively: refused while a server holds it.
fn hold_exclusively(place: &BackupPlace<'_>) -> Result<ProjectHold, ErrorReport> {
    match ProjectHold::exclusive(place.state_dir) {
        Ok(Some(hold)) => Ok(hold),
        Ok(None) => Err(ErrorReport::new(
            ErrorCode::Conflict,
            "a Lore server is serving this project (lore mcp serve, start or stdio): it holds the store open and would go on writing to the file a restore replaces. Stop it first — `lore mcp stop` for the background server, Ctrl-C for `lore mcp serve`, or close the client that runs `lore mcp stdio` — then restore again; nothing was restored",
        )),
        Err(e) => Err(io_failed(
            place,
            "cannot lock",
            &place.state_dir.join(lore_core::hold::SERVING_LOCK),
            e,
        )),
    }
}

/// An archive of another project is refused unless `foreign`.
fn check_origin(
    place: &BackupPlace<'_>,
    archive: &Path,
    manifest: &Manifest,
    options: RestoreOptions,
) -> Result<(), ErrorReport> {
    let here = project_name(place.project_root);
    let ours = match &manifest.project_id {
        Some(id) => *id == project_id(place.project_root),
        None => manifest.project == here,
    };
    if ours || options.foreign {
        return Ok(());
    }
    Err(ErrorReport::new(
        ErrorCode::Conflict,
        format!(
            "{} was taken from another project (`{}`{}), not this one (`{here}`): restoring it would replace this project's knowledge with that project's. If that is meant (this project is where that one moved to, or a copy of it), restore with --foreign (foreign: true); nothing was restored",
            archive_name(archive),
            manifest.project,
            if manifest.project == here {
                " in another folder"
            } else {
                ""
            }
        ),
    ))
}

/// Every path is a plain file under `store.db` or `gateway/`, listed
/// once, and none lies beneath another (a file cannot be a folder too).
fn check_paths(archive: &Path, manifest: &Manifest) -> Result<(), ErrorReport> {
    let mut paths = BTreeSet::new();
    for file in &manifest.files {
        let path = file.path.as_str();
        let safe = !path.is_empty()
            && !path.starts_with('/')
            && !path.contains('\\')
            && !path
                .split('/')
                .any(|p| p == ".." || p == "." || p.is_empty())
            && (path == STORE || path.starts_with("gateway/"));
        if !safe {
            return Err(damaged(archive, format!("unexpected path `{path}`")));
        }
        if !paths.insert(path) {
            return Err(damaged(archive, format!("`{path}` is listed twice")));
        }
    }
    for path in &paths {
        let mut ancestor = *path;
        while let Some((parent, _)) = ancestor.rsplit_once('/') {
            if paths.contains(parent) {
                return Err(damaged(
                    archive,
                    format!("`{parent}` is listed as a file and as the folder of `{path}`"),
                ));
            }
            ancestor = parent;
        }
    }
    Ok(())
}

/// The sizes the manifest declares fit [`restore_cap`].
fn check_size(
    place: &BackupPlace<'_>,
    archive: &Path,
    manifest: &Manifest,
) -> Result<(), ErrorReport> {
    let declared = manifest
        .files
        .iter()
        .fold(0u64, |sum, f| sum.saturating_add(f.bytes));
    let cap = restore_cap(place);
    if declared <= cap {
        return Ok(());
    }
    Err(ErrorReport::new(
        ErrorCode::BudgetExceeded,
        format!(
            "{} would unpack {declared} bytes, over the {cap} a restore may write here (gateway.backups.restore_max_bytes; by default {RESTORE_SIZE_MULTIPLE} times this project's store and index, at least {} GiB); nothing was written. If the archive is genuine, raise gateway.backups.restore_max_bytes in lore.yaml",
            archive_name(archive),
            RESTORE_FLOOR_BYTES >> 30
        ),
    ))
}

/// Unpacks the manifest's files into `scratch`, each checked against its
/// declared size (before and while reading) and checksum.
fn unpack(
    place: &BackupPlace<'_>,
    archive: &Path,
    manifest: &Manifest,
    scratch: &Path,
) -> Result<(), ErrorReport> {
    let file = std::fs::File::open(archive).map_err(|e| damaged(archive, e))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| damaged(archive, e))?;
    for expected in &manifest.files {
        let mut entry = zip
            .by_name(&expected.path)
            .map_err(|e| damaged(archive, format!("{}: {e}", expected.path)))?;
        if entry.is_symlink() || entry.is_dir() {
            return Err(damaged(
                archive,
                format!(
                    "`{}` is a link or a folder; a Lore backup holds only files",
                    expected.path
                ),
            ));
        }
        if entry.size() != expected.bytes {
            return Err(damaged(
                archive,
                format!(
                    "`{}` unpacks to {} bytes, the manifest says {}",
                    expected.path,
                    entry.size(),
                    expected.bytes
                ),
            ));
        }
        let out_path = scratch.join(&expected.path);
        if let Some(parent) = out_path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| io_failed(place, "cannot create", parent, e))?;
        }
        let mut out = std::fs::File::create_new(&out_path)
            .map_err(|e| io_failed(place, "cannot write", &out_path, e))?;
        let mut hasher = Sha256::new();
        let mut buffer = vec![0u8; 1 << 16];
        let mut bytes = 0u64;
        loop {
            let n = entry
                .read(&mut buffer)
                .map_err(|e| damaged(archive, format!("{}: {e}", expected.path)))?;
            if n == 0 {
                break;
            }
            bytes += n as u64;
            // The size in the archive's directory can lie too: reading
            // stops at the first byte past the manifest's.
            if bytes > expected.bytes {
                return Err(damaged(
                    archive,
                    format!(
                        "`{}` unpacks to more than the {} bytes the manifest lists",
                        expected.path, expected.bytes
                    ),
                ));
            }
            hasher.update(&buffer[..n]);
            out.write_all(&buffer[..n])
                .map_err(|e| io_failed(place, "cannot write", &out_path, e))?;
        }
        let sha256 = hex(&hasher.finalize());
        if bytes != expected.bytes || sha256 != expected.sha256 {
            return Err(damaged(
                archive,
                format!(
                    "{}: {bytes} bytes with checksum {sha256}, the manifest says {} bytes with {}",
                    expected.path, expected.bytes, expected.sha256
                ),
            ));
        }
    }
    Ok(())
}

/// The unpacked store (if any) passes its integrity check and holds the
/// manifest's head transaction.
fn check_store(archive: &Path, manifest: &Manifest, scratch: &Path) -> Result<(), ErrorReport> {
    let restored_store = scratch.join(STORE);
    if !restored_store.exists() {
        return Ok(());
    }
    let store = lore_store::SqliteStore::open(&restored_store, Default::default())
        .map_err(|e| damaged(archive, format!("store: {e}")))?;
    let health = store
        .check()
        .map_err(|e| damaged(archive, format!("store: {e}")))?;
    if !health.integrity_ok || health.transactions_without_rows != 0 {
        return Err(damaged(archive, "the store fails its integrity check"));
    }
    if manifest
        .store_head_tx
        .is_some_and(|h| h != health.head_tx_id)
    {
        return Err(damaged(
            archive,
            format!(
                "the store holds transaction {}, the manifest says {:?}",
                health.head_tx_id, manifest.store_head_tx
            ),
        ));
    }
    Ok(())
}

/// Moves what the project has aside (under `.lore/replaced/<time>/`,
/// returned) and the checked files in.
fn move_in(place: &BackupPlace<'_>, scratch: &Path) -> Result<Option<String>, ErrorReport> {
    let mut previous_saved_to = None;
    if has_data(place) {
        let aside = place
            .state_dir
            .join("replaced")
            .join(UtcMillis::now().to_compact());
        std::fs::create_dir_all(&aside)
            .map_err(|e| io_failed(place, "cannot create", &aside, e))?;
        for suffix in ["", "-wal", "-shm"] {
            let live = PathBuf::from(format!("{}{suffix}", place.store_path.display()));
            if live.exists() {
                let name = live
                    .file_name()
                    .map(|n| n.to_os_string())
                    .unwrap_or_default();
                std::fs::rename(&live, aside.join(name))
                    .map_err(|e| io_failed(place, "cannot move aside", &live, e))?;
            }
        }
        if place.gateway_state.exists() {
            std::fs::rename(place.gateway_state, aside.join("gateway"))
                .map_err(|e| io_failed(place, "cannot move aside", place.gateway_state, e))?;
        }
        previous_saved_to = Some(aside.to_string_lossy().into_owned());
    }
    let restored_store = scratch.join(STORE);
    if restored_store.exists() {
        // Opening it for the check left no WAL behind once closed; the
        // file itself is the store.
        for suffix in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", restored_store.display()));
        }
        std::fs::rename(&restored_store, place.store_path)
            .map_err(|e| io_failed(place, "cannot restore", place.store_path, e))?;
    }
    let restored_gateway = scratch.join("gateway");
    if restored_gateway.exists() {
        if let Some(parent) = place.gateway_state.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| io_failed(place, "cannot create", parent, e))?;
        }
        std::fs::rename(&restored_gateway, place.gateway_state)
            .map_err(|e| io_failed(place, "cannot restore", place.gateway_state, e))?;
    }
    Ok(previous_saved_to)
}
