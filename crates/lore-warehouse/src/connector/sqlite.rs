//! The SQLite connector.
//!
//! Every session is opened with `SQLITE_OPEN_READ_ONLY` and then told
//! `PRAGMA query_only = ON` and `PRAGMA trusted_schema = OFF`, so SQLite
//! itself refuses writes even if the guard were wrong. Each statement is also
//! asked `sqlite3_stmt_readonly()` before it runs: a third opinion, free.
//!
//! Queries run on the blocking pool. The statement timeout and the caller
//! dropping the future both interrupt the running statement through
//! SQLite's interrupt handle; an interrupted session is discarded rather
//! than reused.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rusqlite::{Connection, InterruptHandle, OpenFlags};

/// The largest string, blob or row an agent's query may build, in bytes.
const MAX_VALUE_BYTES: i32 = 16 * 1024 * 1024;

use super::pool::Pool;
use super::value::sqlite_to_json;
use super::{Fetched, QueryResult, ResultBudget, RowLimit, ServerInfo};
use crate::error::WarehouseError;

/// Runs read-only queries against one SQLite file.
#[derive(Debug)]
pub struct SqliteConnector {
    id: String,
    path: PathBuf,
    timeout: Duration,
    pool: Pool<Connection>,
}

impl SqliteConnector {
    /// A connector for connection `id` over the file at `path`, with at most
    /// `max_sessions` sessions open at once.
    pub fn new(id: &str, path: PathBuf, timeout: Duration, max_sessions: usize) -> SqliteConnector {
        disable_memory_statistics();
        SqliteConnector {
            id: id.to_string(),
            path,
            timeout,
            pool: Pool::new(max_sessions),
        }
    }

    /// The statement timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Opens a new read-only session.
    pub fn open_session(&self) -> Result<Connection, WarehouseError> {
        if !self.path.is_file() {
            return Err(WarehouseError::DatabaseMissing {
                id: self.id.clone(),
                path: self.path.clone(),
            });
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&self.path, flags).map_err(upstream)?;
        conn.execute_batch("PRAGMA query_only = ON; PRAGMA trusted_schema = OFF;")
            .map_err(upstream)?;
        // No value larger than this is ever built (`zeroblob(600000000)`,
        // `printf('%.*c', 1e9, 'x')` fail with "string or blob too big"
        // instead of taking the memory).
        conn.set_limit(
            rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH,
            MAX_VALUE_BYTES,
        )
        .map_err(upstream)?;
        Ok(conn)
    }

    /// Runs `sql` (already checked by the guard, or written by Lore),
    /// fetching `max_rows + 1` rows to know whether the result is truncated.
    pub(crate) async fn run(
        &self,
        sql: &str,
        limit: RowLimit,
    ) -> Result<QueryResult, WarehouseError> {
        let max_rows = limit.rows;
        let mut lease = self.pool.acquire(|| async { self.open_session() }).await?;
        let conn = lease.take();
        let sql = sql.to_string();
        let mut interrupt_on_drop = InterruptOnDrop(Some(conn.get_interrupt_handle()));
        let started = Instant::now();
        let mut task = tokio::task::spawn_blocking(move || {
            let outcome = fetch(&conn, &sql, limit);
            (conn, outcome)
        });
        let joined = match tokio::time::timeout(self.timeout, &mut task).await {
            Ok(joined) => joined,
            Err(_elapsed) => {
                if let Some(handle) = interrupt_on_drop.0.take() {
                    handle.interrupt();
                }
                // Wait for the interrupted statement to unwind; the session
                // is dropped, never reused.
                let _ = task.await;
                return Err(WarehouseError::Timeout {
                    timeout_ms: self.timeout.as_millis() as u64,
                });
            }
        };
        interrupt_on_drop.0 = None;
        let (conn, outcome) = joined.map_err(|e| WarehouseError::Upstream {
            message: format!("query task failed: {e}"),
        })?;
        // The session stays healthy after a query error (no such table, …),
        // so it goes back to the pool either way.
        lease.restore(conn);
        lease.release();
        let fetched = outcome?;
        let elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(fetched.into_result(max_rows, elapsed_ms))
    }

    /// The SQLite version and whether sessions are held read-only.
    pub(crate) async fn server_info(&self) -> Result<ServerInfo, WarehouseError> {
        let result = self
            .run(
                "SELECT sqlite_version(), (SELECT query_only FROM pragma_query_only)",
                RowLimit::rows(1),
            )
            .await?;
        let row = result.rows.first();
        Ok(ServerInfo {
            version: row
                .and_then(|r| r[0].as_str())
                .map(|v| format!("SQLite {v}"))
                .unwrap_or_else(|| "SQLite".to_string()),
            read_only: row.and_then(|r| r[1].as_i64()) == Some(1),
            encrypted: None,
        })
    }
}

