//! A BigQuery connection end to end, against the double
//! (`lore_warehouse::bigquery_double`, started in this test process): a
//! project configured as the README says, then `lore connection test`,
//! `lore scan`, `lore sql`, `lore sl generate` and `lore sl query` (a fan
//! trap), and over MCP `entity_details`, `dictionary_search`,
//! `sql_execution` and `sl_query`; failures answer stable codes and no
//! output carries the private key or an access token.
//!
//! The double speaks BigQuery's REST shapes; it is not the real service.

mod common;

use std::path::Path;

use common::{lore_in, ok};
use lore_warehouse::bigquery_double::BigqueryDouble;
use serde_json::{Value, json};

fn write_project(double: &BigqueryDouble) -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = common::empty_project();
    std::fs::write(root.join("key.json"), double.key_json()).unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        format!(
            "connections:\n  bq:\n    driver: bigquery\n    url: \"{}\"\n    credentials: file:key.json\n    description: The shop's BigQuery project\n",
            double.url("datasets=shop&location=US&maximum_bytes_billed=1GiB")
        ),
    )
    .unwrap();
    (dir, root)
}

fn text(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn assert_no_secret(double: &BigqueryDouble, text: &str) {
    let pem = BigqueryDouble::private_key_pem();
    assert!(
        !text.contains(pem.lines().nth(1).unwrap()),
        "the private key leaked"
    );
    for token in double.issued_tokens() {
        assert!(!text.contains(&token), "an access token leaked: {text}");
    }
}

fn lore_ok(root: &Path, args: &[&str]) -> String {
    let output = lore_in(root, args);
    assert!(output.status.success(), "{args:?}: {}", text(&output));
    String::from_utf8_lossy(&output.stdout).to_string()
}

#[tokio::test]
async fn a_bigquery_project_works_from_the_command_line_and_over_mcp() {
    let double = BigqueryDouble::start();
    let (_dir, root) = write_project(&double);
    let mut printed = String::new();

    let tested = lore_ok(&root, &["connection", "test", "bq"]);
    assert!(tested.starts_with("ok"), "{tested}");
    assert!(tested.contains("BigQuery (project lore-double"), "{tested}");
    assert!(tested.contains("1 GiB billed per query"), "{tested}");
    printed.push_str(&tested);

    let scanned = lore_ok(&root, &["scan", "bq", "--json"]);
    let report: Value = serde_json::from_str(&scanned).unwrap();
    let report = &report[0];
    assert_eq!(report["driver"], "bigquery", "{report}");
    assert_eq!(report["tableCount"], 6, "{report}");
    assert_eq!(
        report["profile"]["failedTables"], 1,
        "clickstream is over the bytes-billed budget: {report}"
    );
    // order_items.order_id → orders.id and paid_orders.customer_id →
    // customers.id, checked against the data; orders → customers is declared.
    assert_eq!(report["relationships"]["accepted"], 2, "{report}");
    assert_eq!(report["relationships"]["formal"], 1, "{report}");
    printed.push_str(&scanned);

    let rows = lore_ok(
        &root,
        &[
            "sql",
            "-c",
            "bq",
            "--json",
            "SELECT status, count(*) AS n, sum(amount) AS total FROM shop.orders GROUP BY status ORDER BY status",
        ],
    );
    let result: Value = serde_json::from_str(&rows).unwrap();
    assert_eq!(result["headers"], json!(["status", "n", "total"]));
    assert_eq!(result["rows"][0][0], "open");
    assert_eq!(result["rows"][0][1], 2);
    assert_eq!(result["rowCount"], 4);
    assert_eq!(result["bytesProcessed"], 2 * 1024 * 1024, "{result}");
    printed.push_str(&rows);

    for (sql, code) in [
        ("DELETE FROM shop.orders WHERE TRUE", "read_only_violation"),
        ("SELECT * FROM shop.clickstream", "budget_exceeded"),
        ("SELECT * FROM hr.salaries", "forbidden"),
        ("SELECT nope FROM shop.orders", "invalid_sql"),
    ] {
        let output = lore_in(&root, &["sql", "-c", "bq", sql]);
        assert!(!output.status.success(), "{sql}");
        let said = text(&output);
        assert!(said.contains(code), "{sql}: {said}");
        printed.push_str(&said);
    }

    let generated = lore_in(&root, &["sl", "generate", "-c", "bq"]);
    assert!(generated.status.success(), "{}", text(&generated));
    let model = std::fs::read_to_string(root.join("semantic-layer/bq/orders.yaml")).unwrap();
    assert!(model.contains("shop.orders"), "{model}");
    // orders.count by segment must not be inflated by the order items
    // joined for order_items.count (a fan trap).
    let fan = lore_ok(
        &root,
        &[
            "sl",
            "query",
            "-c",
            "bq",
            "-m",
            "orders.count",
            "-m",
            "order_items.count",
            "-d",
            "customers.segment",
            "--format",
            "json",
        ],
    );
    let fan: Value = serde_json::from_str(&fan).unwrap();
    assert_eq!(
        fan["headers"],
        json!(["customers.segment", "orders.count", "order_items.count"]),
        "{fan}"
    );
    let mut by_segment: Vec<(Value, Value, Value)> = fan["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
        .collect();
    by_segment.sort_by_key(|r| r.0.to_string());
    let mut expected = vec![
        (json!("enterprise"), json!(4), json!(7)),
        (json!("smb"), json!(3), json!(3)),
        (Value::Null, json!(1), json!(1)),
    ];
    expected.sort_by_key(|r| r.0.to_string());
    assert_eq!(by_segment, expected, "{fan}");

    let client = common::stdio_client(&root).await;
    let details = ok(
        &client,
        "entity_details",
        json!({"connectionId": "bq", "entities": [{"table": "shop.customers", "columns": ["segment", "address"]}]}),
    )
    .await;
    let customers = &details["entities"][0];
    assert_eq!(customers["status"], "ok", "{details}");
    assert_eq!(
        customers["columns"][0]["comment"],
        "Pricing tier: smb or enterprise"
    );
    assert_eq!(
        customers["columns"][1]["nativeType"],
        "STRUCT<city STRING, zip STRING>"
    );
    let found = ok(
        &client,
        "dictionary_search",
        json!({"values": ["Enterprise"]}),
    )
    .await;
    let hit = &found["results"][0]["matches"][0];
    assert_eq!(hit["columnName"], "segment", "{found}");
    assert_eq!(hit["matchedValue"], "enterprise");
    let queried = ok(
        &client,
        "sql_execution",
        json!({"connectionId": "bq", "sql": "SELECT id, tags, address FROM shop.customers ORDER BY id", "maxRows": 2}),
    )
    .await;
    assert_eq!(
        queried["rows"][0],
        json!([1, ["b2b", "eu"], {"city": "Berlin", "zip": "10115"}])
    );
    assert_eq!(queried["truncated"], true);
    assert_eq!(queried["bytesProcessed"], 2 * 1024 * 1024, "{queried}");
    let refused = common::call(
        &client,
        "sql_execution",
        json!({"connectionId": "bq", "sql": "SELECT * FROM shop.clickstream"}),
    )
    .await
    .unwrap();
    let error = common::error_of(&refused);
    assert_eq!(error["code"], "budget_exceeded", "{error}");
    assert_eq!(error["retryable"], false);
    let semantic = ok(
        &client,
        "sl_query",
        json!({"connectionId": "bq", "measures": ["orders.count"], "dimensions": ["customers.segment"]}),
    )
    .await;
    assert_eq!(
        semantic["headers"],
        json!(["customers.segment", "orders.count"])
    );
    assert_eq!(semantic["rowCount"], 3, "{semantic}");
    printed.push_str(&details.to_string());
    printed.push_str(&error.to_string());
    client.cancel().await.unwrap();

    assert_no_secret(&double, &printed);
    assert!(double.violations().is_empty(), "{:#?}", double.violations());
}
