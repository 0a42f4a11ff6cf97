//! The ClickHouse connector, over ClickHouse's HTTP interface.
//!
//! Every query is one POST whose URL carries the settings that hold it:
//!
//! - `readonly=1`: the server itself refuses writes, DDL, `SET`, a
//!   `SETTINGS` clause and (before 20.x) table functions;
//! - `max_execution_time` (the connection's statement timeout, in whole
//!   seconds) — the server stops the query; a timer at the exact timeout
//!   on Lore's side sends `KILL QUERY` for the query's own `query_id`, as
//!   does a dropped future, so a cancelled request stops on the server too;
//! - `max_result_rows` (the row cap plus one) and, for agents' queries,
//!   `max_result_bytes` (16 × the JSON byte budget: ClickHouse counts bytes
//!   in memory, which never exceed 16 × their JSON) with
//!   `result_overflow_mode=break`, so the server stops producing a result
//!   Lore would cut anyway, while Lore's own count decides `truncated`;
//! - `join_use_nulls=1`: an unmatched `LEFT JOIN` row reads NULL, as in
//!   standard SQL (ClickHouse's default fills in zeros and empty strings);
//! - `wait_end_of_query=1`: the answer is sent once the query finished, so
//!   an error is always an HTTP error, never a result cut half-way.
//!
//! A user whose own profile is read-only cannot be sent every setting:
//! with `readonly = 2` (reads, and settings) Lore sends all of the above
//! but `readonly=1`, which the server then refuses to lower to; with
//! `readonly = 1` (no settings at all) it sends none, so the timeout is
//! Lore's `KILL QUERY` alone, the row cap Lore's own, and an unmatched
//! `LEFT JOIN` row reads ClickHouse's defaults. The profile's value is
//! learned with the first query (and again when the server refuses a
//! setting).
//!
//! Results come as `TabSeparatedWithNamesAndTypes` (see [`value`]). The
//! interfaces used — the HTTP settings above, `system.tables`,
//! `system.columns`, `system.parts`, `KILL QUERY` — exist from ClickHouse
//! 18.16 on; Lore is tested against 18.16.
//!
//! The url is `http(s)://USER:PASSWORD@HOST:PORT/DATABASE` (port 8123 for
//! http, 8443 for https); `ssl_ca=FILE` names a CA to trust for https
//! besides the public ones. The password travels in a Basic
//! `Authorization` header, never in the URL, and no message repeats it.

mod value;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use lore_core::config::Secret;
use tokio::sync::Semaphore;

use super::{Fetched, QueryResult, ResultBudget, RowLimit, ServerInfo};
use crate::error::WarehouseError;
use value::{ChType, field_to_json, parse_type, unescape_field};

/// How long opening a connection may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Time allowed beyond the statement timeout before Lore gives up on the
/// answer and kills the query itself.
const TIMEOUT_SLACK: Duration = Duration::from_millis(500);
/// ClickHouse counts a result's bytes in memory; a value never takes more
/// than this many times its JSON size there (an empty string: 9 bytes
/// against `"",`), so the server's limit never cuts before Lore's budget.
const MEMORY_PER_JSON_BYTE: usize = 16;
/// Most bytes of an error answer read.
const MAX_ERROR_BYTES: u64 = 64 * 1024;
/// The result format (stable across versions, exact for strings).
const FORMAT: &str = "TabSeparatedWithNamesAndTypes";

/// Where and as whom to connect, parsed from the url.
#[derive(Clone)]
struct Endpoint {
    /// `http://host:port/`.
    base: String,
    /// `host:port`, for messages.
    target: String,
    user: String,
    password: String,
    database: Option<String>,
    https: bool,
    ca_file: Option<PathBuf>,
}

impl Endpoint {
    /// `text` with the password taken out.
    fn redact(&self, text: &str) -> String {
        if self.password.is_empty() {
            text.to_string()
        } else {
            text.replace(&self.password, "***")
        }
    }

    fn authorization(&self) -> String {
        let pair = format!("{}:{}", self.user, self.password);
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }
}

