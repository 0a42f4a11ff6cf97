//! Files agents add to a root (km-upload, km-storetext): written whole,
//! found by the next search, classified by their front matter, fenced to
//! the project and its roots, never replacing a file unless asked.

use std::path::Path;
use std::sync::Arc;

use lore_core::ErrorCode;
use lore_core::project::Project;
use lore_gateway::search::SearchFilters;
use lore_gateway::{Gateway, SearchRequest, StoreTextRequest, UploadRequest};
use lore_store::feed::StoreHandle;

/// A project with one root, `repo`, holding a little code.
fn project(extra_config: &str) -> (tempfile::TempDir, Gateway) {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    };
    write(
        "lore.yaml",
        &format!("gateway:\n  roots:\n    - path: repo\n      name: app\n{extra_config}"),
    );
    write("repo/billing/invoice.py", "def total():\n    return 1\n");
    write("repo/.gitignore", "build/\n");
    write(
        "notes/design.md",
        "# Retry design\n\nPayments retry twice with backoff.\n",
    );
    write(".env", "SECRET=hunter2\n");
    let project = Project::load(dir.path()).unwrap();
    let gateway = Gateway::for_project(&project)
        .with_store(Arc::new(StoreHandle::sqlite(project.store_path())));
    (dir, gateway)
}

fn search(gateway: &Gateway, query: &str, filters: SearchFilters) -> Vec<String> {
    gateway
        .search(&SearchRequest {
            query: query.into(),
            limit: Some(10),
            filters,
            ..Default::default()
        })
        .unwrap()
        .results
        .into_iter()
        .map(|r| r.chunk.artifact_path)
        .collect()
}

fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap()
}

