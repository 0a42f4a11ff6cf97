//! Backups of a PostgreSQL store are SQLite store files holding the same
//! transactions and rows; restored (opened, or moved into a new schema),
//! they go on numbering where the store stood, without its leases.

use lore_store::*;

use crate::contract::{code, note};
use crate::{Schema, newest_in, server_url};

#[test]
fn a_backup_is_an_sqlite_store_holding_the_same_transactions_and_rows() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    let store = schema.open();
    let first = store
        .store(
            "test",
            NewEntry {
                tags: vec!["ops".into()],
                ..note("deployment", "Blue-green deploys.")
            },
        )
        .unwrap();
    store
        .update(
            "test",
            &first.value.id,
            EntryPatch {
                content: Some("Canary deploys.".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let page = store
        .put(
            "test",
            NewEntry {
                kind: Some(EntryKind::Wiki),
                ..note("wiki/global/revenue", "Revenue is paid invoices.")
            },
            Some(0),
        )
        .unwrap();
    store
        .relate(
            "test",
            NewTriple {
                subject: "api".into(),
                predicate: "depends_on".into(),
                object: "db".into(),
                properties: serde_json::json!({"since": 2024}).as_object().cloned(),
                ..Default::default()
            },
        )
        .unwrap();
    let gone = store.delete("test", &page.value.id).unwrap();
    store.undo("test", gone, false).unwrap();
    store.delete("test", "t-1").unwrap();
    store
        .cache_vectors("m", &[("h1".into(), vec![0.5, -1.0])])
        .unwrap();
    store
        .record_search(&SearchRecord {
            request_id: "req-1".into(),
            query: "deploys".into(),
            chunk_ids: vec!["a.py::x".into()],
            created_at: "2026-01-01T00:00:00Z".into(),
        })
        .unwrap();
    let vote = store
        .submit_feedback(NewFeedback {
            request_id: "req-1".into(),
            chunk_id: "a.py::x".into(),
            vote: 1,
            note: None,
            context: serde_json::json!({"task": "demo"}).as_object().cloned(),
            voter: "alice".into(),
        })
        .unwrap();
    let run = IngestRunRecord {
        run_id: "run-1".into(),
        status: "running".into(),
        stage: "queued".into(),
        connection_id: None,
        content_hash: "h".into(),
        actor: "cli".into(),
        pid: 42,
        started_at: "2026-11-25T10:00:00.000Z".into(),
        heartbeat_at: "2026-11-25T10:00:00.000Z".into(),
        finished_at: None,
        tx_id: None,
        report: serde_json::json!({}),
    };
    store.save_ingest_run(&run).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("backup.db");
    let head = store.backup_to(&target).unwrap();
    assert_eq!(head, store.head().unwrap());
    store
        .store("test", note("later", "not in the backup"))
        .unwrap();

    let copy = SqliteStore::open(&target, Durability::Process).unwrap();
    assert_eq!(copy.head().unwrap(), head);
    let health = copy.check().unwrap();
    assert!(health.integrity_ok);
    assert_eq!((health.entries, health.triples), (2, 0));
    // Every state, as of every transaction, reads the same.
    for tx in 1..=head {
        for id in ["e-1", "e-3", "t-1"] {
            let (pg, sqlite) = (store.get(id, Some(tx)), copy.get(id, Some(tx)));
            match (pg, sqlite) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{id} as of {tx}"),
                (Err(a), Err(b)) => assert_eq!(code(a), code(b), "{id} as of {tx}"),
                (a, b) => panic!("{id} as of {tx}: {a:?} against {b:?}"),
            }
        }
    }
    let history = |s: &dyn KnowledgeStore| -> Vec<serde_json::Value> {
        s.history(&HistoryQuery {
            as_of_tx_id: Some(head),
            limit: Some(200),
            ..Default::default()
        })
        .unwrap()
        .items
        .iter()
        .map(|i| serde_json::to_value(i).unwrap())
        .collect()
    };
    assert_eq!(history(&store), history(&copy));
    // The copy's full-text index and tags were filled.
    let found = copy
        .query(&EntryQuery {
            text: Some("canary".into()),
            tags: vec!["ops".into()],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(found.items.len(), 1);
    assert_eq!(
        copy.cached_vectors("m", &["h1".into()]).unwrap()["h1"],
        vec![0.5, -1.0]
    );
    assert_eq!(copy.feedback_since(0, 10).unwrap(), vec![vote]);
    assert_eq!(copy.ingest_run("run-1").unwrap(), Some(run));
    // The copy goes on where the backup ends (five entry versions were
    // written: the next entry is e-6, in both stores).
    let next = copy.store("test", note("after", "restored")).unwrap();
    assert_eq!(next.tx_id, head + 1);
    assert_eq!(next.value.id, "e-6");

    // An existing target is refused and left alone; nothing partial stays.
    let error = store.backup_to(&target).unwrap_err();
    assert_eq!(code(error), "conflict");
    assert!(!dir.path().join("backup.partial").exists());
}

#[test]
fn a_restored_backup_keeps_the_file_log_and_numbers_on_after_it_without_leases() {
    use crate::contract::numbering::*;
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    let store = schema.open();
    write_numbered_rows(&store);
    let source_newest =
        newest_of_each(|table, column| newest_in(&url, &schema.name, table, column));
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("backup.db");
    store.backup_to(&target).unwrap();

    // Restored into a new PostgreSQL store (the backup moved in)…
    let restored = Schema::new(&url);
    let into = restored.open();
    let report = migrate_sqlite_to_postgres(&target, &into).unwrap();
    assert_eq!(report.shared_files, 4);
    assert_copied_without_leases(&store, &into);
    assert_numbering_goes_on(&into, source_newest, |table, column| {
        newest_in(&url, &restored.name, table, column)
    });

    // …or used as the embedded store.
    let copy = SqliteStore::open(&target, Durability::Process).unwrap();
    assert_copied_without_leases(&store, &copy);
    assert_numbering_goes_on(&copy, source_newest, |table, column| {
        rusqlite::Connection::open(&target)
            .unwrap()
            .query_row(&format!("SELECT max({column}) FROM {table}"), [], |r| {
                r.get(0)
            })
            .unwrap()
    });
}
