//! The project's own files at the README's layout (the project folder is
//! itself a gateway root): what is never ingested or served (lore.yaml,
//! key files), what is never written (the files Lore and its connections
//! run on), and names too long for the store that must not fail a run.

use std::sync::Arc;

use lore_core::ErrorCode;
use lore_core::project::Project;
use lore_gateway::index::GatewayIndex;
use lore_gateway::ingest::project_files::ProjectFiles;
use lore_gateway::ingest::walk::SkipReason;
use lore_gateway::ingest::{IngestRequest, ingest};
use lore_gateway::search::{SearchFilters, SearchRequest};
use lore_gateway::{Gateway, StoreTextRequest, UploadRequest};
use lore_store::feed::StoreHandle;

const PASSWORD: &str = "hunter2-db-password";
const TOKEN: &str = "tok-7f3a9c1e5b2d8f40";

/// A project whose root is the project folder, with a lore.yaml naming a
/// token, a password and a secret file, and a few files of each kind.
fn project() -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let write = |path: &str, text: &str| {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    };
    write(
        "lore.yaml",
        &format!(
            "connections:\n  warehouse:\n    driver: sqlite\n    path: data/warehouse.db\n  pg:\n    driver: postgres\n    url: postgres://app:{PASSWORD}@db/app\n  bq:\n    driver: bigquery\n    url: bigquery://p\n    credentials: file:keys/bq.txt\nmcp:\n  tokens:\n    - {{ name: ops, token: {TOKEN}, scope: admin }}\ngateway:\n  roots:\n    - path: .\n      name: proj\n"
        ),
    );
    write("data/warehouse.db", "SQLite format 3 stand-in\n");
    write(
        "wiki/global/orders.md",
        "---\nsummary: Orders\n---\n# Orders\n",
    );
    write("docs/guide.md", "# Guide\n\nInvoices are paid monthly.\n");
    write(
        "deploy/server.pem",
        "-----BEGIN PRIVATE KEY-----\nMIIBpemsecretline\n-----END PRIVATE KEY-----\n",
    );
    write("keys/bq.txt", "bq-key-material-zz9\n");
    write(
        "gcp/prod-1234.json",
        "{\"type\": \"service_account\", \"project_id\": \"p\", \"private_key\": \"svcacctsecret\"}\n",
    );
    let project = Project::load(&root).unwrap();
    (dir, project)
}

fn gateway(project: &Project) -> Gateway {
    Gateway::for_project(project).with_store(Arc::new(StoreHandle::sqlite(project.store_path())))
}

fn paths_found(gateway: &Gateway, query: &str) -> Vec<String> {
    found(gateway, query)
        .into_iter()
        .map(|(path, _)| path)
        .collect()
}

/// The path and text of each result.
fn found(gateway: &Gateway, query: &str) -> Vec<(String, String)> {
    gateway
        .search(&SearchRequest {
            query: query.into(),
            limit: Some(25),
            filters: SearchFilters::default(),
            detail: lore_gateway::search::Detail::Full,
            ..Default::default()
        })
        .unwrap()
        .results
        .into_iter()
        .map(|r| (r.chunk.artifact_path, r.chunk.text))
        .collect()
}

/// Asserts no result of a search for `secret` shows it.
fn assert_not_served(gateway: &Gateway, secret: &str) {
    for (path, text) in found(gateway, secret) {
        assert!(!text.contains(secret), "{secret} served from {path}");
    }
}

fn skipped(run: &lore_gateway::IngestRun, path: &str) -> Option<SkipReason> {
    run.skipped
        .iter()
        .find(|s| s.path == path)
        .map(|s| s.reason)
}

#[test]
fn lore_yaml_and_key_files_are_never_ingested_nor_served() {
    let (_dir, project) = project();
    let gateway = gateway(&project);
    let run = gateway
        .ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    assert!(run.success, "{:?}", run.error);
    assert_eq!(skipped(&run, "lore.yaml"), Some(SkipReason::LoreFile));
    assert_eq!(skipped(&run, "deploy/server.pem"), Some(SkipReason::Secret));
    assert_eq!(skipped(&run, "keys/bq.txt"), Some(SkipReason::Secret));
    assert_eq!(
        skipped(&run, "gcp/prod-1234.json"),
        Some(SkipReason::Secret)
    );
    for secret in [PASSWORD, TOKEN, "pemsecretline", "svcacctsecret", "zz9"] {
        assert_not_served(&gateway, secret);
    }
    // The rest is served, the wiki included (read, never written).
    assert_eq!(
        paths_found(&gateway, "invoices paid monthly"),
        ["docs/guide.md"]
    );
    assert_eq!(paths_found(&gateway, "orders"), ["wiki/global/orders.md"]);
    // Coverage lists what was left out and why.
    let coverage = gateway.coverage().unwrap();
    let listed: Vec<(&str, &str)> = coverage
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason.as_str()))
        .collect();
    assert!(listed.contains(&("lore.yaml", "lore_file")), "{listed:?}");
    assert!(
        listed.contains(&("gcp/prod-1234.json", "secret")),
        "{listed:?}"
    );
}

