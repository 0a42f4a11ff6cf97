//! Snowflake's connector REST protocol, as the official drivers speak it
//! (and fakesnow answers it): JSON over HTTPS, blocking (run on tokio's
//! blocking pool).
//!
//! - `POST /session/v1/login-request?databaseName=…&warehouse=…&roleName=…`
//!   with `{"data": {ACCOUNT_NAME, LOGIN_NAME, PASSWORD | AUTHENTICATOR:
//!   SNOWFLAKE_JWT + TOKEN, SESSION_PARAMETERS, CLIENT_APP_ID, …}}` answers
//!   a session token and the session's database, schema, warehouse, role.
//! - `POST /queries/v1/query-request?requestId=<uuid>` with `{sqlText,
//!   sequenceId, parameters, …}` and `Authorization: Snowflake
//!   Token="…"` answers the result, or — for a query still running —
//!   code `333333`/`333334` and a `getResultUrl` to poll with GET.
//! - `POST /queries/v1/abort-request` with the query's `requestId` stops it.
//! - `POST /session?delete=true` ends the session.
//! - Result chunks beyond the first are plain GETs of the URLs in `chunks`,
//!   with the `chunkHeaders` the answer gives (or the `qrmk` key as the
//!   SSE-C headers), gzip-compressed or not.
//!
//! Every answer is `{data, code, message, success}`; a failure becomes a
//! [`WireError`] that carries Snowflake's code and message, never a token.

use std::io::Read;
use std::time::Duration;

use serde_json::{Value, json};

/// Most bytes of one answer or chunk read (a chunk is tens of MB at most).
const MAX_BODY: u64 = 256 * 1024 * 1024;
/// Most characters of a server's message repeated to the user.
const MAX_MESSAGE: usize = 400;
/// `CLIENT_APP_ID` / `User-Agent` of Lore's requests.
const CLIENT_APP: &str = "Lore";

/// Query answers meaning "still running: poll `getResultUrl`".
pub(crate) const QUERY_IN_PROGRESS: [&str; 2] = ["333333", "333334"];
/// The session token is no longer valid: log in again.
pub(crate) const SESSION_GONE: [&str; 3] = ["390112", "390104", "390111"];

/// Why a request failed.
#[derive(Debug, Clone)]
pub(crate) enum WireError {
    /// No answer: DNS, refused connection, TLS, timeout.
    Unreachable(String),
    /// An HTTP error status with the start of its body.
    Http { status: u16, message: String },
    /// Snowflake answered `success: false`.
    Snowflake {
        code: String,
        message: String,
        sql_state: Option<String>,
    },
    /// The answer is not what the protocol says.
    Protocol(String),
}

