//! Backups through the `Gateway` service: an archive taken while another
//! writer keeps storing restores to a consistent store (every transaction
//! up to the manifest's head, whole) and a working gateway index; damaged
//! archives are refused before anything changes; a project with data is
//! replaced only when forced, its data kept; retention; folders inside
//! what is archived are refused.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use lore_core::ErrorCode;
use lore_core::project::Project;
use lore_gateway::Gateway;
use lore_gateway::backup::RestoreOptions;
use lore_gateway::ingest::IngestRequest;
use lore_gateway::search::SearchRequest;
use lore_store::feed::StoreHandle;
use lore_store::{KnowledgeStore, NewEntry, SqliteStore};

/// A project whose root `repo` holds a little code, with its backups in
/// `backups` beside it (outside the project).
fn project(base: &Path, name: &str, keep: u32) -> PathBuf {
    let root = base.join(name);
    std::fs::create_dir_all(root.join("repo/src")).unwrap();
    std::fs::write(
        root.join("repo/src/invoice.py"),
        "def total_with_tax(net):\n    return net * 1.2\n",
    )
    .unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        format!(
            "gateway:\n  roots:\n    - path: repo\n      name: app\n  backups:\n    dir: {}\n    keep: {keep}\n",
            base.join("backups").display()
        ),
    )
    .unwrap();
    root
}

fn gateway(root: &Path) -> Gateway {
    let project = Project::load(root).unwrap();
    Gateway::for_project(&project).with_store(Arc::new(StoreHandle::sqlite(project.store_path())))
}

fn forced() -> RestoreOptions {
    RestoreOptions {
        force: true,
        foreign: false,
    }
}

/// Nothing of a refused restore is left in `.lore/` (the serving lock,
/// which servers share, stays).
fn assert_no_leftovers(root: &Path) {
    let leftovers: Vec<_> = std::fs::read_dir(root.join(".lore"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name())
                .filter(|n| n != "serving.lock")
                .collect()
        })
        .unwrap_or_default();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn note(i: usize) -> NewEntry {
    NewEntry {
        topic: format!("note {i}"),
        content: format!("Note number {i}."),
        ..Default::default()
    }
}

