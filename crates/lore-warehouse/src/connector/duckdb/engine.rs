//! DuckDB compiled in: the database opened read-only and locked down,
//! queries on per-query connections, interrupts, streaming fetch.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use duckdb::{AccessMode, Config, Connection, InterruptHandle};
use tokio::sync::Semaphore;

use super::value::{ColumnKind, to_json};
use super::{DEFAULT_MEMORY_LIMIT_MB, RELEASE_AFTER_IDLE};
use crate::connector::{Fetched, QueryResult, ResultBudget, RowLimit, ServerInfo};
use crate::error::WarehouseError;

/// Runs read-only queries against one DuckDB file.
pub struct DuckdbConnector {
    id: String,
    path: PathBuf,
    timeout: Duration,
    /// One permit per query running at once (`max_connections`).
    sessions: Arc<Semaphore>,
    database: Arc<Database>,
}

impl std::fmt::Debug for DuckdbConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DuckdbConnector")
            .field("id", &self.id)
            .field("path", &self.path)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The open database, shared by the queries running on it.
struct Database {
    state: Mutex<State>,
    /// Idle time after which the file is closed.
    release_after: Duration,
    /// DuckDB's `memory_limit`, in MiB.
    memory_limit_mb: u64,
}

struct State {
    /// A connection that keeps the database open between queries; `None`
    /// while the file is closed.
    root: Option<Connection>,
    /// Queries running now.
    in_use: usize,
    /// When the last query finished.
    last_used: Instant,
    /// Whether a task will close the file once it has been idle long enough.
    close_scheduled: bool,
}

impl Database {
    /// A closed database, opened by the first query.
    fn new(memory_limit_mb: u64) -> Database {
        Database {
            state: Mutex::new(State {
                root: None,
                in_use: 0,
                last_used: Instant::now(),
                close_scheduled: false,
            }),
            release_after: RELEASE_AFTER_IDLE,
            memory_limit_mb,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new connection for one query, opening the file when it is closed.
    fn connect(self: &Arc<Self>, id: &str, path: &Path) -> Result<Session, WarehouseError> {
        let mut state = self.lock();
        let session = match &state.root {
            Some(root) => root.try_clone(),
            None => {
                let root = open(id, path, self.memory_limit_mb)?;
                let session = root.try_clone();
                state.root = Some(root);
                session
            }
        }
        .map_err(upstream)?;
        state.in_use += 1;
        Ok(Session {
            conn: session,
            database: Arc::clone(self),
        })
    }

    /// A query finished: once nothing has run for `release_after`, the
    /// file is closed.
    fn release(self: &Arc<Self>) {
        let mut state = self.lock();
        state.in_use = state.in_use.saturating_sub(1);
        state.last_used = Instant::now();
        if state.in_use == 0
            && state.root.is_some()
            && !state.close_scheduled
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            state.close_scheduled = true;
            runtime.spawn(close_when_idle(Arc::clone(self)));
        }
    }
}

/// One query's connection; dropping it counts the query as finished.
struct Session {
    conn: Connection,
    database: Arc<Database>,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.database.release();
    }
}

/// Closes the file once no query has run for `release_after`; stops
/// early when a query runs (its end schedules the next close).
async fn close_when_idle(database: Arc<Database>) {
    let root = loop {
        let wait = database
            .release_after
            .saturating_sub(database.lock().last_used.elapsed());
        tokio::time::sleep(wait).await;
        let mut state = database.lock();
        if state.in_use > 0 {
            state.close_scheduled = false;
            return;
        }
        if state.last_used.elapsed() >= database.release_after {
            state.close_scheduled = false;
            break state.root.take();
        }
    };
    if let Some(root) = root {
        let _ = tokio::task::spawn_blocking(move || drop(root)).await;
    }
}

/// Opens the file read-only, without file or network access, extension
/// loading, or any setting a query could change afterwards. DuckDB's
/// memory is bounded by `memory_limit_mb` (its default is 80% of the
/// machine's RAM) and nothing spills to disk: DuckDB has no temporary
/// folder, which by default is `<file>.tmp` beside the user's file.
fn open(id: &str, path: &Path, memory_limit_mb: u64) -> Result<Connection, WarehouseError> {
    if !path.is_file() {
        return Err(WarehouseError::DatabaseMissing {
            id: id.to_string(),
            path: path.to_path_buf(),
        });
    }
    // No temporary folder (DuckDB's default is `<file>.tmp` beside the
    // database, where it would spill and keep an owner file); set before
    // external access is turned off, which forbids changing it.
    let config = Config::default()
        .with("temp_directory", "")
        .and_then(|c| c.access_mode(AccessMode::ReadOnly))
        .and_then(|c| c.enable_external_access(false))
        .and_then(|c| c.enable_autoload_extension(false))
        .and_then(|c| c.with("allow_community_extensions", "false"))
        .and_then(|c| c.max_memory(&format!("{memory_limit_mb}MiB")))
        .and_then(|c| c.with("lock_configuration", "true"))
        .map_err(upstream)?;
    Connection::open_with_flags(path, config).map_err(|e| {
        let message = e.to_string();
        if message.contains("Could not set lock on file") || message.contains("Conflicting lock") {
            WarehouseError::Upstream {
                message: format!(
                    "the DuckDB file {} is open for writing by another process (DuckDB lets one process write a file or several read it); retry when it is done",
                    path.display()
                ),
            }
        } else {
            WarehouseError::DatabaseUnreadable {
                id: id.to_string(),
                path: path.to_path_buf(),
                message: first_line(&message),
            }
        }
    })
}

