//! An SQLite store copied into PostgreSQL (`migrate_sqlite_to_postgres`)
//! answers everything exactly as the file did, times and ids included,
//! and goes on where it ended; a copy that would merge two histories or
//! read something that is not a Lore store is refused and writes nothing.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use lore_store::*;

use crate::contract::{code, note};
use crate::same_as_sqlite::{identical, same};
use crate::{Schema, newest_in, server_url};

/// Writes a history with every kind of change through the trait: single
/// and batched stores, updates, keyed puts and a multi-file write,
/// relations added, changed and removed, deletes, undos, and the rows
/// that are not knowledge (cached vectors, searches, feedback, ingest
/// runs, the gateway's file log, a lease).
fn write_history(store: &dyn KnowledgeStore) {
    let first = store
        .store(
            "alice",
            NewEntry {
                tags: vec!["ops".into()],
                ..note("deployment", "Blue-green deploys.")
            },
        )
        .unwrap();
    store
        .store_batch(
            "agent",
            vec![
                NewEntry {
                    confidence: Some(0.8),
                    source: Some("runbook.md".into()),
                    tags: vec!["sre".into(), "ops".into()],
                    ..note("oncall", "Ana is on call.")
                },
                note("billing", "Invoices are in cents."),
                note("rollback", "Roll back with the previous image."),
            ],
        )
        .unwrap();
    store
        .update(
            "alice",
            &first.value.id,
            EntryPatch {
                content: Some("Canary deploys.".into()),
                ..Default::default()
            },
        )
        .unwrap();
    store
        .update(
            "bob",
            "e-2",
            EntryPatch {
                topic: Some("On-call rota".into()),
                tags: Some(vec!["sre".into()]),
                ..Default::default()
            },
        )
        .unwrap();
    let wiki = |content: &str| NewEntry {
        kind: Some(EntryKind::Wiki),
        ..note("wiki/global/revenue", content)
    };
    store
        .put("wiki", wiki("Revenue is paid invoices."), Some(0))
        .unwrap();
    store
        .put("wiki", wiki("Revenue is paid invoices, in cents."), Some(1))
        .unwrap();
    let model = |name: &str, content: &str, remove: bool| TopicWrite {
        entry: NewEntry {
            kind: Some(EntryKind::Model),
            ..note(&format!("models/{name}.yaml"), content)
        },
        expected_version: None,
        remove,
    };
    store
        .put_many(
            "sl",
            "two models",
            vec![
                model("orders", "name: orders", false),
                model("customers", "name: customers", false),
            ],
        )
        .unwrap();
    store
        .relate(
            "graph",
            NewTriple {
                subject: "api".into(),
                predicate: "depends_on".into(),
                object: "db".into(),
                confidence: Some(0.9),
                properties: serde_json::json!({"since": 2024, "via": ["pool"]})
                    .as_object()
                    .cloned(),
            },
        )
        .unwrap();
    let triple = |s: &str, p: &str, o: &str| NewTriple {
        subject: s.into(),
        predicate: p.into(),
        object: o.into(),
        ..Default::default()
    };
    store
        .relate_many(
            "graph",
            "calls",
            vec![
                triple("web", "calls", "api"),
                triple("api", "calls", "queue"),
            ],
            Vec::new(),
        )
        .unwrap();
    let gone = store.delete("alice", "e-3").unwrap();
    store.undo("alice", gone, false).unwrap();
    store.unrelate("graph", "api", "calls", "queue").unwrap();
    store.delete("bob", "e-4").unwrap();
    let changed = store
        .update(
            "alice",
            &first.value.id,
            EntryPatch {
                confidence: Some(0.6),
                ..Default::default()
            },
        )
        .unwrap();
    store.delete("graph", "t-1").unwrap();
    store.undo("alice", changed.tx_id, false).unwrap();
    store
        .put_many("sl", "drop customers", vec![model("customers", "", true)])
        .unwrap();

    store
        .cache_vectors(
            "small",
            &[
                ("h1".into(), vec![0.5, -1.0]),
                ("h2".into(), vec![0.25, 2.0]),
            ],
        )
        .unwrap();
    store
        .cache_vectors("large", &[("h1".into(), vec![1.0, 0.0, -0.125])])
        .unwrap();
    for (request_id, query) in [("req-1", "deploys"), ("req-2", "revenue")] {
        store
            .record_search(&SearchRecord {
                request_id: request_id.into(),
                query: query.into(),
                chunk_ids: vec!["e-1".into(), "wiki/global/revenue".into()],
                created_at: "2026-01-01T00:00:00.000Z".into(),
            })
            .unwrap();
    }
    for (vote, note) in [(1, None), (-1, Some("stale".to_string()))] {
        store
            .submit_feedback(NewFeedback {
                request_id: "req-1".into(),
                chunk_id: "e-1".into(),
                vote,
                note,
                context: serde_json::json!({"task": "deploy"}).as_object().cloned(),
                voter: "alice".into(),
            })
            .unwrap();
    }
    store.save_ingest_run(&run("run-1", "running")).unwrap();
    store.save_ingest_run(&run("run-2", "done")).unwrap();
    let file = |hash: &str, chunks: Option<&str>| SharedFile {
        root: "repo".into(),
        path: "src/deploy.py".into(),
        hash: hash.into(),
        chunks: chunks.map(String::from),
    };
    store
        .publish_files("server-a", &[file("h1", Some(r#"[{"id":"deploy"}]"#))])
        .unwrap();
    store
        .publish_files("server-a", &[file("h1", None)])
        .unwrap();
    store
        .acquire_lease("gateway-ingest:repo", "server-a", 600_000)
        .unwrap();
}

fn run(run_id: &str, status: &str) -> IngestRunRecord {
    IngestRunRecord {
        run_id: run_id.into(),
        status: status.into(),
        stage: if status == "done" { "done" } else { "writing" }.into(),
        connection_id: Some("warehouse".into()),
        content_hash: "h".into(),
        actor: "cli".into(),
        pid: 42,
        started_at: "2026-11-25T10:00:00.000Z".into(),
        heartbeat_at: "2026-11-25T10:00:01.000Z".into(),
        finished_at: (status == "done").then(|| "2026-11-25T10:00:02.000Z".into()),
        tx_id: (status == "done").then_some(3),
        report: serde_json::json!({"captured": 2}),
    }
}

/// A new SQLite store at `dir/store.db` holding [`write_history`].
fn sqlite_store(dir: &Path) -> (SqliteStore, PathBuf) {
    let path = dir.join("store.db");
    let store = SqliteStore::open(&path, Durability::Process).unwrap();
    write_history(&store);
    (store, path)
}

/// Every listing of `query`'s kind, page by page, in both stores.
fn every_entry_page(sqlite: &dyn KnowledgeStore, postgres: &dyn KnowledgeStore, query: EntryQuery) {
    let mut query = EntryQuery {
        limit: Some(2),
        ..query
    };
    for page in 0.. {
        let what = format!("{query:?} page {page}");
        let Some(got) = identical(&what, sqlite.query(&query), postgres.query(&query)) else {
            break;
        };
        let Some(cursor) = got.next_cursor else { break };
        query.cursor = Some(cursor);
        query.as_of_tx_id = None;
    }
}

/// The two stores answer every read alike, times and ids included.
fn answers_alike(sqlite: &dyn KnowledgeStore, postgres: &dyn KnowledgeStore) {
    let head = sqlite.head().unwrap();
    assert_eq!(postgres.head().unwrap(), head);
    let health = |s: &dyn KnowledgeStore| {
        let h = s.check().unwrap();
        (
            h.integrity_ok,
            h.head_tx_id,
            h.entries,
            h.triples,
            h.transactions_without_rows,
        )
    };
    assert_eq!(health(postgres), health(sqlite));
    assert!(health(postgres).0, "the copy passes its check");

    let mut history = HistoryQuery {
        limit: Some(3),
        ..Default::default()
    };
    for page in 0.. {
        let what = format!("history page {page}");
        let got = identical(&what, sqlite.history(&history), postgres.history(&history)).unwrap();
        let Some(cursor) = got.next_cursor else { break };
        history.cursor = Some(cursor);
    }
    let ids: Vec<String> = (1..=18)
        .map(|i| format!("e-{i}"))
        .chain((1..=6).map(|i| format!("t-{i}")))
        .collect();
    for id in &ids {
        let query = HistoryQuery {
            id: Some(id.clone()),
            limit: Some(200),
            ..Default::default()
        };
        identical(
            &format!("history of {id}"),
            sqlite.history(&query),
            postgres.history(&query),
        );
        // Every transaction, one before the first and one after the last.
        for tx in -1..=head + 1 {
            let what = format!("{id} as of {tx}");
            identical(&what, sqlite.get(id, Some(tx)), postgres.get(id, Some(tx)));
        }
        identical(
            &format!("{id} now"),
            sqlite.get(id, None),
            postgres.get(id, None),
        );
    }
    for tx in 0..=head {
        let what = format!("entries as of {tx}");
        identical(
            &what,
            sqlite.entries_at(None, Some(tx)),
            postgres.entries_at(None, Some(tx)),
        );
        every_entry_page(
            sqlite,
            postgres,
            EntryQuery {
                as_of_tx_id: Some(tx),
                ..Default::default()
            },
        );
        let triples = TripleQuery {
            limit: Some(1),
            as_of_tx_id: Some(tx),
            ..Default::default()
        };
        identical(
            &format!("triples as of {tx}"),
            sqlite.list_triples(&triples),
            postgres.list_triples(&triples),
        );
        let graph = GraphQuery {
            node: "api".into(),
            depth: Some(2),
            as_of_tx_id: Some(tx),
            ..Default::default()
        };
        identical(
            &format!("graph as of {tx}"),
            sqlite.query_graph(&graph),
            postgres.query_graph(&graph),
        );
        identical(
            &format!("entries by id as of {tx}"),
            sqlite.entries_by_id(&ids, tx).map(|mut v| {
                v.sort_by(|a, b| a.id.cmp(&b.id));
                v
            }),
            postgres.entries_by_id(&ids, tx).map(|mut v| {
                v.sort_by(|a, b| a.id.cmp(&b.id));
                v
            }),
        );
    }
    for query in [
        EntryQuery {
            topic: Some("wiki".into()),
            ..Default::default()
        },
        EntryQuery {
            tags: vec!["ops".into()],
            ..Default::default()
        },
        EntryQuery {
            kind: Some(EntryKind::Model),
            ..Default::default()
        },
        EntryQuery {
            min_confidence: Some(0.9),
            ..Default::default()
        },
    ] {
        every_entry_page(sqlite, postgres, query);
    }
    // Text search finds the same entries (each backend ranks its own way).
    for words in ["canary deploys", "invoices", "cents", "rota"] {
        let query = EntryQuery {
            text: Some(words.into()),
            limit: Some(200),
            ..Default::default()
        };
        let found = |s: &dyn KnowledgeStore| {
            s.query(&query).map(|p| {
                let mut ids: Vec<String> = p.items.into_iter().map(|e| e.id).collect();
                ids.sort();
                ids
            })
        };
        identical(&format!("text {words}"), found(sqlite), found(postgres));
    }
    for kind in [EntryKind::Note, EntryKind::Wiki, EntryKind::Model] {
        assert_eq!(
            postgres.kind_head(kind).unwrap(),
            sqlite.kind_head(kind).unwrap()
        );
    }
    assert_eq!(
        postgres.changes_since(0, usize::MAX).unwrap(),
        sqlite.changes_since(0, usize::MAX).unwrap()
    );
    for (model, hashes) in [("small", vec!["h1", "h2", "h3"]), ("large", vec!["h1"])] {
        let hashes: Vec<String> = hashes.into_iter().map(String::from).collect();
        assert_eq!(
            postgres.cached_vectors(model, &hashes).unwrap(),
            sqlite.cached_vectors(model, &hashes).unwrap()
        );
    }
    identical(
        "feedback",
        sqlite.feedback_since(0, 100),
        postgres.feedback_since(0, 100),
    );
    for run_id in ["run-1", "run-2", "run-3"] {
        assert_eq!(
            postgres.ingest_run(run_id).unwrap(),
            sqlite.ingest_run(run_id).unwrap()
        );
    }
    assert_eq!(
        postgres.running_ingest_runs().unwrap(),
        sqlite.running_ingest_runs().unwrap()
    );
    assert_eq!(
        postgres.shared_files_since(0, 100).unwrap(),
        sqlite.shared_files_since(0, 100).unwrap()
    );
}

#[test]
fn a_migrated_store_answers_everything_exactly_as_the_sqlite_file_did() {
    let Some(url) = server_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (sqlite, path) = sqlite_store(dir.path());
    let head = sqlite.head().unwrap();
    let versions = sqlite.changes_since(0, usize::MAX).unwrap();
    // Closed, so the file holds everything and can be compared byte for
    // byte: the migration never writes to it.
    drop(sqlite);
    let before = std::fs::read(&path).unwrap();

    let schema = Schema::new(&url);
    let postgres = schema.open();
    let report = migrate_sqlite_to_postgres(&path, &postgres).unwrap();
    assert_eq!(
        report,
        MigrationReport {
            head_tx_id: head,
            transactions: head,
            entry_versions: versions.iter().map(|c| c.entries.len() as i64).sum(),
            triple_versions: versions.iter().map(|c| c.triples.len() as i64).sum(),
            vectors: 3,
            searches: 2,
            feedback: 2,
            ingest_runs: 2,
            shared_files: 2,
        }
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file is unchanged"
    );

    let sqlite = SqliteStore::open(&path, Durability::Process).unwrap();
    answers_alike(&sqlite, &postgres);
    // Another process sees the copy too.
    answers_alike(&sqlite, &schema.open());
}

#[test]
fn after_a_migration_writes_and_undo_go_on_where_the_file_ended() {
    let Some(url) = server_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (sqlite, path) = sqlite_store(dir.path());
    let schema = Schema::new(&url);
    let postgres = schema.open();
    let report = migrate_sqlite_to_postgres(&path, &postgres).unwrap();
    let head = report.head_tx_id;
    let stores: [&dyn KnowledgeStore; 2] = [&sqlite, &postgres];

    // The same writes on both give the same answers (times aside).
    let [a, b] = stores.map(|s| s.store("carol", note("after", "written after the move")));
    let written = same("a store after the move", a, b).unwrap();
    assert_eq!(written.tx_id, head + 1);
    assert_eq!(
        written.value.id,
        format!("e-{}", report.entry_versions + 1),
        "the next entry id follows the copied versions"
    );
    let [a, b] = stores.map(|s| {
        s.relate(
            "carol",
            NewTriple {
                subject: "web".into(),
                predicate: "depends_on".into(),
                object: "db".into(),
                ..Default::default()
            },
        )
    });
    same("a relation after the move", a, b);
    // Undo of transactions written before the move: one with later
    // changes is refused alike, one without succeeds alike.
    let [a, b] = stores.map(|s| s.undo("carol", 2, false));
    same("undo of the batch, changed since", a, b);
    let unrelated = sqlite
        .history(&HistoryQuery {
            id: Some("t-3".into()),
            limit: Some(1),
            ..Default::default()
        })
        .unwrap()
        .items[0]
        .transaction
        .tx_id;
    let [a, b] = stores.map(|s| s.undo("carol", unrelated, false));
    let undone = same("undo of an unrelate before the move", a, b).unwrap();
    assert_eq!(undone.changed_ids, vec!["t-3".to_string()]);
    let [a, b] = stores.map(|s| s.undo("carol", 7, true));
    same("forced undo of the multi-file write", a, b);
    let [a, b] = stores.map(|s| {
        s.submit_feedback(NewFeedback {
            request_id: "req-2".into(),
            chunk_id: "e-1".into(),
            vote: 1,
            note: None,
            context: None,
            voter: "carol".into(),
        })
    });
    assert_eq!(same("feedback after the move", a, b).unwrap().id, 3);
    for store in stores {
        store
            .record_search(&SearchRecord {
                request_id: "req-3".into(),
                query: "after".into(),
                chunk_ids: vec!["e-19".into()],
                created_at: "2026-01-02T00:00:00.000Z".into(),
            })
            .unwrap();
        store.save_ingest_run(&run("run-3", "running")).unwrap();
        store
            .cache_vectors("small", &[("h3".into(), vec![3.0])])
            .unwrap();
    }
    let all = HistoryQuery {
        limit: Some(200),
        ..Default::default()
    };
    let [a, b] = stores.map(|s| s.history(&all));
    same("the whole history after the move", a, b);
    let [a, b] = stores.map(|s| s.feedback_since(0, 100));
    same("the feedback after the move", a, b);
    assert_eq!(postgres.running_ingest_runs().unwrap().len(), 2);
    assert!(postgres.check().unwrap().integrity_ok);
}

#[test]
fn a_store_that_is_not_empty_is_refused_and_left_as_it_was() {
    let Some(url) = server_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_sqlite, path) = sqlite_store(dir.path());

    let schema = Schema::new(&url);
    let target = schema.open();
    target
        .store("dave", note("own", "history of its own"))
        .unwrap();
    let history = |s: &dyn KnowledgeStore| {
        s.history(&HistoryQuery::default())
            .map(|p| serde_json::to_value(p).unwrap())
            .unwrap()
    };
    let before = history(&target);
    let error = migrate_sqlite_to_postgres(&path, &target).unwrap_err();
    let message = error.to_string();
    assert_eq!(code(error), "conflict");
    assert!(
        message.contains("not empty (it holds transactions 1 to 1)"),
        "{message}"
    );
    assert!(message.contains("never merges two histories"), "{message}");
    assert!(
        message.contains(&format!("DROP SCHEMA {}", schema.name)),
        "{message}"
    );
    assert_eq!(history(&target), before);
    assert_eq!(target.head().unwrap(), 1);
    assert!(
        target
            .cached_vectors("small", &["h1".into()])
            .unwrap()
            .is_empty()
    );

    // Rows that are not knowledge count too: they would collide.
    let cache_only = Schema::new(&url);
    let target = cache_only.open();
    target
        .cache_vectors("small", &[("h1".into(), vec![9.0])])
        .unwrap();
    let error = migrate_sqlite_to_postgres(&path, &target).unwrap_err();
    assert!(error.to_string().contains("1 cached vectors"), "{error}");
    assert_eq!(code(error), "conflict");
    assert_eq!(target.head().unwrap(), 0);
    assert_eq!(
        target.cached_vectors("small", &["h1".into()]).unwrap()["h1"],
        vec![9.0]
    );

    // So does the file log (its numbers would collide); leases do not
    // (they are not copied).
    let log_only = Schema::new(&url);
    let target = log_only.open();
    let file = SharedFile {
        root: "repo".into(),
        path: "a.py".into(),
        hash: "h".into(),
        chunks: None,
    };
    target
        .publish_files(
            "server-b",
            &[SharedFile {
                chunks: Some("[]".into()),
                ..file
            }],
        )
        .unwrap();
    let error = migrate_sqlite_to_postgres(&path, &target).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("1 versions of the gateway's file log"),
        "{error}"
    );
    assert_eq!(target.shared_files_since(0, 10).unwrap().len(), 1);
    let leases_only = Schema::new(&url);
    let target = leases_only.open();
    target
        .acquire_lease("gateway-ingest:repo", "server-b", 60_000)
        .unwrap();
    migrate_sqlite_to_postgres(&path, &target).unwrap();
}

#[test]
fn a_migrated_store_keeps_the_file_log_and_numbers_on_after_the_file_without_leases() {
    use crate::contract::numbering::*;
    let Some(url) = server_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    let sqlite = SqliteStore::open(&path, Durability::Process).unwrap();
    write_numbered_rows(&sqlite);
    let source_newest = newest_of_each(|table, column| {
        rusqlite::Connection::open(&path)
            .unwrap()
            .query_row(&format!("SELECT max({column}) FROM {table}"), [], |r| {
                r.get(0)
            })
            .unwrap()
    });
    let schema = Schema::new(&url);
    let postgres = schema.open();
    let report = migrate_sqlite_to_postgres(&path, &postgres).unwrap();
    assert_eq!(report.shared_files, 4);
    assert_copied_without_leases(&sqlite, &postgres);
    assert_numbering_goes_on(&postgres, source_newest, |table, column| {
        newest_in(&url, &schema.name, table, column)
    });
}

#[test]
fn a_file_that_is_not_a_lore_store_of_this_schema_is_refused_and_nothing_is_written() {
    let Some(url) = server_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let schema = Schema::new(&url);
    let target = schema.open();
    let refusal = |path: &Path| {
        let error = migrate_sqlite_to_postgres(path, &target).unwrap_err();
        let message = error.to_string();
        (code(error), message)
    };

    let missing = dir.path().join("missing.db");
    let (code_of, message) = refusal(&missing);
    assert_eq!(code_of, "not_found", "{message}");
    assert!(!missing.exists(), "no file is created");

    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "just some notes, long enough to look like a header ".repeat(20),
    )
    .unwrap();
    let (code_of, message) = refusal(&text);
    assert_eq!(code_of, "invalid_request", "{message}");
    assert!(message.contains("not a Lore store"), "{message}");

    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch(
            "CREATE TABLE schema_migrations (version TEXT); INSERT INTO schema_migrations VALUES ('20240101');",
        )
        .unwrap();
    let (code_of, message) = refusal(&other);
    assert_eq!(code_of, "invalid_request", "{message}");
    assert!(
        message.contains("not a Lore store (it has no transactions table)"),
        "{message}"
    );

    let (sqlite, path) = sqlite_store(dir.path());
    drop(sqlite);
    let set_version = |sql: &str| {
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
    };
    set_version("INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'later')");
    let (code_of, message) = refusal(&path);
    assert_eq!(code_of, "upstream_error", "{message}");
    assert!(message.contains("newer Lore (schema 99"), "{message}");
    // As a store written before ingest runs were kept.
    set_version(
        "DROP TABLE ingest_runs; DROP TABLE tasks; DROP TABLE leases; DROP TABLE gateway_files;
         DELETE FROM schema_migrations WHERE version >= 5",
    );
    let (code_of, message) = refusal(&path);
    assert_eq!(code_of, "invalid_request", "{message}");
    assert!(message.contains("older schema (version 4"), "{message}");

    assert_eq!(target.head().unwrap(), 0);
    assert_eq!(target.check().unwrap().entries, 0);
    // Opening the file with this Lore brings it up to date; then it moves.
    drop(SqliteStore::open(&path, Durability::Process).unwrap());
    let report = migrate_sqlite_to_postgres(&path, &target).unwrap();
    assert_eq!(target.head().unwrap(), report.head_tx_id);
}

#[test]
fn text_postgres_cannot_hold_refuses_the_whole_copy() {
    let Some(url) = server_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (sqlite, path) = sqlite_store(dir.path());
    // SQLite keeps a NUL character; PostgreSQL text cannot. Feedback is
    // copied after the knowledge, so everything before it is rolled back.
    sqlite
        .submit_feedback(NewFeedback {
            request_id: "req-2".into(),
            chunk_id: "e-1".into(),
            vote: 1,
            note: Some("a\0b".into()),
            context: None,
            voter: "eve".into(),
        })
        .unwrap();
    let schema = Schema::new(&url);
    let target = schema.open();
    let error = migrate_sqlite_to_postgres(&path, &target).unwrap_err();
    let message = error.to_string();
    assert_eq!(code(error), "invalid_request");
    assert!(
        message.starts_with("feedback 3 holds a NUL character"),
        "{message}"
    );
    assert_eq!(target.head().unwrap(), 0);
    assert!(
        target
            .cached_vectors("small", &["h1".into()])
            .unwrap()
            .is_empty()
    );
    assert!(target.feedback_since(0, 10).unwrap().is_empty());
}

#[test]
fn a_process_writing_to_the_file_meanwhile_does_not_tear_the_copy() {
    let Some(url) = server_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (sqlite, path) = sqlite_store(dir.path());
    for batch in 0..20 {
        let entries = (0..20)
            .map(|i| {
                note(
                    &format!("bulk {batch}"),
                    &format!("entry {i} of batch {batch}"),
                )
            })
            .collect();
        sqlite.store_batch("bulk", entries).unwrap();
    }
    let started = sqlite.head().unwrap();
    let schema = Schema::new(&url);
    let target = schema.open();

    let stop = AtomicBool::new(false);
    let report = std::thread::scope(|scope| {
        // Another writer of the file (its own connection, as another
        // process would have).
        let writer = scope.spawn(|| {
            let other = SqliteStore::open(&path, Durability::Process).unwrap();
            let mut written = 0;
            while !stop.load(Ordering::Relaxed) {
                other
                    .store("writer", note("meanwhile", &format!("write {written}")))
                    .unwrap();
                other
                    .update(
                        "writer",
                        "e-1",
                        EntryPatch {
                            content: Some(format!("changed {written}")),
                            ..Default::default()
                        },
                    )
                    .unwrap();
                written += 1;
            }
            written
        });
        let report = migrate_sqlite_to_postgres(&path, &target);
        stop.store(true, Ordering::Relaxed);
        let written = writer.join().unwrap();
        println!("{written} writes went on during the migration");
        report.unwrap()
    });

    // The copy holds one state of the file: the one as of its head.
    let head = report.head_tx_id;
    assert!(head >= started, "{head} < {started}");
    assert_eq!(target.head().unwrap(), head);
    assert!(target.check().unwrap().integrity_ok);
    assert_eq!(report.transactions, head);
    let all = HistoryQuery {
        limit: Some(200),
        as_of_tx_id: Some(head),
        ..Default::default()
    };
    let mut query = all.clone();
    loop {
        let page = identical(
            "history as of the copy",
            sqlite.history(&query),
            target.history(&query),
        )
        .unwrap();
        let Some(cursor) = page.next_cursor else {
            break;
        };
        query.cursor = Some(cursor);
    }
    for id in ["e-1", "e-2", "e-5", "t-2"] {
        for tx in [1, head / 2, head] {
            identical(
                &format!("{id} as of {tx}"),
                sqlite.get(id, Some(tx)),
                target.get(id, Some(tx)),
            );
        }
    }
    let (_, live) = target.entries_at(None, None).unwrap();
    let (_, then) = sqlite.entries_at(None, Some(head)).unwrap();
    assert_eq!(live, then);
}

#[test]
fn an_empty_store_moves_as_an_empty_store_that_starts_at_transaction_one() {
    let Some(url) = server_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    drop(SqliteStore::open(&path, Durability::Process).unwrap());
    let schema = Schema::new(&url);
    let target = schema.open();
    let report = migrate_sqlite_to_postgres(&path, &target).unwrap();
    assert_eq!(report, MigrationReport::default());
    let written = target
        .store("first", note("first", "the first entry"))
        .unwrap();
    assert_eq!((written.tx_id, written.value.id.as_str()), (1, "e-1"));
}
