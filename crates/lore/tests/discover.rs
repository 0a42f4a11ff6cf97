//! `discover_data` end to end on the demo project: one ranked list over
//! the semantic layer and the scanned schema, through the real MCP
//! protocol, fresh after a new scan and a model edit, and rebuilt when the
//! index is deleted.

mod common;

use common::*;
use serde_json::{Value, json};

async fn discover(client: &Client, arguments: Value) -> Value {
    let result = call(client, "discover_data", arguments.clone())
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{arguments}: {result:?}");
    result.structured_content.unwrap()
}

fn ids(found: &Value) -> Vec<String> {
    found["refs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{}:{}",
                r["kind"].as_str().unwrap(),
                r["id"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn discover_data_ranks_the_semantic_layer_and_the_schema_together() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;

    let found = discover(&client, json!({"query": "revenue"})).await;
    let refs = found["refs"].as_array().unwrap();
    assert!(!refs.is_empty());
    assert_eq!(refs[0]["score"], 1.0);
    for r in refs {
        let score = r["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score), "{r}");
        if let Some(snippet) = r["snippet"].as_str() {
            assert!(snippet.chars().count() <= 200);
        }
    }
    let all = ids(&found);
    assert!(
        all.iter().any(|id| id == "sl_measure:invoices.revenue"),
        "{all:?}"
    );
    let kinds: std::collections::BTreeSet<&str> =
        refs.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert!(kinds.len() > 1, "one list across kinds: {kinds:?}");

    // Prose finds identifiers; columns carry what entity_details takes.
    let found = discover(
        &client,
        json!({"query": "support tickets", "kinds": ["table"]}),
    )
    .await;
    assert_eq!(ids(&found)[0], "table:support_tickets");
    let table = &found["refs"][0];
    assert_eq!(table["tableRef"]["name"], "support_tickets");
    assert_eq!(table["connectionId"], "warehouse");
    let found = discover(&client, json!({"query": "plan name", "kinds": ["column"]})).await;
    let column = &found["refs"][0];
    assert_eq!(column["id"], "plans.name", "{found}");
    assert_eq!(column["columnName"], "name");
    assert_eq!(column["tableRef"]["name"], "plans");

    // A value seen in the data finds its column.
    let found = discover(&client, json!({"query": "Growth", "kinds": ["column"]})).await;
    let hit = found["refs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["matchedOn"] == "sample_value")
        .unwrap_or_else(|| panic!("a sample-value match: {found}"));
    assert!(
        hit["snippet"].as_str().unwrap().contains("samples:"),
        "{hit}"
    );

    // Kinds, limit, connection scope, lanes.
    let only = discover(
        &client,
        json!({"query": "revenue", "kinds": ["sl_measure"], "limit": 2}),
    )
    .await;
    assert!(ids(&only).iter().all(|id| id.starts_with("sl_measure:")));
    assert!(only["refs"].as_array().unwrap().len() <= 2);
    let lanes = only["lanes"].as_array().unwrap();
    assert_eq!(
        lanes.iter().find(|l| l["lane"] == "raw_schema").unwrap()["skipped"],
        "not in kinds"
    );
    let scoped = discover(
        &client,
        json!({"query": "revenue", "connectionId": "warehouse"}),
    )
    .await;
    assert!(!scoped["refs"].as_array().unwrap().is_empty());
    let unknown = call(
        &client,
        "discover_data",
        json!({"query": "revenue", "connectionId": "nope"}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&unknown)["code"], "not_found");
    assert_invalid_arguments(&client, "discover_data", json!({"query": "  "})).await;
    assert_invalid_arguments(&client, "discover_data", json!({"query": "x", "limit": 51})).await;
    assert_invalid_arguments(
        &client,
        "discover_data",
        json!({"query": "x", "kinds": ["tables"]}),
    )
    .await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn discover_data_sees_a_new_scan_and_an_edited_model_on_the_next_call() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let before = discover(&client, json!({"query": "shipment carrier"})).await;
    assert!(
        ids(&before).iter().all(|id| !id.contains("shipments")),
        "{before}"
    );

    // A new table, then a scan.
    let db = rusqlite::Connection::open(root.join("data/warehouse.db")).unwrap();
    db.execute_batch("CREATE TABLE shipments (id INTEGER PRIMARY KEY, carrier TEXT); INSERT INTO shipments VALUES (1, 'DHL');").unwrap();
    drop(db);
    let scanned = lore_in(&root, &["scan"]);
    assert!(
        scanned.status.success(),
        "{}",
        String::from_utf8_lossy(&scanned.stderr)
    );
    let after = discover(&client, json!({"query": "shipment carrier"})).await;
    assert!(
        ids(&after)
            .iter()
            .any(|id| id == "column:shipments.carrier"),
        "{after}"
    );

    // A new measure in the model files.
    let model = root.join("semantic-layer/warehouse/invoices.yaml");
    let text = std::fs::read_to_string(&model).unwrap();
    let edited = text.replace("measures:\n", "measures:\n  - { name: churned_arr_estimate, expr: \"sum(total)\", description: Estimated churned annual recurring revenue }\n");
    assert_ne!(edited, text, "the demo model has a measures list");
    std::fs::write(&model, edited).unwrap();
    let after = discover(
        &client,
        json!({"query": "churned arr estimate", "kinds": ["sl_measure"]}),
    )
    .await;
    assert_eq!(
        ids(&after)[0],
        "sl_measure:invoices.churned_arr_estimate",
        "{after}"
    );
    client.cancel().await.unwrap();

    // A deleted index is rebuilt by the next server.
    std::fs::remove_dir_all(root.join(".lore/index")).unwrap();
    let client = stdio_client(&root).await;
    let rebuilt = discover(&client, json!({"query": "shipment carrier"})).await;
    assert!(
        ids(&rebuilt)
            .iter()
            .any(|id| id == "column:shipments.carrier")
    );
    client.cancel().await.unwrap();
}

#[test]
fn lore_search_prints_what_discover_data_answers() {
    let (_dir, root) = demo_project();
    let out = lore_in(
        &root,
        &["search", "how", "is", "revenue", "defined", "--json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let best = &ids(&found)[..2];
    assert!(best.contains(&"wiki:revenue".to_string()), "{found}");
    assert!(
        best.contains(&"sl_measure:invoices.revenue".to_string()),
        "{found}"
    );
    let text = lore_in(
        &root,
        &[
            "search", "plan", "name", "--kinds", "column", "--limit", "3",
        ],
    );
    let printed = String::from_utf8_lossy(&text.stdout);
    assert!(
        printed.lines().next().unwrap().contains("plans.name"),
        "{printed}"
    );
    let rebuilt = lore_in(&root, &["reindex"]);
    assert!(
        rebuilt.status.success(),
        "{}",
        String::from_utf8_lossy(&rebuilt.stderr)
    );
    assert!(String::from_utf8_lossy(&rebuilt.stderr).contains("documents"));
    assert!(root.join(".lore/index").is_dir());
    let bad = lore_in(&root, &["search", "x", "--kinds", "tablez"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown kind `tablez`"));
}
