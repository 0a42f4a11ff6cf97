//! The ClickHouse connector and scan against a real server (the HTTP
//! interface): the server itself refuses writes sent past the guard
//! (`readonly=1`), values arrive as lossless JSON, the row cap, the byte
//! budget and the timeout hold, a dropped query is killed on the server,
//! connection failures say what to fix without the password, and
//! `lore scan` reads tables, views, columns, comments, keys, profiles and
//! inferred relationships.
//!
//! Each test runs when `LORE_TEST_CLICKHOUSE_URL` is set (a user that may
//! create databases, e.g. `http://lore:…@127.0.0.1:8123/default` from
//! `scripts/clickhouse-test-server.sh`) and otherwise prints a notice and
//! passes (fails under `LORE_REQUIRE_SERVERS=1`).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::ScratchDb;
use lore_core::config::Secret;
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_warehouse::catalog::{
    Catalog, EntityRequest, TableQuery, dictionary_search, entity_details,
};
use lore_warehouse::execute::{Connector, RowLimit, Warehouses};
use lore_warehouse::scan::profile::ProfileArtifact;
use lore_warehouse::scan::relationships::{
    RelationshipKind, RelationshipStatus, RelationshipsArtifact,
};
use lore_warehouse::scan::{ScanOverrides, Silent, scan_connection};
use lore_warehouse::schema::{DimensionType, TableKind};
use lore_warehouse::snapshot;
use serde_json::json;

fn connector(db: &ScratchDb, dir: &std::path::Path, timeout_ms: u64) -> Arc<Connector> {
    let project = db.project(dir, "w", |c| c.statement_timeout_ms = Some(timeout_ms));
    Warehouses::for_project(&project).get("w").unwrap().1
}

fn connector_at(db: &ScratchDb, dir: &std::path::Path, url: String) -> Arc<Connector> {
    let project = db.project(dir, "w", |c| {
        c.url = Some(Secret::new(url));
        c.statement_timeout_ms = Some(5000);
    });
    Warehouses::for_project(&project).get("w").unwrap().1
}

/// The url with its password replaced.
fn with_password(url: &str, password: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let (userinfo, host) = rest.split_once('@').unwrap();
    let user = userinfo.split(':').next().unwrap();
    format!("{scheme}://{user}:{password}@{host}")
}

fn password_of(url: &str) -> String {
    let rest = url.split_once("://").unwrap().1;
    let userinfo = rest.split_once('@').map(|(u, _)| u).unwrap_or("");
    userinfo
        .split_once(':')
        .map(|(_, p)| p.to_string())
        .unwrap_or_default()
}

