//! The Snowflake connector, over the connector REST protocol the official
//! drivers speak (see [`wire`]).
//!
//! Snowflake has no read-only session. The read-only guard is therefore
//! the gate, and the README tells users to give Lore a role that holds
//! only `USAGE` and `SELECT`. Behind the guard, sessions still do what
//! they can: they run with `AUTOCOMMIT = FALSE`, so a DML statement that
//! got past the guard is rolled back before it commits (Snowflake reports
//! every statement's type, `statementTypeId`), and a session that ran
//! anything but a query (a `USE`, `ALTER SESSION`, DDL, which commits on
//! its own) is discarded rather than reused. Sessions also run in UTC,
//! with `QUOTED_IDENTIFIERS_IGNORE_CASE = FALSE` (Lore quotes the names
//! the catalog gives it exactly) and the query tag `lore`.
//!
//! Each statement carries `STATEMENT_TIMEOUT_IN_SECONDS`, so Snowflake
//! stops it itself; a statement whose caller gives up first (the timeout
//! plus a little, a cancelled MCP request) is aborted with an
//! `abort-request`. Rows come as JSON or Arrow ([`rows`]), and only the
//! result chunks needed for the row cap and byte budget are downloaded.
//!
//! Authentication is a password from the url or, with `private_key`, a JWT
//! signed with the user's RSA key ([`keypair`]). No password, key or
//! session token appears in an error, a log line or a `Debug` output.

mod arrow;
mod keypair;
mod rows;
mod settings;
mod values;
mod wire;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use lore_core::config::Secret;
use serde_json::{Value, json};

use super::pool::Pool;
use super::{Fetched, QueryResult, RowLimit, ServerInfo};
use crate::error::WarehouseError;
use settings::{Credentials, Settings, SettingsError};
use wire::{Credential, Endpoint, LoginRequest, WireError};

/// How long connecting to the server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a login may take.
const LOGIN_TIMEOUT: Duration = Duration::from_secs(60);
/// Time allowed beyond the statement timeout for Snowflake to report it.
const TIMEOUT_SLACK: Duration = Duration::from_secs(2);
/// Sessions are replaced well before Snowflake's session token expires
/// (an hour by default).
const SESSION_LIFETIME: Duration = Duration::from_secs(45 * 60);

/// Runs queries against one Snowflake database.
pub struct SnowflakeConnector {
    id: String,
    url: Secret,
    private_key: Option<Secret>,
    project_dir: PathBuf,
    timeout: Duration,
    pool: Pool<Session>,
    /// The agent (and its pooled HTTP connections) of the endpoint.
    endpoint: std::sync::Mutex<Option<Endpoint>>,
    /// Whether the newest session speaks HTTPS.
    encrypted: AtomicBool,
}

impl std::fmt::Debug for SnowflakeConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnowflakeConnector")
            .field("id", &self.id)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// One logged-in session. Dropped, it logs out (in the background).
struct Session {
    endpoint: Endpoint,
    token: String,
    opened: Instant,
    /// The last `sequenceId` sent in this session.
    sequence: u64,
}

impl Drop for Session {
    fn drop(&mut self) {
        let endpoint = self.endpoint.clone();
        let token = std::mem::take(&mut self.token);
        let _ = std::thread::Builder::new()
            .name("snowflake-logout".into())
            .spawn(move || endpoint.logout(&token));
    }
}

/// Sends an `abort-request` for a statement whose caller went away
/// (timeout, cancelled request) before it finished.
struct AbortOnDrop(Option<(Endpoint, String, String, String)>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some((endpoint, token, request_id, sql)) = self.0.take() {
            let _ = std::thread::Builder::new()
                .name("snowflake-abort".into())
                .spawn(move || {
                    if let Err(e) = endpoint.abort(&token, &request_id, &sql) {
                        tracing::debug!(error = ?e.code(), "snowflake abort-request failed");
                    }
                });
        }
    }
}

/// Why a statement failed, before it is told to the caller.
enum Failure {
    Wire(WireError),
    /// The statement was not a query; `rolled_back` when it was DML that
    /// Lore rolled back.
    NotAQuery {
        kind: &'static str,
        rolled_back: bool,
    },
}

impl From<WireError> for Failure {
    fn from(e: WireError) -> Self {
        Failure::Wire(e)
    }
}