/// Turns off SQLite's memory statistics, which take a global mutex on
/// every allocation and serialise concurrent sessions (profiling a scan
/// runs several). Only possible before SQLite initialises; later calls are
/// refused by SQLite and change nothing.
fn disable_memory_statistics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: sqlite3_config is called with an option and an int, as
        // documented; SQLite refuses it (SQLITE_MISUSE) once initialised.
        unsafe {
            rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS,
                0 as std::ffi::c_int,
            );
        }
    });
}

/// Interrupts the running statement if the query future is dropped before
/// it finishes (the MCP request was cancelled, the client went away).
struct InterruptOnDrop(Option<InterruptHandle>);

impl Drop for InterruptOnDrop {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            handle.interrupt();
        }
    }
}

fn fetch(conn: &Connection, sql: &str, limit: RowLimit) -> Result<Fetched, WarehouseError> {
    let max_rows = limit.rows;
    let mut budget = ResultBudget::new(limit);
    let mut stopped = false;
    let mut stmt = conn.prepare(sql).map_err(classify)?;
    if !stmt.readonly() {
        return Err(WarehouseError::RefusedByDatabase {
            message: "SQLite reports that this statement would write".to_string(),
        });
    }
    let headers: Vec<String> = stmt.column_names().map(str::to_string).collect();
    let decl_types: Vec<Option<String>> = stmt
        .columns()
        .map(|c| c.decl_type().map(str::to_string))
        .collect();
    let width = headers.len();
    let mut storage_types: Vec<Option<&'static str>> = vec![None; width];
    let mut rows = Vec::new();
    let mut cursor = stmt.query([]).map_err(classify)?;
    while rows.len() <= max_rows {
        let Some(row) = cursor.next().map_err(classify)? else {
            break;
        };
        let mut values = Vec::with_capacity(width);
        for (index, seen) in storage_types.iter_mut().enumerate() {
            let value = row.get_ref(index).map_err(classify)?;
            if seen.is_none() {
                *seen = storage_class(value);
            }
            values.push(sqlite_to_json(value));
        }
        if !budget.admit(&mut values) {
            stopped = true;
            break;
        }
        rows.push(values);
    }
    // A declared type when the column comes straight from a table, else
    // the storage class seen in the data; omitted when neither is known.
    let header_types = decl_types
        .into_iter()
        .zip(storage_types)
        .map(|(declared, seen)| declared.or(seen.map(str::to_string)))
        .collect::<Option<Vec<_>>>();
    Ok(Fetched {
        headers,
        header_types,
        rows,
        cut_at_bytes: budget.cut_at(stopped),
    })
}

fn storage_class(value: rusqlite::types::ValueRef<'_>) -> Option<&'static str> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(_) => Some("INTEGER"),
        ValueRef::Real(_) => Some("REAL"),
        ValueRef::Text(_) => Some("TEXT"),
        ValueRef::Blob(_) => Some("BLOB"),
    }
}

fn upstream(e: rusqlite::Error) -> WarehouseError {
    WarehouseError::Upstream {
        message: e.to_string(),
    }
}