/// Queries of the test user still running whose text contains `marker`.
fn running(db: &ScratchDb, marker: &str) -> usize {
    let sql = format!(
        "SELECT count() FROM system.processes WHERE query LIKE '%{marker}%' AND query NOT LIKE '%system.processes%'"
    );
    common::clickhouse::exec(&db.url, &sql)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Waits up to 10 s for no query carrying `marker` to run.
async fn stops_running(db: &ScratchDb, marker: &str) -> bool {
    for _ in 0..100 {
        if running(db, marker) == 0 {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn clickhouse_refuses_writes_that_bypass_the_guard() {
    let Some(db) =
        common::clickhouse::scratch("clickhouse_refuses_writes_that_bypass_the_guard").await
    else {
        return;
    };
    db.setup(&["CREATE TABLE t (id Int32) ENGINE = MergeTree ORDER BY id"])
        .await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 5000);
    let attempts = [
        "INSERT INTO t VALUES (1)",
        "CREATE TABLE evil (x Int32) ENGINE = Memory",
        "DROP TABLE t",
        "TRUNCATE TABLE t",
        "ALTER TABLE t DELETE WHERE 1",
        "RENAME TABLE t TO t2",
        "OPTIMIZE TABLE t FINAL",
        "SET readonly = 0",
        "SELECT 1 SETTINGS readonly = 0",
        // Loosening in one request does not help the next.
        "INSERT INTO t VALUES (2)",
        // Table functions reach files and other servers.
        "SELECT * FROM numbers(10)",
    ];
    for write in attempts {
        let err = conn.run(write, 10).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ReadOnlyViolation, "{write}: {err}");
        assert!(err.to_string().contains("read-only"), "{write}: {err}");
    }
    assert_eq!(
        db.count("SELECT count() FROM t").await,
        0,
        "no row was written"
    );
    assert_eq!(
        db.count("SELECT count() FROM system.tables WHERE database = currentDatabase() AND name IN ('evil', 't2')")
            .await,
        0,
        "no table was created or renamed"
    );
    let ok = conn.run("SELECT count() AS n FROM t", 10).await.unwrap();
    assert_eq!(ok.rows, vec![vec![json!(0)]]);
}

#[tokio::test]
async fn clickhouse_caps_rows_honestly() {
    let Some(db) = common::clickhouse::scratch("clickhouse_caps_rows_honestly").await else {
        return;
    };
    db.setup(&[
        "CREATE TABLE n (v Int32) ENGINE = MergeTree ORDER BY v",
        "INSERT INTO n SELECT toInt32(number + 1) FROM system.numbers LIMIT 25",
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 5000);
    let capped = conn.run("SELECT v FROM n ORDER BY v", 10).await.unwrap();
    assert_eq!(capped.rows.len(), 10);
    assert!(capped.truncated);
    assert_eq!(capped.rows[9], vec![json!(10)]);
    let exact = conn.run("SELECT v FROM n", 25).await.unwrap();
    assert_eq!(exact.rows.len(), 25);
    assert!(!exact.truncated);
    // The server-side row limit does not cut subqueries: aggregates over
    // more rows than the cap are exact.
    let counted = conn
        .run(
            "SELECT count() FROM (SELECT v FROM n) WHERE v IN (SELECT v FROM n)",
            1,
        )
        .await
        .unwrap();
    assert_eq!(counted.rows, vec![vec![json!(25)]]);
    assert!(!counted.truncated);
}

#[tokio::test]
async fn clickhouse_stops_at_the_byte_budget_and_says_so() {
    let Some(db) =
        common::clickhouse::scratch("clickhouse_stops_at_the_byte_budget_and_says_so").await
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 10_000);
    // Empty strings: the most bytes in memory for the least JSON.
    for sql in [
        "SELECT number, toString(number) AS text FROM system.numbers LIMIT 200000",
        "SELECT '' AS empty FROM system.numbers LIMIT 200000",
    ] {
        let result = conn
            .run_within(
                sql,
                RowLimit {
                    rows: 100_000,
                    bytes: Some(4096),
                },
            )
            .await
            .unwrap();
        assert!(result.truncated, "{sql}");
        assert_eq!(result.cut_at_bytes, Some(4096), "{sql}");
        let json_bytes: usize = result
            .rows
            .iter()
            .map(|r| serde_json::to_string(r).unwrap().len())
            .sum();
        assert!(json_bytes <= 4096, "{sql}: {json_bytes}");
        assert!(
            result.rows.len() > 100,
            "{sql}: only {} rows",
            result.rows.len()
        );
        let notice = result.truncation_notice(100_000).unwrap();
        assert!(notice.contains("size limit"), "{notice}");
    }
}

#[tokio::test]
async fn clickhouse_values_arrive_as_lossless_json() {
    let Some(db) = common::clickhouse::scratch("clickhouse_values_arrive_as_lossless_json").await
    else {
        return;
    };
    db.setup(&[
        "CREATE TABLE v (small Int8, big UInt64, signed Int64, price Decimal(10, 2), huge Decimal(38, 1), \
         f4 Float32, f8 Float64, txt String, fixed FixedString(3), raw String, day Date, ts DateTime, \
         id UUID, mood Enum8('happy' = 1, 'sad' = 2), \
         arr Array(Nullable(Int32)), words Array(String), pair Tuple(Int32, String), nothing Nullable(String)) \
         ENGINE = MergeTree ORDER BY small",
        "INSERT INTO v VALUES (1, 18446744073709551615, -9007199254740993, 12.50, 12345678901234567890.5, \
         1.1, inf, 'héllo\ttab\nline', 'ab', unhex('00ff'), '2024-02-29', '2024-02-29 13:45:01', \
         'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'sad', [1, NULL, 3], ['it''s', 'a\\\\b'], (7, 'x'), NULL)",
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 5000);
    // LowCardinality columns need an experimental setting on 18.x: the
    // type is read from an expression instead.
    let result = conn
        .run("SELECT *, toLowCardinality('low') AS lc FROM v", 10)
        .await
        .unwrap();
    let row: serde_json::Map<String, serde_json::Value> = result
        .headers
        .iter()
        .cloned()
        .zip(result.rows[0].iter().cloned())
        .collect();
    let expected = json!({
        "small": 1, "big": "18446744073709551615", "signed": "-9007199254740993",
        "price": 12.5, "huge": "12345678901234567890.5", "f4": 1.1, "f8": "Infinity",
        "txt": "héllo\ttab\nline", "fixed": "ab\u{0}", "raw": {"$base64": "AP8="},
        "day": "2024-02-29", "ts": "2024-02-29T13:45:01",
        "id": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "mood": "sad", "lc": "low",
        "arr": [1, null, 3], "words": ["it's", "a\\b"], "pair": [7, "x"], "nothing": null
    });
    assert_eq!(serde_json::Value::Object(row), expected);
    let types = result.header_types.unwrap();
    assert_eq!(&types[..3], ["Int8", "UInt64", "Int64"]);
    assert_eq!(types.last().unwrap(), "LowCardinality(String)");
}

#[tokio::test]
async fn clickhouse_stops_runaway_queries_at_the_timeout() {
    let Some(db) =
        common::clickhouse::scratch("clickhouse_stops_runaway_queries_at_the_timeout").await
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 300);
    let started = std::time::Instant::now();
    let endless = "SELECT /* lore-runaway */ count() FROM system.numbers WHERE number % 7 = 100";
    let err = conn.run(endless, 10).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
    assert!(err.to_string().contains("300 ms"), "{err}");
    assert!(!err.retryable());
    assert!(started.elapsed() < Duration::from_secs(20));
    // Stopped on the server, not only abandoned by Lore.
    assert!(
        stops_running(&db, "lore-runaway").await,
        "the query still runs"
    );
    let ok = conn.run("SELECT 1 AS one", 1).await.unwrap();
    assert_eq!(ok.rows, vec![vec![json!(1)]]);
}

#[tokio::test]
async fn clickhouse_kills_a_query_whose_caller_went_away() {
    let Some(db) =
        common::clickhouse::scratch("clickhouse_kills_a_query_whose_caller_went_away").await
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 60_000);
    let endless = "SELECT /* lore-abandoned */ count() FROM system.numbers WHERE number % 7 = 100";
    let abandoned = tokio::time::timeout(Duration::from_millis(1500), conn.run(endless, 10)).await;
    assert!(abandoned.is_err(), "the query cannot have finished");
    assert!(
        stops_running(&db, "lore-abandoned").await,
        "the dropped query still runs"
    );
}

#[tokio::test]
async fn clickhouse_connection_failures_are_clear_and_secret_free() {
    let Some(db) =
        common::clickhouse::scratch("clickhouse_connection_failures_are_clear_and_secret_free")
            .await
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let secret = password_of(&db.url);

    // Nothing listens on port 9.
    let unreachable = connector_at(
        &db,
        dir.path(),
        format!("http://lore:hunter2@127.0.0.1:9/{}", db.name),
    );
    let err = unreachable.run("SELECT 1", 1).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::UpstreamError, "{err}");
    assert!(err.retryable());
    let message = err.to_string();
    assert!(message.contains("127.0.0.1:9"), "{message}");
    assert!(!message.contains("hunter2"), "{message}");

    // A wrong password is a configuration error that names neither password.
    let wrong = connector_at(&db, dir.path(), with_password(&db.url, "not-the-password"));
    let err = wrong.run("SELECT 1", 1).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    let message = err.to_string();
    assert!(message.contains("refused the login"), "{message}");
    assert!(!message.contains("not-the-password"), "{message}");
    if !secret.is_empty() {
        assert!(!message.contains(&secret), "{message}");
    }

    // A database that does not exist.
    let missing = connector_at(
        &db,
        dir.path(),
        common::with_database(&db.url, "lore_no_such_database"),
    );
    let err = missing.run("SELECT 1", 1).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    assert!(err.to_string().contains("lore_no_such_database"), "{err}");

    // A url that is not ClickHouse's HTTP interface.
    let native = connector_at(
        &db,
        dir.path(),
        "clickhouse://lore:hunter2@127.0.0.1:9000/x".into(),
    );
    let err = native.run("SELECT 1", 1).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    assert!(err.to_string().contains("http"), "{err}");
    assert!(!err.to_string().contains("hunter2"), "{err}");

    // A missing environment variable is named.
    let unset = connector_at(&db, dir.path(), "env:LORE_TEST_UNSET_CLICKHOUSE_URL".into());
    let err = unset.run("SELECT 1", 1).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError);
    assert!(
        err.to_string().contains("LORE_TEST_UNSET_CLICKHOUSE_URL"),
        "{err}"
    );

    // A query error is invalid_sql, and a table the user may not read is
    // forbidden (when the server has the test's restricted user).
    let conn = connector(&db, dir.path(), 5000);
    let err = conn
        .run("SELECT * FROM no_such_table", 1)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidSql, "{err}");
    assert!(err.to_string().contains("no_such_table"), "{err}");
    let limited_url = db.url.replacen("://lore:", "://lore_limited:", 1);
    if limited_url != db.url {
        let limited = connector_at(
            &db,
            dir.path(),
            common::with_database(&limited_url, "default"),
        );
        let denied = limited
            .run(&format!("SELECT count() FROM {}.t", db.name), 1)
            .await;
        match denied {
            Err(e) if e.code() == ErrorCode::ConfigError => {
                eprintln!(
                    "notice: the server has no lore_limited user; permission_denied not exercised: {e}"
                )
            }
            Err(e) => {
                assert_eq!(e.code(), ErrorCode::Forbidden, "{e}");
                assert!(e.to_string().contains("grant"), "{e}");
            }
            Ok(r) => panic!("the restricted user read another database: {r:?}"),
        }
    }
}

