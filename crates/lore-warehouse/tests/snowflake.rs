//! The Snowflake connector against a real Snowflake-protocol server
//! (fakesnow, run by `.ci/run`): values arrive as lossless JSON, the row
//! cap and byte budget hold, writes that get past the guard do not commit,
//! the guard refuses what Snowflake cannot refuse itself, failures say what
//! to fix without a secret, and `lore scan` reads the catalog.
//!
//! Each test runs when `LORE_TEST_SNOWFLAKE_URL` is set (see
//! `snowflake_support`), and otherwise prints a notice and passes. The
//! protocol paths fakesnow never takes (result chunks, polling, aborts,
//! refused logins, key-pair tokens) are in `snowflake_protocol.rs`.

mod snowflake_support;

use std::sync::Arc;

use lore_core::config::Secret;
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_warehouse::catalog::{
    Catalog, DictionaryStatus, EntityRequest, TableQuery, dictionary_search, entity_details,
};
use lore_warehouse::connector::RowLimit;
use lore_warehouse::execute::{Connector, Warehouses};
use lore_warehouse::scan::profile::ProfileArtifact;
use lore_warehouse::scan::relationships::{
    RelationshipKind, RelationshipStatus, RelationshipsArtifact,
};
use lore_warehouse::scan::{ScanOverrides, Silent, scan_connection};
use lore_warehouse::schema::{DimensionType, TableKind};
use lore_warehouse::snapshot;
use serde_json::json;
use snowflake_support::Scratch;

fn connector(db: &Scratch, dir: &std::path::Path) -> Arc<Connector> {
    let project = db.project(dir, "sf", |c| c.statement_timeout_ms = Some(20_000));
    Warehouses::for_project(&project).get("sf").unwrap().1
}

#[tokio::test]
async fn snowflake_values_arrive_as_lossless_json() {
    let Some(db) = snowflake_support::scratch("snowflake_values_arrive_as_lossless_json") else {
        return;
    };
    db.setup(&[
        "CREATE TABLE t (id INTEGER, big NUMBER(38,1), price NUMBER(10,2), f FLOAT, txt VARCHAR(20), \
         flag BOOLEAN, day DATE, happened TIMESTAMP_NTZ, happened_tz TIMESTAMP_TZ, clock TIME, raw BINARY, doc VARIANT, nothing VARCHAR)",
        "INSERT INTO t SELECT 42, 1234567890123456789012345678.5, 12.50, 1.5, 'héllo', TRUE, '2024-02-29', \
         '2024-02-29 13:45:01.25', '2024-02-29 13:45:01+02:00', '13:45:01', TO_BINARY('00FF', 'HEX'), \
         PARSE_JSON('{\"a\": [1, 2]}'), NULL",
    ]);
    let dir = tempfile::tempdir().unwrap();
    let result = connector(&db, dir.path())
        .run("SELECT * FROM t", 10)
        .await
        .unwrap();
    assert_eq!(
        result.headers,
        [
            "ID",
            "BIG",
            "PRICE",
            "F",
            "TXT",
            "FLAG",
            "DAY",
            "HAPPENED",
            "HAPPENED_TZ",
            "CLOCK",
            "RAW",
            "DOC",
            "NOTHING"
        ],
        "unquoted names come back upper case"
    );
    assert_eq!(
        result.rows,
        vec![vec![
            json!(42),
            json!("1234567890123456789012345678.5"),
            json!(12.5),
            json!(1.5),
            json!("héllo"),
            json!(true),
            json!("2024-02-29"),
            json!("2024-02-29T13:45:01.25"),
            // The same instant; fakesnow keeps TIMESTAMP_TZ values in UTC.
            json!("2024-02-29T11:45:01Z"),
            json!("13:45:01"),
            json!({"$base64": "AP8="}),
            json!({"a": [1, 2]}),
            json!(null),
        ]]
    );
    let types = result.header_types.unwrap();
    assert_eq!(types[2], "NUMBER(10,2)");
    assert_eq!(types[7], "TIMESTAMP_NTZ");
}

