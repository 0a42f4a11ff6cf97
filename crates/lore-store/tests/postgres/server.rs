//! What only a server backend has to say: writers in several processes,
//! a server that is down or busy, callers on any thread, notifications,
//! and what PostgreSQL's text cannot hold.

use std::sync::Arc;

use lore_core::error::HasErrorCode;
use lore_store::*;

use crate::contract::{code, note};
use crate::{Schema, server_url};

#[test]
fn an_unreachable_server_is_a_retryable_unavailable_error_that_says_where() {
    // Nothing listens on port 1: no server is needed for this case.
    let error = PostgresStore::open("postgres://postgres@127.0.0.1:1/test").unwrap_err();
    assert_eq!(error.code().as_str(), "store_unavailable", "{error}");
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

#[test]
fn one_store_opens_a_bounded_number_of_connections_however_many_threads_call_it() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    let application = format!("cap_{}", schema.name);
    let separator = if url.contains('?') { '&' } else { '?' };
    let store = Arc::new(
        PostgresStore::open_in_schema(
            &format!("{url}{separator}application_name={application}"),
            &schema.name,
        )
        .unwrap(),
    );
    let threads: Vec<_> = (0..40)
        .map(|i| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                for j in 0..10 {
                    store
                        .store("test", note("load", &format!("{i} {j}")))
                        .unwrap();
                    store.query(&EntryQuery::default()).unwrap();
                }
            })
        })
        .collect();
    // Sample the server's connections of this store while the threads run.
    let (client, monitor) = {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            client
        });
        (client, runtime)
    };
    let mut most = 0_i64;
    while threads.iter().any(|t| !t.is_finished()) {
        let open: i64 = monitor
            .block_on(client.query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1",
                &[&application],
            ))
            .unwrap()
            .get(0);
        most = most.max(open);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    for thread in threads {
        thread.join().unwrap();
    }
    assert!(most > 1, "the threads ran at once ({most} connections)");
    assert!(most <= 16, "{most} connections");
    assert_eq!(store.head().unwrap(), 400);
}

#[test]
fn several_processes_opening_a_new_store_at_once_all_succeed() {
    let Some(url) = server_url() else { return };
    let schema = Arc::new(Schema::new(&url));
    let opening: Vec<_> = (0..6)
        .map(|i| {
            let schema = Arc::clone(&schema);
            std::thread::spawn(move || {
                let store = schema.open();
                store.store("test", note("t", &format!("{i}"))).unwrap();
            })
        })
        .collect();
    for thread in opening {
        thread.join().unwrap();
    }
    let health = schema.open().check().unwrap();
    assert_eq!((health.head_tx_id, health.entries), (6, 6));
    assert_eq!(health.schema_version, lore_store::postgres::SCHEMA_VERSION);
}

/// The first row `sql` answers on a connection of its own.
fn first_row(url: &str, sql: &str) -> tokio_postgres::Row {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let driver = tokio::spawn(connection);
        let row = client.query_one(sql, &[]).await.unwrap();
        drop(client);
        let _ = driver.await;
        row
    })
}

/// How many sessions of the server have `application_name` `app` (a
/// plain identifier), and whether all of them are encrypted.
fn sessions_of(url: &str, app: &str) -> (i64, bool) {
    let row = first_row(
        url,
        &format!(
            "SELECT count(*), coalesce(bool_and(s.ssl), false) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = '{app}'"
        ),
    );
    (row.get(0), row.get(1))
}

#[test]
fn the_store_speaks_tls_as_sslmode_asks() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    let separator = if url.contains('?') { '&' } else { '?' };
    let with = |params: &str| format!("{url}{separator}{params}");
    let ssl: String = first_row(&url, "SHOW ssl").get(0);
    let cert: String = first_row(&url, "SHOW ssl_cert_file").get(0);
    if ssl != "on" {
        // A server without TLS: demanding it fails clearly, before any
        // write.
        let error =
            PostgresStore::open_in_schema(&with("sslmode=require"), &schema.name).unwrap_err();
        assert!(error.to_string().contains("does not offer TLS"), "{error}");
        println!("notice: the PostgreSQL server has ssl off; TLS sessions not exercised");
        return;
    }

    // `require`: every session of the store is encrypted, and the store
    // works as over plain TCP.
    let app = format!("lore_tls_{}", schema.name);
    let store = PostgresStore::open_in_schema(
        &with(&format!("sslmode=require&application_name={app}")),
        &schema.name,
    )
    .unwrap();
    let written = store.store("tls", note("tls", "over TLS")).unwrap();
    assert_eq!(
        store.get(&written.value.id, None).unwrap()["content"],
        "over TLS"
    );
    let (sessions, encrypted) = sessions_of(&url, &app);
    assert!(
        sessions >= 1 && encrypted,
        "{sessions} sessions, encrypted: {encrypted}"
    );
    drop(store);

    // `verify-full` against a certificate no public authority signed (a
    // test server's own) is refused with what to change, not retried.
    let error =
        PostgresStore::open_in_schema(&with("sslmode=verify-full"), &schema.name).unwrap_err();
    assert_eq!(error.code().as_str(), "invalid_request", "{error}");
    assert!(error.to_string().contains("sslrootcert"), "{error}");
    assert!(!error.retryable());

    // Naming the server's own certificate as the CA trusts exactly it
    // (read from the folder the store is opened in, when relative).
    if let Ok(pem) = std::fs::read(&cert) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("server-ca.pem"), pem).unwrap();
        let app = format!("lore_tls_ca_{}", schema.name);
        let pinned = with(&format!(
            "sslmode=verify-ca&sslrootcert=server-ca.pem&application_name={app}"
        ));
        let handle = lore_store::feed::StoreHandle::postgres(&pinned, dir.path());
        // The handle's store is the default schema's: only read here.
        handle.open().unwrap().head().unwrap();
        let (sessions, encrypted) = sessions_of(&url, &app);
        assert!(
            sessions >= 1 && encrypted,
            "{sessions} sessions, encrypted: {encrypted}"
        );
    } else {
        println!("notice: {cert} is not readable; a pinned certificate is not exercised");
    }
}
