//! The gateway on several servers sharing one PostgreSQL store: a root
//! ingested through one server is searchable through another that has
//! none of its files (each follows the store's file log), edits and
//! deletions follow, a restarted server catches up from where its index
//! stopped, and two servers never ingest one root at once (the second is
//! answered `conflict`, naming the first).
//!
//! Needs `LORE_TEST_POSTGRES_URL` (each test makes a database of its own
//! and drops it); skipped with a notice when unset, required when
//! `LORE_REQUIRE_SERVERS=1`.

mod team_support;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lore_gateway::ingest::IngestRequest;
use lore_gateway::{Gateway, SearchRequest};
use team_support::{Database, gateway, ingest, server_project, write};

/// The app's files, in `dir`'s root folder.
fn app_files(dir: &Path) {
    write(
        dir,
        "repo/billing/invoice.py",
        "def total_quokka(amount):\n    return amount * 2\n",
    );
    write(
        dir,
        "repo/docs/guide.md",
        "# Guide\n\nThe platypus ledger explains refunds.\n",
    );
}

/// The `root/path`s a search for `query` finds.
fn found(gateway: &Gateway, query: &str) -> Vec<String> {
    let request = SearchRequest {
        query: query.into(),
        limit: Some(10),
        ..Default::default()
    };
    gateway
        .search(&request)
        .unwrap()
        .results
        .into_iter()
        .map(|r| format!("{}/{}", r.chunk.root, r.chunk.artifact_path))
        .collect()
}