/// Runs read-only queries against one ClickHouse server.
pub struct ClickhouseConnector {
    id: String,
    url: Secret,
    project_dir: PathBuf,
    timeout: Duration,
    /// One permit per query in flight (the connection's `max_connections`).
    permits: Arc<Semaphore>,
    /// The HTTP agent (connection reuse), per CA file.
    agent: Mutex<Option<(Option<PathBuf>, ureq::Agent)>>,
    queries: AtomicU64,
    /// Whether the newest query went over https.
    encrypted: AtomicBool,
    /// The user's own `readonly` setting, once learned (a
    /// [`ReadOnlyProfile`]).
    profile: std::sync::atomic::AtomicU8,
}

/// The `readonly` setting of the user's own profile, which decides what
/// a query may be sent with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReadOnlyProfile {
    /// Not learned yet.
    Unknown = 0,
    /// `readonly = 0`: Lore sends `readonly=1` and every limit.
    Writable = 1,
    /// `readonly = 2`: the server refuses writes; Lore sends every limit.
    ReadsAndSettings = 2,
    /// `readonly = 1`: the server refuses writes and every setting.
    ReadsOnly = 3,
}

impl ReadOnlyProfile {
    fn from_u8(value: u8) -> ReadOnlyProfile {
        match value {
            1 => ReadOnlyProfile::Writable,
            2 => ReadOnlyProfile::ReadsAndSettings,
            3 => ReadOnlyProfile::ReadsOnly,
            _ => ReadOnlyProfile::Unknown,
        }
    }
}

