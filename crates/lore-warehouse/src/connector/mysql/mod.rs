//! The MySQL and MariaDB connector.
//!
//! Before every query the session is set read-only (`tx_read_only` /
//! `transaction_read_only`), given a statement time limit
//! (`max_execution_time` on MySQL, `max_statement_time` on MariaDB) and
//! UTC, and the query runs inside `START TRANSACTION READ ONLY … ROLLBACK`,
//! so the server refuses writes even if the guard were wrong. The settings
//! are re-asserted each time because MySQL keeps session variables across
//! a rollback: a `SET SESSION TRANSACTION READ WRITE` slipped into one
//! query would otherwise let the next one write.
//! Queries are sent as prepared statements, which hold exactly one
//! statement. A query that outlives its timeout is killed on the server
//! (`KILL QUERY` from a second session) and its session discarded; a
//! result cut at the row cap discards its session too, so the next caller
//! never waits for unread rows.
//!
//! TLS follows MySQL's `ssl-mode` (default `PREFERRED`: TLS when the
//! server offers it): `DISABLED`, `PREFERRED`, `REQUIRED` (certificate
//! unchecked), `VERIFY_CA`, `VERIFY_IDENTITY`, with `ssl-ca=` naming a CA
//! file; the driver's own `require_ssl` / `verify_ca` / `verify_identity`
//! parameters work too. See [`super::tls`].

mod value;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use lore_core::config::Secret;
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder, SslOpts};

use super::pool::Pool;
use super::tls::{self, TlsMode};
use super::{Fetched, QueryResult, ResultBudget, RowLimit, ServerInfo};
use crate::error::WarehouseError;

/// How long opening a session may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Time allowed beyond the statement timeout for the server to report it.
const TIMEOUT_SLACK: Duration = Duration::from_secs(2);

/// One open session and the statement that re-asserts its settings.
struct Session {
    conn: Conn,
    settings: String,
}

/// Runs read-only queries against one MySQL or MariaDB server.
pub struct MysqlConnector {
    id: String,
    url: Secret,
    project_dir: PathBuf,
    timeout: Duration,
    pool: Pool<Session>,
    /// Set once a `PREFERRED` connection found the server without TLS, so
    /// later sessions connect in plain text at once.
    server_without_tls: AtomicBool,
    /// Whether the newest session is encrypted.
    encrypted: AtomicBool,
}

