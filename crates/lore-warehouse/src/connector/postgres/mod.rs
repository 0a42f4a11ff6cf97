//! The PostgreSQL connector.
//!
//! Every session is set `default_transaction_read_only = on`, a
//! `statement_timeout` and UTC, and every query runs inside
//! `START TRANSACTION READ ONLY … ROLLBACK`, so the server refuses writes
//! even if the guard were wrong. Queries use the extended protocol, which
//! accepts exactly one statement (the `COMMIT; DROP …` bypass of
//! simple-query servers cannot happen), and rows are fetched through a
//! portal limited to `max_rows + 1`, so the server stops producing rows at
//! the cap. A query that outlives its timeout, or whose caller goes away,
//! is cancelled on the server and its session discarded.
//!
//! Connections are made without TLS in this version: a URL that demands it
//! (`sslmode=require`) is refused with a clear message instead of failing
//! obscurely.

mod value;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use lore_core::config::Secret;
use tokio_postgres::config::SslMode;
use tokio_postgres::error::SqlState;
use tokio_postgres::{CancelToken, Client, NoTls};

use super::pool::Pool;
use super::{Fetched, QueryResult, ServerInfo};
use crate::error::WarehouseError;

/// How long opening a session may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Time allowed beyond the statement timeout for the server to report it.
const TIMEOUT_SLACK: Duration = Duration::from_secs(2);

/// Runs read-only queries against one PostgreSQL database.
#[derive(Debug)]
pub struct PostgresConnector {
    id: String,
    url: Secret,
    project_dir: PathBuf,
    timeout: Duration,
    pool: Pool<Client>,
}

impl PostgresConnector {
    /// A connector for connection `id`; `url` is resolved (and the server
    /// contacted) only when the first session opens.
    pub fn new(
        id: &str,
        url: Secret,
        project_dir: PathBuf,
        timeout: Duration,
        max_sessions: usize,
    ) -> PostgresConnector {
        PostgresConnector {
            id: id.to_string(),
            url,
            project_dir,
            timeout,
            pool: Pool::new(max_sessions),
        }
    }

    /// The statement timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn config(&self) -> Result<tokio_postgres::Config, WarehouseError> {
        let url = self
            .url
            .resolve(&format!("connection `{}` url", self.id), &self.project_dir)?;
        let mut config: tokio_postgres::Config =
            url.parse()
                .map_err(|e: tokio_postgres::Error| WarehouseError::InvalidUrl {
                    id: self.id.clone(),
                    driver: "postgres",
                    reason: e.to_string(),
                })?;
        if config.get_ssl_mode() == SslMode::Require {
            return Err(WarehouseError::InvalidUrl {
                id: self.id.clone(),
                driver: "postgres",
                reason: "sslmode=require asks for TLS, which this build of Lore does not speak yet; use sslmode=prefer or disable, or reach the server through a local tunnel".to_string(),
            });
        }
        config.application_name("lore");
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        Ok(config)
    }

    fn target(config: &tokio_postgres::Config) -> String {
        let host = match config.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
            #[cfg(unix)]
            Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
            None => "localhost".to_string(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        format!("{host}:{port}")
    }

    async fn open_session(&self) -> Result<Client, WarehouseError> {
        let config = self.config()?;
        let connected = tokio::time::timeout(CONNECT_TIMEOUT, config.connect(NoTls)).await;
        let (client, connection) = match connected {
            Ok(Ok(pair)) => pair,
            Ok(Err(e)) => return Err(self.connect_error(&config, e)),
            Err(_) => {
                return Err(WarehouseError::Unreachable {
                    id: self.id.clone(),
                    driver: "postgres",
                    target: Self::target(&config),
                    message: format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
                });
            }
        };
        // The connection task ends when the client is dropped.
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let setup = format!(
            "SET default_transaction_read_only = on; SET statement_timeout = {}; SET TIME ZONE 'UTC'",
            self.timeout.as_millis()
        );
        client
            .batch_execute(&setup)
            .await
            .map_err(|e| classify(e, self.timeout))?;
        Ok(client)
    }

    fn connect_error(
        &self,
        config: &tokio_postgres::Config,
        e: tokio_postgres::Error,
    ) -> WarehouseError {
        if let Some(db) = e.as_db_error() {
            let code = db.code();
            if *code == SqlState::INVALID_PASSWORD
                || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
                || *code == SqlState::INVALID_CATALOG_NAME
                || code.code().starts_with("28")
            {
                return WarehouseError::LoginRefused {
                    id: self.id.clone(),
                    driver: "postgres",
                    message: db.message().to_string(),
                };
            }
            return WarehouseError::Upstream {
                message: db.message().to_string(),
            };
        }
        WarehouseError::Unreachable {
            id: self.id.clone(),
            driver: "postgres",
            target: Self::target(config),
            message: e.to_string(),
        }
    }

    /// Runs `sql` (already checked by the guard, or written by Lore) in a
    /// read-only transaction, fetching at most `max_rows + 1` rows.
    pub(crate) async fn run(
        &self,
        sql: &str,
        max_rows: usize,
    ) -> Result<QueryResult, WarehouseError> {
        let work = async {
            let mut lease = self.pool.acquire(|| self.open_session()).await?;
            let client = lease.session();
            let mut cancel = CancelOnDrop(Some(client.cancel_token()));
            let started = Instant::now();
            let outcome = fetch(client, sql, max_rows).await;
            cancel.0 = None;
            match outcome {
                Ok(fetched) => {
                    lease.release();
                    Ok(fetched.into_result(max_rows, started.elapsed().as_millis() as u64))
                }
                Err(e) => {
                    // A database error leaves the session clean (the
                    // transaction is rolled back); anything else may not.
                    if e.as_db_error().is_some() && !client.is_closed() {
                        lease.release();
                    }
                    Err(classify(e, self.timeout))
                }
            }
        };
        match tokio::time::timeout(self.timeout + TIMEOUT_SLACK, work).await {
            Ok(outcome) => outcome,
            Err(_) => Err(WarehouseError::Timeout {
                timeout_ms: self.timeout.as_millis() as u64,
            }),
        }
    }

    /// The server version and whether sessions are held read-only.
    pub(crate) async fn server_info(&self) -> Result<ServerInfo, WarehouseError> {
        let result = self
            .run(
                "SELECT version(), current_setting('transaction_read_only')",
                1,
            )
            .await?;
        let row = result.rows.first();
        Ok(ServerInfo {
            version: row
                .and_then(|r| r[0].as_str())
                .map(|v| v.split(" on ").next().unwrap_or(v).to_string())
                .unwrap_or_else(|| "PostgreSQL".to_string()),
            read_only: row.and_then(|r| r[1].as_str()) == Some("on"),
        })
    }
}