#[test]
fn an_uploaded_file_is_copied_into_the_root_and_found_at_once() {
    let (dir, gateway) = project("");
    let stored = gateway
        .upload(&UploadRequest {
            source_path: "notes/design.md".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(stored.status, "success");
    assert_eq!(stored.relative_path, "docs/uploads/design.md");
    assert_eq!(stored.root, "app");
    assert!(!stored.overwritten);
    assert!(stored.ingest_triggered);
    assert_eq!(stored.ingest_run.as_ref().unwrap().files_changed, 1);
    assert_eq!(
        read(dir.path(), "repo/docs/uploads/design.md"),
        read(dir.path(), "notes/design.md")
    );
    assert_eq!(
        search(&gateway, "payments retry backoff", SearchFilters::default()),
        ["docs/uploads/design.md"]
    );

    // A named file path, without ingest: written, not yet found.
    let stored = gateway
        .upload(&UploadRequest {
            source_path: dir.path().join("notes/design.md").display().to_string(),
            destination: Some("docs/adr/0001-retries.md".into()),
            ingest: Some(false),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(stored.relative_path, "docs/adr/0001-retries.md");
    assert!(!stored.ingest_triggered && stored.ingest_run.is_none());
    assert_eq!(
        search(&gateway, "payments retry backoff", SearchFilters::default()),
        ["docs/uploads/design.md"]
    );
}

#[test]
fn an_existing_file_is_replaced_only_when_asked_and_its_text_is_kept() {
    let (dir, gateway) = project("");
    let request = UploadRequest {
        source_path: "notes/design.md".into(),
        destination: Some("billing/invoice.py".into()),
        ..Default::default()
    };
    let refused = gateway.upload(&request).unwrap_err();
    assert_eq!(refused.code, ErrorCode::Conflict, "{}", refused.message);
    assert!(refused.message.contains("overwrite"), "{}", refused.message);
    assert_eq!(
        read(dir.path(), "repo/billing/invoice.py"),
        "def total():\n    return 1\n"
    );

    let replaced = gateway
        .upload(&UploadRequest {
            overwrite: true,
            ..request
        })
        .unwrap();
    assert!(replaced.overwritten);
    let kept = replaced.previous_saved_to.expect("the old text is kept");
    assert!(kept.contains(".lore/gateway/replaced/"), "{kept}");
    assert_eq!(
        std::fs::read_to_string(&kept).unwrap(),
        "def total():\n    return 1\n"
    );
    assert!(read(dir.path(), "repo/billing/invoice.py").starts_with("# Retry design"));
}

#[test]
fn sources_outside_the_project_hidden_files_and_binaries_are_refused() {
    let (dir, gateway) = project("");
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), "# secret plans\n").unwrap();
    std::fs::write(
        dir.path().join("notes/logo.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0",
    )
    .unwrap();
    std::fs::write(dir.path().join("notes/big.md"), "x".repeat(2 * 1024 * 1024)).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), dir.path().join("notes/link.md")).unwrap();
    let cases: &[(&str, ErrorCode)] = &[
        (&outside.path().display().to_string(), ErrorCode::Forbidden),
        ("../../etc/passwd", ErrorCode::Forbidden),
        ("/no/such/file.md", ErrorCode::Forbidden),
        (".env", ErrorCode::Forbidden),
        ("lore.yaml", ErrorCode::Forbidden),
        ("notes/logo.png", ErrorCode::InvalidArguments),
        ("notes/big.md", ErrorCode::InvalidArguments),
        ("notes", ErrorCode::InvalidArguments),
        ("notes/missing.md", ErrorCode::NotFound),
        ("", ErrorCode::InvalidArguments),
        #[cfg(unix)]
        ("notes/link.md", ErrorCode::Forbidden),
    ];
    for (source, code) in cases {
        let refused = gateway
            .upload(&UploadRequest {
                source_path: source.to_string(),
                ..Default::default()
            })
            .unwrap_err();
        assert_eq!(refused.code, *code, "{source}: {}", refused.message);
    }
    // Nothing was written for any of them.
    assert!(!dir.path().join("repo/docs").exists());

    // A folder listed in gateway.uploads.sources may be read.
    let shared = tempfile::tempdir().unwrap();
    std::fs::write(shared.path().join("runbook.md"), "# Runbook\n").unwrap();
    let (_dir, gateway) = project(&format!(
        "  uploads:\n    sources: [\"{}\"]\n",
        shared.path().display()
    ));
    let stored = gateway
        .upload(&UploadRequest {
            source_path: shared.path().join("runbook.md").display().to_string(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(stored.relative_path, "docs/uploads/runbook.md");
}

#[test]
fn destinations_stay_inside_the_root() {
    let (dir, gateway) = project("");
    let escape = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(escape.path(), dir.path().join("repo/out")).unwrap();
    let mut cases: Vec<(&str, ErrorCode)> = vec![
        ("../elsewhere/", ErrorCode::Forbidden),
        ("docs/../../x.md", ErrorCode::Forbidden),
        ("/tmp/x.md", ErrorCode::Forbidden),
        (".git/hooks/pre-commit", ErrorCode::Forbidden),
        ("docs\\..\\..\\x.md", ErrorCode::Forbidden),
        ("billing/invoice.py", ErrorCode::Conflict),
    ];
    if cfg!(unix) {
        cases.push(("out/x.md", ErrorCode::Forbidden));
    }
    for (destination, code) in cases {
        let refused = gateway
            .store_text(&StoreTextRequest {
                content: "# invoice.py\n".into(),
                title: Some("invoice.py".into()),
                destination: Some(destination.into()),
                ..Default::default()
            })
            .map(|s| s.relative_path)
            .unwrap_err();
        assert_eq!(refused.code, code, "{destination}: {}", refused.message);
    }
    assert_eq!(std::fs::read_dir(escape.path()).unwrap().count(), 0);
    let unknown = gateway
        .store_text(&StoreTextRequest {
            content: "x".into(),
            root: Some("nope".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
    assert!(unknown.message.contains("app"), "{}", unknown.message);
}

#[test]
fn stored_text_gets_front_matter_that_classifies_and_tags_it() {
    let (dir, gateway) = project("");
    let mut metadata = serde_json::Map::new();
    metadata.insert("author".into(), "agent: \"claude\"".into());
    let stored = gateway
        .store_text(&StoreTextRequest {
            content: "## Summary\nRefunds now settle in two days.".into(),
            title: Some("Release Notes: 2.1".into()),
            subsystem: Some("Deployment".into()),
            tags: vec!["release".into(), "notes".into(), "release".into()],
            metadata: Some(metadata),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(stored.relative_path, "docs/uploads/release-notes-2-1.md");
    let text = read(dir.path(), "repo/docs/uploads/release-notes-2-1.md");
    assert_eq!(
        text,
        "---\ntitle: \"Release Notes: 2.1\"\nsubsystem: \"Deployment\"\ntags: [\"release\",\"notes\"]\nmetadata: {\"author\":\"agent: \\\"claude\\\"\"}\n---\n\n## Summary\nRefunds now settle in two days.\n"
    );
    let tagged = SearchFilters {
        tags: vec!["release".into()],
        subsystems: vec!["Deployment".into()],
        ..Default::default()
    };
    assert_eq!(
        search(&gateway, "refunds settle", tagged),
        ["docs/uploads/release-notes-2-1.md"]
    );
    // The graph knows it as a document of that subsystem.
    let node = gateway
        .node(
            "DesignDoc:app/docs/uploads/release-notes-2-1.md",
            lore_gateway::graph::explore::Relationships::Outgoing,
            None,
            &[],
        )
        .unwrap();
    assert!(
        node.relationships
            .iter()
            .any(|r| r.predicate == "BELONGS_TO" && r.node == "Subsystem:Deployment"),
        "{:?}",
        node.relationships
    );

    // A file name without an extension gets `.md`; no title: a note name.
    let named = gateway
        .store_text(&StoreTextRequest {
            content: "plain".into(),
            destination: Some("docs/runbooks/restart".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(named.relative_path, "docs/runbooks/restart.md");
    assert_eq!(read(dir.path(), "repo/docs/runbooks/restart.md"), "plain\n");
    let untitled = gateway
        .store_text(&StoreTextRequest {
            content: "plain".into(),
            ..Default::default()
        })
        .unwrap();
    assert!(
        untitled.relative_path.starts_with("docs/uploads/note-")
            && untitled.relative_path.ends_with(".md"),
        "{}",
        untitled.relative_path
    );
}

#[test]
fn bad_text_is_refused_and_nothing_is_written() {
    let (dir, gateway) = project("");
    let cases = [
        StoreTextRequest {
            content: "  \n".into(),
            ..Default::default()
        },
        StoreTextRequest {
            content: "---\ntitle: x\n---\nbody".into(),
            title: Some("Other".into()),
            ..Default::default()
        },
        StoreTextRequest {
            content: "body".into(),
            title: Some("two\nlines".into()),
            ..Default::default()
        },
        StoreTextRequest {
            content: "body".into(),
            tags: vec![" ".into()],
            ..Default::default()
        },
        StoreTextRequest {
            content: "x".repeat(2 * 1024 * 1024),
            ..Default::default()
        },
    ];
    for request in cases {
        let refused = gateway.store_text(&request).unwrap_err();
        assert_eq!(
            refused.code,
            ErrorCode::InvalidArguments,
            "{}",
            refused.message
        );
    }
    assert!(!dir.path().join("repo/docs").exists());
}

#[test]
fn a_destination_the_ignore_rules_hide_is_stored_but_not_ingested() {
    let (dir, gateway) = project("");
    let stored = gateway
        .store_text(&StoreTextRequest {
            content: "# Build notes\nartifact layout".into(),
            destination: Some("build/".into()),
            title: Some("Build notes".into()),
            ..Default::default()
        })
        .unwrap();
    assert!(dir.path().join("repo/build/build-notes.md").is_file());
    assert!(!stored.ingest_triggered);
    assert!(
        stored.warnings[0].contains("ignore"),
        "{:?}",
        stored.warnings
    );
    assert!(search(&gateway, "artifact layout", SearchFilters::default()).is_empty());
}

#[cfg(unix)]
#[test]
fn written_files_get_the_repository_s_usual_mode_and_replaced_ones_keep_theirs() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, gateway) = project("");
    let mode = |path: &str| {
        std::fs::metadata(dir.path().join(path))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    let uploads = dir.path().join("repo/docs/uploads");
    std::fs::create_dir_all(&uploads).unwrap();
    std::fs::set_permissions(&uploads, std::fs::Permissions::from_mode(0o755)).unwrap();
    gateway
        .upload(&UploadRequest {
            source_path: "notes/design.md".into(),
            ingest: Some(false),
            ..Default::default()
        })
        .unwrap();
    // A folder others may read gets a file others may read, not 0600.
    assert_eq!(mode("repo/docs/uploads/design.md"), 0o644);

    let file = dir.path().join("repo/docs/uploads/design.md");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    gateway
        .store_text(&StoreTextRequest {
            content: "Payments retry three times.".into(),
            destination: Some("docs/uploads/design.md".into()),
            overwrite: true,
            ingest: Some(false),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(mode("repo/docs/uploads/design.md"), 0o640);
    assert!(read(dir.path(), "repo/docs/uploads/design.md").contains("three times"));
}
