//! `km-coverage-summary` and `km-lifecycle-report` through the `Gateway`
//! service, over repositories made on the spot: one with skipped files and
//! a catalog expecting what is not there, one with a git history whose
//! commits are dated in the past (documents older than the code they
//! describe, a removed file a document still names).

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use lore_core::project::Project;
use lore_gateway::Gateway;
use lore_gateway::graph::report::LifecycleRequest;
use lore_gateway::ingest::IngestRequest;
use lore_gateway::ingest::walk::SkipReason;
use lore_store::feed::StoreHandle;

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new(config: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo")).unwrap();
        std::fs::write(
            dir.path().join("lore.yaml"),
            format!("gateway:\n  roots:\n    - path: repo\n      name: app\n{config}"),
        )
        .unwrap();
        Fixture { dir }
    }

    fn repo(&self) -> std::path::PathBuf {
        self.dir.path().join("repo")
    }

    fn write(&self, path: &str, text: &str) {
        let file = self.repo().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }

    fn remove(&self, path: &str) {
        std::fs::remove_file(self.repo().join(path)).unwrap();
    }

    fn gateway(&self) -> Gateway {
        let project = Project::load(self.dir.path()).unwrap();
        Gateway::for_project(&project)
            .with_store(Arc::new(StoreHandle::sqlite(project.store_path())))
    }

    fn ingest(&self) {
        let run = self
            .gateway()
            .ingest(&IngestRequest::default(), &mut |_, _| {})
            .unwrap();
        assert!(run.success, "{:?}", run.error);
    }

    /// Commits everything, dated `days_ago` days before now.
    fn commit(&self, message: &str, days_ago: i64) {
        let when = format!(
            "@{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs() as i64
                - days_ago * 86_400
        );
        git(&self.repo(), &["add", "-A"], &when);
        git(&self.repo(), &["commit", "-q", "-m", message], &when);
    }
}

fn git(dir: &Path, args: &[&str], when: &str) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=Lore Test",
            "-c",
            "user.email=test@example.com",
        ])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .env("GIT_AUTHOR_DATE", when)
        .env("GIT_COMMITTER_DATE", when)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

const CATALOG: &str = "Billing:\n  paths: [\"src/billing/**\", \"tests/**\"]\nReports:\n  paths: [\"src/reports/**\"]\nPayments:\n  paths: [\"src/payments/**\"]\n";

#[test]
fn coverage_counts_what_is_indexed_and_names_what_is_skipped_missing_or_removed() {
    let fixture = Fixture::new("  max_file_bytes: 4000\n");
    std::fs::write(fixture.dir.path().join("subsystems.yaml"), CATALOG).unwrap();
    fixture.write(
        "src/billing/invoice.py",
        "def total(lines):\n    return sum(lines)\n",
    );
    fixture.write("src/billing/tax.py", "RATE = 0.2\n");
    fixture.write(
        "tests/test_invoice.py",
        "from src.billing.invoice import total\n\ndef test_total():\n    assert total([1]) == 1\n",
    );
    fixture.write(
        "docs/billing.md",
        "# Billing\n\nSee `src/billing/invoice.py`.\n",
    );
    fixture.write("assets/logo.png", "\u{0}PNG\u{0}\u{0}binary");
    fixture.write("data/huge.sql", &"SELECT 1;\n".repeat(1_000));
    fixture.ingest();

    let coverage = fixture.gateway().coverage().unwrap();
    let counts = &coverage.summary.artifact_breakdown;
    assert_eq!(coverage.summary.artifact_total, 4);
    assert_eq!(counts.get("code"), Some(&2));
    assert_eq!(counts.get("test"), Some(&1));
    assert_eq!(counts.get("doc"), Some(&1));
    assert!(coverage.summary.chunk_count >= 4);
    let billing = coverage
        .artifacts
        .iter()
        .find(|a| a.subsystem.as_deref() == Some("Billing"))
        .expect("the Billing subsystem");
    assert_eq!(billing.artifact_total, 3, "two code files and the test");
    let skipped: Vec<(&str, SkipReason)> = coverage
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason))
        .collect();
    assert!(
        skipped.contains(&("assets/logo.png", SkipReason::Binary)),
        "{skipped:?}"
    );
    assert!(
        skipped.contains(&("data/huge.sql", SkipReason::TooLarge)),
        "{skipped:?}"
    );
    assert_eq!(coverage.skipped_total, 2);
    // Reports and Payments have no file: the catalog expects them.
    let missing: Vec<(&str, &str)> = coverage
        .missing_artifacts
        .iter()
        .map(|m| (m.subsystem.as_str(), m.pattern.as_str()))
        .collect();
    assert_eq!(
        missing,
        [
            ("Payments", "src/payments/**"),
            ("Reports", "src/reports/**")
        ]
    );
    assert!(coverage.removed_artifacts.is_empty());
    let freshness = &coverage.freshness;
    assert!(freshness.oldest_artifact.is_some() && freshness.newest_artifact.is_some());
    assert!(freshness.last_run.as_ref().is_some_and(|r| r.success));

    // A deleted file is removed, and said to be; it comes back, and is not.
    fixture.remove("src/billing/tax.py");
    fixture.write("src/reports/summary.py", "def summary():\n    return 1\n");
    fixture.ingest();
    let coverage = fixture.gateway().coverage().unwrap();
    assert_eq!(coverage.summary.artifact_breakdown.get("code"), Some(&2));
    assert_eq!(coverage.removed_total, 1);
    let removed = &coverage.removed_artifacts[0];
    assert_eq!(
        (removed.path.as_str(), removed.artifact_type.as_str()),
        ("src/billing/tax.py", "code")
    );
    assert_eq!(
        coverage.freshness.last_run.as_ref().map(|r| &r.run_id),
        Some(&removed.run_id)
    );
    assert_eq!(
        coverage.missing_artifacts.len(),
        1,
        "Reports has its file now"
    );
    fixture.write("src/billing/tax.py", "RATE = 0.21\n");
    fixture.ingest();
    assert!(
        fixture
            .gateway()
            .coverage()
            .unwrap()
            .removed_artifacts
            .is_empty()
    );
}