#[tokio::test]
async fn snowflake_caps_rows_and_bytes_honestly() {
    let Some(db) = snowflake_support::scratch("snowflake_caps_rows_and_bytes_honestly") else {
        return;
    };
    db.setup(&[
        "CREATE TABLE n (v INTEGER, pad VARCHAR)",
        "INSERT INTO n SELECT seq4() + 1, REPEAT('x', 100) FROM TABLE(GENERATOR(ROWCOUNT => 25))",
    ]);
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path());
    let capped = conn.run("SELECT v FROM n ORDER BY v", 10).await.unwrap();
    assert_eq!(capped.rows.len(), 10);
    assert!(capped.truncated);
    assert_eq!(capped.rows[9], vec![json!(10)]);
    let exact = conn.run("SELECT v FROM n", 25).await.unwrap();
    assert_eq!(exact.rows.len(), 25);
    assert!(!exact.truncated);
    let budget = conn
        .run_within(
            "SELECT v, pad FROM n ORDER BY v",
            RowLimit {
                rows: 100,
                bytes: Some(1000),
            },
        )
        .await
        .unwrap();
    assert!(budget.truncated);
    assert_eq!(budget.cut_at_bytes, Some(1000));
    assert!(
        (1..25).contains(&budget.rows.len()),
        "{}",
        budget.rows.len()
    );
    assert!(
        budget
            .truncation_notice(100)
            .unwrap()
            .contains("limits.result_bytes")
    );
}

/// Snowflake has no read-only session: the guard refuses writes before
/// they are sent, and a DML statement sent past the guard is rolled back.
#[tokio::test]
async fn snowflake_writes_are_refused_or_rolled_back() {
    let Some(db) = snowflake_support::scratch("snowflake_writes_are_refused_or_rolled_back") else {
        return;
    };
    db.setup(&["CREATE TABLE t (id INTEGER)", "INSERT INTO t VALUES (1)"]);
    let dir = tempfile::tempdir().unwrap();
    let project = db.project(dir.path(), "sf", |_| {});
    let warehouses = Warehouses::for_project(&project);
    for write in [
        "INSERT INTO t VALUES (2)",
        "DELETE FROM t",
        "ALTER SESSION SET AUTOCOMMIT = TRUE",
        "USE ROLE ACCOUNTADMIN",
        "SET x = 1",
        "COPY INTO t FROM @landing",
        "SELECT * FROM @landing",
        "CALL refresh()",
    ] {
        let err = warehouses.prepare("sf", write).unwrap_err();
        assert_eq!(err.code(), ErrorCode::ReadOnlyViolation, "{write}: {err}");
    }

    // Straight to the connector, past the guard.
    let conn = warehouses.get("sf").unwrap().1;
    for write in [
        "INSERT INTO t VALUES (2)",
        "UPDATE t SET id = 3",
        "DELETE FROM t",
        // Turning autocommit back on must not help the next statement.
        "ALTER SESSION SET AUTOCOMMIT = TRUE",
        "INSERT INTO t VALUES (4)",
    ] {
        let err = conn.run(write, 10).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ReadOnlyViolation, "{write}: {err}");
    }
    assert_eq!(
        db.scalar("SELECT count(*) FROM t"),
        "1",
        "nothing was committed"
    );
    assert_eq!(db.scalar("SELECT max(id) FROM t"), "1");
    let err = conn.run("INSERT INTO t VALUES (5)", 10).await.unwrap_err();
    assert!(err.to_string().contains("rolled it back"), "{err}");
    // Reads still work afterwards.
    let ok = conn.run("SELECT count(*) AS n FROM t", 10).await.unwrap();
    assert_eq!(ok.rows, vec![vec![json!(1)]]);
}

#[tokio::test]
async fn snowflake_failures_are_clear_and_secret_free() {
    let Some(db) = snowflake_support::scratch("snowflake_failures_are_clear_and_secret_free")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path());
    let err = conn
        .run("SELECT * FROM no_such_table", 10)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidSql, "{err}");
    assert!(err.to_string().contains("entity_details"), "{err}");

    let secret = "hunter2-sf-secret";
    let try_url = |url: String| {
        let project = db.project(dir.path(), "sf", |c| c.url = Some(Secret::new(url)));
        async move {
            let (_, connector) = Warehouses::for_project(&project).get("sf").unwrap();
            connector.server_info().await.unwrap_err()
        }
    };
    let unreachable = try_url(format!(
        "snowflake://lore:{secret}@acct/DB?host=127.0.0.1&port=9&protocol=http"
    ))
    .await;
    assert_eq!(
        unreachable.code(),
        ErrorCode::UpstreamError,
        "{unreachable}"
    );
    assert!(
        unreachable.to_string().contains("127.0.0.1:9"),
        "{unreachable}"
    );
    let malformed = try_url(format!("snowflake://lore:{secret}@acct/DB?colour=blue")).await;
    assert_eq!(malformed.code(), ErrorCode::ConfigError, "{malformed}");
    assert!(malformed.to_string().contains("colour"), "{malformed}");
    let no_database = try_url(format!("snowflake://lore:{secret}@acct")).await;
    assert_eq!(no_database.code(), ErrorCode::ConfigError);
    for err in [&unreachable, &malformed, &no_database] {
        assert!(!err.to_string().contains(secret), "{err}");
        assert!(!format!("{err:?}").contains(secret), "{err:?}");
    }
}