impl std::fmt::Debug for MysqlConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlConnector")
            .field("id", &self.id)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl MysqlConnector {
    /// A connector for connection `id`; `url` is resolved (and the server
    /// contacted) only when the first session opens.
    pub fn new(
        id: &str,
        url: Secret,
        project_dir: PathBuf,
        timeout: Duration,
        max_sessions: usize,
    ) -> MysqlConnector {
        MysqlConnector {
            id: id.to_string(),
            url,
            project_dir,
            timeout,
            pool: Pool::new(max_sessions),
            server_without_tls: AtomicBool::new(false),
            encrypted: AtomicBool::new(false),
        }
    }

    /// The statement timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The driver's options and the TLS mode the url asks for.
    fn opts(&self) -> Result<(Opts, TlsMode), WarehouseError> {
        let url = self
            .url
            .resolve(&format!("connection `{}` url", self.id), &self.project_dir)?;
        let invalid = |reason: String| WarehouseError::InvalidUrl {
            id: self.id.clone(),
            driver: "mysql",
            reason,
        };
        let (rest, taken) = tls::take_params(&url, &["ssl_mode", "sslmode", "ssl_ca"]);
        let mut mode = None;
        let mut ca_file = None;
        for (key, value) in taken {
            if key == "ssl_ca" {
                ca_file = Some(PathBuf::from(value));
            } else {
                mode = Some(TlsMode::parse(&value).ok_or_else(|| {
                    invalid(format!(
                        "ssl-mode `{value}` is not one of DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY"
                    ))
                })?);
            }
        }
        let opts = Opts::from_url(&rest).map_err(|e| {
            invalid(match e {
                // Never echo a parameter's value: it could be a secret.
                mysql_async::UrlError::InvalidParamValue { param, .. } => {
                    format!("invalid value for parameter `{param}`")
                }
                other => other.to_string(),
            })
        })?;
        // The driver's own parameters (`require_ssl=true` …) stand when no
        // ssl-mode is given.
        if mode.is_none() && opts.ssl_opts().is_some() {
            return Ok((opts, TlsMode::VerifyFull));
        }
        let mut mode = mode.unwrap_or(TlsMode::Prefer);
        if mode == TlsMode::Require && ca_file.is_some() {
            mode = TlsMode::VerifyCa;
        }
        let ssl = match mode {
            TlsMode::Disable => None,
            _ if mode == TlsMode::Prefer && self.server_without_tls.load(Ordering::Relaxed) => None,
            _ => {
                let mut ssl = SslOpts::default()
                    .with_danger_accept_invalid_certs(!mode.verifies())
                    .with_danger_skip_domain_validation(mode != TlsMode::VerifyFull);
                if let Some(path) = &ca_file {
                    let (path, _) =
                        tls::read_ca_file(path, &self.project_dir).map_err(|message| {
                            WarehouseError::Tls {
                                id: self.id.clone(),
                                driver: "mysql",
                                target: format!("{}:{}", opts.ip_or_hostname(), opts.tcp_port()),
                                message,
                            }
                        })?;
                    ssl = ssl
                        .with_root_certs(vec![path.into()])
                        .with_disable_built_in_roots(true);
                }
                Some(ssl)
            }
        };
        Ok((OptsBuilder::from_opts(opts).ssl_opts(ssl).into(), mode))
    }

    fn target(opts: &Opts) -> String {
        format!("{}:{}", opts.ip_or_hostname(), opts.tcp_port())
    }

    async fn connect(&self, opts: &Opts, mode: TlsMode) -> Result<Conn, WarehouseError> {
        let mut attempt = tokio::time::timeout(CONNECT_TIMEOUT, Conn::new(opts.clone())).await;
        // PREFERRED: a server without TLS is spoken to in plain text.
        if mode == TlsMode::Prefer
            && matches!(
                attempt,
                Ok(Err(mysql_async::Error::Driver(
                    mysql_async::DriverError::NoClientSslFlagFromServer
                )))
            )
        {
            self.server_without_tls.store(true, Ordering::Relaxed);
            let plain: Opts = OptsBuilder::from_opts(opts.clone()).ssl_opts(None).into();
            attempt = tokio::time::timeout(CONNECT_TIMEOUT, Conn::new(plain)).await;
        }
        let unreachable = |message: String| WarehouseError::Unreachable {
            id: self.id.clone(),
            driver: "mysql",
            target: Self::target(opts),
            message,
        };
        match attempt {
            Ok(Ok(conn)) => {
                let encrypted = opts.ssl_opts().is_some()
                    && !(mode == TlsMode::Prefer && self.server_without_tls.load(Ordering::Relaxed));
                self.encrypted.store(encrypted, Ordering::Relaxed);
                Ok(conn)
            }
            Ok(Err(mysql_async::Error::Server(e))) if matches!(e.code, 1044 | 1045 | 1049 | 1698) => {
                Err(WarehouseError::LoginRefused {
                    id: self.id.clone(),
                    driver: "mysql",
                    message: e.message,
                })
            }
            Ok(Err(mysql_async::Error::Driver(mysql_async::DriverError::NoClientSslFlagFromServer))) => {
                Err(WarehouseError::Tls {
                    id: self.id.clone(),
                    driver: "mysql",
                    target: Self::target(opts),
                    message: "the server does not offer TLS, but the url's ssl-mode demands it; enable TLS on the server, or use ssl-mode=PREFERRED or DISABLED".to_string(),
                })
            }
            Ok(Err(e)) => {
                let message = e.to_string();
                let lower = message.to_ascii_lowercase();
                if opts.ssl_opts().is_some()
                    && (lower.contains("tls") || lower.contains("certificate") || lower.contains("handshake"))
                {
                    let settings = tls::TlsSettings { mode, root_cert: None };
                    return Err(WarehouseError::Tls {
                        id: self.id.clone(),
                        driver: "mysql",
                        target: Self::target(opts),
                        message: tls::explain_failure(&message, &settings, "ssl-ca", "ssl-mode=REQUIRED"),
                    });
                }
                Err(super::reach::unreachable(&self.id, "mysql", &Self::target(opts), &e))
            }
            Err(_) => Err(unreachable(format!(
                "no answer within {} s",
                CONNECT_TIMEOUT.as_secs()
            ))),
        }
    }

    async fn open_session(&self) -> Result<Session, WarehouseError> {
        let (opts, mode) = self.opts()?;
        let mut conn = self.connect(&opts, mode).await?;
        let version: Option<String> = conn
            .query_first("SELECT VERSION()")
            .await
            .map_err(|e| classify(e, self.timeout))?;
        let mariadb = version.is_some_and(|v| v.to_ascii_lowercase().contains("mariadb"));
        let settings = if mariadb {
            format!(
                "SET SESSION tx_read_only = 1, SESSION max_statement_time = {:.3}, SESSION time_zone = '+00:00'",
                self.timeout.as_secs_f64()
            )
        } else {
            format!(
                "SET SESSION transaction_read_only = 1, SESSION max_execution_time = {}, SESSION time_zone = '+00:00'",
                self.timeout.as_millis()
            )
        };
        conn.query_drop("SET NAMES utf8mb4")
            .await
            .map_err(|e| classify(e, self.timeout))?;
        Ok(Session { conn, settings })
    }

    /// Runs `sql` (already checked by the guard, or written by Lore) in a
    /// read-only transaction, fetching at most `max_rows + 1` rows.
    pub(crate) async fn run(
        &self,
        sql: &str,
        limit: RowLimit,
    ) -> Result<QueryResult, WarehouseError> {
        let max_rows = limit.rows;
        let mut lease = self.pool.acquire(|| self.open_session()).await?;
        let connection_id = lease.session().conn.id();
        let started = Instant::now();
        let session = lease.session();
        let outcome = tokio::time::timeout(
            self.timeout + TIMEOUT_SLACK,
            fetch(&mut session.conn, &session.settings, sql, limit),
        )
        .await;
        match outcome {
            Ok(Ok(fetched)) => {
                // A result cut at the cap still has rows in flight: discard
                // the session rather than read them all.
                if fetched.complete(max_rows) {
                    lease.release();
                }
                Ok(fetched.into_result(max_rows, started.elapsed().as_millis() as u64))
            }
            Ok(Err(e)) => {
                let server_error = matches!(e, mysql_async::Error::Server(_));
                let error = classify(e, self.timeout);
                if server_error && !matches!(error, WarehouseError::Timeout { .. }) {
                    let rolled_back = lease.session().conn.query_drop("ROLLBACK").await.is_ok();
                    if rolled_back {
                        lease.release();
                    }
                }
                Err(error)
            }
            Err(_) => {
                drop(lease);
                self.kill_query(connection_id).await;
                Err(WarehouseError::Timeout {
                    timeout_ms: self.timeout.as_millis() as u64,
                })
            }
        }
    }

    /// Stops a runaway statement from a separate session (best effort).
    async fn kill_query(&self, connection_id: u32) {
        if let Ok((opts, mode)) = self.opts()
            && let Ok(mut conn) = self.connect(&opts, mode).await
        {
            let _ = conn.query_drop(format!("KILL QUERY {connection_id}")).await;
            let _ = conn.disconnect().await;
        }
    }

    /// The server version and whether sessions are held read-only.
    pub(crate) async fn server_info(&self) -> Result<ServerInfo, WarehouseError> {
        let result = self
            .run(
                "SELECT VERSION(), @@session.tx_read_only",
                RowLimit::rows(1),
            )
            .await;
        // MySQL 8 renamed the variable; MariaDB knows the old name.
        let result = match result {
            Ok(result) => result,
            Err(WarehouseError::Query { .. }) => {
                self.run(
                    "SELECT VERSION(), @@session.transaction_read_only",
                    RowLimit::rows(1),
                )
                .await?
            }
            Err(e) => return Err(e),
        };
        let row = result.rows.first();
        let version = row
            .and_then(|r| r[0].as_str())
            .unwrap_or("MySQL")
            .to_string();
        let name = if version.to_ascii_lowercase().contains("mariadb") {
            "MariaDB"
        } else {
            "MySQL"
        };
        Ok(ServerInfo {
            version: format!("{name} {}", version.split('-').next().unwrap_or(&version)),
            read_only: row.and_then(|r| r[1].as_i64()) == Some(1),
            encrypted: Some(self.encrypted.load(Ordering::Relaxed)),
        })
    }
}