#[test]
fn lifecycle_finds_stale_documents_untested_subsystems_isolated_files_and_dead_references() {
    let fixture = Fixture::new("");
    std::fs::write(fixture.dir.path().join("subsystems.yaml"), CATALOG).unwrap();
    git(&fixture.repo(), &["init", "-q"], "@0");
    fixture.write(
        "src/billing/invoice.py",
        "def total(lines):\n    return sum(lines)\n",
    );
    fixture.write(
        "tests/test_invoice.py",
        "from src.billing.invoice import total\n\ndef test_total():\n    assert total([1]) == 1\n",
    );
    fixture.write("src/reports/summary.py", "def summary():\n    return 1\n");
    fixture.write("src/legacy.py", "def old():\n    return 0\n");
    fixture.write(
        "docs/billing.md",
        "# Billing\n\nTotals are computed in `src/billing/invoice.py`.\n",
    );
    fixture.write("docs/guide.md", "# Guide\n\nA guide that names no file.\n");
    fixture.write(
        "docs/legacy.md",
        "# Legacy\n\nThe old code is in src/legacy.py.\n",
    );
    // Records not meant to follow the code: never stale by default.
    fixture.write(
        "CHANGELOG.md",
        "# Changes\n\n- `src/billing/invoice.py` added\n",
    );
    fixture.write("docs/blog/launch.md", "# We launched\n");
    fixture.commit("first", 400);
    fixture.ingest();

    // Ten days ago the code changed, the legacy file went, and a new
    // document was written after the code it describes.
    fixture.write(
        "src/billing/invoice.py",
        "def total(lines, tax=0.2):\n    return sum(lines) * (1 + tax)\n",
    );
    fixture.remove("src/legacy.py");
    fixture.write(
        "docs/fresh.md",
        "# Fresh\n\nWritten after `src/billing/invoice.py` changed.\n",
    );
    fixture.commit("code changes", 10);
    fixture.write(
        "docs/fresh.md",
        "# Fresh\n\nWritten after src/billing/invoice.py changed.\n",
    );
    fixture.commit("fresh doc", 5);
    // Written and never committed: new, so not stale (and not waited for
    // in the history).
    fixture.write(
        "docs/draft.md",
        "# Draft\n\nAbout `src/billing/invoice.py`.\n",
    );
    fixture.ingest();

    let report = fixture.gateway().lifecycle(&Default::default()).unwrap();
    assert_eq!(
        report.summary.dated_by.get("app").map(String::as_str),
        Some("git")
    );
    assert_eq!(report.summary.stale_after_days, 180);
    let stale: Vec<(&str, Vec<&str>)> = report
        .stale_docs
        .iter()
        .map(|d| {
            (
                d.path.as_str(),
                d.reasons.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        stale,
        [
            ("docs/billing.md", vec!["age", "code_changed"]),
            ("docs/guide.md", vec!["age"]),
            ("docs/legacy.md", vec!["age"]),
        ],
        "fresh.md is newer than the code it describes"
    );
    assert_eq!(report.summary.excluded_docs, 2);
    let billing = &report.stale_docs[0];
    assert!(billing.age_days >= 399, "{}", billing.age_days);
    assert_eq!(billing.changed_code.len(), 1);
    assert_eq!(billing.changed_code[0].path, "src/billing/invoice.py");

    // Reports has code and no test; Billing's test validates its code.
    let missing: Vec<&str> = report
        .missing_tests
        .iter()
        .map(|m| m.subsystem.as_str())
        .collect();
    assert_eq!(missing, ["Reports"]);
    assert_eq!(
        report.missing_tests[0].examples,
        ["app/src/reports/summary.py"]
    );

    let isolated = |label: &str| {
        report
            .isolated_nodes
            .get(label)
            .cloned()
            .unwrap_or_default()
    };
    assert!(isolated("Code").contains(&"Code:app/src/reports/summary.py".to_string()));
    assert!(!isolated("Code").contains(&"Code:app/src/billing/invoice.py".to_string()));
    assert!(isolated("DesignDoc").contains(&"DesignDoc:app/docs/guide.md".to_string()));
    assert!(!isolated("DesignDoc").contains(&"DesignDoc:app/docs/billing.md".to_string()));

    let dead: Vec<(&str, &str)> = report
        .removed_references
        .iter()
        .map(|r| (r.doc.as_str(), r.removed_path.as_str()))
        .collect();
    assert_eq!(dead, [("DesignDoc:app/docs/legacy.md", "src/legacy.py")]);

    // A longer threshold keeps only what the code outdated.
    let patient = fixture
        .gateway()
        .lifecycle(&LifecycleRequest {
            stale_after_days: Some(1_000),
            ..Default::default()
        })
        .unwrap();
    let paths: Vec<&str> = patient.stale_docs.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["docs/billing.md"]);
    assert_eq!(patient.stale_docs[0].reasons, ["code_changed"]);
}

#[test]
fn lifecycle_outside_git_dates_by_modification_time_and_needs_an_ingest_first() {
    let fixture = Fixture::new("  lifecycle:\n    stale_after_days: 30\n    exclude: []\n");
    let refused = fixture
        .gateway()
        .lifecycle(&Default::default())
        .unwrap_err();
    assert_eq!(refused.code, lore_core::ErrorCode::NotFound);
    assert!(
        refused.message.contains("lore gateway ingest"),
        "{}",
        refused.message
    );

    fixture.write("docs/notes.md", "# Notes\n\nAbout `src/app.py`.\n");
    fixture.write("docs/blog/old-post.md", "# An old post\n");
    fixture.write("src/app.py", "def run():\n    return 1\n");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(90 * 86_400);
    for doc in ["docs/notes.md", "docs/blog/old-post.md"] {
        std::fs::File::options()
            .write(true)
            .open(fixture.repo().join(doc))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    fixture.ingest();
    let report = fixture.gateway().lifecycle(&Default::default()).unwrap();
    assert_eq!(
        report.summary.dated_by.get("app").map(String::as_str),
        Some("mtime")
    );
    assert_eq!(report.summary.stale_after_days, 30, "from lore.yaml");
    // `exclude: []` in lore.yaml: the blog post is judged too.
    assert_eq!(report.summary.excluded_docs, 0);
    let stale: Vec<&str> = report.stale_docs.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(stale, ["docs/blog/old-post.md", "docs/notes.md"]);
    let notes = &report.stale_docs[1];
    assert_eq!(notes.path, "docs/notes.md");
    // Without history, code newer than the document is not a reason.
    assert_eq!(notes.reasons, ["age"]);
    assert!((89..=91).contains(&notes.age_days), "{}", notes.age_days);
}

#[test]
fn lifecycle_leaves_test_fixtures_and_web_assets_out_and_bounds_its_lists() {
    let fixture = Fixture::new("  lifecycle:\n    stale_after_days: 30\n");
    // sphinx's shape: fixture projects under tests/, a theme's assets.
    for n in 0..6 {
        fixture.write(
            &format!("tests/roots/test-{n}/index.rst"),
            "Fixture\n=======\n",
        );
    }
    fixture.write("docs/usage.md", "# Usage\n\nRun it.\n");
    fixture.write("themes/basic/static/searchtools.js", "var Search = {};\n");
    fixture.write("themes/basic/static/basic.css", "body { margin: 0 }\n");
    fixture.write("themes/basic/layout.html", "<html></html>\n");
    for n in 0..4 {
        fixture.write(&format!("src/lonely_{n}.py"), "def f():\n    return 1\n");
    }
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(90 * 86_400);
    let docs = (0..6)
        .map(|n| format!("tests/roots/test-{n}/index.rst"))
        .chain(["docs/usage.md".to_string()]);
    for doc in docs {
        std::fs::File::options()
            .write(true)
            .open(fixture.repo().join(doc))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    fixture.ingest();

    let report = fixture.gateway().lifecycle(&Default::default()).unwrap();
    let stale: Vec<&str> = report.stale_docs.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(stale, ["docs/usage.md"], "fixtures are not documentation");
    let code = &report.isolated_nodes["Code"];
    assert!(
        code.iter().all(|n| n.starts_with("Code:app/src/lonely_")),
        "{code:?}"
    );
    assert_eq!(report.summary.fixtures_and_assets, 9);

    // Asked for, they are reported; a limit bounds each list, not the
    // counts.
    let all = fixture
        .gateway()
        .lifecycle(&LifecycleRequest {
            include_fixtures: true,
            limit: Some(2),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(all.summary.stale_docs, 7);
    assert_eq!(all.stale_docs.len(), 2);
    assert_eq!(all.summary.isolated_nodes["Code"], 7);
    assert_eq!(all.isolated_nodes["Code"].len(), 2);
    assert_eq!(all.summary.fixtures_and_assets, 0);
    let refused = fixture
        .gateway()
        .lifecycle(&LifecycleRequest {
            limit: Some(0),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(refused.code, lore_core::ErrorCode::InvalidArguments);
}