impl SnowflakeConnector {
    /// A connector for connection `id`; the url and key are resolved (and
    /// Snowflake contacted) only when the first session opens.
    pub fn new(
        id: &str,
        url: Secret,
        private_key: Option<Secret>,
        project_dir: PathBuf,
        timeout: Duration,
        max_sessions: usize,
    ) -> SnowflakeConnector {
        SnowflakeConnector {
            id: id.to_string(),
            url,
            private_key,
            project_dir,
            timeout,
            pool: Pool::new(max_sessions),
            endpoint: std::sync::Mutex::new(None),
            encrypted: AtomicBool::new(false),
        }
    }

    /// The statement timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The url's `schemas=`, folded as Snowflake stores names (empty when
    /// the url names none).
    pub(crate) fn url_schemas(&self) -> Result<Vec<String>, WarehouseError> {
        Ok(self.settings()?.schemas)
    }

    fn settings(&self) -> Result<Settings, WarehouseError> {
        let what = format!("connection `{}`", self.id);
        let url = self
            .url
            .resolve(&format!("{what} url"), &self.project_dir)?;
        Settings::parse(&url, self.private_key.as_ref(), &what, &self.project_dir).map_err(|e| {
            match e {
                SettingsError::Url(reason) => WarehouseError::InvalidUrl {
                    id: self.id.clone(),
                    driver: "snowflake",
                    reason,
                },
                SettingsError::Secret(e) => WarehouseError::Config(e),
                SettingsError::Key(message) => WarehouseError::Setup {
                    id: self.id.clone(),
                    driver: "snowflake",
                    message,
                },
            }
        })
    }

    fn endpoint(&self, base_url: &str) -> Endpoint {
        let mut cached = self.endpoint.lock().unwrap_or_else(|e| e.into_inner());
        match cached.as_ref() {
            Some(endpoint) if endpoint.base_url() == base_url => endpoint.clone(),
            _ => {
                let endpoint = Endpoint::new(base_url, CONNECT_TIMEOUT);
                *cached = Some(endpoint.clone());
                endpoint
            }
        }
    }

    async fn open_session(&self) -> Result<Session, WarehouseError> {
        let settings = self.settings()?;
        let endpoint = self.endpoint(&settings.base_url);
        self.encrypted
            .store(settings.base_url.starts_with("https:"), Ordering::Relaxed);
        let statement_timeout = self.timeout_seconds();
        let login_endpoint = endpoint.clone();
        let (login, settings) = tokio::task::spawn_blocking(move || {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let credential = match &settings.credentials {
                Credentials::Password(password) => Credential::Password(password),
                Credentials::KeyPair(key) => {
                    Credential::Jwt(key.token(&settings.account_name(), &settings.user, now))
                }
            };
            let request = LoginRequest {
                account_name: &settings.account_name(),
                user: &settings.user,
                credential,
                database: &settings.database,
                schema: Some(settings.schemas.first().map_or("PUBLIC", String::as_str)),
                warehouse: settings.warehouse.as_deref(),
                role: settings.role.as_deref(),
                session_parameters: json!({
                    "AUTOCOMMIT": false,
                    "TIMEZONE": "UTC",
                    "QUERY_TAG": "lore",
                    "QUOTED_IDENTIFIERS_IGNORE_CASE": false,
                    "BINARY_OUTPUT_FORMAT": "HEX",
                    "STATEMENT_TIMEOUT_IN_SECONDS": statement_timeout,
                }),
            };
            let login = login_endpoint.login(&request, LOGIN_TIMEOUT);
            (login, settings)
        })
        .await
        .map_err(|e| WarehouseError::Upstream {
            message: format!("the login did not finish: {e}"),
        })?;
        let login = login.map_err(|e| self.login_error(&settings, e))?;
        let session = Session {
            endpoint,
            token: login.token,
            opened: Instant::now(),
            sequence: 0,
        };
        // Snowflake logs in without a database or warehouse it cannot find
        // (or the role may not use): say so now, not at the first query.
        if login.database == Some(None) {
            return Err(WarehouseError::Setup {
                id: self.id.clone(),
                driver: "snowflake",
                message: format!(
                    "the database `{}` does not exist or the role may not use it; check DATABASE in the url (snowflake://USER@ACCOUNT/DATABASE) and GRANT USAGE ON DATABASE to the role",
                    settings.database
                ),
            });
        }
        if let Some(warehouse) = &settings.warehouse
            && login.warehouse == Some(None)
        {
            return Err(WarehouseError::Setup {
                id: self.id.clone(),
                driver: "snowflake",
                message: format!(
                    "the warehouse `{warehouse}` does not exist or the role may not use it; check warehouse= in the url and GRANT USAGE ON WAREHOUSE to the role"
                ),
            });
        }
        tracing::debug!(connection = %self.id, target = %settings.target, "snowflake session opened");
        Ok(session)
    }

