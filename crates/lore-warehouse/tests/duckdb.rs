//! The DuckDB connector on real DuckDB files (the engine compiled in with
//! the `duckdb` feature): the engine itself refuses writes, file and
//! network access, extensions and setting changes sent past the guard;
//! values arrive as lossless JSON; the row cap, the byte budget and the
//! timeout hold; a file another process is writing, a missing file and a
//! file that is not a DuckDB database fail clearly.
//!
//! A build without the feature runs only the last test: a `duckdb`
//! connection answers `config_error` saying how to build Lore with it.

use std::path::Path;
use std::sync::Arc;

use lore_core::config::{ConnectionConfig, Driver, LoreConfig};
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::project::Project;
use lore_warehouse::execute::{Connector, Warehouses};

fn project(dir: &Path, path: &str, timeout_ms: u64) -> Project {
    let mut connection = ConnectionConfig::new(Driver::Duckdb);
    connection.path = Some(path.to_string());
    connection.statement_timeout_ms = Some(timeout_ms);
    let mut config = LoreConfig::default();
    config.connections.insert("w".into(), connection);
    Project {
        root: dir.to_path_buf(),
        config,
        warnings: Vec::new(),
    }
}

fn connector(dir: &Path, path: &str, timeout_ms: u64) -> Arc<Connector> {
    Warehouses::for_project(&project(dir, path, timeout_ms))
        .get("w")
        .unwrap()
        .1
}

#[cfg(not(feature = "duckdb"))]
#[tokio::test]
async fn without_the_feature_a_duckdb_connection_says_how_to_build_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("w.duckdb"), b"").unwrap();
    let conn = connector(dir.path(), "w.duckdb", 5000);
    let err = conn.run("SELECT 1", 1).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    assert!(err.to_string().contains("--features duckdb"), "{err}");
    assert!(!err.retryable());
}

#[cfg(feature = "duckdb")]
mod with_duckdb {
    use super::*;
    use lore_warehouse::duckdb_engine::Connection;
    use lore_warehouse::execute::RowLimit;
    use serde_json::json;
    use std::path::PathBuf;
    use std::time::{Duration, Instant};

    /// A DuckDB file at `dir/w.duckdb` holding `statements`.
    fn database(dir: &Path, statements: &[&str]) -> PathBuf {
        let path = dir.join("w.duckdb");
        let conn = Connection::open(&path).unwrap();
        for statement in statements {
            conn.execute_batch(statement)
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
        path
    }

    #[tokio::test]
    async fn duckdb_refuses_writes_files_and_settings_that_bypass_the_guard() {
        let dir = tempfile::tempdir().unwrap();
        let path = database(
            dir.path(),
            &["CREATE TABLE t (id INTEGER)", "INSERT INTO t VALUES (1)"],
        );
        std::fs::write(dir.path().join("secret.csv"), "a,b\n1,2\n").unwrap();
        let before = std::fs::read(&path).unwrap();
        let conn = connector(dir.path(), "w.duckdb", 5000);
        let csv = dir.path().join("secret.csv").display().to_string();
        let out = dir.path().join("out.csv").display().to_string();
        let other = dir.path().join("other.duckdb").display().to_string();
        let attempts = [
            "INSERT INTO t VALUES (2)".to_string(),
            "UPDATE t SET id = 3".to_string(),
            "DELETE FROM t".to_string(),
            "CREATE TABLE evil (x INTEGER)".to_string(),
            "DROP TABLE t".to_string(),
            "ALTER TABLE t ADD COLUMN y INTEGER".to_string(),
            format!("COPY t TO '{out}'"),
            format!("SELECT * FROM read_csv('{csv}')"),
            format!("SELECT * FROM '{csv}'"),
            format!("ATTACH '{other}' AS other"),
            "INSTALL httpfs".to_string(),
            "LOAD httpfs".to_string(),
            "SET enable_external_access = true".to_string(),
            "SET access_mode = 'READ_WRITE'".to_string(),
            "RESET lock_configuration".to_string(),
            // Loosening in one query does not help the next.
            format!("SELECT * FROM read_csv('{csv}')"),
        ];
        for attempt in &attempts {
            let err = match conn.run(attempt, 10).await {
                Ok(answer) => panic!("{attempt}: answered {answer:?}"),
                Err(err) => err,
            };
            assert!(
                matches!(
                    err.code(),
                    ErrorCode::ReadOnlyViolation | ErrorCode::InvalidSql
                ),
                "{attempt}: {err}"
            );
            assert!(!err.to_string().contains("a,b"), "{attempt}: {err}");
        }
        assert!(!Path::new(&out).exists(), "no file was written");
        assert!(!Path::new(&other).exists(), "no database was attached");
        let ok = conn
            .run("SELECT count(*) AS n, min(id) AS id FROM t", 10)
            .await
            .unwrap();
        assert_eq!(ok.rows, vec![vec![json!(1), json!(1)]]);
        drop(conn);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "the file is unchanged"
        );
    }

