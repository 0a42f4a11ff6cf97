//! Following the roots: with a follower running, files written, edited,
//! deleted or renamed are found (or no longer found) by the next searches
//! within seconds, without anyone running ingest; Lore's own writes start
//! no run; a follower that walks does the same; without one, the status
//! says how many files changed since the last ingest.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lore_core::project::Project;
use lore_gateway::ingest::follow::FollowMode;
use lore_gateway::ingest::{IngestRequest, runs};
use lore_gateway::{Gateway, SearchRequest};
use lore_store::feed::StoreHandle;

/// A project whose root is `root_path` (`repo` holds a little code), with
/// quick following settings, ingested once.
fn project(root_path: &str, follow: &str) -> (tempfile::TempDir, Arc<Gateway>) {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "lore.yaml",
        &format!(
            "gateway:\n  roots:\n    - path: {root_path}\n      name: app\n  follow:\n    debounce_ms: 50\n    min_interval_ms: 50\n{follow}"
        ),
    );
    write(
        dir.path(),
        "repo/billing/invoice.py",
        "def total_quokka():\n    return 1\n",
    );
    write(dir.path(), "repo/.gitignore", "build/\n");
    let project = Project::load(dir.path()).unwrap();
    let gateway = Gateway::for_project(&project)
        .with_store(Arc::new(StoreHandle::sqlite(project.store_path())));
    ingest(&gateway);
    (dir, Arc::new(gateway))
}

fn ingest(gateway: &Gateway) {
    let run = gateway
        .ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    assert!(run.success, "{:?}", run.error);
}

