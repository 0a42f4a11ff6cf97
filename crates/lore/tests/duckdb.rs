//! A DuckDB connection end to end, as a new user meets it: `lore.yaml`
//! with `driver: duckdb` and a path, `lore connection test`, `lore scan`,
//! `lore sql` (reads answered; writes, file reads and settings refused),
//! `lore entity`, `lore sl generate` and `lore sl query`, then the MCP tools
//! over stdio through the official Rust SDK client — entity_details,
//! dictionary_search, discover_data, sql_execution and sl_query with
//! fan-trap and chasm-trap plans.
//!
//! The engine is compiled in only with the `duckdb` feature
//! (`cargo test -p lore --features duckdb --test duckdb`); without it, the
//! test checks that a `duckdb` connection says how to build Lore with it.

mod common;

use std::path::Path;

fn lore_in(root: &Path, args: &[&str]) -> std::process::Output {
    common::lore()
        .arg("--project-dir")
        .arg(root)
        .args(args)
        .output()
        .unwrap()
}

fn text(output: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[cfg(not(feature = "duckdb"))]
#[test]
fn without_the_feature_lore_says_how_to_get_duckdb() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("wh.duckdb"), b"").unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        "connections:\n  wh:\n    driver: duckdb\n    path: wh.duckdb\n",
    )
    .unwrap();
    let tested = lore_in(root, &["connection", "test"]);
    let (out, err) = text(&tested);
    assert!(!tested.status.success(), "{out}");
    assert!(out.contains("[config_error]"), "{out}{err}");
    assert!(out.contains("--features duckdb"), "{out}{err}");
}

#[cfg(feature = "duckdb")]
mod with_duckdb {
    use super::*;
    use common::{call, error_of, ok, stdio_client};
    use lore_warehouse::duckdb_engine::Connection;
    use serde_json::{Value, json};

    const FIXTURE: &str = r#"
CREATE TABLE plans (id INTEGER PRIMARY KEY, name VARCHAR, price_cents INTEGER);
CREATE TABLE accounts (id INTEGER PRIMARY KEY, name VARCHAR, segment VARCHAR, plan_id INTEGER REFERENCES plans(id), created_at TIMESTAMP);
COMMENT ON COLUMN accounts.segment IS 'smb | enterprise';
CREATE TABLE invoices (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES accounts(id), amount_cents INTEGER, status VARCHAR, issued_at TIMESTAMP);
CREATE TABLE invoice_lines (id INTEGER PRIMARY KEY, invoice_id INTEGER REFERENCES invoices(id), product VARCHAR, qty INTEGER);
CREATE TABLE tickets (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES accounts(id), priority VARCHAR, opened_at TIMESTAMP);
INSERT INTO plans VALUES (1, 'Starter', 1000), (2, 'Pro', 5000), (3, 'Unused', 9000);
INSERT INTO accounts VALUES (1, 'Acme', 'smb', 1, '2024-01-10'), (2, 'Globex', 'enterprise', 2, '2024-02-11'), (3, 'Initech', 'smb', 2, '2024-03-12'), (4, 'Umbrella', 'enterprise', 2, '2024-05-01'), (5, 'Hooli', NULL, 1, '2024-06-01');
INSERT INTO invoices VALUES (1, 1, 10000, 'paid', '2025-01-05 10:00:00'), (2, 1, 2500, 'open', '2025-02-07 09:00:00'), (3, 2, 50000, 'paid', '2025-01-20 12:00:00'), (4, 3, 7000, 'paid', '2025-04-01 08:00:00'), (5, 4, 12000, 'void', '2025-07-15 16:00:00'), (6, 2, 30000, 'paid', '2025-11-30 23:00:00');
INSERT INTO invoice_lines VALUES (1, 1, 'seats', 5), (2, 1, 'storage', 1), (3, 1, 'seats', 2), (4, 3, 'seats', 40), (5, 3, 'support', 1), (6, 4, 'storage', 3), (7, 5, 'seats', 10), (8, 6, 'seats', 20), (9, 6, 'support', 2);
INSERT INTO tickets VALUES (1, 1, 'high', '2025-01-02'), (2, 1, 'low', '2025-01-03'), (3, 1, 'high', '2025-02-01'), (4, 2, 'low', '2025-03-01'), (5, 4, 'high', '2025-03-05'), (6, 5, 'low', '2025-04-04');
"#;