impl DuckdbConnector {
    /// A connector for connection `id` over the file at `path`, running at
    /// most `max_sessions` queries at once.
    pub fn new(id: &str, path: PathBuf, timeout: Duration, max_sessions: usize) -> Self {
        DuckdbConnector {
            id: id.to_string(),
            path,
            timeout,
            sessions: Arc::new(Semaphore::new(max_sessions.max(1))),
            database: Arc::new(Database::new(DEFAULT_MEMORY_LIMIT_MB)),
        }
    }

    /// Bounds DuckDB's memory to `mb` MiB (default
    /// [`DEFAULT_MEMORY_LIMIT_MB`]); a query needing more fails with
    /// `budget_exceeded`.
    pub fn with_memory_limit(mut self, mb: u64) -> Self {
        self.database = Arc::new(Database::new(mb));
        self
    }

    /// The statement timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs `sql` (already checked by the guard, or written by Lore),
    /// fetching `max_rows + 1` rows to know whether the result is truncated.
    pub(crate) async fn run(
        &self,
        sql: &str,
        limit: RowLimit,
    ) -> Result<QueryResult, WarehouseError> {
        let _permit = self
            .sessions
            .acquire()
            .await
            .map_err(|_| WarehouseError::Upstream {
                message: "the connection is shutting down".to_string(),
            })?;
        let (database, id, path) = (
            Arc::clone(&self.database),
            self.id.clone(),
            self.path.clone(),
        );
        let session = tokio::task::spawn_blocking(move || database.connect(&id, &path))
            .await
            .map_err(task_failed)??;
        let mut interrupt_on_drop = InterruptOnDrop(Some(session.conn.interrupt_handle()));
        let sql = sql.to_string();
        let started = Instant::now();
        let mut task = tokio::task::spawn_blocking(move || fetch(&session.conn, &sql, limit));
        let joined = match tokio::time::timeout(self.timeout, &mut task).await {
            Ok(joined) => joined,
            Err(_elapsed) => {
                if let Some(handle) = interrupt_on_drop.0.take() {
                    handle.interrupt();
                }
                // Wait for the interrupted query to unwind.
                let _ = task.await;
                return Err(WarehouseError::Timeout {
                    timeout_ms: self.timeout.as_millis() as u64,
                });
            }
        };
        interrupt_on_drop.0 = None;
        let fetched = joined.map_err(task_failed)??;
        let elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(fetched.into_result(limit.rows, elapsed_ms))
    }

    /// The DuckDB version and whether the database is held read-only.
    pub(crate) async fn server_info(&self) -> Result<ServerInfo, WarehouseError> {
        let result = self
            .run(
                "SELECT library_version, \
                 (SELECT value FROM duckdb_settings() WHERE name = 'access_mode'), \
                 (SELECT value FROM duckdb_settings() WHERE name = 'enable_external_access') \
                 FROM pragma_version()",
                RowLimit::rows(1),
            )
            .await?;
        let row = result.rows.first();
        let cell = |i: usize| {
            row.and_then(|r| r.get(i))
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_ascii_lowercase()
        };
        let version = cell(0);
        Ok(ServerInfo {
            version: format!("DuckDB {}", version.trim_start_matches('v')),
            read_only: cell(1) == "read_only" && cell(2) == "false",
            encrypted: None,
        })
    }
}

impl Drop for DuckdbConnector {
    /// Closes the file at once (queries still running keep it open until
    /// they end).
    fn drop(&mut self) {
        let root = self.database.lock().root.take();
        drop(root);
    }
}

