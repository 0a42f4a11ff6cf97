//! Connectors: how Lore talks to each kind of database.
//!
//! Every connector does the same three things the same way: it opens
//! sessions the database itself holds read-only (the second wall behind the
//! guard), keeps at most a few of them in a bounded [`pool`], and runs one
//! statement at a time with a row cap and a statement timeout that really
//! stops the query on the server. Values come back as lossless JSON
//! ([`value`]), whatever the driver.
//!
//! [`Connector::run`] does not pass SQL through the guard: callers do
//! (`Warehouses::prepare` for agents' SQL), or write the SQL themselves with
//! quoted identifiers (introspection, profiles, relationship checks).

pub mod bigquery;
mod clickhouse;
pub mod duckdb;
mod mysql;
mod pool;
mod postgres;
mod reach;
mod snowflake;
mod sqlite;
pub mod value;

/// TLS settings and verification, shared with the knowledge store.
pub(crate) use lore_tls as tls;

use std::time::Duration;

use lore_core::config::{ConnectionConfig, Driver};
use lore_core::project::Project;
use serde::Serialize;

pub use self::duckdb::DuckdbConnector;
pub use bigquery::BigqueryConnector;
pub use clickhouse::ClickhouseConnector;
pub use mysql::MysqlConnector;
pub use postgres::PostgresConnector;
pub use snowflake::SnowflakeConnector;
pub use sqlite::SqliteConnector;

use crate::dialect::SqlDialect;
use crate::error::WarehouseError;

/// The outcome of one read-only query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryResult {
    /// Column names, in order.
    pub headers: Vec<String>,
    /// Driver type names, one per header, when the connector knows them.
    pub header_types: Option<Vec<String>>,
    /// Rows of JSON values, at most `max_rows`.
    pub rows: Vec<Vec<serde_json::Value>>,
    /// Whether the query had more rows than were returned.
    pub truncated: bool,
    /// When the rows stopped at the byte budget rather than at the row
    /// cap: the budget, in bytes of JSON.
    pub cut_at_bytes: Option<usize>,
    /// Wall time of execution and fetch, in milliseconds.
    pub elapsed_ms: u64,
    /// Bytes the warehouse processed (BigQuery), when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_processed: Option<u64>,
}

/// The most rows one query may return.
pub const MAX_ROWS_LIMIT: usize = 10_000;

impl QueryResult {
    /// Why the rows stopped and how to get the rest, when they were cut;
    /// `max_rows` is the row cap the query ran with.
    pub fn truncation_notice(&self, max_rows: usize) -> Option<String> {
        if let Some(bytes) = self.cut_at_bytes {
            return Some(format!(
                "Only the first {} rows are shown: the result reached its size limit of {} KiB of JSON (limits.result_bytes in lore.yaml). Select fewer or narrower columns, aggregate, or page through it with ORDER BY a key and WHERE key > the last one shown.",
                self.rows.len(),
                bytes / 1024
            ));
        }
        self.truncated.then(|| {
            format!(
                "Only the first {max_rows} rows are shown. Aggregate, filter or add ORDER BY … LIMIT to see what matters{}.",
                if max_rows < MAX_ROWS_LIMIT {
                    format!(
                        ", or raise maxRows (up to {})",
                        MAX_ROWS_LIMIT
                    )
                } else {
                    String::new()
                }
            )
        })
    }
}

/// Rows as a connector fetched them: at most `max_rows + 1`, so cutting
/// them to `max_rows` tells honestly whether more existed.
pub(crate) struct Fetched {
    pub headers: Vec<String>,
    pub header_types: Option<Vec<String>>,
    pub rows: Vec<Vec<serde_json::Value>>,
    /// The rows stopped at this byte budget (more rows existed).
    pub cut_at_bytes: Option<usize>,
}

impl Fetched {
    /// The result, cut at `max_rows`.
    pub(crate) fn into_result(mut self, max_rows: usize, elapsed_ms: u64) -> QueryResult {
        let truncated = self.rows.len() > max_rows || self.cut_at_bytes.is_some();
        self.rows.truncate(max_rows);
        QueryResult {
            headers: self.headers,
            header_types: self.header_types,
            rows: self.rows,
            truncated,
            cut_at_bytes: self.cut_at_bytes,
            elapsed_ms,
            bytes_processed: None,
        }
    }