#[tokio::test]
async fn snowflake_server_info_says_there_is_no_read_only_session() {
    let Some(db) =
        snowflake_support::scratch("snowflake_server_info_says_there_is_no_read_only_session")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path());
    let info = conn.server_info().await.unwrap();
    assert!(info.version.starts_with("Snowflake "), "{info:?}");
    assert!(!info.read_only);
    assert_eq!(info.encrypted, Some(false), "the test server speaks http");
    assert!(!conn.has_read_only_sessions());
    assert_eq!(conn.dialect().as_str(), "snowflake");
}

/// Key-pair authentication end to end (fakesnow accepts any login, so the
/// token's content is checked against a double in `snowflake_protocol.rs`).
#[tokio::test]
async fn snowflake_key_pair_connections_log_in_without_a_password() {
    let Some(db) =
        snowflake_support::scratch("snowflake_key_pair_connections_log_in_without_a_password")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("lore.p8");
    let made = std::process::Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
        ])
        .arg(&key)
        .output()
        .expect("openssl (Debian package openssl) makes the test key");
    assert!(made.status.success());
    // No password in the url: the key proves who logs in.
    let url = {
        let (userinfo_end, rest) = db.url.split_once('@').unwrap();
        let user = userinfo_end
            .trim_start_matches("snowflake://")
            .split(':')
            .next()
            .unwrap();
        format!("snowflake://{user}@{rest}")
    };
    let project = db.project(dir.path(), "sf", |c| {
        c.url = Some(Secret::new(url));
        c.private_key = Some(Secret::new("file:lore.p8"));
    });
    let (_, conn) = Warehouses::for_project(&project).get("sf").unwrap();
    let result = conn.run("SELECT 1 AS one", 1).await.unwrap();
    assert_eq!(result.rows, vec![vec![json!(1)]]);
}

const FIXTURE: &[&str] = &[
    "CREATE SCHEMA SALES",
    "CREATE SCHEMA BILLING",
    "CREATE TABLE SALES.CUSTOMERS (ID INTEGER PRIMARY KEY, NAME VARCHAR(100) NOT NULL, SEGMENT VARCHAR(20) NOT NULL, EMAIL VARCHAR(100)) COMMENT = 'Customers who bought something'",
    "COMMENT ON COLUMN SALES.CUSTOMERS.SEGMENT IS 'SMB | Enterprise'",
    "CREATE TABLE SALES.PROMOS (ID INTEGER PRIMARY KEY, CODE VARCHAR(20) NOT NULL)",
    "CREATE TABLE SALES.ORDERS (ID INTEGER PRIMARY KEY, CUSTOMER_ID INTEGER NOT NULL, PROMO_ID INTEGER, STATUS VARCHAR(20) NOT NULL, AMOUNT NUMBER(10,2) NOT NULL, CREATED_AT TIMESTAMP_NTZ NOT NULL)",
    "CREATE VIEW SALES.BIG_CUSTOMERS AS SELECT c.ID, c.NAME, count(*) AS ORDERS FROM SALES.CUSTOMERS c JOIN SALES.ORDERS o ON o.CUSTOMER_ID = c.ID GROUP BY c.ID, c.NAME",
    "CREATE TABLE BILLING.INVOICES (ID INTEGER PRIMARY KEY, CUSTOMER_ID INTEGER NOT NULL)",
    "INSERT INTO SALES.CUSTOMERS VALUES (1, 'Acme Corp', 'Enterprise', 'ops@acme.test'), (2, 'Globex', 'SMB', 'hi@globex.test'), (3, 'Initech', 'SMB', NULL), (4, 'Umbrella', 'Enterprise', 'x@umbrella.test'), (5, 'Hooli', 'SMB', NULL)",
    "INSERT INTO SALES.PROMOS VALUES (1, 'SPRING'), (2, 'SUMMER'), (3, 'FALL')",
    "INSERT INTO SALES.ORDERS SELECT seq4() + 1, MOD(seq4() + 1, 5) + 1, IFF(MOD(seq4() + 1, 2) = 0, 900 + MOD(seq4() + 1, 6), NULL), \
     DECODE(MOD(seq4() + 1, 4), 0, 'paid', 1, 'paid', 2, 'refunded', 'Paid'), (seq4() + 1) * 10.5, \
     DATEADD(day, seq4(), '2024-01-10 10:00:00'::TIMESTAMP_NTZ) FROM TABLE(GENERATOR(ROWCOUNT => 20))",
    "INSERT INTO BILLING.INVOICES VALUES (1, 1), (2, 2)",
];