impl std::fmt::Debug for ClickhouseConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClickhouseConnector")
            .field("id", &self.id)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl ClickhouseConnector {
    /// A connector for connection `id`; `url` is resolved (and the server
    /// contacted) only when the first query runs.
    pub fn new(
        id: &str,
        url: Secret,
        project_dir: PathBuf,
        timeout: Duration,
        max_sessions: usize,
    ) -> ClickhouseConnector {
        ClickhouseConnector {
            id: id.to_string(),
            url,
            project_dir,
            timeout,
            permits: Arc::new(Semaphore::new(max_sessions.max(1))),
            agent: Mutex::new(None),
            queries: AtomicU64::new(0),
            encrypted: AtomicBool::new(false),
            profile: std::sync::atomic::AtomicU8::new(ReadOnlyProfile::Unknown as u8),
        }
    }

    /// The statement timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn invalid(&self, reason: impl Into<String>) -> WarehouseError {
        WarehouseError::InvalidUrl {
            id: self.id.clone(),
            driver: "clickhouse",
            reason: reason.into(),
        }
    }

    /// Resolves and parses the url.
    fn endpoint(&self) -> Result<Endpoint, WarehouseError> {
        let url = self
            .url
            .resolve(&format!("connection `{}` url", self.id), &self.project_dir)?;
        let url = url.trim();
        let (scheme, rest) = url.split_once("://").ok_or_else(|| {
            self.invalid("it must start with http:// or https://, e.g. http://USER:PASSWORD@HOST:8123/DATABASE")
        })?;
        let https = match scheme.to_ascii_lowercase().as_str() {
            "http" => false,
            "https" => true,
            other => {
                return Err(self.invalid(format!(
                    "scheme `{other}` is not http or https (Lore speaks ClickHouse's HTTP interface, port 8123 or 8443)"
                )));
            }
        };
        let (before_query, query) = match rest.split_once('?') {
            Some((a, q)) => (a, Some(q)),
            None => (rest, None),
        };
        let (authority, path) = match before_query.find('/') {
            Some(i) => (&before_query[..i], &before_query[i + 1..]),
            None => (before_query, ""),
        };
        let (userinfo, host_port) = match authority.rfind('@') {
            Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
            None => (None, authority),
        };
        let (user, password) = match userinfo {
            Some(info) => {
                let (user, password) = info.split_once(':').unwrap_or((info, ""));
                (
                    percent_decode(user)
                        .map_err(|_| self.invalid("the user name is not valid percent-encoding"))?,
                    percent_decode(password)
                        .map_err(|_| self.invalid("the password is not valid percent-encoding"))?,
                )
            }
            None => ("default".to_string(), String::new()),
        };
        if host_port.is_empty() {
            return Err(self.invalid("it names no host"));
        }
        let has_port = match host_port.rfind(':') {
            Some(i) => !host_port[i..].contains(']'),
            None => false,
        };
        let host_port = if has_port {
            let port = &host_port[host_port.rfind(':').unwrap_or(0) + 1..];
            if port.parse::<u16>().is_err() {
                return Err(self.invalid(format!("port `{port}` is not a number")));
            }
            host_port.to_string()
        } else {
            format!("{host_port}:{}", if https { 8443 } else { 8123 })
        };
        let database = path.trim_matches('/');
        let database = if database.is_empty() {
            None
        } else {
            Some(
                percent_decode(database)
                    .map_err(|_| self.invalid("the database name is not valid percent-encoding"))?,
            )
        };
        let mut ca_file = None;
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key.to_ascii_lowercase().replace('-', "_").as_str() {
                "ssl_ca" | "sslrootcert" => {
                    let value = percent_decode(value)
                        .map_err(|_| self.invalid("ssl_ca is not valid percent-encoding"))?;
                    ca_file = Some(PathBuf::from(value));
                }
                // Never echo a value: it could be a secret.
                other => {
                    return Err(self.invalid(format!(
                        "parameter `{other}` is not known (ClickHouse settings are Lore's to set; the url takes only ssl_ca)"
                    )));
                }
            }
        }
        Ok(Endpoint {
            base: format!("{}://{host_port}/", if https { "https" } else { "http" }),
            target: host_port,
            user,
            password,
            database,
            https,
            ca_file,
        })
    }

    /// The HTTP agent for `endpoint` (one per CA file, reused).
    fn agent(&self, endpoint: &Endpoint) -> Result<ureq::Agent, WarehouseError> {
        if let Ok(guard) = self.agent.lock()
            && let Some((ca, agent)) = guard.as_ref()
            && *ca == endpoint.ca_file
        {
            return Ok(agent.clone());
        }
        let mut tls = ureq::tls::TlsConfig::builder();
        if let Some(path) = &endpoint.ca_file {
            let (_, certs) =
                super::tls::read_ca_file(path, &self.project_dir).map_err(|message| {
                    WarehouseError::Tls {
                        id: self.id.clone(),
                        driver: "clickhouse",
                        target: endpoint.target.clone(),
                        message,
                    }
                })?;
            let certs: Vec<ureq::tls::Certificate<'static>> = certs
                .iter()
                .map(|c| ureq::tls::Certificate::from_der(c.as_ref()).to_owned())
                .collect();
            tls = tls.root_certs(ureq::tls::RootCerts::new_with_certs(&certs));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            // A backstop: the server's own limit and KILL QUERY come first.
            .timeout_global(Some(self.timeout + Duration::from_secs(60)))
            .user_agent(concat!("lore/", env!("CARGO_PKG_VERSION")))
            .tls_config(tls.build())
            .build()
            .into();
        if let Ok(mut guard) = self.agent.lock() {
            *guard = Some((endpoint.ca_file.clone(), agent.clone()));
        }
        Ok(agent)
    }

    /// The settings every query is sent with (see the module docs).
    fn settings(
        &self,
        endpoint: &Endpoint,
        query_id: &str,
        limit: RowLimit,
        profile: ReadOnlyProfile,
    ) -> Vec<(&'static str, String)> {
        let mut settings = Vec::new();
        if let Some(database) = &endpoint.database {
            settings.push(("database", database.clone()));
        }
        settings.push(("query_id", query_id.to_string()));
        settings.push(("default_format", FORMAT.to_string()));
        settings.push(("wait_end_of_query", "1".to_string()));
        if matches!(
            profile,
            ReadOnlyProfile::ReadsOnly | ReadOnlyProfile::Unknown
        ) {
            return settings;
        }
        let seconds = self.timeout.as_millis().div_ceil(1000).max(1);
        settings.push(("max_execution_time", seconds.to_string()));
        settings.push(("max_result_rows", limit.rows.saturating_add(1).to_string()));
        if let Some(bytes) = limit.bytes {
            settings.push((
                "max_result_bytes",
                bytes.saturating_mul(MEMORY_PER_JSON_BYTE).to_string(),
            ));
        }
        settings.push(("result_overflow_mode", "break".to_string()));
        settings.push(("join_use_nulls", "1".to_string()));
        if profile == ReadOnlyProfile::Writable {
            // Last, so no setting after it could be refused by it.
            settings.push(("readonly", "1".to_string()));
        }
        settings
    }

    /// The user's profile, learned with a query that sends no setting.
    async fn profile(
        &self,
        agent: &ureq::Agent,
        endpoint: &Endpoint,
    ) -> Result<ReadOnlyProfile, WarehouseError> {
        let known = ReadOnlyProfile::from_u8(self.profile.load(Ordering::Relaxed));
        if known != ReadOnlyProfile::Unknown {
            return Ok(known);
        }
        let query_id = self.query_id();
        let settings = self.settings(
            endpoint,
            &query_id,
            RowLimit::rows(1),
            ReadOnlyProfile::Unknown,
        );
        let (id, agent, endpoint) = (self.id.clone(), agent.clone(), endpoint.clone());
        let timeout = self.timeout;
        let (outcome, _) = tokio::task::spawn_blocking(move || {
            fetch(
                &id,
                &agent,
                &endpoint,
                &settings,
                "SELECT value FROM system.settings WHERE name = 'readonly'",
                RowLimit::rows(1),
                timeout,
            )
        })
        .await
        .map_err(|e| WarehouseError::Upstream {
            message: format!("query task failed: {e}"),
        })?;
        let fetched = outcome?;
        let value = fetched
            .rows
            .first()
            .and_then(|r| r.first())
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let profile = match value.as_deref() {
            Some("0") => ReadOnlyProfile::Writable,
            Some("1") => ReadOnlyProfile::ReadsOnly,
            _ => ReadOnlyProfile::ReadsAndSettings,
        };
        self.profile.store(profile as u8, Ordering::Relaxed);
        Ok(profile)
    }

    fn query_id(&self) -> String {
        format!(
            "lore-{}-{}",
            uuid::Uuid::new_v4().simple(),
            self.queries.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// Runs `sql` (already checked by the guard, or written by Lore) with
    /// `readonly=1`, fetching at most `max_rows + 1` rows.
    pub(crate) async fn run(
        &self,
        sql: &str,
        limit: RowLimit,
    ) -> Result<QueryResult, WarehouseError> {
        let endpoint = self.endpoint()?;
        let agent = self.agent(&endpoint)?;
        let _permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|_| WarehouseError::Upstream {
                message: "the connection is closing".to_string(),
            })?;
        let profile = self.profile(&agent, &endpoint).await?;
        match self.run_once(&agent, &endpoint, sql, limit, profile).await {
            // The user's profile changed since it was learned: learn it
            // again and retry once.
            Err(WarehouseError::RefusedByDatabase { message }) if refuses_settings(&message) => {
                self.profile
                    .store(ReadOnlyProfile::Unknown as u8, Ordering::Relaxed);
                let profile = self.profile(&agent, &endpoint).await?;
                self.run_once(&agent, &endpoint, sql, limit, profile).await
            }
            other => other,
        }
    }

    async fn run_once(
        &self,
        agent: &ureq::Agent,
        endpoint: &Endpoint,
        sql: &str,
        limit: RowLimit,
        profile: ReadOnlyProfile,
    ) -> Result<QueryResult, WarehouseError> {
        let (agent, endpoint) = (agent.clone(), endpoint.clone());
        let query_id = self.query_id();
        let settings = self.settings(&endpoint, &query_id, limit, profile);
        self.encrypted.store(endpoint.https, Ordering::Relaxed);
        let mut kill = KillOnDrop(Some(Kill {
            agent: agent.clone(),
            endpoint: endpoint.clone(),
            query_id,
        }));
        let started = Instant::now();
        let id = self.id.clone();
        let sql = sql.to_string();
        let timeout = self.timeout;
        let task = tokio::task::spawn_blocking(move || {
            fetch(&id, &agent, &endpoint, &settings, &sql, limit, timeout)
        });
        match tokio::time::timeout(self.timeout + TIMEOUT_SLACK, task).await {
            Ok(Ok((outcome, answered))) => {
                // The server answered: the query is over (wait_end_of_query).
                if answered {
                    kill.0 = None;
                }
                outcome.map(|fetched| {
                    fetched.into_result(limit.rows, started.elapsed().as_millis() as u64)
                })
            }
            Ok(Err(e)) => Err(WarehouseError::Upstream {
                message: format!("query task failed: {e}"),
            }),
            // `kill` sends KILL QUERY as it drops.
            Err(_) => Err(WarehouseError::Timeout {
                timeout_ms: self.timeout.as_millis() as u64,
            }),
        }
    }

    /// The server version, and whether its sessions are read-only (the
    /// server's own `readonly` setting as Lore's queries see it).
    pub(crate) async fn server_info(&self) -> Result<ServerInfo, WarehouseError> {
        let result = self
            .run(
                "SELECT version(), value FROM system.settings WHERE name = 'readonly'",
                RowLimit::rows(1),
            )
            .await?;
        let row = result.rows.first();
        Ok(ServerInfo {
            version: format!(
                "ClickHouse {}",
                row.and_then(|r| r[0].as_str())
                    .unwrap_or("(unknown version)")
            ),
            read_only: matches!(row.and_then(|r| r[1].as_str()), Some("1" | "2")),
            encrypted: Some(self.encrypted.load(Ordering::Relaxed)),
        })
    }
}

/// Whether a read-only refusal is about settings (the user's profile is
/// stricter than learned), not about a write.
fn refuses_settings(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.contains("setting") && (lower.contains("overrid") || lower.contains("modify"))
}

/// A `KILL QUERY` to send for a query that may still run.
struct Kill {
    agent: ureq::Agent,
    endpoint: Endpoint,
    query_id: String,
}

impl Kill {
    /// Asks the server to stop the query (best effort, blocking).
    fn send(self) {
        let sql = format!(
            "KILL QUERY WHERE query_id = '{}' ASYNC",
            self.query_id.replace(['\'', '\\'], "")
        );
        let mut settings = vec![("readonly", "1".to_string())];
        if let Some(database) = &self.endpoint.database {
            settings.insert(0, ("database", database.clone()));
        }
        let _ = post(&self.agent, &self.endpoint, &settings, &sql).map(|response| {
            let mut body = response.into_body().into_reader();
            let _ = std::io::copy(
                &mut std::io::Read::take(&mut body, MAX_ERROR_BYTES),
                &mut std::io::sink(),
            );
        });
    }
}

/// Sends `KILL QUERY` when the query's future is dropped before the server
/// answered (timeout, cancelled request).
struct KillOnDrop(Option<Kill>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let Some(kill) = self.0.take() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn_blocking(move || kill.send());
            }
            Err(_) => {
                let _ = std::thread::Builder::new()
                    .name("lore-clickhouse-kill".into())
                    .spawn(move || kill.send());
            }
        }
    }
}

