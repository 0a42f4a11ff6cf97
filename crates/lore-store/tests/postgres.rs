//! The PostgreSQL backend: the whole store contract (`contract/`) on a
//! real server, and what only a server backend has to say (writers in
//! several processes, a server that is down, notifications, callers on
//! any thread, backups as SQLite files).
//!
//! Runs against the server `LORE_TEST_POSTGRES_URL` names
//! (e.g. `postgres://postgres@127.0.0.1:5432/test`), each case in a schema
//! of its own that is dropped afterwards, so cases run in parallel. Without
//! the variable the cases pass after printing `skipped: set
//! LORE_TEST_POSTGRES_URL`, unless `LORE_REQUIRE_SERVERS=1` demands a
//! server.

#[macro_use]
mod contract;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use contract::{code, note};
use lore_core::error::HasErrorCode;
use lore_store::*;

/// The test server's url, or `None` (after saying so) when none is set.
fn server_url() -> Option<String> {
    match std::env::var("LORE_TEST_POSTGRES_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("LORE_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "LORE_REQUIRE_SERVERS=1 but LORE_TEST_POSTGRES_URL is not set: point it at a PostgreSQL database the tests may create schemas in, e.g. postgres://postgres@127.0.0.1:5432/test"
            );
            println!("skipped: set LORE_TEST_POSTGRES_URL");
            None
        }
    }
}

/// A schema of its own for one case; dropped (with everything in it)
/// when the case ends.
struct Schema {
    url: String,
    name: String,
}

impl Schema {
    fn new(url: &str) -> Schema {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        Schema {
            url: url.to_string(),
            name: format!(
                "lore_test_{}_{}_{nanos}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ),
        }
    }

    fn open(&self) -> PostgresStore {
        PostgresStore::open_in_schema(&self.url, &self.name).unwrap()
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let drop = format!("DROP SCHEMA IF EXISTS \"{}\" CASCADE", self.name);
        let _ = run_sql(&self.url, &drop);
    }
}

/// Runs `sql` on a connection of its own (test setup and cleanup).
fn run_sql(url: &str, sql: &str) -> Result<(), tokio_postgres::Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
        let driver = tokio::spawn(connection);
        let done = client.batch_execute(sql).await;
        drop(client);
        let _ = driver.await;
        done
    })
}

fn open() -> Option<(Schema, Box<dyn KnowledgeStore>)> {
    let url = server_url()?;
    let schema = Schema::new(&url);
    let store = schema.open();
    Some((schema, Box::new(store)))
}

contract_suite!(optional open);

#[test]
fn an_unreachable_server_is_a_retryable_unavailable_error_that_says_where() {
    // Nothing listens on port 1: no server is needed for this case.
    let error = PostgresStore::open("postgres://postgres@127.0.0.1:1/test").unwrap_err();
    assert_eq!(error.code().as_str(), "unavailable", "{error}");
    assert!(error.retryable());
    let message = error.to_string();
    assert!(message.contains("127.0.0.1:1"), "{message}");
    assert!(message.contains("check that it runs"), "{message}");
}

#[test]
fn two_stores_writing_at_once_lose_nothing_and_keep_ids_increasing() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    // Two stores are two pools of connections, as two processes have.
    let stores = [Arc::new(schema.open()), Arc::new(schema.open())];
    const WRITERS_PER_STORE: usize = 3;
    const WRITES: usize = 20;
    let mut threads = Vec::new();
    for (s, store) in stores.iter().enumerate() {
        for w in 0..WRITERS_PER_STORE {
            let store = Arc::clone(store);
            threads.push(std::thread::spawn(move || {
                let mut mine = Vec::new();
                for i in 0..WRITES {
                    let fact = format!("store {s} writer {w} fact {i}");
                    mine.push(store.store("test", note("load", &fact)).unwrap().tx_id);
                    // Every writer also writes the one page of a shared
                    // topic: there must stay exactly one.
                    let page = NewEntry {
                        kind: Some(EntryKind::Wiki),
                        ..note("wiki/shared", &fact)
                    };
                    mine.push(store.put("test", page, None).unwrap().tx_id);
                }
                mine
            }));
        }
    }
    let mut all = Vec::new();
    for thread in threads {
        let mine = thread.join().unwrap();
        assert!(
            mine.windows(2).all(|w| w[0] < w[1]),
            "one writer's transactions are increasing: {mine:?}"
        );
        all.extend(mine);
    }
    let writers = 2 * WRITERS_PER_STORE;
    let total = (writers * WRITES * 2) as i64;
    all.sort_unstable();
    assert_eq!(all, (1..=total).collect::<Vec<_>>(), "unique and gap-free");
    for store in &stores {
        assert_eq!(store.head().unwrap(), total);
        let health = store.check().unwrap();
        assert!(health.integrity_ok);
        assert_eq!(health.entries, (writers * WRITES) as i64 + 1);
    }
    let (_, pages) = stores[0].entries_at(Some(EntryKind::Wiki), None).unwrap();
    assert_eq!(pages.len(), 1, "one page per topic");
    assert_eq!(pages[0].version, (writers * WRITES) as i64);
    let feed = stores[1].changes_since(0, 1000).unwrap();
    assert_eq!(feed.len(), total as usize);
}

