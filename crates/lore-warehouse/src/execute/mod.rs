//! Running guarded SQL against configured connections.
//!
//! A query goes through two steps so that callers can report progress
//! between them: [`Warehouses::prepare`] finds the connection and passes the
//! SQL through the guard, then [`PreparedQuery::run`] executes it in a
//! read-only session with a row cap and a statement timeout.
//!
//! Results are capped honestly: `max_rows + 1` rows are fetched, so
//! `truncated` is true only when more rows really exist.

mod sqlite;
mod value;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use lore_core::config::{ConfigError, ConnectionConfig, Driver};
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::project::Project;
use serde::Serialize;

use crate::guard::{GuardError, SqlDialect, check_read_only};
pub use sqlite::SqliteConnector;
pub use value::{BLOB_MARKER, MAX_SAFE_INTEGER};

/// Rows returned when the caller does not say.
pub const DEFAULT_MAX_ROWS: usize = 1000;
/// The most rows one query may return.
pub const MAX_ROWS_LIMIT: usize = 10_000;

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
    /// Wall time of execution and fetch, in milliseconds.
    pub elapsed_ms: u64,
}

/// A configured connection as agents see it (never with secrets).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConnectionInfo {
    /// Connection id, as passed in `connectionId`.
    pub id: String,
    /// Driver name (`sqlite`, `postgres`, `mysql`).
    pub driver: Driver,
    /// SQL dialect queries are parsed in.
    pub dialect: &'static str,
    /// What the connection holds, from `lore.yaml`.
    pub description: Option<String>,
    /// Statement timeout in milliseconds.
    pub statement_timeout_ms: u64,
    /// Whether this build can run queries on it.
    pub queryable: bool,
}

/// Why a query could not run.
#[derive(Debug, thiserror::Error)]
pub enum WarehouseError {
    /// No connection has that id.
    #[error("no connection `{id}`; configured connections: {}", if known.is_empty() { "none (add one to lore.yaml)".to_string() } else { known.join(", ") })]
    UnknownConnection {
        /// The id asked for.
        id: String,
        /// The ids that exist.
        known: Vec<String>,
    },
    /// The guard refused the SQL.
    #[error(transparent)]
    Guard(#[from] GuardError),
    /// The database itself refused a write (the read-only session held).
    #[error("the database refused to write (the session is read-only): {message}")]
    RefusedByDatabase {
        /// The database's message.
        message: String,
    },
    /// The database rejected the SQL (unknown table or column, type error…).
    #[error("the database rejected the query: {message}")]
    Query {
        /// The database's message.
        message: String,
    },
    /// The statement ran past its timeout and was interrupted.
    #[error(
        "the query ran longer than {timeout_ms} ms and was interrupted; narrow it (filters, LIMIT, aggregates) or raise statement_timeout_ms in lore.yaml"
    )]
    Timeout {
        /// The limit that was hit.
        timeout_ms: u64,
    },
    /// A configuration problem (missing secret, bad path).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The SQLite file named in `lore.yaml` does not exist.
    #[error("the database file {} of connection `{id}` does not exist; check `path` in lore.yaml", path.display())]
    DatabaseMissing {
        /// Connection id.
        id: String,
        /// The missing file.
        path: std::path::PathBuf,
    },
    /// The driver is configured but this build cannot query it yet.
    #[error(
        "connection `{id}` uses the {driver} driver, which this build of Lore cannot query yet; only sqlite connections run queries"
    )]
    UnsupportedDriver {
        /// Connection id.
        id: String,
        /// Driver name.
        driver: &'static str,
    },
    /// The request itself is out of range.
    #[error("{message}")]
    InvalidRequest {
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The database failed for a reason that may pass (busy, I/O).
    #[error("the database failed: {message}")]
    Upstream {
        /// The database's message.
        message: String,
    },
}