#[test]
fn chunks_an_earlier_ingest_kept_of_such_files_are_never_served_and_then_removed() {
    let (_dir, project) = project();
    let root = project.root.clone();
    let state = root.join(".lore/gateway");
    let gateway = gateway(&project);
    // The key file as an older Lore read it: not yet a key (`private_kez`,
    // as long as `private_key`), its stamps an hour old.
    let key_file = root.join("gcp/prod-1234.json");
    let key_text = std::fs::read_to_string(&key_file).unwrap();
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let write_dated = |text: &str| {
        std::fs::write(&key_file, text).unwrap();
        let file = std::fs::File::options()
            .write(true)
            .open(&key_file)
            .unwrap();
        file.set_modified(an_hour_ago).unwrap();
    };
    write_dated(&key_text.replace("private_key", "private_kez"));
    // An ingest that knew no rules (as before them): everything indexed.
    let unfenced = ProjectFiles::at(&root.join("elsewhere"));
    let old = ingest(
        &unfenced,
        &state,
        &project.config.gateway,
        gateway.roots(),
        &IngestRequest::default(),
        None,
        &mut |_, _| {},
    )
    .unwrap();
    assert!(old.success, "{:?}", old.error);
    // The files whose chunks hold `query`.
    let index_holds = |query: &str| {
        let index = GatewayIndex::open(&state.join("index")).unwrap();
        let found = lore_gateway::search::search(
            &index,
            &SearchRequest {
                query: query.into(),
                ..Default::default()
            },
            None,
        )
        .unwrap();
        found
            .results
            .into_iter()
            .filter(|r| r.chunk.text.contains(query))
            .map(|r| r.chunk.artifact_path)
            .collect::<Vec<_>>()
    };
    assert_eq!(index_holds(PASSWORD), ["lore.yaml"]);
    assert_eq!(index_holds("svcacctsecret"), ["gcp/prod-1234.json"]);
    // The same stamps, now a key; and ledgers written before the rules.
    write_dated(&key_text);
    let ledger_path = state.join("ledger/proj.json");
    let mut ledger: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&ledger_path).unwrap()).unwrap();
    ledger.as_object_mut().unwrap().remove("rules");
    std::fs::write(&ledger_path, ledger.to_string()).unwrap();

    // Never served, even before the next ingest.
    assert_not_served(&gateway, PASSWORD);
    assert_not_served(&gateway, "svcacctsecret");
    // The next ingest removes them, the unchanged key file included.
    let run = gateway
        .ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    assert!(run.success, "{:?}", run.error);
    assert!(run.files_removed >= 3, "{run:?}");
    assert_eq!(index_holds(PASSWORD), Vec::<String>::new());
    assert_eq!(index_holds("svcacctsecret"), Vec::<String>::new());
    assert_eq!(index_holds("pemsecretline"), Vec::<String>::new());
    let removed: Vec<String> = gateway
        .coverage()
        .unwrap()
        .removed_artifacts
        .into_iter()
        .map(|r| r.path)
        .collect();
    assert!(removed.contains(&"lore.yaml".to_string()), "{removed:?}");
}

fn store_text(gateway: &Gateway, destination: &str) -> lore_core::ErrorReport {
    gateway
        .store_text(&StoreTextRequest {
            content: "replaced".into(),
            destination: Some(destination.into()),
            overwrite: true,
            ..Default::default()
        })
        .unwrap_err()
}