/// Sends a cancel request for the running query if the query future is
/// dropped before it finishes (timeout, cancelled MCP request).
struct CancelOnDrop(Option<CancelToken>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(token) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                let _ = token.cancel_query(NoTls).await;
            });
        }
    }
}

async fn fetch(
    client: &mut Client,
    sql: &str,
    max_rows: usize,
) -> Result<Fetched, tokio_postgres::Error> {
    let transaction = client.build_transaction().read_only(true).start().await?;
    let statement = transaction.prepare(sql).await?;
    let portal = transaction.bind(&statement, &[]).await?;
    let limit = i32::try_from(max_rows.saturating_add(1)).unwrap_or(i32::MAX);
    let rows = transaction.query_portal(&portal, limit).await?;
    let columns = statement.columns();
    let mut decoded = Vec::with_capacity(rows.len());
    for row in &rows {
        let mut values = Vec::with_capacity(columns.len());
        for index in 0..columns.len() {
            values.push(row.try_get::<_, value::PgValue>(index)?.0);
        }
        decoded.push(values);
    }
    transaction.rollback().await?;
    Ok(Fetched {
        headers: columns.iter().map(|c| c.name().to_string()).collect(),
        header_types: Some(
            columns
                .iter()
                .map(|c| c.type_().name().to_string())
                .collect(),
        ),
        rows: decoded,
    })
}

/// Maps PostgreSQL errors to what the caller should do about them.
fn classify(e: tokio_postgres::Error, timeout: Duration) -> WarehouseError {
    let Some(db) = e.as_db_error() else {
        return WarehouseError::Upstream {
            message: if e.is_closed() {
                "the connection to PostgreSQL closed during the query".to_string()
            } else {
                e.to_string()
            },
        };
    };
    let code = db.code();
    let mut message = db.message().to_string();
    if let Some(tokio_postgres::error::ErrorPosition::Original(position)) = db.position() {
        message.push_str(&format!(" (at character {position})"));
    }
    if let Some(hint) = db.hint() {
        message.push_str(&format!("; hint: {hint}"));
    }
    let class = &code.code()[..2];
    if *code == SqlState::READ_ONLY_SQL_TRANSACTION {
        WarehouseError::RefusedByDatabase { message }
    } else if *code == SqlState::QUERY_CANCELED {
        WarehouseError::Timeout {
            timeout_ms: timeout.as_millis() as u64,
        }
    } else if *code == SqlState::INSUFFICIENT_PRIVILEGE {
        WarehouseError::PermissionDenied { message }
    } else if matches!(class, "08" | "40" | "53" | "55" | "57" | "58" | "XX") {
        WarehouseError::Upstream { message }
    } else {
        WarehouseError::Query { message }
    }
}
