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
fn a_writer_kept_waiting_past_the_lock_timeout_gets_a_retryable_timeout() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    schema.open().store("test", note("a", "one")).unwrap();
    let separator = if url.contains('?') { '&' } else { '?' };
    let impatient = PostgresStore::open_in_schema(
        &format!("{url}{separator}options=-c%20lock_timeout%3D300"),
        &schema.name,
    )
    .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        // Another process in the middle of a write.
        client
            .batch_execute(&format!(
                "BEGIN; SELECT value FROM \"{}\".counters WHERE name = 'tx' FOR UPDATE",
                schema.name
            ))
            .await
            .unwrap();
        let started = std::time::Instant::now();
        let error = impatient.store("test", note("b", "two")).unwrap_err();
        assert!(started.elapsed() >= std::time::Duration::from_millis(300));
        assert_eq!(error.code().as_str(), "timeout", "{error}");
        assert!(error.retryable());
        client.batch_execute("ROLLBACK").await.unwrap();
    });
    // Once the other writer is done, the same store writes.
    assert_eq!(impatient.store("test", note("b", "two")).unwrap().tx_id, 2);
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

/// A small deterministic generator (xorshift), so a failing sequence can
/// be replayed.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.roll(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.roll(100) < percent
    }
}

/// `value` as JSON without the wall-clock times (the two stores write at
/// different instants).
fn timeless(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| match k.as_str() {
                "at" | "recorded_at" | "updated_at" => (k, serde_json::Value::Null),
                _ => (k, timeless(v)),
            })
            .collect(),
        serde_json::Value::Array(items) => items.into_iter().map(timeless).collect(),
        other => other,
    }
}

/// The same answer from both stores: equal values (times aside), or
/// errors with the same code and message.
fn same<T: serde::Serialize>(
    what: &str,
    sqlite: Result<T, StoreError>,
    postgres: Result<T, StoreError>,
) -> Option<T> {
    match (sqlite, postgres) {
        (Ok(a), Ok(b)) => {
            let (ja, jb) = (
                timeless(serde_json::to_value(&a).unwrap()),
                timeless(serde_json::to_value(&b).unwrap()),
            );
            assert_eq!(ja, jb, "{what}");
            Some(b)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "{what}");
            assert_eq!(code(a), code(b), "{what}");
            None
        }
        (a, b) => panic!(
            "{what}: SQLite answered {:?}, PostgreSQL {:?}",
            a.map(|v| timeless(serde_json::to_value(v).unwrap())),
            b.map(|v| timeless(serde_json::to_value(v).unwrap()))
        ),
    }
}