#[test]
fn the_files_lore_and_its_connections_run_on_are_never_written() {
    let (_dir, project) = project();
    let root = project.root.clone();
    let gateway = gateway(&project);
    std::fs::write(
        root.join("subsystems.yaml"),
        "Billing:\n  paths: ['src/**']\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("data"), root.join("docs/data-link")).unwrap();
    let before: Vec<(String, Vec<u8>)> = [
        "lore.yaml",
        "data/warehouse.db",
        "wiki/global/orders.md",
        "subsystems.yaml",
        "keys/bq.txt",
    ]
    .iter()
    .map(|p| (p.to_string(), std::fs::read(root.join(p)).unwrap()))
    .collect();
    for (destination, names) in [
        ("lore.yaml", "by hand"),
        ("./lore.yaml", "by hand"),
        ("LORE.yaml", "by hand"),
        ("lore.yaml/", "by hand"),
        ("data/warehouse.db", "database"),
        ("data/warehouse.db-wal", "database"),
        ("data/warehouse.db-journal", "database"),
        ("wiki/x.md", "wiki_write"),
        ("wiki/global/orders.md", "wiki_write"),
        ("semantic-layer/warehouse/orders.yaml", "lore sl"),
        ("raw-sources/warehouse/x.md", "lore scan"),
        ("recipes/mine.yaml", "by hand"),
        ("subsystems.yaml", "by hand"),
        ("keys/bq.txt", "secret"),
        ("deploy/new.pem", "credentials"),
    ] {
        let refused = store_text(&gateway, destination);
        assert_eq!(
            refused.code,
            ErrorCode::Forbidden,
            "{destination}: {refused:?}"
        );
        assert!(
            refused.message.contains(names),
            "{destination}: {}",
            refused.message
        );
        assert!(
            !refused.message.contains(root.to_str().unwrap()),
            "{destination}: {}",
            refused.message
        );
    }
    #[cfg(unix)]
    assert_eq!(
        store_text(&gateway, "docs/data-link/warehouse.db").code,
        ErrorCode::Forbidden
    );
    // km-upload refuses the same destinations, and lore.yaml or a key
    // file as its source.
    for (source, destination) in [
        ("docs/guide.md", Some("wiki/")),
        ("docs/guide.md", Some("data/warehouse.db")),
        ("lore.yaml", None),
        ("deploy/server.pem", None),
        ("gcp/prod-1234.json", None),
    ] {
        let refused = gateway
            .upload(&UploadRequest {
                source_path: source.into(),
                destination: destination.map(String::from),
                overwrite: true,
                ..Default::default()
            })
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden, "{source}: {refused:?}");
    }
    for (path, bytes) in before {
        assert_eq!(std::fs::read(root.join(&path)).unwrap(), bytes, "{path}");
    }
    // Elsewhere in the project, notes are written as before.
    let stored = gateway
        .store_text(&StoreTextRequest {
            content: "# Notes\n".into(),
            destination: Some("docs/notes.md".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(stored.relative_path, "docs/notes.md");
}

#[test]
fn a_destination_under_a_file_is_invalid_and_names_no_machine_path() {
    let (_dir, project) = project();
    let root = project.root.clone();
    let gateway = gateway(&project);
    std::fs::write(root.join("docs/target.md"), "# Target\n").unwrap();
    let refused = gateway
        .store_text(&StoreTextRequest {
            content: "below a file".into(),
            destination: Some("docs/target.md/sub.md".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidRequest, "{refused:?}");
    assert!(
        refused.message.contains("docs/target.md"),
        "{}",
        refused.message
    );
    assert!(
        !refused.message.contains(root.to_str().unwrap()),
        "{}",
        refused.message
    );
    assert_eq!(
        std::fs::read_to_string(root.join("docs/target.md")).unwrap(),
        "# Target\n"
    );
    // Nor do the upload's refusals name the project's folder.
    for source in ["/etc/passwd", "docs/none.md"] {
        let refused = gateway
            .upload(&UploadRequest {
                source_path: source.into(),
                ..Default::default()
            })
            .unwrap_err();
        assert!(
            !refused.message.contains(root.to_str().unwrap()),
            "{}",
            refused.message
        );
    }
}

#[test]
fn an_ingest_of_paths_outside_every_root_is_forbidden() {
    let (dir, _project) = project();
    // A root below the project: `../x` leads out of it.
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        "gateway:\n  roots:\n    - path: docs\n      name: docs\n",
    )
    .unwrap();
    let gateway = gateway(&Project::load(&root).unwrap());
    for asked in [
        "/etc/passwd",
        "../lore.yaml",
        "../../x",
        "guide.md/../../data/warehouse.db",
    ] {
        let refused = gateway
            .ingest(
                &IngestRequest {
                    paths: vec![asked.into()],
                    ..Default::default()
                },
                &mut |_, _| {},
            )
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden, "{asked}: {refused:?}");
    }
    assert!(
        gateway.last_run(None).is_none(),
        "a refused ingest is no run"
    );
    let run = gateway
        .ingest(
            &IngestRequest {
                paths: vec!["guide.md".into()],
                ..Default::default()
            },
            &mut |_, _| {},
        )
        .unwrap();
    assert_eq!(run.files_seen, 1);
}

#[test]
fn paths_and_names_too_long_for_the_store_are_skipped_and_later_ingests_succeed() {
    let (_dir, project) = project();
    let root = project.root.clone();
    let long_name = "f".repeat(600);
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/generated.py"),
        format!("def {long_name}():\n    return 1\n\ndef short_one():\n    return 2\n"),
    )
    .unwrap();
    let deep: String = (0..260).map(|_| "d/").collect();
    std::fs::create_dir_all(root.join(&deep)).unwrap();
    std::fs::write(
        root.join(&deep).join("deep.py"),
        "def deep():\n    return 3\n",
    )
    .unwrap();
    let gateway = gateway(&project);
    for _ in 0..2 {
        let run = gateway
            .ingest(&IngestRequest::default(), &mut |_, _| {})
            .unwrap();
        assert!(run.success, "{:?}", run.error);
        assert_eq!(
            skipped(&run, &format!("{deep}deep.py")),
            Some(SkipReason::PathTooLong)
        );
        let name = run
            .skipped
            .iter()
            .find(|s| s.path == "src/generated.py")
            .expect("the long name is reported");
        assert_eq!(name.reason, SkipReason::NameTooLong);
        assert!(
            name.detail.as_deref().unwrap().contains("fffff"),
            "{name:?}"
        );
        // The rest of the file is indexed and in the graph.
        assert_eq!(paths_found(&gateway, "short_one"), ["src/generated.py"]);
        assert!(
            gateway
                .node(
                    "Symbol:src/generated.py::short_one",
                    Default::default(),
                    None,
                    &[]
                )
                .is_ok()
        );
    }
}