#[test]
fn the_store_is_safe_to_call_from_any_thread_and_to_drop_in_async_code() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    let store = Arc::new(schema.open());

    // A plain thread.
    let on_thread = Arc::clone(&store);
    std::thread::spawn(move || on_thread.store("test", note("a", "from a thread")).unwrap())
        .join()
        .unwrap();

    // The blocking pool of a multi-thread runtime, and (by mistake)
    // straight from async tasks on either kind of runtime.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let blocking = Arc::clone(&store);
        tokio::task::spawn_blocking(move || {
            blocking
                .store("test", note("b", "from spawn_blocking"))
                .unwrap()
        })
        .await
        .unwrap();
        store
            .store("test", note("c", "from an async task"))
            .unwrap();
        let spawned = Arc::clone(&store);
        tokio::spawn(async move { spawned.head().unwrap() })
            .await
            .unwrap();
    });
    let single = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    single.block_on(async {
        store
            .store("test", note("d", "from a current-thread runtime"))
            .unwrap();
        // Opening and dropping a store inside async code does not panic.
        let other = schema.open();
        assert_eq!(other.head().unwrap(), 4);
        drop(other);
    });
    assert_eq!(store.head().unwrap(), 4);
}

#[test]
fn every_committed_write_notifies_its_transaction_id_and_nothing_else_does() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    let store = schema.open();
    assert_eq!(
        store.notify_channel(),
        format!("lore_store_{}", schema.name),
        "a schema of its own has a channel of its own"
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, mut connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let (heard, mut notifications) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(Ok(message)) =
                std::future::poll_fn(|cx| connection.poll_message(cx)).await
            {
                if let tokio_postgres::AsyncMessage::Notification(n) = message {
                    let _ = heard.send((n.channel().to_string(), n.payload().to_string()));
                }
            }
        });
        client
            .batch_execute(&format!("LISTEN \"{}\"", store.notify_channel()))
            .await
            .unwrap();

        let stored = store.store("test", note("a", "one")).unwrap();
        // Writes that commit nothing notify nothing: a no-op, a refusal.
        store
            .update(
                "test",
                &stored.value.id,
                EntryPatch {
                    content: Some("one".into()),
                    ..Default::default()
                },
            )
            .unwrap();
        store.delete("test", "e-99").unwrap_err();
        store
            .cache_vectors("m", &[("h".into(), vec![1.0])])
            .unwrap();
        let deleted = store.delete("test", &stored.value.id).unwrap();

        let mut payloads = Vec::new();
        while payloads.len() < 2 {
            let (channel, payload) =
                tokio::time::timeout(std::time::Duration::from_secs(10), notifications.recv())
                    .await
                    .expect("a notification within 10 s")
                    .unwrap();
            assert_eq!(channel, store.notify_channel());
            payloads.push(payload);
        }
        assert_eq!(payloads, [stored.tx_id.to_string(), deleted.to_string()]);
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(notifications.try_recv().is_err(), "nothing more");
    });
}

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
fn text_with_a_nul_character_is_refused_as_invalid() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    let store = schema.open();
    let error = store.store("test", note("t", "a\0b")).unwrap_err();
    assert_eq!(code(error), "invalid_request");
    assert_eq!(store.head().unwrap(), 0);
    // The session that saw the error goes on working.
    store.store("test", note("t", "ab")).unwrap();
}

#[test]
fn a_file_of_very_many_distinct_words_is_stored_and_found_by_its_first_words() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    let store = schema.open();
    // About 1 MiB of distinct words: more than a tsvector holds.
    let mut content = String::new();
    let mut i = 0;
    while content.len() < 1000 * 1024 {
        content.push_str(&format!("w{i} "));
        i += 1;
    }
    store
        .put_many(
            "test",
            "",
            vec![TopicWrite {
                entry: NewEntry {
                    kind: Some(EntryKind::Document),
                    ..note("docs/words.txt", &content)
                },
                ..Default::default()
            }],
        )
        .unwrap();
    let found = store
        .query(&EntryQuery {
            text: Some("w1".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(found.items.len(), 1);
    assert_eq!(found.items[0].content.len(), content.len());
}

#[test]
fn reopening_a_store_keeps_it_and_its_schema_version() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    schema.open().store("test", note("t", "kept")).unwrap();
    let again = schema.open();
    let health = again.check().unwrap();
    assert_eq!(health.schema_version, lore_store::postgres::SCHEMA_VERSION);
    assert_eq!((health.head_tx_id, health.entries), (1, 1));
    assert_eq!(again.schema(), schema.name);
}