#[test]
fn a_backup_taken_while_writes_go_on_restores_to_a_consistent_store_and_index() {
    let base = tempfile::tempdir().unwrap();
    let root = project(base.path(), "live", 7);
    let live = gateway(&root);
    let run = live
        .ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    assert!(run.success, "{:?}", run.error);

    // Another writer stores notes without pause during the backup.
    let store_path = root.join(".lore/store.db");
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, path) = (Arc::clone(&stop), store_path.clone());
        std::thread::spawn(move || {
            let store = SqliteStore::open(&path, Default::default()).unwrap();
            let mut written = 0;
            while !stop.load(Ordering::Relaxed) || written < 50 {
                store.store("writer", note(written)).unwrap();
                written += 1;
            }
            written
        })
    };
    while SqliteStore::open(&store_path, Default::default())
        .unwrap()
        .head()
        .unwrap()
        < 20
    {
        std::thread::yield_now();
    }
    let backup = live.backup(None).unwrap();
    stop.store(true, Ordering::Relaxed);
    let written = writer.join().unwrap();
    let head = backup
        .manifest
        .store_head_tx
        .expect("the store is in the archive");
    let live_head = SqliteStore::open(&store_path, Default::default())
        .unwrap()
        .head()
        .unwrap();
    assert!(
        head < live_head,
        "writes went on after the snapshot ({head} vs {live_head})"
    );
    assert!(Path::new(&backup.archive).starts_with(base.path().join("backups")));
    assert!(backup.manifest.files.iter().any(|f| f.path == "store.db"));
    assert!(
        backup
            .manifest
            .files
            .iter()
            .any(|f| f.path == "gateway/index/meta.json")
    );
    assert!(backup.manifest.files.iter().all(|f| f.sha256.len() == 64));

    // Restored into a new project: the store as of the snapshot, whole.
    let fresh_root = project(base.path(), "fresh", 7);
    let fresh = gateway(&fresh_root);
    // Another project's archive is refused unless foreign, even forced.
    let refused = fresh
        .restore(
            Path::new(&backup.archive),
            RestoreOptions {
                force: true,
                foreign: false,
            },
        )
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Conflict, "{}", refused.message);
    assert!(refused.message.contains("--foreign"), "{}", refused.message);
    assert!(!fresh_root.join(".lore/store.db").exists());
    let restored = fresh
        .restore(
            Path::new(&backup.archive),
            RestoreOptions {
                foreign: true,
                ..Default::default()
            },
        )
        .unwrap();
    assert!(restored.previous_saved_to.is_none());
    let store = SqliteStore::open(&fresh_root.join(".lore/store.db"), Default::default()).unwrap();
    let health = store.check().unwrap();
    assert!(health.integrity_ok);
    assert_eq!(health.transactions_without_rows, 0);
    assert_eq!(health.head_tx_id, head);
    let (_, entries) = store.entries_at(None, None).unwrap();
    let notes: Vec<_> = entries
        .iter()
        .filter(|e| e.topic.starts_with("note "))
        .collect();
    // Every note stored before the snapshot is there, none after.
    let n = notes.len();
    assert!(n > 0 && n < written, "{n} of {written}");
    let mut numbers: Vec<usize> = notes
        .iter()
        .map(|e| e.topic.trim_start_matches("note ").parse().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(
        numbers,
        (0..n).collect::<Vec<_>>(),
        "a prefix of the writes"
    );
    // The gateway answers from the restored index and graph.
    let found = fresh
        .search(&SearchRequest {
            query: "total_with_tax".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(found.results[0].chunk.artifact_path, "src/invoice.py");
    assert_eq!(found.metadata.index_run_id, Some(run.run_id));
}

#[test]
fn damaged_archives_are_refused_before_anything_changes() {
    let base = tempfile::tempdir().unwrap();
    let root = project(base.path(), "live", 7);
    let live = gateway(&root);
    live.ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    let archive = PathBuf::from(live.backup(None).unwrap().archive);
    let bytes = std::fs::read(&archive).unwrap();

    let target_root = project(base.path(), "target", 7);
    let target = gateway(&target_root);
    let truncated = base.path().join("truncated.zip");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let flipped = base.path().join("flipped.zip");
    let mut changed = bytes.clone();
    let middle = changed.len() / 3;
    changed[middle] ^= 0xff;
    std::fs::write(&flipped, &changed).unwrap();
    let text = base.path().join("notes.zip");
    std::fs::write(&text, "not an archive").unwrap();
    for bad in [&truncated, &flipped, &text] {
        let options = RestoreOptions {
            force: true,
            foreign: true,
        };
        let refused = target.restore(bad, options).unwrap_err();
        assert_eq!(
            refused.code,
            ErrorCode::InvalidArguments,
            "{}",
            refused.message
        );
        assert!(refused.message.contains("damaged"), "{}", refused.message);
    }
    let missing = target
        .restore(&base.path().join("nowhere.zip"), RestoreOptions::default())
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
    // Nothing was written into the project.
    assert!(!target_root.join(".lore/store.db").exists());
    assert!(!target_root.join(".lore/gateway").exists());
    assert_no_leftovers(&target_root);
}

#[test]
fn a_project_with_data_is_replaced_only_when_forced_and_its_data_is_kept() {
    let base = tempfile::tempdir().unwrap();
    let root = project(base.path(), "live", 7);
    let live = gateway(&root);
    live.ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    let archive = PathBuf::from(live.backup(None).unwrap().archive);
    // Later work the restore would replace.
    std::fs::write(root.join("repo/src/later.py"), "def later():\n    pass\n").unwrap();
    live.ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();

    let refused = gateway(&root)
        .restore(&archive, RestoreOptions::default())
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Conflict);
    assert!(refused.message.contains("--force"), "{}", refused.message);
    let later = || {
        gateway(&root)
            .search(&SearchRequest {
                query: "later".into(),
                ..Default::default()
            })
            .unwrap()
            .results
            .iter()
            .any(|r| r.chunk.artifact_path == "src/later.py")
    };
    assert!(later(), "the refused restore changed nothing");

    let restored = gateway(&root).restore(&archive, forced()).unwrap();
    let kept = PathBuf::from(
        restored
            .previous_saved_to
            .expect("the data replaced is kept"),
    );
    assert!(kept.starts_with(root.join(".lore/replaced")));
    assert!(kept.join("store.db").exists());
    assert!(kept.join("gateway/index/meta.json").exists());
    assert!(!later(), "the index is the archive's");
}

#[test]
fn old_archives_go_beyond_the_kept_number_and_folders_inside_what_is_archived_are_refused() {
    let base = tempfile::tempdir().unwrap();
    let root = project(base.path(), "live", 2);
    let live = gateway(&root);
    live.ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    let first = live.backup(None).unwrap();
    live.backup(None).unwrap();
    let third = live.backup(None).unwrap();
    assert_eq!(third.removed, std::slice::from_ref(&first.archive));
    let listed = live.backups(None).unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].archive, third.archive, "newest first");
    assert!(
        listed
            .iter()
            .all(|l| l.damaged.is_none() && l.manifest.is_some())
    );

    for inside in [
        root.join("repo/backups"),
        root.join(".lore/backups"),
        root.join("repo/../repo/x"),
    ] {
        let refused = live.backup(Some(inside.to_str().unwrap())).unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden, "{}", inside.display());
    }
    assert!(!root.join("repo/backups").exists());
}