#[test]
fn the_postgres_store_answers_a_long_random_session_as_the_sqlite_store_does() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    let postgres = schema.open();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(&dir.path().join("store.db"), Durability::Process).unwrap();
    let stores: [&dyn KnowledgeStore; 2] = [&sqlite, &postgres];

    let topics = [
        "deploy",
        "Deploy rollback",
        "billing",
        "oncall",
        "wiki/a",
        "wiki/b",
    ];
    let words = [
        "blue", "green", "canary", "invoices", "cents", "page", "Ana", "rollback",
    ];
    let tags = ["ops", "sre", "finance"];
    let nodes = ["api", "db", "disk", "web", "queue"];
    let predicates = ["depends_on", "calls"];
    let mut dice = Dice(0x5eed_1234_abcd_ef01);
    for step in 0..400 {
        let text = |dice: &mut Dice| -> String {
            (0..1 + dice.roll(4))
                .map(|_| dice.pick(&words))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let head = postgres.head().unwrap();
        let some_tx = |dice: &mut Dice| dice.roll(head as usize + 3) as i64 - 1;
        let entry_id = |dice: &mut Dice| format!("e-{}", 1 + dice.roll(head as usize + 2));
        let what = format!("step {step}");
        match dice.roll(16) {
            0 | 1 => {
                let entry = NewEntry {
                    topic: dice.pick(&topics).to_string(),
                    content: text(&mut dice),
                    confidence: [None, Some(0.5), Some(0.9), Some(1.5)][dice.roll(4)],
                    tags: (0..dice.roll(3))
                        .map(|_| dice.pick(&tags).to_uppercase())
                        .collect(),
                    ..Default::default()
                };
                let [a, b] = stores.map(|s| s.store("test", entry.clone()));
                same(&format!("{what} store"), a, b);
            }
            2 => {
                let id = entry_id(&mut dice);
                let patch = EntryPatch {
                    content: dice.chance(60).then(|| text(&mut dice)),
                    topic: dice.chance(20).then(|| dice.pick(&topics).to_string()),
                    confidence: dice.chance(30).then_some(0.7),
                    tags: dice.chance(30).then(|| vec![dice.pick(&tags).to_string()]),
                    expected_version: dice.chance(30).then(|| dice.roll(3) as i64 + 1),
                    ..Default::default()
                };
                let [a, b] = stores.map(|s| s.update("test", &id, patch.clone()));
                same(&format!("{what} update {id}"), a, b);
            }
            3 => {
                let entry = NewEntry {
                    topic: dice.pick(&["wiki/a", "WIKI/A", "wiki/b"]).to_string(),
                    content: text(&mut dice),
                    kind: Some(EntryKind::Wiki),
                    ..Default::default()
                };
                let expected = [None, Some(0), Some(1), Some(2)][dice.roll(4)];
                let [a, b] = stores.map(|s| s.put("test", entry.clone(), expected));
                same(&format!("{what} put"), a, b);
            }
            4 => {
                let writes: Vec<TopicWrite> = (0..1 + dice.roll(3))
                    .map(|_| TopicWrite {
                        entry: NewEntry {
                            topic: format!("models/{}.yaml", dice.pick(&nodes)),
                            content: text(&mut dice),
                            kind: Some(EntryKind::Model),
                            ..Default::default()
                        },
                        expected_version: dice.chance(20).then(|| dice.roll(2) as i64),
                        remove: dice.chance(25),
                    })
                    .collect();
                let [a, b] = stores.map(|s| s.put_many("test", "", writes.clone()));
                same(&format!("{what} put_many"), a, b);
            }
            5 | 6 => {
                let triple = NewTriple {
                    subject: dice.pick(&nodes).to_string(),
                    predicate: dice.pick(&predicates).to_string(),
                    object: dice.pick(&nodes).to_string(),
                    confidence: [None, Some(0.4)][dice.roll(2)],
                    properties: None,
                };
                let [a, b] = stores.map(|s| s.relate("test", triple.clone()));
                same(&format!("{what} relate"), a, b);
            }
            7 => {
                let relate: Vec<NewTriple> = (0..dice.roll(3))
                    .map(|_| NewTriple {
                        subject: "api".into(),
                        predicate: dice.pick(&predicates).to_string(),
                        object: dice.pick(&nodes).to_string(),
                        ..Default::default()
                    })
                    .collect();
                let unrelate: Vec<TripleKey> = (0..dice.roll(3))
                    .map(|_| TripleKey {
                        subject: "api".into(),
                        predicate: dice.pick(&predicates).to_string(),
                        object: dice.pick(&nodes).to_string(),
                    })
                    .collect();
                let [a, b] = stores
                    .map(|s| s.relate_many("test", "graph", relate.clone(), unrelate.clone()));
                same(&format!("{what} relate_many"), a, b);
            }
            8 => {
                let id = if dice.chance(50) {
                    entry_id(&mut dice)
                } else {
                    format!("t-{}", 1 + dice.roll(head as usize + 2))
                };
                let [a, b] = stores.map(|s| s.delete("test", &id));
                same(&format!("{what} delete {id}"), a, b);
            }
            9 => {
                let (s, p, o) = (dice.pick(&nodes), dice.pick(&predicates), dice.pick(&nodes));
                let [a, b] = stores.map(|st| st.unrelate("test", s, p, o));
                same(&format!("{what} unrelate"), a, b);
            }
            10 => {
                let tx = some_tx(&mut dice);
                let force = dice.chance(30);
                let [a, b] = stores.map(|s| s.undo("test", tx, force));
                same(&format!("{what} undo {tx} force {force}"), a, b);
            }
            11 => {
                let id = if dice.chance(70) {
                    entry_id(&mut dice)
                } else {
                    format!("t-{}", 1 + dice.roll(head as usize + 2))
                };
                let as_of = dice.chance(50).then(|| some_tx(&mut dice));
                let [a, b] = stores.map(|s| s.get(&id, as_of));
                same(&format!("{what} get {id} as of {as_of:?}"), a, b);
            }
            12 => {
                // Page through a listing in both, cursor by cursor.
                let mut query = EntryQuery {
                    topic: dice
                        .chance(30)
                        .then(|| dice.pick(&["dep", "wiki", "b"]).into()),
                    tags: if dice.chance(20) {
                        vec!["ops".into()]
                    } else {
                        Vec::new()
                    },
                    min_confidence: dice.chance(20).then_some(0.8),
                    kind: dice.chance(20).then_some(EntryKind::Wiki),
                    limit: Some(1 + dice.roll(4)),
                    as_of_tx_id: dice.chance(30).then(|| some_tx(&mut dice)),
                    ..Default::default()
                };
                for page in 0..5 {
                    let [a, b] = stores.map(|s| s.query(&query));
                    let Some(got) = same(&format!("{what} query page {page}"), a, b) else {
                        break;
                    };
                    let Some(cursor) = got.next_cursor else { break };
                    query.cursor = Some(cursor);
                    query.as_of_tx_id = None;
                }
            }
            13 => {
                // Text search: the same entries match (ranked each its
                // own way).
                let query = EntryQuery {
                    text: Some(text(&mut dice)),
                    limit: Some(200),
                    ..Default::default()
                };
                let [a, b] = stores.map(|s| {
                    s.query(&query).map(|p| {
                        let mut ids: Vec<String> = p.items.into_iter().map(|e| e.id).collect();
                        ids.sort();
                        ids
                    })
                });
                same(&format!("{what} text query"), a, b);
            }
            14 => {
                let history = HistoryQuery {
                    id: dice.chance(40).then(|| entry_id(&mut dice)),
                    since_tx_id: dice.chance(30).then(|| some_tx(&mut dice)),
                    limit: Some(1 + dice.roll(5)),
                    ..Default::default()
                };
                let [a, b] = stores.map(|s| s.history(&history));
                if let Some(page) = same(&format!("{what} history"), a, b)
                    && let Some(cursor) = page.next_cursor
                {
                    let next = HistoryQuery {
                        cursor: Some(cursor),
                        ..history
                    };
                    let [a, b] = stores.map(|s| s.history(&next));
                    same(&format!("{what} history next page"), a, b);
                }
                let graph = GraphQuery {
                    node: dice.pick(&nodes).to_string(),
                    direction: [Direction::Out, Direction::In, Direction::Both][dice.roll(3)],
                    depth: Some(1 + dice.roll(3)),
                    limit: Some(1 + dice.roll(6)),
                    predicate: dice.chance(30).then(|| dice.pick(&predicates).to_string()),
                    as_of_tx_id: dice.chance(30).then(|| some_tx(&mut dice)),
                };
                let [a, b] = stores.map(|s| s.query_graph(&graph));
                same(&format!("{what} graph"), a, b);
                let triples = TripleQuery {
                    subject: dice.chance(50).then(|| dice.pick(&nodes).to_string()),
                    limit: Some(1 + dice.roll(5)),
                    ..Default::default()
                };
                let [a, b] = stores.map(|s| s.list_triples(&triples));
                same(&format!("{what} triples"), a, b);
            }
            _ => {
                let as_of = dice.chance(50).then(|| some_tx(&mut dice));
                let kind = dice.chance(50).then_some(EntryKind::Model);
                let [a, b] = stores.map(|s| s.entries_at(kind, as_of));
                same(&format!("{what} entries_at"), a, b);
                let after = some_tx(&mut dice).max(0);
                let [a, b] = stores.map(|s| s.changes_since(after, 5));
                assert_eq!(a.unwrap(), b.unwrap(), "{what} changes_since");
                let ids: Vec<String> = (1..6).map(|i| format!("e-{i}")).collect();
                let [a, b] = stores.map(|s| s.entries_by_id(&ids, head));
                let sorted = |r: Result<Vec<Entry>, StoreError>| {
                    r.map(|mut v| {
                        v.sort_by(|x, y| x.id.cmp(&y.id));
                        v
                    })
                };
                same(&format!("{what} entries_by_id"), sorted(a), sorted(b));
            }
        }
    }
    let [a, b] = stores.map(|s| s.check().map(|h| (h.head_tx_id, h.entries, h.triples)));
    same("check", a, b);
    assert!(postgres.head().unwrap() > 100, "the session wrote a lot");
}