/// Interrupts the running query if the future is dropped before it
/// finishes (the MCP request was cancelled, the client went away).
struct InterruptOnDrop(Option<Arc<InterruptHandle>>);

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
    // Executed as a stream: chunks are produced as they are read, so the
    // query stops where the rows stop. The result stays in the statement,
    // where `raw_query` reads it row by row.
    let _ = stmt.stream_arrow([]).map_err(classify)?;
    let headers = stmt.column_names();
    let kinds: Vec<ColumnKind> = (0..headers.len())
        .map(|i| ColumnKind::of(&stmt.column_logical_type(i)))
        .collect();
    let header_types = Some(kinds.iter().map(|k| k.name.clone()).collect());
    let mut out = Vec::new();
    let mut rows = stmt.raw_query();
    while out.len() <= max_rows {
        let Some(row) = rows.next().map_err(classify)? else {
            break;
        };
        let mut values = Vec::with_capacity(kinds.len());
        for (index, kind) in kinds.iter().enumerate() {
            let value: duckdb::types::Value = row.get(index).map_err(classify)?;
            values.push(to_json(value, kind));
        }
        if !budget.admit(&mut values) {
            stopped = true;
            break;
        }
        out.push(values);
    }
    Ok(Fetched {
        headers,
        header_types,
        rows: out,
        cut_at_bytes: budget.cut_at(stopped),
    })
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or(message).trim().to_string()
}

fn upstream(e: duckdb::Error) -> WarehouseError {
    WarehouseError::Upstream {
        message: first_line(&e.to_string()),
    }
}

fn task_failed(e: tokio::task::JoinError) -> WarehouseError {
    WarehouseError::Upstream {
        message: format!("query task failed: {e}"),
    }
}

/// Maps DuckDB's errors (their text starts with the error class) to what
/// the caller should do about them.
fn classify(e: duckdb::Error) -> WarehouseError {
    let message = e.to_string();
    let class = message.split(" Error:").next().unwrap_or_default();
    if message.contains("read-only mode")
        || message.contains("the configuration has been locked")
        || class == "Permission"
    {
        return WarehouseError::RefusedByDatabase { message };
    }
    match class {
        // Timeouts are reported by `run`; any other interrupt means the
        // caller went away mid-query.
        "INTERRUPT" => WarehouseError::Upstream {
            message: "the query was interrupted before it finished".to_string(),
        },
        // DuckDB's own text names settings a query cannot change here.
        "Out of Memory" => WarehouseError::BudgetExceeded {
            message: "DuckDB needed more memory than the connection's memory_limit_mb, and Lore lets nothing spill to disk beside the file (raise memory_limit_mb in lore.yaml if the machine has room)".to_string(),
        },
        "IO" | "FATAL" | "Internal" | "Connection" => {
            WarehouseError::Upstream { message }
        }
        _ => WarehouseError::Query { message },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database(dir: &Path) -> PathBuf {
        let path = dir.join("t.duckdb");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t AS SELECT range AS id FROM range(5)")
            .unwrap();
        path
    }

    fn connector(path: PathBuf, release_after: Duration) -> DuckdbConnector {
        let mut connector = DuckdbConnector::new("t", path, Duration::from_secs(60), 2);
        Arc::get_mut(&mut connector.database).unwrap().release_after = release_after;
        connector
    }

    /// Waits (bounded) until the database's state satisfies `done`.
    async fn until(connector: &DuckdbConnector, done: impl Fn(&State) -> bool) -> bool {
        for _ in 0..600 {
            if done(&connector.database.lock()) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    #[tokio::test]
    async fn a_dropped_query_is_interrupted_and_its_connection_ends() {
        let dir = tempfile::tempdir().unwrap();
        let conn = connector(database(dir.path()), RELEASE_AFTER_IDLE);
        // Minutes of work unless interrupted.
        let endless =
            "SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1";
        let cut = tokio::time::timeout(
            Duration::from_millis(300),
            conn.run(endless, RowLimit::rows(1)),
        )
        .await;
        assert!(cut.is_err(), "the query was still running when dropped");
        assert!(
            until(&conn, |state| state.in_use == 0).await,
            "the interrupted query ended"
        );
        let ok = conn
            .run("SELECT count(*) FROM t", RowLimit::rows(1))
            .await
            .unwrap();
        assert_eq!(ok.rows, vec![vec![serde_json::json!(5)]]);
    }

    #[tokio::test]
    async fn the_file_is_closed_once_idle_and_reopened_on_the_next_query() {
        let dir = tempfile::tempdir().unwrap();
        let conn = connector(database(dir.path()), Duration::from_millis(100));
        conn.run("SELECT 1", RowLimit::rows(1)).await.unwrap();
        assert!(
            until(&conn, |state| state.root.is_none()).await,
            "closed after the idle time"
        );
        let again = conn
            .run("SELECT count(*) FROM t", RowLimit::rows(1))
            .await
            .unwrap();
        assert_eq!(again.rows, vec![vec![serde_json::json!(5)]]);
        assert!(conn.database.lock().root.is_some(), "open while in use");
    }
}
