//! What a copy of a store (a backup restored, a store moved to
//! PostgreSQL) must keep for the servers that follow it: the gateway's
//! file log, and each numbered log's numbering, so a reader that
//! remembers "seen up to N" misses nothing written after the copy; and
//! no lease, since leases belong to the processes running now.

use lore_store::*;

use super::note;

/// Each numbered log and the column that numbers it.
pub const NUMBERED: [(&str, &str); 4] = [
    ("transactions", "tx_id"),
    ("gateway_files", "seq"),
    ("gateway_searches", "seq"),
    ("ingest_runs", "seq"),
];

fn file(path: &str, hash: &str, chunks: Option<&str>) -> SharedFile {
    SharedFile {
        root: "repo".to_string(),
        path: path.to_string(),
        hash: hash.to_string(),
        chunks: chunks.map(String::from),
    }
}

fn run(run_id: &str) -> IngestRunRecord {
    IngestRunRecord {
        run_id: run_id.into(),
        status: "done".into(),
        stage: "done".into(),
        connection_id: None,
        content_hash: "h".into(),
        actor: "cli".into(),
        pid: 42,
        started_at: "2026-11-25T10:00:00.000Z".into(),
        heartbeat_at: "2026-11-25T10:00:01.000Z".into(),
        finished_at: Some("2026-11-25T10:00:02.000Z".into()),
        tx_id: None,
        report: serde_json::json!({}),
    }
}

fn search(request_id: &str) -> SearchRecord {
    SearchRecord {
        request_id: request_id.into(),
        query: "deploys".into(),
        chunk_ids: vec!["a.py::main".into()],
        created_at: "2026-11-25T10:00:00.000Z".into(),
    }
}

/// Writes rows to every numbered log (the file log with a file changed
/// and one closed) and takes a lease.
pub fn write_numbered_rows(store: &dyn KnowledgeStore) {
    store
        .store("alice", note("deployment", "Blue-green deploys."))
        .unwrap();
    store
        .store(
            "alice",
            note("rollback", "Roll back with the previous image."),
        )
        .unwrap();
    store
        .publish_files(
            "server-a",
            &[
                file("a.py", "h1", Some(r#"[{"id":"a.py::main"}]"#)),
                file("b.py", "h2", Some("[]")),
            ],
        )
        .unwrap();
    store
        .publish_files(
            "server-b",
            &[
                file("a.py", "h3", Some(r#"[{"id":"a.py::run"}]"#)),
                file("b.py", "h2", None),
            ],
        )
        .unwrap();
    for request_id in ["req-1", "req-2"] {
        store.record_search(&search(request_id)).unwrap();
    }
    for run_id in ["run-1", "run-2"] {
        store.save_ingest_run(&run(run_id)).unwrap();
    }
    let lease = store
        .acquire_lease("gateway-ingest:repo", "server-a", 600_000)
        .unwrap();
    assert!(lease.granted);
}

/// The copy holds the source's whole file log, and no lease although the
/// source holds one.
pub fn assert_copied_without_leases(source: &dyn KnowledgeStore, copy: &dyn KnowledgeStore) {
    let log = source.shared_files_since(0, 100).unwrap();
    assert_eq!(log.len(), 4, "the source's file log: {log:?}");
    assert_eq!(copy.shared_files_since(0, 100).unwrap(), log);
    assert_eq!(source.leases("").unwrap().len(), 1);
    assert_eq!(copy.leases("").unwrap(), Vec::<Lease>::new());
    // Free in the copy: the first to ask takes it.
    assert!(
        copy.acquire_lease("gateway-ingest:repo", "server-c", 60_000)
            .unwrap()
            .granted
    );
}

/// One more row written to each numbered log of `copy` is numbered after
/// every row the source held (`source_newest`, in [`NUMBERED`]'s order);
/// `newest(table, column)` reads the copy's highest number. A reader of
/// the file log that had seen the source's last version reads exactly the
/// new one.
pub fn assert_numbering_goes_on(
    copy: &dyn KnowledgeStore,
    source_newest: [i64; 4],
    newest: impl Fn(&str, &str) -> i64,
) {
    let [transactions, files, searches, runs] = source_newest;
    assert!(transactions > 0 && files > 0 && searches > 0 && runs > 0);
    let written = copy
        .store("carol", note("after", "written after the copy"))
        .unwrap();
    assert!(
        written.tx_id > transactions,
        "{} <= {transactions}",
        written.tx_id
    );

    let published = copy
        .publish_files(
            "server-c",
            &[file("c.py", "h4", Some(r#"[{"id":"c.py::new"}]"#))],
        )
        .unwrap();
    assert!(published.seq > files, "{} <= {files}", published.seq);
    let followed = copy.shared_files_since(files, 100).unwrap();
    let paths: Vec<&str> = followed.iter().map(|v| v.file.path.as_str()).collect();
    assert_eq!(paths, vec!["c.py"], "what a follower at {files} reads");

    copy.record_search(&search("req-3")).unwrap();
    let (table, column) = NUMBERED[2];
    assert!(newest(table, column) > searches, "{table}");
    copy.save_ingest_run(&run("run-3")).unwrap();
    let (table, column) = NUMBERED[3];
    assert!(newest(table, column) > runs, "{table}");
}

/// The highest number of each of [`NUMBERED`], as `newest` reads it.
pub fn newest_of_each(newest: impl Fn(&str, &str) -> i64) -> [i64; 4] {
    NUMBERED.map(|(table, column)| newest(table, column))
}