#[tokio::test]
async fn snowflake_scan_reads_structure_profiles_and_relationships() {
    let Some(db) =
        snowflake_support::scratch("snowflake_scan_reads_structure_profiles_and_relationships")
    else {
        return;
    };
    db.setup(FIXTURE);
    let dir = tempfile::tempdir().unwrap();
    // Schemas as a user writes them in lore.yaml: lower case, as Snowflake
    // SQL would (unquoted), meaning SALES and BILLING.
    let project = db.project(dir.path(), "w", |c| {
        c.schemas = Some(vec!["sales".into(), "billing".into()]);
    });
    let warehouses = Warehouses::for_project(&project);
    let report = scan_connection(
        &project,
        &warehouses,
        "w",
        &ScanOverrides::default(),
        &Silent,
    )
    .await
    .unwrap();
    assert!(
        report.warnings.iter().all(|w| !w.contains("has no tables")),
        "{:?}",
        report.warnings
    );
    let snapshot_dir = project.root.join(&report.snapshot_path);
    let tables = snapshot::read_tables(&snapshot_dir).unwrap();
    let table = |db: &str, name: &str| {
        tables
            .iter()
            .find(|t| t.db.as_deref() == Some(db) && t.name == name)
            .unwrap_or_else(|| panic!("{db}.{name} missing"))
    };
    assert_eq!(
        tables.len(),
        5,
        "{:?}",
        tables
            .iter()
            .map(|t| t.table_ref().display())
            .collect::<Vec<_>>()
    );

    let customers = table("SALES", "CUSTOMERS");
    assert_eq!(customers.kind, TableKind::Table);
    assert_eq!(
        customers.comment.as_deref(),
        Some("Customers who bought something")
    );
    assert_eq!(customers.estimated_rows, Some(5));
    let id = customers.column("ID").unwrap();
    assert!(id.primary_key && id.unique, "{id:?}");
    assert_eq!(
        (id.normalized_type.as_str(), id.native_type.as_str()),
        ("integer", "NUMBER(38,0)")
    );
    let segment = customers.column("SEGMENT").unwrap();
    assert_eq!(segment.comment.as_deref(), Some("SMB | Enterprise"));
    assert_eq!(segment.native_type, "VARCHAR(20)");
    assert!(!segment.nullable);
    assert!(customers.column("EMAIL").unwrap().nullable);
    let orders = table("SALES", "ORDERS");
    assert_eq!(orders.column("AMOUNT").unwrap().normalized_type, "decimal");
    assert_eq!(
        orders.column("CREATED_AT").unwrap().dimension_type,
        DimensionType::Time
    );
    let view = table("SALES", "BIG_CUSTOMERS");
    assert_eq!(view.kind, TableKind::View);
    assert_eq!(view.columns.len(), 3);
    assert!(
        table("BILLING", "INVOICES")
            .column("ID")
            .unwrap()
            .primary_key
    );

    let profile: ProfileArtifact =
        snapshot::read_json(&snapshot_dir.join(snapshot::PROFILE_FILE)).unwrap();
    let orders_profile = profile.tables.iter().find(|t| t.name == "ORDERS").unwrap();
    assert_eq!(orders_profile.error, None);
    assert_eq!(orders_profile.sampled_rows, 20);
    let status = orders_profile
        .columns
        .iter()
        .find(|c| c.name == "STATUS")
        .unwrap();
    assert!(status.dictionary);
    assert_eq!(
        status.distinct_count, 3,
        "case differences are distinct values"
    );
    assert_eq!(
        (
            status.top_values[0].value.as_str(),
            status.top_values[0].count
        ),
        ("paid", 10)
    );
    let amount = orders_profile
        .columns
        .iter()
        .find(|c| c.name == "AMOUNT")
        .unwrap();
    assert_eq!(amount.min_value, Some(json!(10.5)));
    assert_eq!(amount.max_value, Some(json!(210.0)));

    let found: RelationshipsArtifact =
        snapshot::read_json(&snapshot_dir.join(snapshot::RELATIONSHIPS_FILE)).unwrap();
    let from = |table: &str, column: &str| {
        found
            .relationships
            .iter()
            .find(|r| r.from.table == table && r.from.columns == [column])
            .unwrap_or_else(|| {
                panic!(
                    "no relationship from {table}.{column}: {:#?}",
                    found.relationships
                )
            })
    };
    let customer = from("ORDERS", "CUSTOMER_ID");
    assert_eq!(
        (customer.kind, customer.status),
        (RelationshipKind::Inferred, RelationshipStatus::Accepted)
    );
    assert_eq!(
        (customer.to.table.as_str(), customer.to.columns.as_slice()),
        ("CUSTOMERS", ["ID".to_string()].as_slice())
    );
    assert_eq!(
        from("ORDERS", "PROMO_ID").status,
        RelationshipStatus::Rejected
    );
    let invoices = from("INVOICES", "CUSTOMER_ID");
    assert_eq!(
        invoices.status,
        RelationshipStatus::Accepted,
        "across schemas"
    );
    assert_eq!(invoices.to.db.as_deref(), Some("SALES"));

    // What agents read, asked for in any case.
    let catalog = Catalog::new(&project.root);
    let latest = catalog.latest("w").unwrap().unwrap();
    let details = entity_details(
        "w",
        Some(&latest),
        &[EntityRequest {
            table: TableQuery::parse("sales.customers").unwrap(),
            columns: None,
        }],
    );
    assert_eq!(details[0].status, "ok", "{:?}", details[0]);
    let entity = details[0].entity.as_ref().unwrap();
    assert_eq!(entity.display, "SALES.CUSTOMERS");
    let (searched, values) = dictionary_search(
        &[("w".to_string(), Some(latest))],
        &["Acme Corp".to_string()],
        20,
    );
    assert_eq!(searched[0].status, DictionaryStatus::Ready);
    let hit = &values[0].matches[0];
    assert_eq!(
        (
            hit.source_name.as_str(),
            hit.column_name.as_str(),
            hit.match_type.as_str()
        ),
        ("SALES.CUSTOMERS", "NAME", "exact")
    );

    // The SQL an agent would write against what the scan shows runs.
    let rows = warehouses
        .prepare(
            "w",
            "SELECT NAME FROM SALES.CUSTOMERS WHERE SEGMENT = 'SMB' ORDER BY ID",
        )
        .unwrap()
        .run(10)
        .await
        .unwrap();
    assert_eq!(
        rows.rows,
        vec![
            vec![json!("Globex")],
            vec![json!("Initech")],
            vec![json!("Hooli")]
        ]
    );
}