impl HasErrorCode for WarehouseError {
    fn code(&self) -> ErrorCode {
        match self {
            WarehouseError::UnknownConnection { .. } => ErrorCode::NotFound,
            WarehouseError::Guard(e) => e.code(),
            WarehouseError::RefusedByDatabase { .. } => ErrorCode::ReadOnlyViolation,
            WarehouseError::Query { .. } => ErrorCode::InvalidSql,
            WarehouseError::Timeout { .. } => ErrorCode::Timeout,
            WarehouseError::Config(_) | WarehouseError::DatabaseMissing { .. } => {
                ErrorCode::ConfigError
            }
            WarehouseError::UnsupportedDriver { .. } => ErrorCode::UnsupportedOperation,
            WarehouseError::InvalidRequest { .. } => ErrorCode::InvalidRequest,
            WarehouseError::Upstream { .. } => ErrorCode::UpstreamError,
        }
    }
}

/// How a connection runs queries.
#[derive(Debug)]
enum Connector {
    Sqlite(Arc<SqliteConnector>),
    Unsupported,
}

#[derive(Debug)]
struct Connection {
    config: ConnectionConfig,
    connector: Connector,
}

/// Every connection of a project, ready to run read-only queries.
#[derive(Debug)]
pub struct Warehouses {
    project_root: std::path::PathBuf,
    connections: BTreeMap<String, Connection>,
}

impl Warehouses {
    /// Builds connectors for every connection of `project`. Nothing is
    /// opened until the first query, so a broken connection does not stop
    /// the rest.
    pub fn for_project(project: &Project) -> Warehouses {
        let connections = project
            .config
            .connections
            .iter()
            .map(|(id, conn)| {
                let connector = match conn.driver {
                    Driver::Sqlite => Connector::Sqlite(Arc::new(SqliteConnector::new(
                        id,
                        project.resolve_path(conn.path.as_deref().unwrap_or_default()),
                        Duration::from_millis(conn.statement_timeout_ms()),
                    ))),
                    Driver::Postgres | Driver::Mysql => Connector::Unsupported,
                };
                (
                    id.clone(),
                    Connection {
                        config: conn.clone(),
                        connector,
                    },
                )
            })
            .collect();
        Warehouses {
            project_root: project.root.clone(),
            connections,
        }
    }

    /// The configured connections, sorted by id.
    pub fn list(&self) -> Vec<ConnectionInfo> {
        self.connections
            .iter()
            .map(|(id, conn)| ConnectionInfo {
                id: id.clone(),
                driver: conn.config.driver,
                dialect: SqlDialect::from(conn.config.driver).as_str(),
                description: conn.config.description.clone(),
                statement_timeout_ms: conn.config.statement_timeout_ms(),
                queryable: !matches!(conn.connector, Connector::Unsupported),
            })
            .collect()
    }

    /// Finds the connection and checks the SQL with the read-only guard in
    /// the connection's dialect.
    pub fn prepare(&self, connection_id: &str, sql: &str) -> Result<PreparedQuery, WarehouseError> {
        let conn = self.connections.get(connection_id).ok_or_else(|| {
            WarehouseError::UnknownConnection {
                id: connection_id.to_string(),
                known: self.connections.keys().cloned().collect(),
            }
        })?;
        check_read_only(sql, SqlDialect::from(conn.config.driver))?;
        match &conn.connector {
            Connector::Sqlite(connector) => Ok(PreparedQuery {
                connector: Arc::clone(connector),
                sql: sql.to_string(),
            }),
            Connector::Unsupported => {
                // Configuration mistakes are reported before missing support.
                conn.config
                    .resolved_url(connection_id, &self.project_root)?;
                Err(WarehouseError::UnsupportedDriver {
                    id: connection_id.to_string(),
                    driver: conn.config.driver.as_str(),
                })
            }
        }
    }
}

/// SQL that passed the guard, bound to its connection.
#[derive(Debug)]
pub struct PreparedQuery {
    connector: Arc<SqliteConnector>,
    sql: String,
}

impl PreparedQuery {
    /// Runs the query, returning at most `max_rows` rows (1 to
    /// [`MAX_ROWS_LIMIT`]). Dropping the future interrupts the query.
    pub async fn run(self, max_rows: usize) -> Result<QueryResult, WarehouseError> {
        if !(1..=MAX_ROWS_LIMIT).contains(&max_rows) {
            return Err(WarehouseError::InvalidRequest {
                message: format!("maxRows must be between 1 and {MAX_ROWS_LIMIT}, got {max_rows}"),
            });
        }
        self.connector.run(self.sql, max_rows).await
    }
}
