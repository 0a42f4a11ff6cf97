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

mod mysql;
mod pool;
mod postgres;
mod sqlite;
mod tls;
pub mod value;

use std::time::Duration;

use lore_core::config::{ConnectionConfig, Driver};
use lore_core::project::Project;
use serde::Serialize;

pub use mysql::MysqlConnector;
pub use postgres::PostgresConnector;
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
    /// Wall time of execution and fetch, in milliseconds.
    pub elapsed_ms: u64,
}

/// Rows as a connector fetched them: at most `max_rows + 1`, so cutting
/// them to `max_rows` tells honestly whether more existed.
pub(crate) struct Fetched {
    pub headers: Vec<String>,
    pub header_types: Option<Vec<String>>,
    pub rows: Vec<Vec<serde_json::Value>>,
}

impl Fetched {
    /// The result, cut at `max_rows`.
    pub(crate) fn into_result(mut self, max_rows: usize, elapsed_ms: u64) -> QueryResult {
        let truncated = self.rows.len() > max_rows;
        self.rows.truncate(max_rows);
        QueryResult {
            headers: self.headers,
            header_types: self.header_types,
            rows: self.rows,
            truncated,
            elapsed_ms,
        }
    }
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
        }
    }

    /// The SQL dialect of this connection.
    pub fn dialect(&self) -> SqlDialect {
        match self {
            Connector::Sqlite(_) => SqlDialect::Sqlite,
            Connector::Postgres(_) => SqlDialect::Postgres,
            Connector::Mysql(_) => SqlDialect::Mysql,
        }
    }

    /// The statement timeout.
    pub fn timeout(&self) -> Duration {
        match self {
            Connector::Sqlite(c) => c.timeout(),
            Connector::Postgres(c) => c.timeout(),
            Connector::Mysql(c) => c.timeout(),
        }
    }

    /// Runs one statement in a read-only session, returning at most
    /// `max_rows` rows (`truncated` says whether more existed). The SQL is
    /// not guarded here: see the module documentation. Dropping the future
    /// stops the statement.
    pub async fn run(&self, sql: &str, max_rows: usize) -> Result<QueryResult, WarehouseError> {
        match self {
            Connector::Sqlite(c) => c.run(sql, max_rows).await,
            Connector::Postgres(c) => c.run(sql, max_rows).await,
            Connector::Mysql(c) => c.run(sql, max_rows).await,
        }
    }

    /// Connects and reports the server version and whether sessions are
    /// read-only.
    pub async fn server_info(&self) -> Result<ServerInfo, WarehouseError> {
        match self {
            Connector::Sqlite(c) => c.server_info().await,
            Connector::Postgres(c) => c.server_info().await,
            Connector::Mysql(c) => c.server_info().await,
        }
    }
}
