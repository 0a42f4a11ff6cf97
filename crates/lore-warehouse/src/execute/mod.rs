//! Running guarded SQL against configured connections.
//!
//! A query goes through two steps so that callers can report progress
//! between them: [`Warehouses::prepare`] finds the connection and passes the
//! SQL through the guard, then [`PreparedQuery::run`] executes it in a
//! read-only session with a row cap and a statement timeout.
//!
//! Results are capped honestly: `max_rows + 1` rows are fetched, so
//! `truncated` is true only when more rows really exist.

use std::collections::BTreeMap;
use std::sync::Arc;

use lore_core::config::{ConnectionConfig, Driver};
use lore_core::limits::SqlLimits;
use lore_core::project::Project;
use serde::Serialize;

pub use crate::connector::value::{BLOB_MARKER, MAX_SAFE_INTEGER};
pub use crate::connector::{Connector, MAX_ROWS_LIMIT, QueryResult, RowLimit, ServerInfo};
pub use crate::error::WarehouseError;
use crate::guard::{SqlDialect, check_read_only};

/// Rows returned when the caller does not say.
pub const DEFAULT_MAX_ROWS: usize = 1000;

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
}

#[derive(Debug)]
struct Connection {
    config: ConnectionConfig,
    connector: Arc<Connector>,
}

/// Every connection of a project, ready to run read-only queries.
#[derive(Debug)]
pub struct Warehouses {
    project_root: std::path::PathBuf,
    connections: BTreeMap<String, Connection>,
    limits: SqlLimits,
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
                let connector = Arc::new(Connector::for_connection(id, conn, project));
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
            limits: project.config.limits,
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
            })
            .collect()
    }

    /// The ids of the configured connections, sorted.
    pub fn ids(&self) -> Vec<String> {
        self.connections.keys().cloned().collect()
    }

    /// One connection's configuration and connector.
    pub fn get(&self, id: &str) -> Result<(&ConnectionConfig, Arc<Connector>), WarehouseError> {
        let conn = self
            .connections
            .get(id)
            .ok_or_else(|| WarehouseError::UnknownConnection {
                id: id.to_string(),
                known: self.ids(),
            })?;
        Ok((&conn.config, Arc::clone(&conn.connector)))
    }

    /// Finds the connection and checks the SQL with the read-only guard in
    /// the connection's dialect.
    pub fn prepare(&self, connection_id: &str, sql: &str) -> Result<PreparedQuery, WarehouseError> {
        let (config, connector) = self.get(connection_id)?;
        check_read_only(sql, SqlDialect::from(config.driver), &self.limits)?;
        Ok(PreparedQuery {
            connector,
            sql: sql.to_string(),
            result_bytes: self.limits.result_bytes,
        })
    }

    /// How large and deep the SQL sent to these connections may be.
    pub fn limits(&self) -> &SqlLimits {
        &self.limits
    }

    /// The project directory the connections belong to.
    pub fn project_root(&self) -> &std::path::Path {
        &self.project_root
    }
}

/// SQL that passed the guard, bound to its connection.
#[derive(Debug)]
pub struct PreparedQuery {
    connector: Arc<Connector>,
    sql: String,
    result_bytes: usize,
}

impl PreparedQuery {
    /// Runs the query, returning at most `max_rows` rows (1 to
    /// [`MAX_ROWS_LIMIT`]) and at most the project's `limits.result_bytes`
    /// of JSON. Dropping the future interrupts the query.
    pub async fn run(self, max_rows: usize) -> Result<QueryResult, WarehouseError> {
        if !(1..=MAX_ROWS_LIMIT).contains(&max_rows) {
            return Err(WarehouseError::InvalidRequest {
                message: format!("maxRows must be between 1 and {MAX_ROWS_LIMIT}, got {max_rows}"),
            });
        }
        self.connector
            .run_within(
                &self.sql,
                RowLimit {
                    rows: max_rows,
                    bytes: Some(self.result_bytes),
                },
            )
            .await
    }
}
