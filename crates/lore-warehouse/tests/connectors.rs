//! PostgreSQL and MySQL/MariaDB connectors against real servers: the
//! database itself refuses writes that bypass the guard, values arrive as
//! lossless JSON, the row cap and the timeout hold, and connection failures
//! say what to fix without leaking secrets.
//!
//! Each test runs when its server's URL is set (see `common`), and
//! otherwise prints a notice and passes.

mod common;

use std::time::Duration;

use common::ScratchDb;
use lore_core::config::Driver;
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_warehouse::execute::{Connector, Warehouses};
use serde_json::json;

fn connector(db: &ScratchDb, dir: &std::path::Path, timeout_ms: u64) -> std::sync::Arc<Connector> {
    let project = db.project(dir, "w", |c| c.statement_timeout_ms = Some(timeout_ms));
    let warehouses = Warehouses::for_project(&project);
    warehouses.get("w").unwrap().1
}

/// Writes sent straight to the connector (no guard) are refused by the
/// server, including the multi-step bypasses known from peer servers.
async fn writes_are_refused_by_the_database(db: ScratchDb) {
    db.setup(&["CREATE TABLE t (id INT PRIMARY KEY)"]).await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 5000);
    let mut attempts = vec![
        "INSERT INTO t VALUES (1)",
        "UPDATE t SET id = 2",
        "DELETE FROM t",
        "CREATE TABLE evil (x INT)",
        "DROP TABLE t",
    ];
    // Loosening the session in one statement must not help the next one.
    let loosen: &[&str] = match db.driver {
        Driver::Postgres => &[
            "COMMIT",
            "SET default_transaction_read_only = off",
            "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        ],
        _ => &["SET SESSION TRANSACTION READ WRITE", "COMMIT"],
    };
    for statement in loosen {
        let _ = conn.run(statement, 10).await;
        attempts.push("CREATE TABLE evil (x INT)");
        attempts.push("INSERT INTO t VALUES (3)");
    }
    for write in attempts {
        let err = conn.run(write, 10).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ReadOnlyViolation, "{write}: {err}");
    }
    assert_eq!(
        db.count("SELECT count(*) FROM t").await,
        0,
        "no row was written"
    );
    let evil = match db.driver {
        Driver::Postgres => "SELECT count(*) FROM pg_tables WHERE tablename = 'evil'",
        _ => "SELECT count(*) FROM information_schema.tables WHERE table_name = 'evil'",
    };
    assert_eq!(db.count(evil).await, 0, "no table was created");
    // The connector still answers reads afterwards.
    let ok = conn.run("SELECT count(*) AS n FROM t", 10).await.unwrap();
    assert_eq!(ok.rows, vec![vec![json!(0)]]);
}

#[tokio::test]
async fn postgres_refuses_writes_that_bypass_the_guard() {
    if let Some(db) = common::postgres("postgres_refuses_writes_that_bypass_the_guard").await {
        writes_are_refused_by_the_database(db).await;
    }
}

#[tokio::test]
async fn mysql_refuses_writes_that_bypass_the_guard() {
    if let Some(db) = common::mysql("mysql_refuses_writes_that_bypass_the_guard").await {
        writes_are_refused_by_the_database(db).await;
    }
}

/// Rows are capped at the server (one more than asked for), and `truncated`
/// says whether more existed.
async fn rows_are_capped_honestly(db: ScratchDb) {
    db.setup(&["CREATE TABLE n (v INT)"]).await;
    let values: Vec<String> = (1..=25).map(|i| format!("({i})")).collect();
    let insert = format!("INSERT INTO n VALUES {}", values.join(","));
    db.setup(&[insert.as_str()]).await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 5000);
    let capped = conn.run("SELECT v FROM n ORDER BY v", 10).await.unwrap();
    assert_eq!(capped.rows.len(), 10);
    assert!(capped.truncated);
    assert_eq!(capped.rows[9], vec![json!(10)]);
    let exact = conn.run("SELECT v FROM n", 25).await.unwrap();
    assert_eq!(exact.rows.len(), 25);
    assert!(!exact.truncated);
    // A session discarded after a cut result does not break the next query.
    let again = conn.run("SELECT count(*) FROM n", 1).await.unwrap();
    assert_eq!(again.rows, vec![vec![json!(25)]]);
}

#[tokio::test]
async fn postgres_caps_rows_honestly() {
    if let Some(db) = common::postgres("postgres_caps_rows_honestly").await {
        rows_are_capped_honestly(db).await;
    }
}