    /// Whether the fetch read the result to its end.
    pub(crate) fn complete(&self, max_rows: usize) -> bool {
        self.rows.len() <= max_rows && self.cut_at_bytes.is_none()
    }
}

/// How much of a result to fetch: rows, and optionally bytes of JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowLimit {
    /// Most rows returned (one more is fetched to tell whether more exist).
    pub rows: usize,
    /// Most bytes of JSON the rows may take (`None`: Lore's own queries).
    pub bytes: Option<usize>,
}

impl RowLimit {
    /// `rows` rows, no byte budget.
    pub fn rows(rows: usize) -> RowLimit {
        RowLimit { rows, bytes: None }
    }
}

/// Counts the JSON bytes of rows as they stream in: a value over an eighth
/// of the budget is cut to a marker, and the first row that does not fit
/// ends the result. Memory stays near the budget whatever the query
/// returns.
pub(crate) struct ResultBudget {
    limit: Option<usize>,
    used: usize,
}

/// A value cut because it is larger than a result may carry.
const CUT_MARKER: &str = "$truncated";

impl ResultBudget {
    pub(crate) fn new(limit: RowLimit) -> ResultBudget {
        ResultBudget {
            limit: limit.bytes,
            used: 0,
        }
    }

    /// Cuts the oversized values of `row` and counts it; `false` when it
    /// does not fit (the result ends before it).
    pub(crate) fn admit(&mut self, row: &mut [serde_json::Value]) -> bool {
        let Some(limit) = self.limit else {
            return true;
        };
        let cell_limit = (limit / 8).max(1024);
        let mut size = 2;
        for value in row.iter_mut() {
            let mut bytes = lore_core::limits::json_bytes(value);
            if bytes > cell_limit {
                *value = cut(value, bytes);
                bytes = lore_core::limits::json_bytes(value);
            }
            size += bytes + 1;
        }
        if self.used + size > limit {
            return false;
        }
        self.used += size;
        true
    }

    /// The budget, when the result stopped at it.
    pub(crate) fn cut_at(&self, stopped: bool) -> Option<usize> {
        stopped.then_some(self.limit).flatten()
    }
}

/// The marker an oversized value is replaced by: its size and the start
/// of its text.
fn cut(value: &serde_json::Value, bytes: usize) -> serde_json::Value {
    let text = match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let preview: String = text.chars().take(200).collect();
    serde_json::json!({CUT_MARKER: {"bytes": bytes, "preview": preview}})
}

/// What a connection test learns about the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerInfo {
    /// Product and version, e.g. `PostgreSQL 15.19`.
    pub version: String,
    /// Whether Lore's sessions are held read-only by the database itself.
    pub read_only: bool,
    /// Whether the session is encrypted (TLS); `None` when that does not
    /// apply (an embedded file) or the server does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<bool>,
}

/// A connection's way of running queries, one variant per driver.
#[derive(Debug)]
pub enum Connector {
    /// An embedded SQLite file.
    Sqlite(SqliteConnector),
    /// A PostgreSQL server.
    Postgres(PostgresConnector),
    /// A MySQL or MariaDB server.
    Mysql(MysqlConnector),
    /// A ClickHouse server (HTTP interface).
    Clickhouse(ClickhouseConnector),
    /// A Snowflake account.
    Snowflake(SnowflakeConnector),
    /// A Google BigQuery project.
    Bigquery(BigqueryConnector),
    /// An embedded DuckDB file.
    Duckdb(DuckdbConnector),
}