impl WireError {
    /// Snowflake's error code, when it answered one.
    pub(crate) fn code(&self) -> Option<&str> {
        match self {
            WireError::Snowflake { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// A session as the login answered it.
pub(crate) struct Login {
    pub token: String,
    /// The session's database, when the server says (`Some(None)`: it
    /// said none, e.g. the one asked for does not exist or the role may
    /// not use it).
    pub database: Option<Option<String>>,
    pub warehouse: Option<Option<String>>,
}

/// What the login request carries besides the credentials.
pub(crate) struct LoginRequest<'a> {
    pub account_name: &'a str,
    pub user: &'a str,
    /// `("PASSWORD", p)` or `("TOKEN", jwt)` with the authenticator.
    pub credential: Credential<'a>,
    pub database: &'a str,
    pub schema: Option<&'a str>,
    pub warehouse: Option<&'a str>,
    pub role: Option<&'a str>,
    pub session_parameters: Value,
}

/// The credential of a login request.
pub(crate) enum Credential<'a> {
    Password(&'a str),
    Jwt(String),
}

/// One Snowflake endpoint (account URL or `host`/`port`/`protocol`).
#[derive(Clone)]
pub(crate) struct Endpoint {
    agent: ureq::Agent,
    base_url: String,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// An endpoint at `base_url` (`https://host:port`).
    pub(crate) fn new(base_url: &str, connect_timeout: Duration) -> Endpoint {
        let agent = ureq::Agent::config_builder()
            .timeout_connect(Some(connect_timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("Lore/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Endpoint {
            agent,
            base_url: base_url.to_string(),
        }
    }

    /// The endpoint's `https://host:port`.
    pub(crate) fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Logs in: a session token, or why not.
    pub(crate) fn login(
        &self,
        request: &LoginRequest<'_>,
        timeout: Duration,
    ) -> Result<Login, WireError> {
        let mut query = form_urlencoded::Serializer::new(String::new());
        query.append_pair("request_id", &uuid::Uuid::new_v4().to_string());
        query.append_pair("databaseName", request.database);
        if let Some(schema) = request.schema {
            query.append_pair("schemaName", schema);
        }
        if let Some(warehouse) = request.warehouse {
            query.append_pair("warehouse", warehouse);
        }
        if let Some(role) = request.role {
            query.append_pair("roleName", role);
        }
        let mut data = json!({
            "CLIENT_APP_ID": CLIENT_APP,
            "CLIENT_APP_VERSION": env!("CARGO_PKG_VERSION"),
            "ACCOUNT_NAME": request.account_name,
            "LOGIN_NAME": request.user,
            "SESSION_PARAMETERS": request.session_parameters,
            "CLIENT_ENVIRONMENT": {"APPLICATION": CLIENT_APP, "OS": std::env::consts::OS},
        });
        match &request.credential {
            Credential::Password(password) => data["PASSWORD"] = json!(password),
            Credential::Jwt(token) => {
                data["AUTHENTICATOR"] = json!("SNOWFLAKE_JWT");
                data["TOKEN"] = json!(token);
            }
        }
        let body = json!({ "data": data }).to_string();
        let url = format!(
            "{}/session/v1/login-request?{}",
            self.base_url,
            query.finish()
        );
        let answer = self.post(&url, &body, None, timeout)?;
        let data = answer.get("data").cloned().unwrap_or(Value::Null);
        if let Some(next) = data.get("nextAction").and_then(Value::as_str) {
            return Err(WireError::Snowflake {
                code: "MFA".to_string(),
                message: format!(
                    "Snowflake asks for a further step ({next}: multi-factor authentication or a password change), which Lore cannot take; give Lore a user that logs in with a key pair (private_key)"
                ),
                sql_state: None,
            });
        }
        let token = data
            .get("token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| WireError::Protocol("the login answer carries no session token".into()))?
            .to_string();
        let info = data.get("sessionInfo");
        let field = |name: &str| {
            info.and_then(|i| i.get(name))
                .map(|v| v.as_str().map(str::to_string))
        };
        Ok(Login {
            token,
            database: field("databaseName"),
            warehouse: field("warehouseName"),
        })
    }

    /// Sends one statement; answers its `data` once it has finished
    /// (polling while Snowflake says it runs), within `timeout`.
    pub(crate) fn query(
        &self,
        token: &str,
        request_id: &str,
        sequence_id: u64,
        sql: &str,
        parameters: Value,
        timeout: Duration,
    ) -> Result<Value, WireError> {
        let started = std::time::Instant::now();
        let url = format!(
            "{}/queries/v1/query-request?requestId={request_id}&request_guid={}",
            self.base_url,
            uuid::Uuid::new_v4()
        );
        let body = json!({
            "sqlText": sql,
            "asyncExec": false,
            "sequenceId": sequence_id,
            "querySubmissionTime": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as u64)
                .unwrap_or(0),
            "isInternal": false,
            "describeOnly": false,
            "parameters": parameters,
        })
        .to_string();
        let mut answer = self.post(&url, &body, Some(token), timeout)?;
        loop {
            let code = answer.get("code").and_then(Value::as_str).unwrap_or("");
            if !QUERY_IN_PROGRESS.contains(&code) {
                return Ok(answer.get("data").cloned().unwrap_or(Value::Null));
            }
            let result_url = answer
                .pointer("/data/getResultUrl")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    WireError::Protocol("a running query's answer has no getResultUrl".into())
                })?;
            let left = timeout.saturating_sub(started.elapsed());
            if left.is_zero() {
                return Err(WireError::Unreachable(
                    "the query was still running when its time was up".into(),
                ));
            }
            let url = format!("{}{result_url}", self.base_url);
            answer = self.get(&url, token, left)?;
        }
    }

    /// Asks Snowflake to stop the query sent with `request_id`.
    pub(crate) fn abort(&self, token: &str, request_id: &str, sql: &str) -> Result<(), WireError> {
        let url = format!(
            "{}/queries/v1/abort-request?requestId={}",
            self.base_url,
            uuid::Uuid::new_v4()
        );
        let body = json!({"sqlText": sql, "requestId": request_id}).to_string();
        self.post(&url, &body, Some(token), Duration::from_secs(10))
            .map(|_| ())
    }

    /// Ends a session (best effort).
    pub(crate) fn logout(&self, token: &str) {
        let url = format!("{}/session?delete=true", self.base_url);
        let _ = self.post(&url, "{}", Some(token), Duration::from_secs(5));
    }

    /// Downloads one result chunk, decompressed.
    pub(crate) fn chunk(
        &self,
        url: &str,
        headers: &[(String, String)],
        timeout: Duration,
    ) -> Result<Vec<u8>, WireError> {
        let mut request = self.agent.get(url);
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = request
            .config()
            .timeout_global(Some(timeout))
            .build()
            .call()
            .map_err(|e| WireError::Unreachable(transport_message(&e)))?;
        let status = response.status().as_u16();
        let bytes = read_body(response)?;
        if status != 200 {
            // The chunk URL is presigned: never repeat it.
            return Err(WireError::Http {
                status,
                message: format!(
                    "a result chunk could not be downloaded: {}",
                    clip(&String::from_utf8_lossy(&bytes))
                ),
            });
        }
        gunzip(bytes)
    }

    /// POSTs `body` with Snowflake's headers and reads the JSON answer.
    fn post(
        &self,
        url: &str,
        body: &str,
        token: Option<&str>,
        timeout: Duration,
    ) -> Result<Value, WireError> {
        let mut request = self
            .agent
            .post(url)
            .header("Accept", "application/snowflake")
            .header("Content-Type", "application/json");
        if let Some(token) = token {
            request = request.header("Authorization", authorization(token));
        }
        let response = request
            .config()
            .timeout_global(Some(timeout))
            .build()
            .send(body.as_bytes())
            .map_err(|e| WireError::Unreachable(transport_message(&e)))?;
        answer(response)
    }

    /// GETs `url` with Snowflake's headers and reads the JSON answer.
    fn get(&self, url: &str, token: &str, timeout: Duration) -> Result<Value, WireError> {
        let response = self
            .agent
            .get(url)
            .header("Accept", "application/snowflake")
            .header("Authorization", authorization(token))
            .config()
            .timeout_global(Some(timeout))
            .build()
            .call()
            .map_err(|e| WireError::Unreachable(transport_message(&e)))?;
        answer(response)
    }
}

fn authorization(token: &str) -> String {
    format!("Snowflake Token=\"{token}\"")
}

/// Reads a JSON answer, turning `success: false` into
/// [`WireError::Snowflake`] unless its code says the query still runs.
fn answer(response: ureq::http::Response<ureq::Body>) -> Result<Value, WireError> {
    let status = response.status().as_u16();
    let bytes = gunzip(read_body(response)?)?;
    let answer: Option<Value> = serde_json::from_slice(&bytes).ok();
    let Some(answer) = answer.filter(Value::is_object) else {
        return Err(if status == 200 {
            WireError::Protocol("the answer is not JSON".into())
        } else {
            WireError::Http {
                status,
                message: clip(&String::from_utf8_lossy(&bytes)),
            }
        });
    };
    let success = answer.get("success").and_then(Value::as_bool) == Some(true);
    let code = answer.get("code").and_then(|c| {
        c.as_str()
            .map(str::to_string)
            .or_else(|| c.as_i64().map(|n| n.to_string()))
    });
    if success
        || code
            .as_deref()
            .is_some_and(|c| QUERY_IN_PROGRESS.contains(&c))
    {
        return Ok(answer);
    }
    let message = answer
        .get("message")
        .and_then(Value::as_str)
        .map(clip)
        .unwrap_or_else(|| format!("HTTP {status} without a message"));
    match code {
        Some(code) => Err(WireError::Snowflake {
            code,
            message,
            sql_state: answer
                .pointer("/data/sqlState")
                .and_then(Value::as_str)
                .map(str::to_string),
        }),
        None if status != 200 => Err(WireError::Http { status, message }),
        None => Err(WireError::Protocol(message)),
    }
}

fn read_body(response: ureq::http::Response<ureq::Body>) -> Result<Vec<u8>, WireError> {
    response
        .into_body()
        .with_config()
        .limit(MAX_BODY)
        .read_to_vec()
        .map_err(|e| {
            WireError::Unreachable(format!(
                "the answer could not be read: {}",
                transport_message(&e)
            ))
        })
}

/// The bytes, gunzipped when they are gzip.
fn gunzip(bytes: Vec<u8>) -> Result<Vec<u8>, WireError> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .take(MAX_BODY)
        .read_to_end(&mut out)
        .map_err(|e| WireError::Protocol(format!("a gzip answer does not decompress: {e}")))?;
    Ok(out)
}

/// A transport error's message (ureq's messages name the host, never a
/// header).
fn transport_message(error: &ureq::Error) -> String {
    clip(&error.to_string())
}

/// At most [`MAX_MESSAGE`] characters of `text`, trimmed.
pub(crate) fn clip(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_MESSAGE) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