#[tokio::test]
async fn mysql_caps_rows_honestly() {
    if let Some(db) = common::mysql("mysql_caps_rows_honestly").await {
        rows_are_capped_honestly(db).await;
    }
}

#[tokio::test]
async fn postgres_values_arrive_as_lossless_json() {
    let Some(db) = common::postgres("postgres_values_arrive_as_lossless_json").await else {
        return;
    };
    db.setup(&["CREATE TYPE mood AS ENUM ('happy', 'sad')"])
        .await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 5000);
    let result = conn
        .run(
            "SELECT 1::int2 AS small, 9007199254740993::int8 AS big, 12.50::numeric(10,2) AS price, \
             12345678901234567890.5::numeric AS huge, 1.1::float4 AS f4, 'NaN'::float8 AS nan, \
             true AS flag, 'héllo'::text AS txt, 'happy'::mood AS mood, \
             '2024-02-29'::date AS day, '2024-02-29 13:45:01.25'::timestamp AS ts, \
             '2024-02-29 13:45:01+02'::timestamptz AS tstz, '1 year 2 days 03:00:00'::interval AS span, \
             '{\"a\": [1, 2]}'::jsonb AS doc, '\\x00ff'::bytea AS raw, \
             'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS id, ARRAY[1, NULL, 3] AS arr, \
             '192.168.0.1'::inet AS ip, NULL::text AS nothing",
            10,
        )
        .await
        .unwrap();
    let row: serde_json::Map<String, serde_json::Value> = result
        .headers
        .iter()
        .cloned()
        .zip(result.rows[0].iter().cloned())
        .collect();
    let expected = json!({
        "small": 1, "big": "9007199254740993", "price": 12.5,
        "huge": "12345678901234567890.5", "f4": 1.1, "nan": "NaN",
        "flag": true, "txt": "héllo", "mood": "happy",
        "day": "2024-02-29", "ts": "2024-02-29T13:45:01.25",
        "tstz": "2024-02-29T11:45:01Z", "span": "P1Y2DT3H",
        "doc": {"a": [1, 2]}, "raw": {"$base64": "AP8="},
        "id": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "arr": [1, null, 3],
        "ip": "192.168.0.1", "nothing": null
    });
    assert_eq!(serde_json::Value::Object(row), expected);
    let types = result.header_types.unwrap();
    assert_eq!(&types[..3], ["int2", "int8", "numeric"]);
}

#[tokio::test]
async fn mysql_values_arrive_as_lossless_json() {
    let Some(db) = common::mysql("mysql_values_arrive_as_lossless_json").await else {
        return;
    };
    db.setup(&[
        "CREATE TABLE v (small TINYINT, big BIGINT UNSIGNED, price DECIMAL(10,2), huge DECIMAL(30,1), \
         f4 FLOAT, flag BOOLEAN, txt VARCHAR(20), day DATE, ts DATETIME(6), span TIME, \
         doc JSON, raw VARBINARY(4), bits BIT(8), e ENUM('happy','sad'), nothing TEXT)",
        "INSERT INTO v VALUES (1, 18446744073709551615, 12.50, 12345678901234567890.5, 1.1, TRUE, 'héllo', \
         '2024-02-29', '2024-02-29 13:45:01.25', '-27:00:01', '{\"a\": [1, 2]}', x'00ff', b'101', 'sad', NULL)",
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 5000);
    let result = conn.run("SELECT * FROM v", 10).await.unwrap();
    let mut row: serde_json::Map<String, serde_json::Value> = result
        .headers
        .iter()
        .cloned()
        .zip(result.rows[0].iter().cloned())
        .collect();
    // MariaDB's JSON is an alias of LONGTEXT: its column metadata cannot
    // tell it from text, so the document arrives as its text there.
    if let Some(serde_json::Value::String(text)) = row.get("doc") {
        let version = conn.server_info().await.unwrap().version;
        assert!(
            version.starts_with("MariaDB"),
            "only MariaDB sends JSON as text: {version}"
        );
        let parsed: serde_json::Value = serde_json::from_str(text).unwrap();
        row.insert("doc".into(), parsed);
    }
    let expected = json!({
        "small": 1, "big": "18446744073709551615", "price": 12.5,
        "huge": "12345678901234567890.5", "f4": 1.1, "flag": 1, "txt": "héllo",
        "day": "2024-02-29", "ts": "2024-02-29T13:45:01.25", "span": "-27:00:01",
        "doc": {"a": [1, 2]}, "raw": {"$base64": "AP8="}, "bits": 5, "e": "sad",
        "nothing": null
    });
    assert_eq!(serde_json::Value::Object(row), expected);
    let types = result.header_types.unwrap();
    assert_eq!(types[1], "bigint unsigned");
}

/// A runaway query is stopped at the statement timeout, and the connector
/// keeps answering.
async fn runaway_queries_stop_at_the_timeout(db: ScratchDb, endless: &str) {
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&db, dir.path(), 300);
    let started = std::time::Instant::now();
    let err = conn.run(endless, 10).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
    assert!(err.to_string().contains("300 ms"), "{err}");
    // Stopped on the server: well before the query's own end.
    assert!(started.elapsed() < Duration::from_secs(20));
    let ok = conn.run("SELECT 1 AS one", 1).await.unwrap();
    assert_eq!(ok.rows, vec![vec![json!(1)]]);
}