impl Connector {
    /// The connector for connection `id` of `project`. Nothing is opened
    /// and no secret is resolved until the first query.
    pub fn for_connection(id: &str, config: &ConnectionConfig, project: &Project) -> Connector {
        let timeout = Duration::from_millis(config.statement_timeout_ms());
        let sessions = config.max_connections() as usize;
        let url = || {
            config
                .url
                .clone()
                .unwrap_or_else(|| lore_core::config::Secret::new(""))
        };
        match config.driver {
            Driver::Sqlite => Connector::Sqlite(SqliteConnector::new(
                id,
                project.resolve_path(config.path.as_deref().unwrap_or_default()),
                timeout,
                sessions,
            )),
            Driver::Postgres => Connector::Postgres(PostgresConnector::new(
                id,
                url(),
                project.root.clone(),
                timeout,
                sessions,
            )),
            Driver::Mysql => Connector::Mysql(MysqlConnector::new(
                id,
                url(),
                project.root.clone(),
                timeout,
                sessions,
            )),
            Driver::Duckdb => Connector::Duckdb(
                DuckdbConnector::new(
                    id,
                    project.resolve_path(config.path.as_deref().unwrap_or_default()),
                    timeout,
                    sessions,
                )
                .with_memory_limit(
                    config
                        .memory_limit_mb
                        .map_or(self::duckdb::DEFAULT_MEMORY_LIMIT_MB, u64::from),
                ),
            ),
            Driver::Clickhouse => Connector::Clickhouse(ClickhouseConnector::new(
                id,
                url(),
                project.root.clone(),
                timeout,
                sessions,
            )),
            Driver::Snowflake => Connector::Snowflake(SnowflakeConnector::new(
                id,
                url(),
                config.private_key.clone(),
                project.root.clone(),
                timeout,
                sessions,
            )),
            Driver::Bigquery => Connector::Bigquery(BigqueryConnector::new(
                id,
                url(),
                config.credentials.clone(),
                project.root.clone(),
                timeout,
                sessions,
            )),
        }
    }

    /// The SQL dialect of this connection.
    pub fn dialect(&self) -> SqlDialect {
        match self {
            Connector::Sqlite(_) => SqlDialect::Sqlite,
            Connector::Postgres(_) => SqlDialect::Postgres,
            Connector::Mysql(_) => SqlDialect::Mysql,
            Connector::Clickhouse(_) => SqlDialect::Clickhouse,
            Connector::Snowflake(_) => SqlDialect::Snowflake,
            Connector::Bigquery(_) => SqlDialect::Bigquery,
            Connector::Duckdb(_) => SqlDialect::Duckdb,
        }
    }

    /// The statement timeout.
    pub fn timeout(&self) -> Duration {
        match self {
            Connector::Sqlite(c) => c.timeout(),
            Connector::Postgres(c) => c.timeout(),
            Connector::Mysql(c) => c.timeout(),
            Connector::Clickhouse(c) => c.timeout(),
            Connector::Snowflake(c) => c.timeout(),
            Connector::Bigquery(c) => c.timeout(),
            Connector::Duckdb(c) => c.timeout(),
        }
    }

    /// Whether the engine can hold a session read-only at all. Snowflake
    /// cannot: there the read-only guard is the gate (and a role that may
    /// only read), which `lore connection test` says instead of failing.
    pub fn has_read_only_sessions(&self) -> bool {
        !matches!(self, Connector::Snowflake(_))
    }

    /// Runs one statement in a read-only session, returning at most
    /// `max_rows` rows (`truncated` says whether more existed). The SQL is
    /// not guarded here: see the module documentation. Dropping the future
    /// stops the statement.
    pub async fn run(&self, sql: &str, max_rows: usize) -> Result<QueryResult, WarehouseError> {
        self.run_within(sql, RowLimit::rows(max_rows)).await
    }

    /// [`run`](Connector::run) within a row and byte limit.
    pub async fn run_within(
        &self,
        sql: &str,
        limit: RowLimit,
    ) -> Result<QueryResult, WarehouseError> {
        match self {
            Connector::Sqlite(c) => c.run(sql, limit).await,
            Connector::Postgres(c) => c.run(sql, limit).await,
            Connector::Mysql(c) => c.run(sql, limit).await,
            Connector::Clickhouse(c) => c.run(sql, limit).await,
            Connector::Snowflake(c) => c.run(sql, limit).await,
            Connector::Bigquery(c) => c.run(sql, limit).await,
            Connector::Duckdb(c) => c.run(sql, limit).await,
        }
    }

    /// Connects and reports the server version and whether sessions are
    /// read-only.
    pub async fn server_info(&self) -> Result<ServerInfo, WarehouseError> {
        match self {
            Connector::Sqlite(c) => c.server_info().await,
            Connector::Postgres(c) => c.server_info().await,
            Connector::Mysql(c) => c.server_info().await,
            Connector::Clickhouse(c) => c.server_info().await,
            Connector::Snowflake(c) => c.server_info().await,
            Connector::Bigquery(c) => c.server_info().await,
            Connector::Duckdb(c) => c.server_info().await,
        }
    }
}
