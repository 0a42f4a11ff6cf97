//! End to end over stdio: the real `lore mcp stdio` process, driven by
//! rmcp's client.

mod common;

use common::{call, demo_project, error_of, exercise_analytics_tools, lore_in, ok, stdio_client};

#[tokio::test]
async fn stdio_server_answers_the_analytics_tools() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let info = client.peer_info().unwrap();
    let server_info = info.server_info.clone().expect("server info");
    assert_eq!(server_info.name, "lore");
    assert_eq!(server_info.version, env!("CARGO_PKG_VERSION"));
    exercise_analytics_tools(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_scan_from_another_process_is_seen_on_the_next_call() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let ask = || async {
        call(
            &client,
            "entity_details",
            serde_json::json!({"connectionId": "warehouse", "entities": ["churn_reasons"]}),
        )
        .await
        .unwrap()
        .structured_content
        .unwrap()
    };
    let before = ask().await;
    assert_eq!(before["entities"][0]["error"]["code"], "table_not_found");
    assert_eq!(
        before["entities"][0]["error"]["command"],
        "lore scan warehouse"
    );

    rusqlite::Connection::open(root.join("data/warehouse.db"))
        .unwrap()
        .execute_batch(
            "CREATE TABLE churn_reasons (id INTEGER PRIMARY KEY, account_id INTEGER, reason TEXT); \
             INSERT INTO churn_reasons VALUES (1, 1, 'too expensive'), (2, 2, 'missing features');",
        )
        .unwrap();
    let scanned = lore_in(&root, &["scan", "warehouse"]);
    assert!(
        scanned.status.success(),
        "{}",
        String::from_utf8_lossy(&scanned.stderr)
    );

    // Same server process, no restart: the new snapshot answers.
    let after = ask().await;
    assert_eq!(after["entities"][0]["status"], "ok", "{after}");
    assert_ne!(after["snapshot"]["syncId"], before["snapshot"]["syncId"]);
    let relationships = &after["entities"][0]["relationships"];
    assert_eq!(
        relationships[0]["otherTable"], "accounts",
        "{relationships}"
    );
    assert_eq!(relationships[0]["kind"], "inferred");
    let values = call(
        &client,
        "dictionary_search",
        serde_json::json!({"values": ["too expensive"]}),
    )
    .await
    .unwrap()
    .structured_content
    .unwrap();
    assert_eq!(
        values["results"][0]["matches"][0]["sourceName"],
        "churn_reasons"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn sl_query_takes_the_clis_field_colon_granularity_shorthand() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let ask = |dimension: serde_json::Value| {
        serde_json::json!({"connectionId": "warehouse", "measures": ["invoices.revenue"],
                           "dimensions": [dimension], "order_by": ["invoices.issued_at.quarter"]})
    };
    let shorthand = ok(
        &client,
        "sl_query",
        ask(serde_json::json!("invoices.issued_at:quarter")),
    )
    .await;
    let object = ok(
        &client,
        "sl_query",
        ask(serde_json::json!({"field": "invoices.issued_at", "granularity": "quarter"})),
    )
    .await;
    assert!(shorthand["rowCount"].as_u64().unwrap() > 0, "{shorthand}");
    assert_eq!(shorthand["rows"], object["rows"]);
    assert_eq!(shorthand["headers"], object["headers"]);
    // A wrong granularity names the valid ones and the object form.
    let wrong = call(
        &client,
        "sl_query",
        ask(serde_json::json!("invoices.issued_at:monthly")),
    )
    .await
    .unwrap();
    let message = error_of(&wrong)["message"].as_str().unwrap().to_string();
    assert!(
        message.contains(r#"{"field": "invoices.issued_at", "granularity": "month"}"#)
            && message.contains("quarter")
            && !message.contains("did you mean"),
        "{message}"
    );
    client.cancel().await.unwrap();
}