#[tokio::test]
async fn postgres_stops_runaway_queries() {
    if let Some(db) = common::postgres("postgres_stops_runaway_queries").await {
        runaway_queries_stop_at_the_timeout(db, "SELECT pg_sleep(30)").await;
    }
}

#[tokio::test]
async fn mysql_stops_runaway_queries() {
    if let Some(db) = common::mysql("mysql_stops_runaway_queries").await {
        runaway_queries_stop_at_the_timeout(db, "SELECT SLEEP(30)").await;
    }
}

/// Connection failures name what to fix and never the password.
async fn connection_failures_are_clear_and_secret_free(db: ScratchDb) {
    let dir = tempfile::tempdir().unwrap();
    let (scheme, user) = match db.driver {
        Driver::Postgres => ("postgres", "postgres"),
        _ => ("mysql", "root"),
    };
    // Nothing listens on port 9.
    let unreachable = db.project(dir.path(), "w", |c| {
        c.url = Some(lore_core::config::Secret::new(format!(
            "{scheme}://{user}:hunter2@127.0.0.1:9/{}",
            db.name
        )))
    });
    let conn = Warehouses::for_project(&unreachable).get("w").unwrap().1;
    let err = conn.run("SELECT 1", 1).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::UpstreamError, "{err}");
    assert!(err.retryable());
    let message = err.to_string();
    assert!(message.contains("127.0.0.1:9"), "{message}");
    assert!(!message.contains("hunter2"), "{message}");

    // A database that does not exist is a configuration error.
    let missing = db.project(dir.path(), "w", |c| {
        c.url = Some(lore_core::config::Secret::new(common::with_database(
            &db.url,
            "lore_no_such_database",
        )))
    });
    let conn = Warehouses::for_project(&missing).get("w").unwrap().1;
    let err = conn.run("SELECT 1", 1).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    assert!(err.to_string().contains("refused the login"), "{err}");

    // A missing environment variable is named.
    let unset = db.project(dir.path(), "w", |c| {
        c.url = Some(lore_core::config::Secret::new(
            "env:LORE_TEST_UNSET_URL_VAR",
        ))
    });
    let conn = Warehouses::for_project(&unset).get("w").unwrap().1;
    let err = conn.run("SELECT 1", 1).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError);
    assert!(err.to_string().contains("LORE_TEST_UNSET_URL_VAR"), "{err}");
}

#[tokio::test]
async fn postgres_connection_failures_are_clear() {
    if let Some(db) = common::postgres("postgres_connection_failures_are_clear").await {
        connection_failures_are_clear_and_secret_free(db).await;
    }
}

#[tokio::test]
async fn mysql_connection_failures_are_clear() {
    if let Some(db) = common::mysql("mysql_connection_failures_are_clear").await {
        connection_failures_are_clear_and_secret_free(db).await;
    }
}

#[tokio::test]
async fn server_info_reports_version_and_read_only_sessions() {
    for db in [
        common::postgres("server_info (postgres)").await,
        common::mysql("server_info (mysql)").await,
    ]
    .into_iter()
    .flatten()
    {
        let dir = tempfile::tempdir().unwrap();
        let info = connector(&db, dir.path(), 5000)
            .server_info()
            .await
            .unwrap();
        assert!(info.read_only, "{info:?}");
        let product = match db.driver {
            Driver::Postgres => "PostgreSQL",
            _ => "M",
        };
        assert!(info.version.starts_with(product), "{info:?}");
    }
}