    #[tokio::test]
    async fn duckdb_caps_rows_and_bytes_honestly() {
        let dir = tempfile::tempdir().unwrap();
        database(
            dir.path(),
            &["CREATE TABLE n AS SELECT range::INTEGER + 1 AS v FROM range(25)"],
        );
        let conn = connector(dir.path(), "w.duckdb", 5000);
        let capped = conn.run("SELECT v FROM n ORDER BY v", 10).await.unwrap();
        assert_eq!(capped.rows.len(), 10);
        assert!(capped.truncated);
        assert_eq!(capped.rows[9], vec![json!(10)]);
        let exact = conn.run("SELECT v FROM n", 25).await.unwrap();
        assert_eq!(exact.rows.len(), 25);
        assert!(!exact.truncated);
        // A large result is read only as far as the budget: streaming stops
        // where the rows stop.
        let started = Instant::now();
        let big = conn
            .run_within(
                "SELECT range AS i, repeat('x', 100) AS pad FROM range(50000000)",
                RowLimit {
                    rows: 1_000_000,
                    bytes: Some(4096),
                },
            )
            .await
            .unwrap();
        assert!(big.truncated);
        assert_eq!(big.cut_at_bytes, Some(4096));
        let json_bytes: usize = big
            .rows
            .iter()
            .map(|r| serde_json::to_string(r).unwrap().len())
            .sum();
        assert!(json_bytes <= 4096, "{json_bytes}");
        assert!(big.rows.len() > 10, "only {} rows", big.rows.len());
        let notice = big.truncation_notice(1_000_000).unwrap();
        assert!(notice.contains("size limit"), "{notice}");
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "50 million rows were not all produced"
        );
    }

    #[tokio::test]
    async fn duckdb_values_arrive_as_lossless_json() {
        let dir = tempfile::tempdir().unwrap();
        database(dir.path(), &["CREATE TYPE mood AS ENUM ('happy', 'sad')"]);
        let conn = connector(dir.path(), "w.duckdb", 5000);
        let sql = "SELECT 1::TINYINT AS small, 18446744073709551615::UBIGINT AS big, \
             -9007199254740993::BIGINT AS signed, 170141183460469231731687303715884105727::HUGEINT AS huge, \
             12.50::DECIMAL(10,2) AS price, 12345678901234567890.5::DECIMAL(38,1) AS wide, \
             1.1::FLOAT AS f4, 'infinity'::DOUBLE AS f8, 'héllo\ttab' AS txt, '\\x00\\xFF'::BLOB AS raw, \
             DATE '2024-02-29' AS day, TIME '13:45:01.5' AS t, \
             TIMESTAMP '2024-02-29 13:45:01.123456' AS ts, \
             TIMESTAMPTZ '2024-02-29 13:45:01+02' AS tstz, \
             INTERVAL '1 year 2 days 3 seconds' AS span, \
             'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID AS id, 'sad'::mood AS feeling, \
             [1, NULL, 3] AS arr, {'city': 'Paris', 'zip': 75001} AS place, \
             MAP {'a': 1, 'b': 2} AS m, '{\"k\": [1, 2]}'::JSON AS doc, NULL::VARCHAR AS nothing";
        let result = conn.run(sql, 10).await.unwrap();
        let row: serde_json::Map<String, serde_json::Value> = result
            .headers
            .iter()
            .cloned()
            .zip(result.rows[0].iter().cloned())
            .collect();
        let expected = json!({
            "small": 1, "big": "18446744073709551615", "signed": "-9007199254740993",
            "huge": "170141183460469231731687303715884105727",
            "price": 12.5, "wide": "12345678901234567890.5", "f4": 1.1, "f8": "Infinity",
            "txt": "héllo\ttab", "raw": {"$base64": "AP8="},
            "day": "2024-02-29", "t": "13:45:01.5", "ts": "2024-02-29T13:45:01.123456",
            "tstz": "2024-02-29T11:45:01Z", "span": "P1Y2DT3S",
            "id": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "feeling": "sad",
            "arr": [1, null, 3], "place": {"city": "Paris", "zip": 75001},
            "m": {"a": 1, "b": 2}, "doc": {"k": [1, 2]}, "nothing": null
        });
        assert_eq!(serde_json::Value::Object(row), expected);
        let types = result.header_types.unwrap();
        assert_eq!(
            &types[..5],
            ["TINYINT", "UBIGINT", "BIGINT", "HUGEINT", "DECIMAL(10,2)"]
        );
        assert!(types.contains(&"JSON".to_string()), "{types:?}");
    }

    #[tokio::test]
    async fn duckdb_stops_runaway_queries_at_the_timeout() {
        let dir = tempfile::tempdir().unwrap();
        database(dir.path(), &[]);
        let conn = connector(dir.path(), "w.duckdb", 300);
        let started = Instant::now();
        let endless = "SELECT count(*) FROM range(100000000) a, range(100000000) b WHERE a.range + b.range = -1";
        let err = conn.run(endless, 10).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
        assert!(err.to_string().contains("300 ms"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(20));
        // The interrupted query freed its connection.
        let ok = conn.run("SELECT 1 AS one", 1).await.unwrap();
        assert_eq!(ok.rows, vec![vec![json!(1)]]);
    }

    #[tokio::test]
    async fn duckdb_memory_is_bounded_and_a_query_over_it_fails_as_a_budget() {
        let dir = tempfile::tempdir().unwrap();
        database(
            dir.path(),
            &["CREATE TABLE t AS SELECT range AS id FROM range(10)"],
        );
        let setting = "SELECT value FROM duckdb_settings() WHERE name = 'memory_limit'";
        // Without a setting: 1 GiB, not DuckDB's 80% of the machine.
        let default = connector(dir.path(), "w.duckdb", 60_000);
        let row = default.run(setting, 1).await.unwrap();
        assert_eq!(row.rows, vec![vec![json!("1.0 GiB")]], "{row:?}");

        let mut limited = project(dir.path(), "w.duckdb", 60_000);
        limited
            .config
            .connections
            .get_mut("w")
            .unwrap()
            .memory_limit_mb = Some(128);
        let conn = Warehouses::for_project(&limited).get("w").unwrap().1;
        let row = conn.run(setting, 1).await.unwrap();
        assert_eq!(row.rows, vec![vec![json!("128.0 MiB")]], "{row:?}");
        // One 300 MiB string cannot fit in 128 MiB, and nothing may spill
        // beside the user's file.
        let hungry = "SELECT length(string_agg(repeat('x', 100) || i::VARCHAR, ',')) FROM range(3000000) t(i)";
        let err = conn.run(hungry, 1).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::BudgetExceeded, "{err}");
        assert!(err.to_string().contains("memory_limit_mb"), "{err}");
        let beside: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            beside,
            ["w.duckdb"],
            "no temporary files next to the database"
        );
        // The connection still answers queries that fit.
        let ok = conn.run("SELECT count(*) FROM t", 1).await.unwrap();
        assert_eq!(ok.rows, vec![vec![json!(10)]]);
        // The limit cannot be raised from SQL sent past the guard.
        let err = conn.run("SET memory_limit = '8GB'", 1).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ReadOnlyViolation, "{err}");
    }

    #[tokio::test]
    async fn duckdb_files_that_cannot_be_read_fail_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let missing = connector(dir.path(), "nowhere.duckdb", 5000);
        let err = missing.run("SELECT 1", 1).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
        assert!(err.to_string().contains("nowhere.duckdb"), "{err}");

        std::fs::write(
            dir.path().join("notes.duckdb"),
            "not a database\n".repeat(500),
        )
        .unwrap();
        let garbage = connector(dir.path(), "notes.duckdb", 5000);
        let err = garbage.run("SELECT 1", 1).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
        assert!(err.to_string().contains("notes.duckdb"), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("notes.duckdb")).unwrap(),
            "not a database\n".repeat(500),
            "the file was not touched"
        );
    }

    #[tokio::test]
    async fn duckdb_server_info_reports_version_and_a_read_only_database() {
        let dir = tempfile::tempdir().unwrap();
        database(dir.path(), &[]);
        let info = connector(dir.path(), "w.duckdb", 5000)
            .server_info()
            .await
            .unwrap();
        assert!(info.read_only, "{info:?}");
        assert!(info.version.starts_with("DuckDB "), "{info:?}");
    }

    /// Not a test: the writer `a_file_another_process_writes_is_retryable_not_broken`
    /// runs in a child process (this test binary, asked for this one
    /// ignored entry), holding the file open for writing until told to stop.
    #[test]
    #[ignore = "a helper the DuckDB writer test runs in a child process"]
    fn hold_the_file_for_writing() {
        let Ok(path) = std::env::var("LORE_DUCKDB_HOLD") else {
            return;
        };
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("INSERT INTO t VALUES (2)").unwrap();
        let stop = PathBuf::from(format!("{path}.stop"));
        std::fs::write(format!("{path}.held"), b"").unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !stop.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    #[tokio::test]
    async fn a_file_another_process_writes_is_retryable_not_broken() {
        let dir = tempfile::tempdir().unwrap();
        let path = database(
            dir.path(),
            &["CREATE TABLE t (id INTEGER)", "INSERT INTO t VALUES (1)"],
        );
        let mut writer = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "with_duckdb::hold_the_file_for_writing",
                "--ignored",
                "--nocapture",
            ])
            .env("LORE_DUCKDB_HOLD", &path)
            .spawn()
            .unwrap();
        let held = PathBuf::from(format!("{}.held", path.display()));
        for _ in 0..600 {
            if held.exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(held.exists(), "the writer started");
        let conn = connector(dir.path(), "w.duckdb", 5000);
        let err = conn.run("SELECT count(*) FROM t", 1).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::UpstreamError, "{err}");
        assert!(err.retryable(), "{err}");
        assert!(err.to_string().contains("another process"), "{err}");
        std::fs::write(format!("{}.stop", path.display()), b"").unwrap();
        assert!(writer.wait().unwrap().success());
        // Once the writer is done, the same connection reads its rows.
        let ok = conn.run("SELECT count(*) FROM t", 1).await.unwrap();
        assert_eq!(ok.rows, vec![vec![json!(2)]]);
    }
}