    fn timeout_seconds(&self) -> u64 {
        self.timeout.as_millis().div_ceil(1000).max(1) as u64
    }

    /// What a failed login means for the user.
    fn login_error(&self, settings: &Settings, e: WireError) -> WarehouseError {
        let refused = |message: String| WarehouseError::LoginRefused {
            id: self.id.clone(),
            driver: "snowflake",
            message,
        };
        match e {
            WireError::Unreachable(message) => WarehouseError::Unreachable {
                id: self.id.clone(),
                driver: "snowflake",
                target: settings.target.clone(),
                message,
            },
            WireError::Snowflake { code, message, .. } => {
                let hint = match (&settings.credentials, code.as_str()) {
                    (Credentials::KeyPair(key), "390144" | "394304" | "390100") => format!(
                        " (the key's fingerprint is {}: compare it with RSA_PUBLIC_KEY_FP in DESC USER {})",
                        key.fingerprint(),
                        settings.user
                    ),
                    _ => String::new(),
                };
                refused(format!(
                    "{message} [{code}]{hint}; check the user, password or private_key, role and warehouse"
                ))
            }
            WireError::Http {
                status: 401 | 403 | 404,
                message,
            } => refused(format!(
                "HTTP error: {message}; check the account identifier in the url (snowflake://USER@ACCOUNT/…, e.g. myorg-myaccount) and host= if you set one"
            )),
            WireError::Http { status, message } => WarehouseError::Upstream {
                message: format!("Snowflake answered HTTP {status} to the login: {message}"),
            },
            WireError::Protocol(message) => WarehouseError::Unreachable {
                id: self.id.clone(),
                driver: "snowflake",
                target: settings.target.clone(),
                message: format!("the server does not answer like Snowflake ({message})"),
            },
        }
    }