/// POSTs `sql` with `settings` as URL parameters.
fn post(
    agent: &ureq::Agent,
    endpoint: &Endpoint,
    settings: &[(&str, String)],
    sql: &str,
) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
    let query: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(settings.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    agent
        .post(format!("{}?{query}", endpoint.base))
        .header("Authorization", endpoint.authorization())
        .header("Content-Type", "text/plain; charset=UTF-8")
        .send(sql.as_bytes())
}

/// Runs one query and reads its rows (blocking). The flag says whether the
/// server answered (then the query is over and needs no KILL).
fn fetch(
    id: &str,
    agent: &ureq::Agent,
    endpoint: &Endpoint,
    settings: &[(&str, String)],
    sql: &str,
    limit: RowLimit,
    timeout: Duration,
) -> (Result<Fetched, WarehouseError>, bool) {
    let response = match post(agent, endpoint, settings, sql) {
        Ok(response) => response,
        Err(e) => return (Err(transport_error(id, endpoint, e)), false),
    };
    let status = response.status().as_u16();
    let mut reader = std::io::BufReader::new(response.into_body().into_reader());
    if status != 200 {
        let mut text = Vec::new();
        let _ = std::io::Read::read_to_end(
            &mut std::io::Read::take(&mut reader, MAX_ERROR_BYTES),
            &mut text,
        );
        let text = String::from_utf8_lossy(&text);
        return (
            Err(server_error(id, endpoint, status, &text, timeout)),
            true,
        );
    }
    (read_rows(endpoint, &mut reader, limit, timeout), true)
}