/// One entry of a hand-made archive.
enum Entry<'a> {
    File(&'a str, Vec<u8>),
    Link(&'a str, &'a str),
}

/// A manifest line for `bytes` at `path`.
fn listed(path: &str, bytes: &[u8]) -> serde_json::Value {
    use sha2::{Digest, Sha256};
    let sha: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    serde_json::json!({"path": path, "bytes": bytes.len(), "sha256": sha})
}

/// Writes an archive of `project` holding `files` (the manifest's list)
/// and `entries`, as a hostile or broken writer would.
fn craft(path: &Path, project: &str, files: Vec<serde_json::Value>, entries: &[Entry]) {
    use std::io::Write;
    let manifest = serde_json::json!({
        "format": "lore-backup-1",
        "created_at": "2025-01-01T00:00:00Z",
        "lore_version": "0.1.0",
        "project": project,
        "store_head_tx": null,
        "index_run_id": null,
        "files": files,
    });
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("manifest.json", options).unwrap();
    zip.write_all(manifest.to_string().as_bytes()).unwrap();
    for entry in entries {
        match entry {
            Entry::File(name, bytes) => {
                zip.start_file(*name, options).unwrap();
                zip.write_all(bytes).unwrap();
            }
            Entry::Link(name, target) => zip.add_symlink(*name, *target, options).unwrap(),
        }
    }
    zip.finish().unwrap();
}

/// Rewrites the uncompressed size an archive's headers give `name`: the
/// archive's own directory lying along with the manifest.
fn lie_about_size(path: &Path, name: &str, bytes: u32) {
    let mut data = std::fs::read(path).unwrap();
    let needle = name.as_bytes();
    let at: Vec<usize> = (0..data.len() - needle.len())
        .filter(|&i| &data[i..i + needle.len()] == needle)
        .collect();
    for i in at {
        // Local header: the name starts 30 bytes in, the size at 22;
        // central directory: 46 and 24.
        for (header, offset, signature) in [(30, 22, 0x04034b50u32), (46, 24, 0x02014b50)] {
            if i >= header && data[i - header..i - header + 4] == signature.to_le_bytes() {
                let size = i - header + offset;
                data[size..size + 4].copy_from_slice(&bytes.to_le_bytes());
            }
        }
    }
    std::fs::write(path, data).unwrap();
}

#[test]
fn a_restore_is_refused_while_a_server_holds_the_project() {
    let base = tempfile::tempdir().unwrap();
    let root = project(base.path(), "live", 7);
    let live = gateway(&root);
    live.ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    let archive = PathBuf::from(live.backup(None).unwrap().archive);
    let server = lore_core::hold::ProjectHold::serving(&root.join(".lore")).unwrap();
    let refused = gateway(&root).restore(&archive, forced()).unwrap_err();
    assert_eq!(refused.code, ErrorCode::Conflict, "{}", refused.message);
    assert!(
        refused.message.contains("lore mcp stop"),
        "{}",
        refused.message
    );
    assert!(
        !root.join(".lore/replaced").exists(),
        "nothing was replaced"
    );
    drop(server);
    gateway(&root).restore(&archive, forced()).unwrap();
}

#[test]
fn archives_that_would_unpack_past_the_cap_are_refused_before_anything_is_written() {
    let base = tempfile::tempdir().unwrap();
    let root = project(base.path(), "target", 7);
    let target = gateway(&root);

    // A manifest that honestly lists 1.5 GiB: refused from the sizes it
    // declares, before a byte is unpacked.
    let huge = base.path().join("huge.zip");
    let mut line = listed("gateway/index/bulk.bin", b"x");
    line["bytes"] = serde_json::json!(3u64 << 29);
    craft(
        &huge,
        "target",
        vec![line],
        &[Entry::File("gateway/index/bulk.bin", b"x".to_vec())],
    );
    let refused = target.restore(&huge, forced()).unwrap_err();
    assert_eq!(
        refused.code,
        ErrorCode::BudgetExceeded,
        "{}",
        refused.message
    );
    assert!(
        refused
            .message
            .contains("gateway.backups.restore_max_bytes"),
        "{}",
        refused.message
    );
    assert!(!root.join(".lore/gateway").exists());
    assert_no_leftovers(&root);

    // A manifest (and the archive's own directory) that understate what
    // an entry unpacks to: reading stops at the first byte past it.
    let lying = base.path().join("lying.zip");
    craft(
        &lying,
        "target",
        vec![listed("gateway/index/bulk.bin", &[0u8; 10])],
        &[Entry::File("gateway/index/bulk.bin", vec![0u8; 4 << 20])],
    );
    lie_about_size(&lying, "gateway/index/bulk.bin", 10);
    let refused = target.restore(&lying, forced()).unwrap_err();
    assert_eq!(
        refused.code,
        ErrorCode::InvalidArguments,
        "{}",
        refused.message
    );
    assert!(refused.message.contains("damaged"), "{}", refused.message);
    assert!(!root.join(".lore/gateway").exists());
    assert_no_leftovers(&root);

    // A configured cap below a genuine archive's size.
    let live_root = project(base.path(), "capped", 7);
    let yaml = std::fs::read_to_string(live_root.join("lore.yaml")).unwrap();
    std::fs::write(
        live_root.join("lore.yaml"),
        yaml.replace(
            "    keep: 7\n",
            "    keep: 7\n    restore_max_bytes: 4096\n",
        ),
    )
    .unwrap();
    let live = gateway(&live_root);
    live.ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    let archive = PathBuf::from(live.backup(None).unwrap().archive);
    let refused = gateway(&live_root).restore(&archive, forced()).unwrap_err();
    assert_eq!(
        refused.code,
        ErrorCode::BudgetExceeded,
        "{}",
        refused.message
    );
    assert!(refused.message.contains("4096"), "{}", refused.message);
    assert!(!live_root.join(".lore/replaced").exists());
}