fn write(dir: &Path, path: &str, text: &str) {
    let file = dir.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

/// The files a search for `query` finds.
fn found(gateway: &Gateway, query: &str) -> Vec<String> {
    let request = SearchRequest {
        query: query.into(),
        limit: Some(10),
        ..Default::default()
    };
    let mut paths: Vec<String> = gateway
        .search(&request)
        .unwrap()
        .results
        .into_iter()
        .map(|r| r.chunk.artifact_path)
        .collect();
    paths.dedup();
    paths
}

/// Waits (polling, up to a deadline) until `check` holds; how long it
/// took.
fn eventually(what: &str, mut check: impl FnMut() -> bool) -> Duration {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(8) {
        if check() {
            return started.elapsed();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{what}: not within 8 s");
}

/// Waits until the follower has looked at every root once and is idle.
fn settled(gateway: &Gateway, mode: FollowMode) {
    eventually("the follower settles", || {
        let roots = gateway.freshness();
        roots.iter().all(|r| r.follow == mode && r.fresh)
    });
}

#[test]
fn a_followed_root_finds_written_edited_deleted_and_renamed_files() {
    let (dir, gateway) = project("repo", "");
    let repo = dir.path().join("repo");
    let _follower = gateway.follow().expect("following is on by default");
    let mode = if cfg!(target_os = "linux") {
        FollowMode::Inotify
    } else {
        FollowMode::Walk
    };
    settled(&gateway, mode);

    write(
        &repo,
        "billing/refund.py",
        "def refund_zebra():\n    return 2\n",
    );
    let took = eventually("a new file is found", || {
        found(&gateway, "zebra") == ["billing/refund.py"]
    });
    println!("a new file was found after {took:?}");
    write(
        &repo,
        "docs/guide/intro.md",
        "# Intro\n\nThe okapi ledger.\n",
    );
    eventually("a file in a new folder is found", || {
        found(&gateway, "okapi") == ["docs/guide/intro.md"]
    });
    write(
        &repo,
        "billing/invoice.py",
        "def total_narwhal():\n    return 3\n",
    );
    eventually("an edit replaces the old text", || {
        found(&gateway, "narwhal") == ["billing/invoice.py"] && found(&gateway, "quokka").is_empty()
    });
    std::fs::remove_file(repo.join("billing/refund.py")).unwrap();
    eventually("a deleted file is gone", || {
        found(&gateway, "zebra").is_empty()
    });
    std::fs::rename(
        repo.join("billing/invoice.py"),
        repo.join("billing/ledger.py"),
    )
    .unwrap();
    eventually("a renamed file is found by its new name only", || {
        found(&gateway, "narwhal") == ["billing/ledger.py"]
    });
    // The graph forgot the old names too.
    let graph = std::fs::read_to_string(dir.path().join(".lore/gateway/graph/app.json")).unwrap();
    assert!(graph.contains("billing/ledger.py"), "{graph}");
    assert!(!graph.contains("billing/invoice.py"), "{graph}");
    assert!(!graph.contains("billing/refund.py"), "{graph}");
    let status = &gateway.freshness()[0];
    assert!(
        status.ingested_at.is_some() && status.ok == Some(true),
        "{status:?}"
    );
    assert!(status.changed_at.is_some(), "{status:?}");
}

#[test]
fn lore_s_own_writes_start_no_run() {
    // The project folder itself is the root (the README's layout).
    let (dir, gateway) = project(".", "");
    let _follower = gateway.follow().unwrap();
    let mode = if cfg!(target_os = "linux") {
        FollowMode::Inotify
    } else {
        FollowMode::Walk
    };
    settled(&gateway, mode);
    let state = dir.path().join(".lore/gateway");
    let before = runs(&state).len();

    // Lore's state, its configuration, hidden and ignored files.
    write(dir.path(), ".lore/scratch.txt", "x");
    let config = std::fs::read_to_string(dir.path().join("lore.yaml")).unwrap();
    write(dir.path(), "lore.yaml", &config);
    write(dir.path(), "repo/.hidden.py", "def hidden_yak(): pass\n");
    write(dir.path(), "repo/build/out.py", "def built_yak(): pass\n");
    // Then a file that counts.
    write(
        dir.path(),
        "repo/marker.md",
        "# Marker\n\nThe first gecko.\n",
    );
    // Found, and its run recorded (the index commits before the record).
    let recorded = |name: &str| {
        runs(&state)
            .iter()
            .any(|run| run.paths.iter().any(|p| p.ends_with(name)))
    };
    eventually("the marker is found", || {
        found(&gateway, "gecko") == ["repo/marker.md"] && recorded("/marker.md")
    });
    write(
        dir.path(),
        "repo/marker2.md",
        "# Marker\n\nThe second ocelot.\n",
    );
    eventually("the second marker is found", || {
        found(&gateway, "ocelot") == ["repo/marker2.md"] && recorded("/marker2.md")
    });
    let after = runs(&state);
    let follow_runs: Vec<Vec<String>> = after[before..]
        .iter()
        .map(|run| {
            assert_eq!(run.profile, "follow");
            run.paths
                .iter()
                .map(|p| p.rsplit('/').next().unwrap().to_string())
                .collect()
        })
        .collect();
    // One run per marker, nothing for Lore's own writes, no run caused by
    // a run's writes.
    assert_eq!(follow_runs, [["marker.md"], ["marker2.md"]]);
    assert!(found(&gateway, "yak").is_empty());
}

#[test]
fn a_walking_follower_finds_changes_too() {
    let (dir, gateway) = project("repo", "    watch: walk\n    walk_interval_ms: 100\n");
    let repo = dir.path().join("repo");
    let _follower = gateway.follow().unwrap();
    settled(&gateway, FollowMode::Walk);
    write(
        &repo,
        "billing/refund.py",
        "def refund_ibis():\n    return 2\n",
    );
    eventually("a new file is found by the walk", || {
        found(&gateway, "ibis") == ["billing/refund.py"]
    });
    std::fs::remove_file(repo.join("billing/invoice.py")).unwrap();
    eventually("a deleted file is gone", || {
        found(&gateway, "quokka").is_empty()
    });
    assert!(gateway.freshness()[0].note.is_none());
}

#[test]
fn without_a_follower_the_status_counts_the_changed_files() {
    let (dir, gateway) = project("repo", "");
    let status = &gateway.freshness()[0];
    assert_eq!(status.follow, FollowMode::None);
    assert!(status.fresh && status.pending == 0, "{status:?}");
    assert!(status.ok == Some(true) && status.ingested_at.is_some());
    write(dir.path(), "repo/billing/refund.py", "def refund(): pass\n");
    std::fs::remove_file(dir.path().join("repo/billing/invoice.py")).unwrap();
    let status = &gateway.freshness()[0];
    assert!(!status.fresh && status.pending == 2, "{status:?}");
    assert!(status.note.as_deref().unwrap().contains("no server"));

    let (_dir, gateway) = project("repo", "    enabled: false\n");
    assert!(gateway.follow().is_none());
    assert_eq!(gateway.freshness()[0].follow, FollowMode::Off);
}

#[cfg(target_os = "linux")]
#[test]
fn a_root_never_ingested_is_followed_once_it_is() {
    let (dir, _) = project("repo", "");
    // As if never ingested: no ledger, no run.
    std::fs::remove_dir_all(dir.path().join(".lore/gateway")).unwrap();
    let gateway = Arc::new(Gateway::for_project(&Project::load(dir.path()).unwrap()));
    let _follower = gateway.follow().unwrap();
    eventually("the follower watches", || {
        gateway.freshness()[0].follow == FollowMode::Inotify
    });
    write(
        dir.path(),
        "repo/billing/refund.py",
        "def refund_tapir(): pass\n",
    );
    eventually("the change is seen and left alone", || {
        let root = &gateway.freshness()[0];
        root.changed_at.is_some() && root.pending == 0
    });
    let root = &gateway.freshness()[0];
    assert!(!root.fresh, "{root:?}");
    assert!(
        root.note.as_deref().unwrap().contains("never ingested"),
        "{root:?}"
    );
    let state = dir.path().join(".lore/gateway");
    assert!(
        runs(&state).is_empty(),
        "the follower ingested a root never ingested"
    );

    ingest(&gateway);
    eventually("the first ingest is taken in", || {
        let root = &gateway.freshness()[0];
        root.fresh && root.ok == Some(true) && root.note.is_none()
    });
    write(
        dir.path(),
        "repo/billing/credit.py",
        "def credit_tapir(): pass\n",
    );
    eventually("a change after it is ingested", || {
        found(&gateway, "credit_tapir").contains(&"billing/credit.py".to_string())
    });
}