/// The connector at `url` (in place of the scratch database's own).
fn connector_at(db: &ScratchDb, dir: &std::path::Path, url: String) -> std::sync::Arc<Connector> {
    let project = db.project(dir, "w", |c| {
        c.url = Some(lore_core::config::Secret::new(url));
        c.statement_timeout_ms = Some(5000);
    });
    Warehouses::for_project(&project).get("w").unwrap().1
}

#[tokio::test]
async fn postgres_speaks_tls_as_sslmode_asks() {
    let Some(db) = common::postgres("postgres_speaks_tls_as_sslmode_asks").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let encrypted = |params: &str| {
        let conn = connector_at(&db, dir.path(), db.url_with(params));
        async move { conn.server_info().await.map(|info| info.encrypted) }
    };
    assert_eq!(encrypted("sslmode=disable").await.unwrap(), Some(false));
    // A mode the driver does not know is refused before connecting.
    let err = encrypted("sslmode=sometimes").await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    assert!(err.to_string().contains("verify-full"), "{err}");
    // A CA file that does not exist is named.
    let err = encrypted("sslmode=verify-ca&sslrootcert=no-such-ca.pem")
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    assert!(err.to_string().contains("no-such-ca.pem"), "{err}");

    if db.text("SHOW ssl").await.as_deref() != Some("on") {
        // The default (prefer) falls back to plain text; require fails clearly.
        assert_eq!(encrypted("").await.unwrap(), Some(false));
        let err = encrypted("sslmode=require").await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
        assert!(err.to_string().contains("does not offer TLS"), "{err}");
        eprintln!("notice: the PostgreSQL server has ssl off; verified TLS modes not exercised");
        return;
    }
    // The default, like libpq's, is `prefer`: TLS when the server offers it.
    assert_eq!(encrypted("").await.unwrap(), Some(true));
    assert_eq!(encrypted("sslmode=require").await.unwrap(), Some(true));
    // Queries run over TLS like any other (and stay read-only).
    let conn = connector_at(&db, dir.path(), db.url_with("sslmode=require"));
    let result = conn.run("SELECT 40 + 2 AS answer", 10).await.unwrap();
    assert_eq!(result.rows, vec![vec![json!(42)]]);

    // A server certificate no public authority signed (a test server's
    // self-signed one) fails verification with advice.
    let server_cert = db.text("SHOW ssl_cert_file").await.unwrap();
    let public_ca = db.text("SHOW ssl_ca_file").await.unwrap_or_default();
    if public_ca.is_empty() {
        let err = encrypted("sslmode=verify-full").await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
        let message = err.to_string();
        assert!(message.contains("sslrootcert"), "{message}");
        assert!(!message.contains("password"), "{message}");
    }
    // Naming the server's own certificate as the CA trusts exactly it.
    if std::fs::read(&server_cert).is_ok() {
        let pinned = format!("sslmode=verify-ca&sslrootcert={server_cert}");
        assert_eq!(encrypted(&pinned).await.unwrap(), Some(true));
    } else {
        eprintln!("notice: {server_cert} is not readable; pinned certificate not exercised");
    }
}

#[tokio::test]
async fn mysql_speaks_tls_as_ssl_mode_asks() {
    let Some(db) = common::mysql("mysql_speaks_tls_as_ssl_mode_asks").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let encrypted = |params: &str| {
        let conn = connector_at(&db, dir.path(), db.url_with(params));
        async move { conn.server_info().await.map(|info| info.encrypted) }
    };
    assert_eq!(encrypted("ssl-mode=DISABLED").await.unwrap(), Some(false));
    let err = encrypted("ssl-mode=SOMETIMES").await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    assert!(err.to_string().contains("VERIFY_IDENTITY"), "{err}");
    let has_tls = db.text("SELECT @@have_ssl").await.as_deref() == Some("YES");
    // The default is PREFERRED: TLS when the server offers it.
    assert_eq!(encrypted("").await.unwrap(), Some(has_tls));
    if has_tls {
        assert_eq!(encrypted("ssl-mode=REQUIRED").await.unwrap(), Some(true));
    } else {
        // Demanding TLS from a server without it is a clear error (the
        // driver's own parameter too, which used to abort the process).
        for params in ["ssl-mode=REQUIRED", "require_ssl=true"] {
            let err = encrypted(params).await.unwrap_err();
            assert_eq!(err.code(), ErrorCode::ConfigError, "{params}: {err}");
            assert!(
                err.to_string().contains("does not offer TLS"),
                "{params}: {err}"
            );
        }
        eprintln!("notice: the MySQL/MariaDB server has no TLS; encrypted sessions not exercised");
    }
}
