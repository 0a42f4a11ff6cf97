//! The semantic model's files kept in the knowledge store, through a
//! running server: a model written by another process is undone with the
//! memory toolset's `undo` and the server takes the files back; a hand
//! edit is recorded as a version by the next discovery.

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::json;

/// Waits (bounded) until `done` holds.
async fn eventually(what: &str, done: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(15);
    while !done() {
        assert!(Instant::now() < until, "timed out waiting: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_model_write_undone_over_mcp_takes_its_files_back() {
    let (_dir, root) = demo_project();
    let dir = root.join("semantic-layer/warehouse");
    let client = stdio_client(&root).await;
    // The first discovery records the demo's model files.
    ok(&client, "discover_data", json!({"query": "revenue"})).await;

    std::fs::remove_file(dir.join("plans.yaml")).unwrap();
    let generated = lore_in(&root, &["sl", "generate", "--json"]);
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&generated.stdout).unwrap();
    let tx = report["tx_id"].as_i64().unwrap();
    assert!(dir.join("plans.yaml").is_file());

    // Undone by an agent through the server: the file follows.
    let undone = ok(&client, "undo", json!({"tx_id": tx})).await;
    assert!(undone["tx_id"].as_i64().unwrap() > tx);
    let plans = dir.join("plans.yaml");
    eventually("the undone file is removed", || !plans.exists()).await;
    assert!(dir.join("invoices.yaml").is_file());

    // A hand edit becomes a version at the next discovery.
    let invoices = dir.join("invoices.yaml");
    let text = std::fs::read_to_string(&invoices).unwrap();
    std::fs::write(&invoices, format!("{text}# reviewed by finance\n")).unwrap();
    ok(&client, "discover_data", json!({"query": "invoices"})).await;
    let history = ok(&client, "history", json!({"limit": 1})).await;
    let summary = history["items"][0]["summary"].as_str().unwrap();
    assert!(
        summary.contains("semantic-layer/warehouse/invoices.yaml"),
        "{history}"
    );
    client.cancel().await.unwrap();
}