#[test]
fn links_and_files_beneath_files_are_refused_without_the_machines_paths() {
    let base = tempfile::tempdir().unwrap();
    let root = project(base.path(), "target", 7);
    let target = gateway(&root);
    let outside = tempfile::tempdir().unwrap();
    let outside_path = outside.path().to_str().unwrap().to_string();

    // A link where the index goes, and a file beneath it.
    let linked = base.path().join("linked.zip");
    craft(
        &linked,
        "target",
        vec![
            listed("gateway/index", outside_path.as_bytes()),
            listed("gateway/index/meta.json", b"{}"),
        ],
        &[
            Entry::Link("gateway/index", &outside_path),
            Entry::File("gateway/index/meta.json", b"{}".to_vec()),
        ],
    );
    // A link alone.
    let link_only = base.path().join("link-only.zip");
    craft(
        &link_only,
        "target",
        vec![listed("gateway/runs.jsonl", outside_path.as_bytes())],
        &[Entry::Link("gateway/runs.jsonl", &outside_path)],
    );
    for (archive, says) in [(&linked, "as the folder of"), (&link_only, "link")] {
        let refused = target.restore(archive, forced()).unwrap_err();
        assert_eq!(
            refused.code,
            ErrorCode::InvalidArguments,
            "{}",
            refused.message
        );
        assert!(refused.message.contains(says), "{}", refused.message);
        assert!(
            !refused.message.contains(base.path().to_str().unwrap())
                && !refused.message.contains(&outside_path),
            "no path of the machine's: {}",
            refused.message
        );
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            0,
            "nothing was written through the link"
        );
        assert!(!root.join(".lore/gateway").exists());
        assert_no_leftovers(&root);
    }
}

#[test]
fn a_backup_holds_the_index_files_of_its_last_commit_only() {
    let base = tempfile::tempdir().unwrap();
    let root = project(base.path(), "live", 7);
    let live = gateway(&root);
    live.ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    // What an interrupted write or an old segment leaves in the folder.
    let index = root.join(".lore/gateway/index");
    std::fs::write(
        index.join("0123456789abcdef0123456789abcdef.idx"),
        vec![7u8; 1 << 20],
    )
    .unwrap();
    std::fs::write(index.join(".lore-a1b2c3.tmp"), vec![7u8; 1 << 20]).unwrap();
    std::fs::write(index.join("stray.bin"), vec![7u8; 1 << 20]).unwrap();

    let first = live.backup(None).unwrap();
    let second = live.backup(None).unwrap();
    let paths: Vec<&str> = first
        .manifest
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert!(paths.contains(&"gateway/index/meta.json"), "{paths:?}");
    assert!(
        paths
            .iter()
            .any(|p| p.starts_with("gateway/index/") && p.ends_with(".idx")),
        "{paths:?}"
    );
    for stray in [
        "0123456789abcdef0123456789abcdef.idx",
        ".lore-a1b2c3.tmp",
        "stray.bin",
    ] {
        assert!(
            !paths.contains(&format!("gateway/index/{stray}").as_str()),
            "{stray} is not the index: {paths:?}"
        );
    }
    assert_eq!(first.manifest.store_head_tx, second.manifest.store_head_tx);
    assert_eq!(
        first.manifest.files, second.manifest.files,
        "the same files"
    );
    assert!(
        first.bytes.abs_diff(second.bytes) < 64,
        "{} vs {} bytes",
        first.bytes,
        second.bytes
    );
    assert!(first.bytes < 1 << 20, "{} bytes", first.bytes);
}