/// Without `schemas` in lore.yaml, the url's `schemas=` is the scope.
#[tokio::test]
async fn snowflake_scan_scope_comes_from_the_url() {
    let Some(db) = snowflake_support::scratch("snowflake_scan_scope_comes_from_the_url") else {
        return;
    };
    db.setup(&[
        "CREATE SCHEMA KEEP",
        "CREATE SCHEMA SKIP",
        "CREATE TABLE KEEP.A (ID INTEGER)",
        "CREATE TABLE SKIP.B (ID INTEGER)",
    ]);
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}&schemas=keep", db.url);
    let project = db.project(dir.path(), "w", |c| c.url = Some(Secret::new(url)));
    let warehouses = Warehouses::for_project(&project);
    let overrides = ScanOverrides {
        profile: Some(false),
        relationships: Some(false),
        ..ScanOverrides::default()
    };
    let report = scan_connection(&project, &warehouses, "w", &overrides, &Silent)
        .await
        .unwrap();
    let tables = snapshot::read_tables(&project.root.join(&report.snapshot_path)).unwrap();
    let names: Vec<String> = tables.iter().map(|t| t.table_ref().display()).collect();
    assert_eq!(names, ["KEEP.A"]);
    // The first schema of the url is the session's: unqualified names find it.
    let rows = warehouses
        .prepare("w", "SELECT count(*) FROM a")
        .unwrap()
        .run(1)
        .await
        .unwrap();
    assert_eq!(rows.rows, vec![vec![json!(0)]]);
}