#[tokio::test]
async fn clickhouse_server_info_reports_version_and_read_only_queries() {
    let Some(db) = common::clickhouse::scratch("clickhouse_server_info").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let info = connector(&db, dir.path(), 5000)
        .server_info()
        .await
        .unwrap();
    assert!(info.read_only, "{info:?}");
    assert!(info.version.starts_with("ClickHouse "), "{info:?}");
    assert_eq!(info.encrypted, Some(false));
}

fn request(table: &str) -> EntityRequest {
    EntityRequest {
        table: TableQuery::parse(table).unwrap(),
        columns: None,
    }
}

#[tokio::test]
async fn clickhouse_scan_reads_structure_profiles_and_relationships() {
    let Some(db) =
        common::clickhouse::scratch("clickhouse_scan_reads_structure_profiles_and_relationships")
            .await
    else {
        return;
    };
    let second = db.second.clone().unwrap();
    let statements = common::fixture(lore_core::config::Driver::Clickhouse, &db.name, &second);
    db.setup(&statements.iter().map(String::as_str).collect::<Vec<_>>())
        .await;
    let dir = tempfile::tempdir().unwrap();
    let schemas = vec![db.name.clone(), second.clone()];
    let project = db.project(dir.path(), "w", |c| c.schemas = Some(schemas));
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
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(report.driver, "clickhouse");
    let snapshot_dir = dir.path().join(&report.snapshot_path);
    let tables = snapshot::read_tables(&snapshot_dir).unwrap();
    let sales = Some(db.name.as_str());
    let table = |schema: Option<&str>, name: &str| {
        tables
            .iter()
            .find(|t| t.db.as_deref() == schema && t.name == name)
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    assert_eq!(
        tables.len(),
        8,
        "{:?}",
        tables
            .iter()
            .map(|t| t.table_ref().display())
            .collect::<Vec<_>>()
    );

    let customers = table(sales, "customers");
    assert_eq!(customers.kind, TableKind::Table);
    assert_eq!(customers.estimated_rows, Some(5));
    let segment = customers.column("segment").unwrap();
    assert_eq!(segment.comment.as_deref(), Some("SMB | Enterprise"));
    assert!(!segment.nullable);
    assert_eq!(segment.native_type, "String");
    let email = customers.column("email").unwrap();
    assert!(email.nullable);
    assert_eq!(email.normalized_type, "text");
    let id = customers.column("id").unwrap();
    assert!(id.primary_key, "the MergeTree primary key");
    assert!(!id.unique, "ClickHouse does not enforce it");
    assert_eq!(id.dimension_type, DimensionType::Number);
    let orders = table(sales, "orders");
    assert_eq!(
        orders.column("amount_cents").unwrap().comment.as_deref(),
        Some("in cents")
    );
    assert_eq!(
        orders.column("created_at").unwrap().dimension_type,
        DimensionType::Time
    );
    assert_eq!(
        table(sales, "order_lines").primary_key(),
        ["order_id", "line_no"]
    );
    let view = table(sales, "big_customers");
    assert_eq!(view.kind, TableKind::View);
    assert_eq!(view.columns.len(), 3);
    assert!(tables.iter().all(|t| t.foreign_keys.is_empty()));

    let profile: ProfileArtifact =
        snapshot::read_json(&snapshot_dir.join(snapshot::PROFILE_FILE)).unwrap();
    let profiled = |name: &str| {
        profile
            .tables
            .iter()
            .find(|t| t.name == name && t.db.as_deref() == sales)
            .unwrap()
    };
    assert!(
        profile.tables.iter().all(|t| t.error.is_none()),
        "{:?}",
        profile.tables
    );
    let orders_profile = profiled("orders");
    assert_eq!(orders_profile.sampled_rows, 20);
    let status = orders_profile
        .columns
        .iter()
        .find(|c| c.name == "status")
        .unwrap();
    assert!(status.dictionary);
    assert_eq!(
        status.distinct_count, 3,
        "case differences are distinct values"
    );
    assert_eq!(status.top_values[0].value, "paid");
    assert_eq!(status.top_values[0].count, 10);
    let promo = orders_profile
        .columns
        .iter()
        .find(|c| c.name == "promo_id")
        .unwrap();
    assert_eq!((promo.null_count, promo.distinct_count), (10, 3));
    let amount = orders_profile
        .columns
        .iter()
        .find(|c| c.name == "amount_cents")
        .unwrap();
    assert_eq!(amount.min_value, Some(json!(1000)));
    assert_eq!(amount.max_value, Some(json!(20000)));
    let created = orders_profile
        .columns
        .iter()
        .find(|c| c.name == "created_at")
        .unwrap();
    assert_eq!(created.min_value, Some(json!("2024-01-18T10:00:00")));
    let name = profiled("customers")
        .columns
        .iter()
        .find(|c| c.name == "name")
        .unwrap();
    assert!(name.values().any(|v| v == "Acme Corp"), "{name:?}");
    assert_eq!(name.max_length, Some(9));

    let found: RelationshipsArtifact =
        snapshot::read_json(&snapshot_dir.join(snapshot::RELATIONSHIPS_FILE)).unwrap();
    let find = |table: &str, column: &str| {
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
    let to_customers = find("orders", "customer_id");
    assert_eq!(to_customers.kind, RelationshipKind::Inferred);
    assert_eq!(to_customers.status, RelationshipStatus::Accepted);
    assert_eq!(
        (
            to_customers.to.table.as_str(),
            to_customers.to.columns.as_slice()
        ),
        ("customers", ["id".to_string()].as_slice())
    );
    let evidence = to_customers.evidence.as_ref().unwrap();
    assert_eq!((evidence.child_distinct, evidence.matched), (5, 5));
    assert_eq!(
        evidence.parent_unique_by.as_deref(),
        Some("sample"),
        "uniqueness is measured, not taken from the primary key"
    );
    assert_eq!(
        find("order_lines", "order_id").status,
        RelationshipStatus::Accepted
    );
    let cross = find("invoices", "customer_id");
    assert_eq!(cross.status, RelationshipStatus::Accepted);
    assert_eq!(cross.to.db.as_deref(), sales, "across databases");
    let rejected = find("orders", "promo_id");
    assert_eq!(rejected.status, RelationshipStatus::Rejected);
    assert_eq!(
        rejected.evidence.as_ref().unwrap().reason.as_deref(),
        Some("only 0 of 3 sampled values exist in promos.id")
    );

    // What agents read.
    let catalog = Catalog::new(dir.path());
    let latest = catalog.latest("w").unwrap().unwrap();
    let details = entity_details(
        "w",
        Some(&latest),
        &[request(&format!("{}.customers", db.name))],
    );
    assert_eq!(details[0].status, "ok", "{:?}", details[0].error);
    let entity = details[0].entity.as_ref().unwrap();
    assert!(
        entity
            .relationships
            .iter()
            .any(|r| r.direction == "incoming"),
        "{:?}",
        entity.relationships
    );
    let (_, results) = dictionary_search(
        &[("w".to_string(), Some(latest))],
        &["acme".to_string()],
        20,
    );
    let acme = &results[0];
    assert!(
        acme.matches
            .iter()
            .any(|m| m.matched_value == "Acme Corp" && m.column_name == "name"),
        "{acme:?}"
    );
}

/// Users whose own profile is read-only: `readonly = 2` (the setup the
/// README recommends) gets every limit Lore sends, `readonly = 1` none,
/// and both read, refuse writes and report read-only sessions. Runs when
/// the server has the test script's `lore_reader` / `lore_strict` users.
#[tokio::test]
async fn clickhouse_serves_users_whose_profile_is_read_only() {
    let Some(db) =
        common::clickhouse::scratch("clickhouse_serves_users_whose_profile_is_read_only").await
    else {
        return;
    };
    db.setup(&[
        "CREATE TABLE t (id Int32) ENGINE = MergeTree ORDER BY id",
        "INSERT INTO t SELECT toInt32(number) FROM system.numbers LIMIT 30",
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    for (user, limits) in [("lore_reader", true), ("lore_strict", false)] {
        let url = db.url.replacen("://lore:", &format!("://{user}:"), 1);
        if url == db.url {
            return;
        }
        let conn = connector_at(&db, dir.path(), url);
        let info = match conn.server_info().await {
            Ok(info) => info,
            Err(e) if e.code() == ErrorCode::ConfigError => {
                eprintln!(
                    "notice: the server has no {user} user; read-only profiles not exercised: {e}"
                );
                return;
            }
            Err(e) => panic!("{user}: {e}"),
        };
        assert!(info.read_only, "{user}: {info:?}");
        let capped = conn.run("SELECT id FROM t ORDER BY id", 10).await.unwrap();
        assert_eq!(capped.rows.len(), 10, "{user}");
        assert!(capped.truncated, "{user}");
        let err = conn.run("INSERT INTO t VALUES (99)", 10).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ReadOnlyViolation, "{user}: {err}");
        // Only a profile that allows settings gets join_use_nulls.
        let joined = conn
            .run(
                "SELECT b.id FROM (SELECT 1 AS k) AS a LEFT JOIN (SELECT 2 AS k, 5 AS id) AS b USING (k)",
                10,
            )
            .await
            .unwrap();
        let expected = if limits { json!(null) } else { json!(0) };
        assert_eq!(joined.rows, vec![vec![expected]], "{user}");
    }
    assert_eq!(db.count("SELECT count() FROM t").await, 30);
}

/// A query over a budget the server holds (here the test user's
/// `max_rows_to_read`) is `budget_exceeded`, saying to narrow it. Runs when
/// the server has the test script's `lore_budget` user.
#[tokio::test]
async fn clickhouse_server_budgets_are_budget_exceeded() {
    let Some(db) =
        common::clickhouse::scratch("clickhouse_server_budgets_are_budget_exceeded").await
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let url = db.url.replacen("://lore:", "://lore_budget:", 1);
    if url == db.url {
        return;
    }
    let conn = connector_at(&db, dir.path(), url);
    match conn
        .run(
            "SELECT count() FROM (SELECT number FROM system.numbers LIMIT 5000)",
            10,
        )
        .await
    {
        Err(e) if e.code() == ErrorCode::ConfigError => {
            eprintln!(
                "notice: the server has no lore_budget user; budget_exceeded not exercised: {e}"
            )
        }
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::BudgetExceeded, "{e}");
            assert!(!e.retryable());
            assert!(e.to_string().contains("narrow it"), "{e}");
        }
        Ok(r) => panic!("the budget did not hold: {r:?}"),
    }
    let small = conn
        .run(
            "SELECT count() FROM (SELECT number FROM system.numbers LIMIT 10)",
            10,
        )
        .await
        .unwrap();
    assert_eq!(small.rows, vec![vec![json!(10)]]);
}