/// Reads the header lines and up to `max_rows + 1` rows within the budget.
fn read_rows(
    endpoint: &Endpoint,
    reader: &mut impl std::io::BufRead,
    limit: RowLimit,
    timeout: Duration,
) -> Result<Fetched, WarehouseError> {
    let read_error = |e: std::io::Error| WarehouseError::Upstream {
        message: endpoint.redact(&format!("the answer of ClickHouse could not be read: {e}")),
    };
    let mut line = Vec::new();
    let mut next_line = |line: &mut Vec<u8>| -> Result<bool, WarehouseError> {
        line.clear();
        let n = reader.read_until(b'\n', line).map_err(read_error)?;
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        Ok(n > 0)
    };
    if !next_line(&mut line)? {
        // No result set at all (a statement that returns nothing).
        return Ok(Fetched {
            headers: Vec::new(),
            header_types: None,
            rows: Vec::new(),
            cut_at_bytes: None,
        });
    }
    let fields = |line: &[u8]| -> Vec<String> {
        line.split(|b| *b == b'\t')
            .map(|f| String::from_utf8_lossy(&unescape_field(f).unwrap_or_default()).into_owned())
            .collect()
    };
    let headers = fields(&line);
    next_line(&mut line)?;
    let type_names = fields(&line);
    let types: Vec<ChType> = type_names.iter().map(|t| parse_type(t)).collect();
    let mut budget = ResultBudget::new(limit);
    let mut stopped = false;
    let mut rows = Vec::new();
    while rows.len() <= limit.rows && next_line(&mut line)? {
        let cells: Vec<&[u8]> = line.split(|b| *b == b'\t').collect();
        if cells.len() != headers.len() {
            let text = String::from_utf8_lossy(&line);
            return Err(if text.starts_with("Code: ") {
                server_error("", endpoint, 500, &text, timeout)
            } else {
                WarehouseError::Upstream {
                    message: format!(
                        "ClickHouse sent a row of {} fields for {} columns",
                        cells.len(),
                        headers.len()
                    ),
                }
            });
        }
        let mut values: Vec<serde_json::Value> = cells
            .iter()
            .zip(&types)
            .map(|(cell, ty)| field_to_json(ty, cell))
            .collect();
        if !budget.admit(&mut values) {
            stopped = true;
            break;
        }
        rows.push(values);
    }
    Ok(Fetched {
        headers,
        header_types: Some(type_names),
        rows,
        cut_at_bytes: budget.cut_at(stopped),
    })
}

