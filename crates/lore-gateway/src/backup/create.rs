//! Taking a backup: the store's online snapshot and the gateway's files
//! (copied while the index's writer lock is held) zipped with their
//! checksums under a temporary name, renamed when whole, then the oldest
//! archives beyond `gateway.backups.keep` removed.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lore_core::time::UtcMillis;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::KnowledgeStore;

use super::{
    ArchivedFile, BackupPlace, BackupWritten, FORMAT, HeldIndex, LOCK_WAIT, Manifest, STORE,
    archive_prefix, gateway_files, io_error, project_id, project_name, sha256_of, write_zip,
};

/// Takes a backup of `place` into `destination` (or the configured
/// folder), holding `index_lock` while the gateway's files are read.
pub fn create(
    place: &BackupPlace<'_>,
    store: Option<&dyn KnowledgeStore>,
    index_lock: &dyn Fn() -> Result<Option<HeldIndex>, ErrorReport>,
    destination: Option<&str>,
) -> Result<BackupWritten, ErrorReport> {
    if place.keep == 0 {
        return Err(ErrorReport::new(
            ErrorCode::ConfigError,
            "gateway.backups.keep must be at least 1",
        ));
    }
    let folder = place.folder(destination)?;
    std::fs::create_dir_all(&folder).map_err(|e| io_error("cannot create", &folder, e))?;
    let now = UtcMillis::now();
    let name = format!("{}{}", archive_prefix(place.project_root), now.to_compact());
    let target = folder.join(format!("{name}.zip"));
    if target.exists() {
        return Err(ErrorReport::new(
            ErrorCode::Conflict,
            format!("{} already exists; try again in a second", target.display()),
        ));
    }
    let scratch = tempfile::Builder::new()
        .prefix(".lore-backup-")
        .tempdir_in(&folder)
        .map_err(|e| io_error("cannot write in", &folder, e))?;

    // The gateway's files, while no ingest runs; the store's snapshot in
    // the same window, so the graph in the store matches the ledgers.
    let held = hold_index(index_lock)?;
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let store_head_tx = match store {
        Some(store) => {
            let copy = scratch.path().join(STORE);
            let head = store.backup_to(&copy).map_err(|e| {
                ErrorReport::new(ErrorCode::UpstreamError, format!("store snapshot: {e}"))
            })?;
            files.push((STORE.to_string(), copy));
            Some(head)
        }
        None => None,
    };
    let partial = folder.join(format!(".{name}.zip.partial"));
    let result = (|| -> Result<Manifest, ErrorReport> {
        // The gateway's files are copied into the scratch folder first
        // (the lock is held only that long), then zipped.
        copy_gateway_files(place, held, scratch.path(), &mut files)?;
        let manifest = manifest_of(place, now, store_head_tx, &files)?;
        write_zip(&partial, &manifest, &files)?;
        Ok(manifest)
    })();
    let manifest = match result {
        Ok(manifest) => manifest,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    std::fs::rename(&partial, &target).map_err(|e| io_error("cannot write", &target, e))?;
    let bytes = std::fs::metadata(&target).map(|m| m.len()).unwrap_or(0);
    let removed = place.prune(&folder, &target);
    Ok(BackupWritten {
        archive: target.to_string_lossy().into_owned(),
        bytes,
        manifest,
        removed,
    })
}

/// Takes the index's writer lock, waiting up to [`LOCK_WAIT`] while an
/// ingest holds it.
fn hold_index(
    index_lock: &dyn Fn() -> Result<Option<HeldIndex>, ErrorReport>,
) -> Result<Option<HeldIndex>, ErrorReport> {
    let started = Instant::now();
    loop {
        match index_lock() {
            Ok(held) => return Ok(held),
            Err(e) if e.code == ErrorCode::Conflict && started.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => {
                return Err(ErrorReport::new(
                    e.code,
                    format!(
                        "{} (the backup waited {} s)",
                        e.message,
                        LOCK_WAIT.as_secs()
                    ),
                ));
            }
        }
    }
}

/// Copies the gateway's files (of the index, those of its last commit)
/// into `scratch`, adding them to `files`, then lets go of the index.
fn copy_gateway_files(
    place: &BackupPlace<'_>,
    held: Option<HeldIndex>,
    scratch: &Path,
    files: &mut Vec<(String, PathBuf)>,
) -> Result<(), ErrorReport> {
    let live_index = held.as_ref().map(|h| &h.live_files);
    for (archived, source) in gateway_files(place.gateway_state, live_index) {
        let copy = scratch.join(&archived);
        if let Some(parent) = copy.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io_error("cannot create", parent, e))?;
        }
        std::fs::copy(&source, &copy).map_err(|e| io_error("cannot copy", &source, e))?;
        files.push((archived, copy));
    }
    drop(held);
    Ok(())
}

/// The manifest of an archive of `files` (archived path, copy), taken
/// `now`: the project, the store's head, the last ingest run, and each
/// file's checksum.
fn manifest_of(
    place: &BackupPlace<'_>,
    now: UtcMillis,
    store_head_tx: Option<i64>,
    files: &[(String, PathBuf)],
) -> Result<Manifest, ErrorReport> {
    let mut manifest = Manifest {
        format: FORMAT.to_string(),
        created_at: now.to_iso(),
        lore_version: env!("CARGO_PKG_VERSION").to_string(),
        project: project_name(place.project_root),
        project_id: Some(project_id(place.project_root)),
        store_head_tx,
        index_run_id: crate::ingest::last_run(place.gateway_state, None)
            .filter(|r| r.success)
            .map(|r| r.run_id),
        files: Vec::new(),
    };
    for (archived, copy) in files {
        let (bytes, sha256) = sha256_of(copy)?;
        manifest.files.push(ArchivedFile {
            path: archived.clone(),
            bytes,
            sha256,
        });
    }
    Ok(manifest)
}
