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
//! TLS follows libpq's `sslmode` (default `prefer`): `disable`, `allow` /
//! `prefer` (TLS when offered), `require` (TLS, certificate unchecked unless
//! `sslrootcert` names a CA), `verify-ca`, `verify-full`; see [`lore_tls`].

mod value;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use lore_core::config::Secret;
use lore_tls::postgres::PgTarget;
use tokio_postgres::error::SqlState;
use tokio_postgres::{CancelToken, Client, NoTls};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::pool::Pool;
use super::{Fetched, QueryResult, ResultBudget, RowLimit, ServerInfo};
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
    pool: Pool<Session>,
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

    /// The driver's configuration and the TLS the url asks for
    /// ([`PgTarget`] reads `sslmode` and `sslrootcert`).
    fn target(&self) -> Result<PgTarget, WarehouseError> {
        let url = self
            .url
            .resolve(&format!("connection `{}` url", self.id), &self.project_dir)?;
        let mut target = PgTarget::parse(&url).map_err(|reason| WarehouseError::InvalidUrl {
            id: self.id.clone(),
            driver: "postgres",
            reason,
        })?;
        target.config.application_name("lore");
        if target.config.get_connect_timeout().is_none() {
            target.config.connect_timeout(CONNECT_TIMEOUT);
        }
        Ok(target)
    }

    async fn open_session(&self) -> Result<Session, WarehouseError> {
        let target = self.target()?;
        let tls = target
            .tls(&self.project_dir)
            .map_err(|message| WarehouseError::Tls {
                id: self.id.clone(),
                driver: "postgres",
                target: target.address(),
                message,
            })?;
        let connected = tokio::time::timeout(CONNECT_TIMEOUT, target.connect(tls.as_ref())).await;
        let client = match connected {
            Ok(Ok(client)) => client,
            Ok(Err(e)) => return Err(self.connect_error(&target, e)),
            Err(_) => {
                return Err(WarehouseError::Unreachable {
                    id: self.id.clone(),
                    driver: "postgres",
                    target: target.address(),
                    message: format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
                });
            }
        };
        let setup = format!(
            "SET default_transaction_read_only = on; SET statement_timeout = {}; SET TIME ZONE 'UTC'",
            self.timeout.as_millis()
        );
        client
            .batch_execute(&setup)
            .await
            .map_err(|e| classify(e, self.timeout))?;
        Ok(Session { client, tls })
    }

    fn connect_error(&self, target: &PgTarget, e: tokio_postgres::Error) -> WarehouseError {
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
        if let Some(message) = target.tls_failure(&e) {
            return WarehouseError::Tls {
                id: self.id.clone(),
                driver: "postgres",
                target: target.address(),
                message,
            };
        }
        super::reach::unreachable(&self.id, "postgres", &target.address(), &e)
    }

    /// Runs `sql` (already checked by the guard, or written by Lore) in a
    /// read-only transaction, fetching at most `max_rows + 1` rows.
    pub(crate) async fn run(
        &self,
        sql: &str,
        limit: RowLimit,
    ) -> Result<QueryResult, WarehouseError> {
        let max_rows = limit.rows;
        let work = async {
            let mut lease = self.pool.acquire(|| self.open_session()).await?;
            let session = lease.session();
            let mut cancel =
                CancelOnDrop(Some((session.client.cancel_token(), session.tls.clone())));
            let client = &mut session.client;
            let started = Instant::now();
            let outcome = fetch(client, sql, limit).await;
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
                "SELECT version(), current_setting('transaction_read_only'), \
                 (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid())",
                RowLimit::rows(1),
            )
            .await?;
        let row = result.rows.first();
        Ok(ServerInfo {
            version: row
                .and_then(|r| r[0].as_str())
                .map(|v| v.split(" on ").next().unwrap_or(v).to_string())
                .unwrap_or_else(|| "PostgreSQL".to_string()),
            read_only: row.and_then(|r| r[1].as_str()) == Some("on"),
            encrypted: row.and_then(|r| r[2].as_bool()),
        })
    }
}

/// One open session, and the TLS it was opened with (cancel requests go
/// over the same kind of connection: a server that demands TLS refuses
/// plain ones).
struct Session {
    client: Client,
    tls: Option<MakeRustlsConnect>,
}

/// Sends a cancel request for the running query if the query future is
/// dropped before it finishes (timeout, cancelled MCP request).
struct CancelOnDrop(Option<(CancelToken, Option<MakeRustlsConnect>)>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some((token, tls)) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                let _ = match tls {
                    None => token.cancel_query(NoTls).await,
                    Some(tls) => token.cancel_query(tls).await,
                };
            });
        }
    }
}

async fn fetch(
    client: &mut Client,
    sql: &str,
    limit: RowLimit,
) -> Result<Fetched, tokio_postgres::Error> {
    let max_rows = limit.rows;
    let mut budget = ResultBudget::new(limit);
    let mut stopped = false;
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
        if !budget.admit(&mut values) {
            stopped = true;
            break;
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
        cut_at_bytes: budget.cut_at(stopped),
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