    #[tokio::test]
    async fn a_duckdb_connection_works_from_lore_yaml_to_the_semantic_layer() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("data")).unwrap();
        let conn = Connection::open(root.join("data/wh.duckdb")).unwrap();
        conn.execute_batch(FIXTURE).unwrap();
        drop(conn);
        std::fs::write(root.join("secret.csv"), "k,v\nsecret,42\n").unwrap();

        // The README's minimal entry.
        std::fs::write(
            root.join("lore.yaml"),
            "connections:\n  wh:\n    driver: duckdb\n    path: data/wh.duckdb\n",
        )
        .unwrap();
        let tested = lore_in(root, &["connection", "test"]);
        let (out, err) = text(&tested);
        assert!(tested.status.success(), "{out}{err}");
        assert!(out.contains("ok    wh: DuckDB "), "{out}");
        assert!(out.contains("sessions are read-only"), "{out}");

        let scanned = lore_in(root, &["scan", "wh"]);
        let (out, err) = text(&scanned);
        assert!(scanned.status.success(), "{out}{err}");
        assert!(out.contains("5 tables"), "{out}");

        let counted = lore_in(
            root,
            &[
                "sql",
                "-c",
                "wh",
                "SELECT count(*) AS n, sum(amount_cents) AS total FROM invoices",
            ],
        );
        let (out, err) = text(&counted);
        assert!(counted.status.success(), "{out}{err}");
        assert!(out.contains("111500"), "{out}");

        for refused in [
            "INSERT INTO plans VALUES (9, 'x', 1)",
            "SELECT * FROM read_csv('secret.csv')",
            "SELECT * FROM 'secret.csv'",
            "ATTACH 'other.duckdb' AS other",
            "SET enable_external_access = true",
        ] {
            let output = lore_in(root, &["sql", "-c", "wh", refused]);
            let (out, err) = text(&output);
            assert!(!output.status.success(), "{refused}: {out}");
            assert!(err.contains("[read_only_violation]"), "{refused}: {err}");
            assert!(
                !out.contains("secret,42") && !err.contains("42"),
                "{refused}"
            );
        }
        let entity = lore_in(root, &["entity", "accounts"]);
        let (out, err) = text(&entity);
        assert!(entity.status.success(), "{out}{err}");
        assert!(out.contains("smb | enterprise"), "{out}");

        // A model generated from the scan's declared keys answers without
        // double counting.
        let generated = lore_in(root, &["sl", "generate", "-c", "wh"]);
        let (out, err) = text(&generated);
        assert!(generated.status.success(), "{out}{err}");
        assert!(out.contains("5 sources"), "{out}");
        let query = lore_in(
            root,
            &[
                "sl",
                "query",
                "-m",
                "invoices.count",
                "-d",
                "accounts.segment",
                "--format",
                "json",
            ],
        );
        let (out, err) = text(&query);
        assert!(query.status.success(), "{out}{err}");
        let answer: Value = serde_json::from_str(&out).unwrap();
        let total: f64 = answer["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[1].as_f64().unwrap())
            .sum();
        assert_eq!(total, 6.0, "every invoice counted once: {answer}");

        // The hand-written model over MCP.
        let model_dir = root.join("semantic-layer/wh");
        std::fs::remove_dir_all(&model_dir).unwrap();
        std::fs::create_dir_all(&model_dir).unwrap();
        std::fs::write(model_dir.join("model.yaml"), common::BILLING_MODEL).unwrap();
        let client = stdio_client(root).await;
        let details = ok(
            &client,
            "entity_details",
            json!({"connectionId": "wh", "entities": ["invoices", "tickets"]}),
        )
        .await;
        let invoices = &details["entities"][0];
        assert_eq!(invoices["status"], "ok", "{details}");
        assert!(
            invoices["foreignKeys"].to_string().contains("accounts"),
            "declared keys: {details}"
        );
        let sql = ok(
            &client,
            "sql_execution",
            json!({"connectionId": "wh", "sql": "SELECT priority, count(*) AS n FROM tickets GROUP BY ALL ORDER BY priority"}),
        )
        .await;
        assert_eq!(sql["rows"], json!([["high", 3], ["low", 3]]));
        let refused = call(
            &client,
            "sql_execution",
            json!({"connectionId": "wh", "sql": "COPY invoices TO 'leak.csv'"}),
        )
        .await
        .unwrap();
        assert_eq!(error_of(&refused)["code"], "read_only_violation");
        assert!(!root.join("leak.csv").exists());

        common::assert_billing_answers(&client, "wh").await;
        drop(client);

        // A path that is not there fails the test clearly.
        std::fs::write(
            root.join("lore.yaml"),
            "connections:\n  wh:\n    driver: duckdb\n    path: data/missing.duckdb\n",
        )
        .unwrap();
        let failed = lore_in(root, &["connection", "test"]);
        let (out, err) = text(&failed);
        assert!(!failed.status.success(), "{out}");
        assert!(
            out.contains("FAIL  wh") && out.contains("[config_error]"),
            "{out}{err}"
        );
        assert!(out.contains("missing.duckdb"), "{out}");
    }
}
