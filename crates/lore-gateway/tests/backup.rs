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
    let restored = fresh.restore(Path::new(&backup.archive), false).unwrap();
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
        let refused = target.restore(bad, true).unwrap_err();
        assert_eq!(
            refused.code,
            ErrorCode::InvalidArguments,
            "{}",
            refused.message
        );
        assert!(refused.message.contains("damaged"), "{}", refused.message);
    }
    let missing = target
        .restore(&base.path().join("nowhere.zip"), false)
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
    // Nothing was written into the project.
    assert!(!target_root.join(".lore/store.db").exists());
    assert!(!target_root.join(".lore/gateway").exists());
    let leftovers: Vec<_> = std::fs::read_dir(target_root.join(".lore"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(leftovers.is_empty(), "{leftovers:?}");
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

    let refused = gateway(&root).restore(&archive, false).unwrap_err();
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

    let restored = gateway(&root).restore(&archive, true).unwrap();
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