/// A failure before any answer: the server could not be reached.
fn transport_error(id: &str, endpoint: &Endpoint, e: ureq::Error) -> WarehouseError {
    let message = match &e {
        ureq::Error::Timeout(_) => format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
        ureq::Error::HostNotFound => "the host name does not resolve".to_string(),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "the connection was refused (nothing listens on that port)".to_string()
        }
        other => other.to_string(),
    };
    let message = endpoint.redact(&message);
    let lower = message.to_ascii_lowercase();
    if endpoint.https
        && (lower.contains("tls") || lower.contains("certificate") || lower.contains("handshake"))
    {
        return WarehouseError::Tls {
            id: id.to_string(),
            driver: "clickhouse",
            target: endpoint.target.clone(),
            message: format!(
                "TLS failed ({message}); for a server whose certificate no public authority signed, name its CA with ssl_ca=FILE in the url"
            ),
        };
    }
    if !endpoint.https && lower.contains("tls") {
        return WarehouseError::Tls {
            id: id.to_string(),
            driver: "clickhouse",
            target: endpoint.target.clone(),
            message,
        };
    }
    WarehouseError::Unreachable {
        id: id.to_string(),
        driver: "clickhouse",
        target: endpoint.target.clone(),
        message,
    }
}

/// The error code in a ClickHouse error text (`Code: 60, …` before 21.x,
/// `Code: 60. DB::Exception: …` after).
fn error_code(text: &str) -> Option<u32> {
    let rest = text.trim_start().strip_prefix("Code: ")?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// The human part of a ClickHouse error text.
fn error_message(text: &str) -> String {
    let text = text.trim();
    let message = match text.find("DB::Exception: ") {
        Some(i) => &text[i + "DB::Exception: ".len()..],
        None => text,
    };
    let message = message
        .split(", e.what() = ")
        .next()
        .unwrap_or(message)
        .split(" (version ")
        .next()
        .unwrap_or(message);
    message
        .lines()
        .next()
        .unwrap_or(message)
        .trim_end_matches(['.', ' '])
        .chars()
        .take(1000)
        .collect()
}

/// Maps a ClickHouse error answer to what the caller should do about it.
fn server_error(
    id: &str,
    endpoint: &Endpoint,
    status: u16,
    text: &str,
    timeout: Duration,
) -> WarehouseError {
    let message = endpoint.redact(&error_message(text));
    let login = |message: String| WarehouseError::LoginRefused {
        id: id.to_string(),
        driver: "clickhouse",
        message,
    };
    match error_code(text) {
        // READONLY: writes, DDL, SET and table functions in readonly mode.
        Some(164) => WarehouseError::RefusedByDatabase { message },
        // TIMEOUT_EXCEEDED, QUERY_WAS_CANCELLED (KILL QUERY).
        Some(159 | 394) => WarehouseError::Timeout {
            timeout_ms: timeout.as_millis() as u64,
        },
        // UNKNOWN_USER, WRONG_PASSWORD, REQUIRED_PASSWORD,
        // IP_ADDRESS_NOT_ALLOWED, AUTHENTICATION_FAILED.
        Some(192..=195 | 516) => login(message),
        // UNKNOWN_DATABASE, when it is the url's own database.
        Some(81)
            if endpoint
                .database
                .as_deref()
                .is_some_and(|db| message.contains(db)) =>
        {
            login(format!(
                "{message}; the database in the url must exist (list them with SHOW DATABASES)"
            ))
        }
        // DATABASE_ACCESS_DENIED, ACCESS_DENIED, NOT_ENOUGH_PRIVILEGES.
        Some(291 | 497 | 499) => WarehouseError::PermissionDenied { message },
        // TOO_MANY_ROWS, TOO_MANY_BYTES, TOO_MANY_ROWS_OR_BYTES,
        // MEMORY_LIMIT_EXCEEDED, and the user's quota.
        Some(158 | 307 | 396 | 241 | 201) => WarehouseError::BudgetExceeded { message },
        // TOO_MANY_SIMULTANEOUS_QUERIES, SOCKET_TIMEOUT, NETWORK_ERROR,
        // ALL_CONNECTION_TRIES_FAILED, TABLE_IS_READ_ONLY while restarting.
        Some(202 | 209 | 210 | 279 | 425) => WarehouseError::Upstream { message },
        Some(_) => WarehouseError::Query { message },
        None if status == 401 || status == 403 => login(message),
        None => WarehouseError::Upstream {
            message: format!("HTTP {status}: {message}"),
        },
    }
}

/// Decodes `%XX` escapes.
fn percent_decode(text: &str) -> Result<String, ()> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or(())?;
            let hex = std::str::from_utf8(hex).map_err(|_| ())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| ())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connector(url: &str) -> ClickhouseConnector {
        ClickhouseConnector::new(
            "w",
            Secret::new(url),
            PathBuf::from("/tmp"),
            Duration::from_millis(2500),
            2,
        )
    }

    #[test]
    fn urls_name_server_user_and_database() {
        let e = connector("http://an%40alyst:p%40ss@ch.internal/sales")
            .endpoint()
            .unwrap();
        assert_eq!(e.base, "http://ch.internal:8123/");
        assert_eq!(e.user, "an@alyst");
        assert_eq!(e.password, "p@ss");
        assert_eq!(e.database.as_deref(), Some("sales"));
        let e = connector("https://ch.example.com:9443").endpoint().unwrap();
        assert_eq!(e.target, "ch.example.com:9443");
        assert_eq!(e.user, "default");
        assert_eq!(e.database, None);
        assert_eq!(connector("https://h/").endpoint().unwrap().target, "h:8443");
    }

    #[test]
    fn bad_urls_are_refused_without_echoing_secrets() {
        for url in [
            "clickhouse://u:hunter2@h:9000/db",
            "http://u:hunter2@h:port/db",
            "http://u:hunter2@h/db?readonly=0",
            "http://u:hunter2@h/db?password=hunter2",
        ] {
            let err = connector(url).endpoint().err().unwrap();
            let message = err.to_string();
            assert!(!message.contains("hunter2"), "{message}");
            assert!(message.contains("lore.yaml"), "{message}");
        }
    }

    #[test]
    fn every_query_is_read_only_and_bounded() {
        let c = connector("http://u:p@h/db");
        let e = c.endpoint().unwrap();
        let settings = c.settings(
            &e,
            "q1",
            RowLimit {
                rows: 10,
                bytes: Some(1000),
            },
            ReadOnlyProfile::Writable,
        );
        let get = |k: &str| {
            settings
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(
            settings.last().map(|(k, v)| (*k, v.as_str())),
            Some(("readonly", "1"))
        );
        assert_eq!(get("max_execution_time"), Some("3"));
        assert_eq!(get("max_result_rows"), Some("11"));
        assert_eq!(get("max_result_bytes"), Some("16000"));
        assert_eq!(get("result_overflow_mode"), Some("break"));
        assert_eq!(get("join_use_nulls"), Some("1"));
        assert_eq!(get("database"), Some("db"));
        // A read-only profile refuses `readonly=1` (readonly = 2) or any
        // setting (readonly = 1).
        let reader = c.settings(
            &e,
            "q2",
            RowLimit::rows(10),
            ReadOnlyProfile::ReadsAndSettings,
        );
        assert!(reader.iter().all(|(k, _)| *k != "readonly"));
        assert!(reader.iter().any(|(k, _)| *k == "max_execution_time"));
        let strict = c.settings(&e, "q3", RowLimit::rows(10), ReadOnlyProfile::ReadsOnly);
        let names: Vec<&str> = strict.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            names,
            [
                "database",
                "query_id",
                "default_format",
                "wait_end_of_query"
            ]
        );
        assert!(refuses_settings(
            "Cannot override setting (max_execution_time) in readonly mode"
        ));
        assert!(refuses_settings(
            "Setting 'readonly' cannot be overrided in readonly mode"
        ));
        assert!(!refuses_settings("Cannot create table in readonly mode"));
    }

    #[test]
    fn error_texts_of_old_and_new_servers_are_read() {
        let old = "Code: 60, e.displayText() = DB::Exception: Table default.nope doesn't exist., e.what() = DB::Exception\n";
        assert_eq!(error_code(old), Some(60));
        assert_eq!(error_message(old), "Table default.nope doesn't exist");
        let new = "Code: 60. DB::Exception: Table default.nope does not exist. (UNKNOWN_TABLE) (version 23.8.1.1)";
        assert_eq!(error_code(new), Some(60));
        assert_eq!(
            error_message(new),
            "Table default.nope does not exist. (UNKNOWN_TABLE)"
        );
    }

    #[test]
    fn passwords_are_taken_out_of_server_messages() {
        let e = connector("http://u:s3cr3t@h/db").endpoint().unwrap();
        let err = server_error(
            "w",
            &e,
            500,
            "Code: 62, e.displayText() = DB::Exception: Syntax error near 's3cr3t', e.what() = DB::Exception",
            Duration::from_secs(1),
        );
        assert!(!err.to_string().contains("s3cr3t"), "{err}");
    }
}
