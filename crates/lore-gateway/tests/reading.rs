//! What an agent reads: compact answers by default (place and the lines
//! that match), whole chunks on request, and km-read for the lines around
//! a hit, confined to what the gateway serves.

use std::sync::Arc;

use lore_core::ErrorCode;
use lore_core::project::Project;
use lore_gateway::read::ReadRequest;
use lore_gateway::search::Detail;
use lore_gateway::{Gateway, IngestRequest, SearchRequest};
use lore_store::feed::StoreHandle;

/// A project with one ingested root, `repo`, and `limits` in lore.yaml.
fn project(limits: &str) -> (tempfile::TempDir, Gateway) {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    };
    write(
        "lore.yaml",
        &format!("gateway:\n  roots:\n    - path: repo\n      name: app\n{limits}"),
    );
    let mut invoice = String::from("class Invoice:\n");
    for n in 0..60 {
        invoice.push_str(&format!("    field_{n} = {n}\n"));
    }
    invoice.push_str("    def total_with_tax(self):\n        return self.net * TAX_RATE\n");
    write("repo/billing/invoice.py", &invoice);
    let mut tax = String::from("def apply_reduced_rate(amount):\n");
    for n in 0..40 {
        tax.push_str(&format!("    step_{n} = amount + {n}\n"));
    }
    tax.push_str("    return amount * REDUCED_RATE\n");
    write("repo/billing/tax.py", &tax);
    write("repo/.gitignore", "build/\n");
    write("repo/build/out.py", "def built(): pass\n");
    write("repo/.env", "SECRET=hunter2\n");
    write("outside.py", "def outside(): pass\n");
    let project = Project::load(dir.path()).unwrap();
    let gateway = Gateway::for_project(&project)
        .with_store(Arc::new(StoreHandle::sqlite(project.store_path())));
    let run = gateway
        .ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    assert!(run.success, "{:?}", run.error);
    (dir, gateway)
}

#[test]
fn answers_are_compact_by_default_and_whole_on_request() {
    let (_dir, gateway) = project("");
    let query = "apply_reduced_rate ignores REDUCED_RATE";
    let compact = gateway
        .search(&SearchRequest {
            query: query.into(),
            ..Default::default()
        })
        .unwrap();
    let chunk = &compact.results[0].chunk;
    assert_eq!(chunk.artifact_path, "billing/tax.py");
    assert!(chunk.text.is_empty());
    let snippet = chunk.snippet.as_ref().unwrap();
    assert!(
        snippet.text.contains("def apply_reduced_rate"),
        "{}",
        snippet.text
    );
    assert!(snippet.text.lines().count() <= 5);
    assert!(snippet.start_line >= chunk.start_line && snippet.end_line <= chunk.end_line);
    let json = serde_json::to_string(&compact.results[0].chunk).unwrap();

    let full = gateway
        .search(&SearchRequest {
            query: query.into(),
            detail: Detail::Full,
            ..Default::default()
        })
        .unwrap();
    let chunk = &full.results[0].chunk;
    assert!(chunk.snippet.is_none());
    assert!(chunk.text.contains("REDUCED_RATE") && chunk.text.contains("step_20"));
    let lines = (chunk.end_line - chunk.start_line + 1) as usize;
    assert_eq!(chunk.text.lines().count(), lines, "the whole chunk");
    assert!(lines > 5, "{lines}");
    let full_json = serde_json::to_string(&full.results[0].chunk).unwrap();
    assert!(
        json.len() * 2 < full_json.len(),
        "{} vs {}",
        json.len(),
        full_json.len()
    );
}

#[test]
fn a_reader_reads_lines_of_a_root_s_files_and_nothing_else() {
    let (_dir, gateway) = project("");
    let read = |path: &str, start: Option<usize>, end: Option<usize>| {
        gateway.read(&ReadRequest {
            path: path.into(),
            start_line: start,
            end_line: end,
            ..Default::default()
        })
    };
    let lines = read("billing/invoice.py", Some(62), Some(63)).unwrap();
    assert_eq!(lines.root, "app");
    assert_eq!(
        (lines.start_line, lines.end_line, lines.total_lines),
        (62, 63, 63)
    );
    assert_eq!(
        lines.text,
        "    def total_with_tax(self):\n        return self.net * TAX_RATE\n"
    );
    assert!(!lines.truncated);
    // Past the end: what there is.
    let tail = read("billing/invoice.py", Some(63), Some(500)).unwrap();
    assert_eq!(tail.end_line, 63);

    for (path, code) in [
        ("../outside.py", ErrorCode::Forbidden),
        ("/etc/passwd", ErrorCode::Forbidden),
        (".env", ErrorCode::Forbidden),
        ("build/out.py", ErrorCode::Forbidden),
        ("billing/missing.py", ErrorCode::NotFound),
        ("billing", ErrorCode::NotFound),
        ("", ErrorCode::InvalidArguments),
    ] {
        let refused = read(path, None, None).unwrap_err();
        assert_eq!(refused.code, code, "{path}: {}", refused.message);
    }
    let backwards = read("billing/invoice.py", Some(9), Some(3)).unwrap_err();
    assert_eq!(backwards.code, ErrorCode::InvalidArguments);
    let unknown_root = gateway
        .read(&ReadRequest {
            path: "billing/invoice.py".into(),
            root: Some("nope".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert!(
        unknown_root.message.contains("app"),
        "{}",
        unknown_root.message
    );
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_root_is_not_followed() {
    let (dir, gateway) = project("");
    std::os::unix::fs::symlink(
        dir.path().join("outside.py"),
        dir.path().join("repo/link.py"),
    )
    .unwrap();
    let refused = gateway
        .read(&ReadRequest {
            path: "link.py".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden, "{}", refused.message);
}

#[test]
fn a_long_range_ends_within_the_answer_budget_and_says_where_to_go_on() {
    let mut long = String::new();
    for n in 0..400 {
        long.push_str(&format!("line {n:04} of a long generated file\n"));
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("repo")).unwrap();
    std::fs::write(dir.path().join("repo/long.txt"), &long).unwrap();
    std::fs::write(
        dir.path().join("lore.yaml"),
        "gateway:\n  roots:\n    - path: repo\n      name: app\nlimits:\n  result_bytes: 4096\n",
    )
    .unwrap();
    let project = Project::load(dir.path()).unwrap();
    let gateway = Gateway::for_project(&project);
    let part = gateway
        .read(&ReadRequest {
            path: "long.txt".into(),
            ..Default::default()
        })
        .unwrap();
    assert!(part.truncated);
    assert!(part.text.len() <= 4096);
    assert_eq!(part.next_start_line, Some(part.end_line + 1));
    let next = gateway
        .read(&ReadRequest {
            path: "long.txt".into(),
            start_line: part.next_start_line,
            ..Default::default()
        })
        .unwrap();
    assert!(next.text.starts_with(&format!("line {:04}", part.end_line)));
}
