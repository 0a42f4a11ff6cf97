//! What the graph tests share: a small ingested project (its gateway
//! keeps its graph in the project's store, as the CLI and the server open
//! it), the references of a symbol, and each reference as one line to
//! compare. Each test binary uses part of it.

#![allow(dead_code)]

use lore_gateway::Gateway;
use lore_gateway::graph::references::{ReferenceOut, ReferencesAnswer};
use lore_gateway::ingest::IngestRequest;

/// A project with one root (`app`) holding `files`, ingested.
pub fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, Gateway) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let file = dir.path().join("repo").join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    std::fs::write(
        dir.path().join("lore.yaml"),
        "gateway:\n  roots:\n    - path: repo\n      name: app\n",
    )
    .unwrap();
    let project = lore_core::project::Project::load(dir.path()).unwrap();
    let gateway = Gateway::for_project(&project).with_store(std::sync::Arc::new(
        lore_store::feed::StoreHandle::sqlite(project.store_path()),
    ));
    let run = gateway
        .ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    assert!(run.success, "{:?}", run.error);
    (dir, gateway)
}

/// The line (1-based) of the first line of `text` holding `needle`.
pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` is not in the text"))
        + 1
}

/// What `km-graph-references` answers for `symbol`.
pub fn references(gateway: &Gateway, symbol: &str) -> ReferencesAnswer {
    gateway
        .references(symbol, &[], None)
        .unwrap_or_else(|e| panic!("{symbol}: {}", e.message))
}

/// `node path:line resolution` of each reference.
pub fn listed(references: &[ReferenceOut]) -> Vec<String> {
    references
        .iter()
        .map(|r| format!("{} {}:{} {}", r.node, r.path, r.line, r.resolution.as_str()))
        .collect()
}