async fn fetch(
    conn: &mut Conn,
    settings: &str,
    sql: &str,
    limit: RowLimit,
) -> Result<Fetched, mysql_async::Error> {
    let max_rows = limit.rows;
    let mut budget = ResultBudget::new(limit);
    let mut stopped = false;
    conn.query_drop(settings).await?;
    conn.query_drop("START TRANSACTION READ ONLY").await?;
    let mut result = conn.exec_iter(sql, ()).await?;
    let columns = result.columns().unwrap_or_else(|| Vec::new().into());
    let mut rows = Vec::new();
    while rows.len() <= max_rows {
        let Some(row) = result.next().await? else {
            break;
        };
        let mut values: Vec<serde_json::Value> = row
            .unwrap()
            .into_iter()
            .zip(columns.iter())
            .map(|(v, column)| value::to_json(v, column))
            .collect();
        if !budget.admit(&mut values) {
            stopped = true;
            break;
        }
        rows.push(values);
    }
    let complete = rows.len() <= max_rows && !stopped;
    drop(result);
    if complete {
        conn.query_drop("ROLLBACK").await?;
    }
    Ok(Fetched {
        headers: columns.iter().map(|c| c.name_str().into_owned()).collect(),
        header_types: Some(columns.iter().map(value::type_name).collect()),
        rows,
        cut_at_bytes: budget.cut_at(stopped),
    })
}

/// Maps MySQL errors to what the caller should do about them.
fn classify(e: mysql_async::Error, timeout: Duration) -> WarehouseError {
    match e {
        mysql_async::Error::Server(server) => {
            let message = server.message;
            match server.code {
                // Read-only transaction, --read-only server.
                1792 | 1290 => WarehouseError::RefusedByDatabase { message },
                // MySQL max_execution_time, MariaDB max_statement_time, KILL QUERY.
                3024 | 1969 | 1317 => WarehouseError::Timeout {
                    timeout_ms: timeout.as_millis() as u64,
                },
                1044 | 1142 | 1143 | 1227 | 1370 => WarehouseError::PermissionDenied { message },
                1040 | 1205 | 1213 | 2006 | 2013 => WarehouseError::Upstream { message },
                _ => WarehouseError::Query { message },
            }
        }
        other => WarehouseError::Upstream {
            message: other.to_string(),
        },
    }
}