/// Waits (polling, up to a deadline) until `check` holds; how long it
/// took.
fn eventually(what: &str, mut check: impl FnMut() -> bool) -> Duration {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if check() {
            return started.elapsed();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{what}: not within 10 s");
}

#[test]
fn an_ingest_through_one_server_is_searchable_through_another_that_lacks_its_files() {
    let Some(db) = Database::create("follow") else {
        return;
    };
    let a_dir = server_project(&db.url, "app");
    app_files(a_dir.path());
    // B serves a root of its own and has none of the app's files.
    let b_dir = server_project(&db.url, "notes");
    write(
        b_dir.path(),
        "repo/todo.md",
        "# Todo\n\nWater the plants.\n",
    );
    let (a, b) = (gateway(a_dir.path()), gateway(b_dir.path()));
    ingest(&b);
    let follower = b.follow_store().expect("a server store is followed");

    ingest(&a);
    let took = eventually("B finds what A ingested", || {
        found(&b, "quokka").contains(&"app/billing/invoice.py".to_string())
    });
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(found(&b, "platypus").contains(&"app/docs/guide.md".to_string()));
    assert!(!b_dir.path().join("repo/billing").exists());
    // B's status names the server that ingested the app last.
    let elsewhere = b.ingested_elsewhere().unwrap();
    let app = elsewhere.iter().find(|e| e.root == "app").unwrap();
    assert!(
        app.by
            .contains(&a_dir.path().canonicalize().unwrap().display().to_string())
            || app.by.contains(&a_dir.path().display().to_string()),
        "{app:?}"
    );
    assert!(!app.running);
    let status = lore_gateway::recipe::calls::ingest_status(
        &b,
        lore_gateway::recipe::calls::KmIngestStatusInput { profile: None },
    )
    .unwrap();
    let status = serde_json::to_value(&status).unwrap();
    assert_eq!(status["ingested_elsewhere"][0]["root"], "app", "{status}");
    assert_eq!(status["roots"], serde_json::json!(["notes"]), "{status}");
    assert!(
        a.ingested_elsewhere()
            .unwrap()
            .iter()
            .all(|e| e.root != "app")
    );

    // A edits one file and deletes another: B follows both.
    write(
        a_dir.path(),
        "repo/billing/invoice.py",
        "def total_wombat(amount):\n    return amount * 3\n",
    );
    std::fs::remove_file(a_dir.path().join("repo/docs/guide.md")).unwrap();
    ingest(&a);
    eventually("B finds the new text and not the old", || {
        found(&b, "wombat").contains(&"app/billing/invoice.py".to_string())
            && found(&b, "quokka").is_empty()
            && found(&b, "platypus").is_empty()
    });
    // B's own root is untouched.
    assert_eq!(found(&b, "plants"), vec!["notes/todo.md".to_string()]);

    // B stops; A ingests a new file; B restarted catches up from where its
    // index stopped (only the version it missed).
    drop(follower);
    drop(b);
    write(
        a_dir.path(),
        "repo/zoo/echidna.py",
        "def feed_echidna():\n    return 'ants'\n",
    );
    ingest(&a);
    let b = gateway(b_dir.path());
    let caught = b.catch_up().unwrap();
    assert_eq!(caught.applied, 1, "{caught:?}");
    assert_eq!(found(&b, "echidna"), vec!["app/zoo/echidna.py".to_string()]);
    assert!(found(&b, "wombat").contains(&"app/billing/invoice.py".to_string()));
    // A re-ingest of unchanged files publishes nothing new.
    ingest(&a);
    assert_eq!(b.catch_up().unwrap().applied, 0);
}

#[test]
fn two_servers_never_ingest_one_root_at_once() {
    let Some(db) = Database::create("lease") else {
        return;
    };
    // Both servers have a copy of the root.
    let (a_dir, b_dir) = (
        server_project(&db.url, "app"),
        server_project(&db.url, "app"),
    );
    app_files(a_dir.path());
    app_files(b_dir.path());
    let (a, b) = (gateway(a_dir.path()), gateway(b_dir.path()));

    // A's ingest runs slowly; B's, while A holds the root, is a conflict
    // naming A and when its lease ends.
    let (started, is_started) = std::sync::mpsc::channel();
    let slow = {
        let a = Arc::clone(&a);
        std::thread::spawn(move || {
            let mut told = false;
            let run = a.ingest(&IngestRequest::default(), &mut |_, _| {
                if !told {
                    told = true;
                    let _ = started.send(());
                }
                std::thread::sleep(Duration::from_millis(300));
            });
            (run, Instant::now())
        })
    };
    is_started.recv().unwrap();
    let refused = b
        .ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap_err();
    let refused_at = Instant::now();
    assert_eq!(refused.code.as_str(), "conflict", "{refused:?}");
    assert!(refused.message.contains("`app`"), "{}", refused.message);
    assert!(
        refused.message.contains("lease ends"),
        "{}",
        refused.message
    );
    let a_name = a_dir.path().file_name().unwrap().to_str().unwrap();
    assert!(refused.message.contains(a_name), "{}", refused.message);
    let (run, a_finished) = slow.join().unwrap();
    assert!(run.unwrap().success);
    assert!(refused_at < a_finished);
    // B's refused ingest wrote no run; once A is done, B's runs.
    assert!(b.last_run(None).is_none());
    let b_run = ingest(&b);
    assert!(b_run.started_at >= a.last_run(None).unwrap().started_at);

    // Started together, they never overlap: whichever is second is refused
    // or runs after the first (progress is told only under the lease).
    for _ in 0..3 {
        let racers: Vec<_> = [Arc::clone(&a), Arc::clone(&b)]
            .into_iter()
            .map(|g| {
                std::thread::spawn(move || {
                    let mut seen: Vec<Instant> = Vec::new();
                    let outcome = g.ingest(&IngestRequest::default(), &mut |_, _| {
                        seen.push(Instant::now());
                        std::thread::sleep(Duration::from_millis(20));
                    });
                    outcome.map(|_| (seen[0], *seen.last().unwrap()))
                })
            })
            .collect();
        let results: Vec<_> = racers.into_iter().map(|r| r.join().unwrap()).collect();
        let ran: Vec<(Instant, Instant)> = results.iter().filter_map(|r| r.clone().ok()).collect();
        assert!(!ran.is_empty());
        if let [first, second] = ran[..] {
            assert!(first.1 < second.0 || second.1 < first.0, "{ran:?}");
        }
        for outcome in &results {
            if let Err(e) = outcome {
                assert_eq!(e.code.as_str(), "conflict", "{e:?}");
            }
        }
    }
}