/// Maps SQLite errors to what the caller should do about them.
fn classify(e: rusqlite::Error) -> WarehouseError {
    use rusqlite::ErrorCode as Sqlite;
    match e.sqlite_error_code() {
        Some(Sqlite::ReadOnly) => WarehouseError::RefusedByDatabase {
            message: e.to_string(),
        },
        // Timeouts are reported by `run`; any other interrupt means the
        // caller went away mid-query.
        Some(Sqlite::OperationInterrupted) => WarehouseError::Upstream {
            message: "the query was interrupted before it finished".to_string(),
        },
        Some(
            Sqlite::DatabaseBusy
            | Sqlite::DatabaseLocked
            | Sqlite::SystemIoFailure
            | Sqlite::OutOfMemory,
        ) => upstream(e),
        Some(Sqlite::AuthorizationForStatementDenied) => WarehouseError::RefusedByDatabase {
            message: e.to_string(),
        },
        Some(Sqlite::TooBig) => WarehouseError::Query {
            message: format!(
                "a value in the result would be larger than {} MiB (SQLite: {e}); select part of it (substr) or its length instead",
                MAX_VALUE_BYTES / (1024 * 1024)
            ),
        },
        _ => WarehouseError::Query {
            message: e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database(rows: i64) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, data BLOB, big INTEGER);",
        )
        .unwrap();
        for i in 0..rows {
            conn.execute(
                "INSERT INTO t (id, name, data, big) VALUES (?1, ?2, x'00ff', 9007199254740993)",
                rusqlite::params![i, format!("n{i}")],
            )
            .unwrap();
        }
        (dir, path)
    }

    fn connector(path: PathBuf, timeout_ms: u64) -> SqliteConnector {
        SqliteConnector::new("t", path, Duration::from_millis(timeout_ms), 4)
    }

    #[test]
    fn the_session_itself_refuses_writes_that_bypass_the_guard() {
        let (_dir, path) = database(3);
        let session = connector(path.clone(), 1000).open_session().unwrap();
        // No guard here: the statements go straight to SQLite.
        for write in [
            "DELETE FROM t",
            "INSERT INTO t (id) VALUES (99)",
            "CREATE TABLE evil (x)",
            "PRAGMA user_version = 7",
        ] {
            let err = session.execute_batch(write).unwrap_err();
            assert_eq!(
                err.sqlite_error_code(),
                Some(rusqlite::ErrorCode::ReadOnly),
                "{write}: {err}"
            );
        }
        let count: i64 = Connection::open(&path)
            .unwrap()
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(count, 3, "no row may be lost");
    }

    #[test]
    fn query_only_cannot_be_switched_off_through_the_guardless_path() {
        let (_dir, path) = database(1);
        let session = connector(path, 1000).open_session().unwrap();
        // Even with query_only turned off, the file is opened read-only.
        session.execute_batch("PRAGMA query_only = OFF").unwrap();
        let err = session.execute_batch("DELETE FROM t").unwrap_err();
        assert_eq!(err.sqlite_error_code(), Some(rusqlite::ErrorCode::ReadOnly));
    }

    #[tokio::test]
    async fn result_is_capped_and_says_truncated_only_when_more_rows_exist() {
        let (_dir, path) = database(5);
        let conn = connector(path, 1000);
        let capped = conn
            .run("SELECT id FROM t ORDER BY id", RowLimit::rows(3))
            .await
            .unwrap();
        assert_eq!(capped.rows.len(), 3);
        assert!(capped.truncated);
        let exact = conn
            .run("SELECT id FROM t", RowLimit::rows(5))
            .await
            .unwrap();
        assert_eq!(exact.rows.len(), 5);
        assert!(!exact.truncated);
    }

    #[tokio::test]
    async fn values_map_to_json_without_loss_and_types_are_reported() {
        let (_dir, path) = database(1);
        let result = connector(path.clone(), 1000)
            .run(
                "SELECT id, name, data, big, 1.5 AS r, NULL AS empty FROM t",
                RowLimit::rows(10),
            )
            .await
            .unwrap();
        assert_eq!(result.headers, ["id", "name", "data", "big", "r", "empty"]);
        assert_eq!(
            result.rows[0],
            serde_json::json!([0, "n0", {"$base64": "AP8="}, "9007199254740993", 1.5, null])
                .as_array()
                .unwrap()
                .clone()
        );
        // `empty` has neither a declared type nor a value: types are omitted.
        assert_eq!(result.header_types, None);
        let typed = connector(path, 1000)
            .run("SELECT id, name, 1.5 AS r FROM t", RowLimit::rows(10))
            .await
            .unwrap();
        assert_eq!(
            typed.header_types,
            Some(vec!["INTEGER".into(), "TEXT".into(), "REAL".into()])
        );
    }

    #[tokio::test]
    async fn a_runaway_query_is_interrupted_at_the_timeout() {
        let (_dir, path) = database(1);
        let conn = connector(path, 200);
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
        let err = conn.run(endless, RowLimit::rows(10)).await.unwrap_err();
        assert!(
            matches!(err, WarehouseError::Timeout { timeout_ms: 200 }),
            "{err}"
        );
        // The connector keeps working after an interrupted query.
        let ok = conn.run("SELECT 1", RowLimit::rows(10)).await.unwrap();
        assert_eq!(ok.rows, vec![vec![serde_json::json!(1)]]);
    }

    #[tokio::test]
    async fn a_missing_file_is_a_config_error_naming_the_path() {
        let conn = connector(PathBuf::from("/nonexistent/w.db"), 1000);
        let err = conn.run("SELECT 1", RowLimit::rows(1)).await.unwrap_err();
        assert!(err.to_string().contains("/nonexistent/w.db"), "{err}");
    }

    #[tokio::test]
    async fn a_query_error_keeps_the_session_for_reuse() {
        let (_dir, path) = database(1);
        let conn = connector(path, 1000);
        conn.run("SELECT 1", RowLimit::rows(1)).await.unwrap();
        conn.run("SELECT * FROM nope", RowLimit::rows(1))
            .await
            .unwrap_err();
        assert_eq!(
            conn.pool.idle_count(),
            1,
            "the session went back to the pool"
        );
    }

    #[tokio::test]
    async fn unknown_tables_are_reported_as_the_database_says() {
        let (_dir, path) = database(1);
        let err = connector(path, 1000)
            .run("SELECT * FROM nope", RowLimit::rows(1))
            .await
            .unwrap_err();
        assert!(matches!(err, WarehouseError::Query { .. }));
        assert!(err.to_string().contains("no such table: nope"), "{err}");
    }
}