    /// Runs `sql` (already checked by the guard, or written by Lore),
    /// reading at most `max_rows + 1` rows within the byte budget.
    pub(crate) async fn run(
        &self,
        sql: &str,
        limit: RowLimit,
    ) -> Result<QueryResult, WarehouseError> {
        let max_rows = limit.rows;
        let started = Instant::now();
        let deadline = started + self.timeout + TIMEOUT_SLACK;
        let work = async {
            let mut attempts = 0;
            loop {
                let mut lease = self.pool.acquire(|| self.open_session()).await?;
                if lease.session().opened.elapsed() > SESSION_LIFETIME {
                    drop(lease);
                    continue;
                }
                attempts += 1;
                let mut session = lease.take();
                let request_id = uuid::Uuid::new_v4().to_string();
                let mut abort = AbortOnDrop(Some((
                    session.endpoint.clone(),
                    session.token.clone(),
                    request_id.clone(),
                    sql.to_string(),
                )));
                let statement = sql.to_string();
                let parameters = json!({
                    "STATEMENT_TIMEOUT_IN_SECONDS": self.timeout_seconds(),
                });
                let (session, outcome) = tokio::task::spawn_blocking(move || {
                    let outcome = execute(
                        &mut session,
                        &request_id,
                        &statement,
                        parameters,
                        limit,
                        deadline,
                    );
                    (session, outcome)
                })
                .await
                .map_err(|e| WarehouseError::Upstream {
                    message: format!("the query did not finish: {e}"),
                })?;
                abort.0 = None;
                lease.restore(session);
                match outcome {
                    Ok(fetched) => {
                        lease.release();
                        return Ok(
                            fetched.into_result(max_rows, started.elapsed().as_millis() as u64)
                        );
                    }
                    Err(Failure::Wire(e))
                        if e.code().is_some_and(|c| wire::SESSION_GONE.contains(&c))
                            && attempts < 2 =>
                    {
                        // The token expired: a new session, once.
                        drop(lease);
                    }
                    Err(Failure::Wire(e)) => {
                        // A statement Snowflake refused leaves the session
                        // as it was; anything else may not.
                        if matches!(e, WireError::Snowflake { .. }) {
                            lease.release();
                        }
                        return Err(self.query_error(e));
                    }
                    Err(Failure::NotAQuery { kind, rolled_back }) => {
                        drop(lease);
                        return Err(WarehouseError::RefusedByDatabase {
                            message: if rolled_back {
                                format!(
                                    "Snowflake ran it as {kind}, and Lore rolled it back before it could commit (sessions run with AUTOCOMMIT off)"
                                )
                            } else {
                                format!(
                                    "Snowflake ran it as {kind}, which is not a query; give the connection's role only USAGE and SELECT so that Snowflake refuses such statements itself"
                                )
                            },
                        });
                    }
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

    /// What a failed statement means for the user.
    fn query_error(&self, e: WireError) -> WarehouseError {
        match e {
            WireError::Snowflake {
                code,
                message,
                sql_state,
            } => match code.as_str() {
                // Statement timeout; aborted.
                "000630" | "000604" => WarehouseError::Timeout {
                    timeout_ms: self.timeout.as_millis() as u64,
                },
                "003001" | "003003" | "003011" => WarehouseError::PermissionDenied { message },
                "002003" => WarehouseError::Query {
                    message: format!(
                        "{message} — check the name (entity_details lists what the last scan found), or ask for the connection's role to be granted SELECT on it"
                    ),
                },
                "000606" => WarehouseError::Setup {
                    id: self.id.clone(),
                    driver: "snowflake",
                    message: format!(
                        "{message}; name a warehouse the role may use in the url (?warehouse=…)"
                    ),
                },
                _ if sql_state
                    .as_deref()
                    .is_some_and(|s| s.starts_with("08") || s.starts_with("57")) =>
                {
                    WarehouseError::Upstream { message }
                }
                _ => WarehouseError::Query { message },
            },
            WireError::Unreachable(message) => WarehouseError::Upstream {
                message: format!("the connection to Snowflake failed during the query: {message}"),
            },
            WireError::Http { status, message } => WarehouseError::Upstream {
                message: format!("Snowflake answered HTTP {status}: {message}"),
            },
            WireError::Protocol(message) => WarehouseError::Upstream { message },
        }
    }

    /// The server version; Snowflake sessions are never read-only by
    /// themselves (see the module documentation).
    pub(crate) async fn server_info(&self) -> Result<ServerInfo, WarehouseError> {
        let result = self
            .run("SELECT CURRENT_VERSION()", RowLimit::rows(1))
            .await?;
        let version = result
            .rows
            .first()
            .and_then(|r| r.first())
            .and_then(Value::as_str)
            .map(str::to_string);
        Ok(ServerInfo {
            version: match version {
                Some(version) => format!("Snowflake {version}"),
                None => "Snowflake".to_string(),
            },
            read_only: false,
            encrypted: Some(self.encrypted.load(Ordering::Relaxed)),
        })
    }
}

/// Statement types (`statementTypeId`, the drivers' `SFStatementType`)
/// that read: queries (`0x1xxx`), `SHOW` (`0x44xx`) and `DESCRIBE`
/// (`0x45xx`); 0 is "unknown", which Snowflake reports for statements that
/// produce a result set.
fn reads(statement_type: u64) -> bool {
    statement_type == 0
        || (0x1000..0x2000).contains(&statement_type)
        || (0x4400..0x4600).contains(&statement_type)
}

/// A name for a statement type, for messages.
fn statement_kind(statement_type: u64) -> &'static str {
    match statement_type {
        0x3100 => "an INSERT",
        0x3200 => "an UPDATE",
        0x3300 => "a DELETE",
        0x3400 => "a MERGE",
        0x3500 => "a multi-table INSERT",
        0x3600 => "a COPY",
        0x3000..0x4000 => "a DML statement",
        0x4000..0x5000 => "a session command (USE, SET, ALTER SESSION)",
        0x5000..0x6000 => "transaction control",
        0x6000..0x7000 => "DDL (which commits on its own)",
        0x7000..0x8000 => "a file transfer",
        _ => "a statement of an unknown type",
    }
}

/// Runs one statement in `session` (on a blocking thread) and reads its
/// rows. A DML statement is rolled back and reported.
fn execute(
    session: &mut Session,
    request_id: &str,
    sql: &str,
    parameters: Value,
    limit: RowLimit,
    deadline: Instant,
) -> Result<Fetched, Failure> {
    let left = deadline.saturating_duration_since(Instant::now());
    session.sequence += 1;
    let data = session.endpoint.query(
        &session.token,
        request_id,
        session.sequence,
        sql,
        parameters,
        left,
    )?;
    let statement_type = data
        .get("statementTypeId")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if !reads(statement_type) {
        let dml = (0x3000..0x4000).contains(&statement_type);
        session.sequence += 1;
        let rolled_back = dml
            && session
                .endpoint
                .query(
                    &session.token,
                    &uuid::Uuid::new_v4().to_string(),
                    session.sequence,
                    "ROLLBACK",
                    json!({}),
                    Duration::from_secs(30),
                )
                .is_ok();
        return Err(Failure::NotAQuery {
            kind: statement_kind(statement_type),
            rolled_back,
        });
    }
    Ok(rows::ResultSet::from_data(&data)?.read(&session.endpoint, limit, deadline)?)
}
