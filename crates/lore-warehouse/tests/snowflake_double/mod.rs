//! A local double of Snowflake's connector REST endpoints, for the paths
//! fakesnow never takes: refused logins, key-pair tokens checked for real,
//! databases that do not exist, expired sessions, queries that keep
//! running (polling, statement timeouts, aborts), privileges a role lacks,
//! and large results split into chunks downloaded from another URL — with
//! the JSON shapes the official connectors read (`snowflake-connector-python`'s
//! `auth/_auth.py`, `network.py`, `cursor.py`, `result_batch.py`).
//!
//! It records what it was sent, so tests can check the requests too.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Value, json};

/// The session tokens the double hands out start with this (a secret
/// that must never show up in a message or a log).
pub const TOKEN_PREFIX: &str = "SESSION-TOKEN-SECRET-";

/// How the double answers one SQL text.
#[derive(Clone)]
pub enum Answer {
    /// A finished query: the answer's `data`.
    Data(Value),
    /// Snowflake refuses the statement.
    Error {
        code: &'static str,
        message: &'static str,
    },
    /// Still running for `polls` polls of `getResultUrl`, then `then`.
    Running { polls: usize, then: Value },
    /// Runs until it is aborted (then says so), or for 30 s.
    Endless,
}

/// How the double behaves.
pub struct Config {
    /// The password it accepts.
    pub password: String,
    /// With a key: the PKCS#1 DER public key JWTs must verify with, and
    /// its fingerprint (`SHA256:…`).
    pub public_key: Option<(Vec<u8>, String)>,
    /// Answer logins with HTTP 403, as Snowflake does for an account that
    /// does not exist.
    pub unknown_account: bool,
    /// Whether the database asked for exists.
    pub database_exists: bool,
    /// Answer the next query with "session expired" (390112).
    pub expire_next_query: bool,
    /// Answers by SQL text.
    pub answers: HashMap<String, Answer>,
    /// Result chunks by name: bytes, and whether to gzip them.
    pub chunks: HashMap<String, (Vec<u8>, bool)>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            password: "right-password".into(),
            public_key: None,
            unknown_account: false,
            database_exists: true,
            expire_next_query: false,
            answers: HashMap::new(),
            chunks: HashMap::new(),
        }
    }
}

/// What the double was sent.
#[derive(Default)]
pub struct Seen {
    /// Login request bodies and their query strings.
    pub logins: Vec<(String, Value)>,
    /// Claims of verified JWTs.
    pub jwt_claims: Vec<Value>,
    /// Query requests: `requestId` and body.
    pub queries: Vec<(String, Value)>,
    /// Abort request bodies.
    pub aborts: Vec<Value>,
    /// `getResultUrl` polls.
    pub polls: usize,
    /// Chunk downloads: name and the SSE-C key header sent.
    pub chunks: Vec<(String, Option<String>)>,
    /// Logouts.
    pub logouts: usize,
}

#[derive(Default)]
pub struct Shared {
    pub config: Mutex<Config>,
    pub seen: Mutex<Seen>,
    tokens: Mutex<Vec<String>>,
    /// Tokens handed out so far: each login's token is new, even after a
    /// logout or an expiry removed earlier ones from `tokens`.
    issued: std::sync::atomic::AtomicUsize,
    running: Mutex<HashMap<String, (usize, Value)>>,
}

/// A running double.
pub struct Double {
    /// `127.0.0.1:port`.
    pub addr: String,
    pub shared: Arc<Shared>,
}

impl Double {
    /// Starts a double on a free loopback port.
    pub async fn start(config: Config) -> Double {
        let shared = Arc::new(Shared {
            config: Mutex::new(config),
            ..Shared::default()
        });
        let app = Router::new()
            .route("/session/v1/login-request", post(login))
            .route("/queries/v1/query-request", post(query))
            .route("/queries/{id}/result", get(poll))
            .route("/queries/v1/abort-request", post(abort))
            .route("/session", post(logout))
            .route("/chunks/{name}", get(chunk))
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Double { addr, shared }
    }

    /// A Lore url for this double (`user:password@acct/database`).
    pub fn url(&self, userinfo: &str, database: &str) -> String {
        let (host, port) = self.addr.split_once(':').unwrap();
        format!(
            "snowflake://{userinfo}@acct/{database}?host={host}&port={port}&protocol=http&warehouse=WH&role=LORE_READER"
        )
    }

    /// The URL of chunk `name`, as a `chunks` entry names it.
    pub fn chunk_url(&self, name: &str) -> String {
        format!("http://{}/chunks/{name}", self.addr)
    }

    pub fn seen<T>(&self, read: impl FnOnce(&Seen) -> T) -> T {
        read(&self.shared.seen.lock().unwrap())
    }

    pub fn configure(&self, edit: impl FnOnce(&mut Config)) {
        edit(&mut self.shared.config.lock().unwrap());
    }
}

fn failure(code: &str, message: &str) -> Response {
    axum::Json(json!({"data": {"errorCode": code, "sqlState": "42501"}, "code": code, "message": message, "success": false}))
        .into_response()
}

async fn login(
    State(shared): State<Arc<Shared>>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let query = query.unwrap_or_default();
    shared
        .seen
        .lock()
        .unwrap()
        .logins
        .push((query.clone(), body.clone()));
    let config = shared.config.lock().unwrap();
    if config.unknown_account {
        return (
            StatusCode::FORBIDDEN,
            "<html><body>403 Forbidden</body></html>",
        )
            .into_response();
    }
    let data = &body["data"];
    let accepted = match (&config.public_key, data["AUTHENTICATOR"].as_str()) {
        (Some((public_key, fingerprint)), Some("SNOWFLAKE_JWT")) => {
            match verify_jwt(data["TOKEN"].as_str().unwrap_or(""), public_key) {
                Some(claims) => {
                    let expected_sub = format!(
                        "{}.{}",
                        data["ACCOUNT_NAME"]
                            .as_str()
                            .unwrap_or("")
                            .to_ascii_uppercase(),
                        data["LOGIN_NAME"]
                            .as_str()
                            .unwrap_or("")
                            .to_ascii_uppercase()
                    );
                    let ok = claims["sub"] == expected_sub
                        && claims["iss"] == format!("{expected_sub}.{fingerprint}");
                    shared.seen.lock().unwrap().jwt_claims.push(claims);
                    ok
                }
                None => false,
            }
        }
        (_, Some(_)) => false,
        (_, None) => data["PASSWORD"].as_str() == Some(config.password.as_str()),
    };
    if !accepted {
        return if data["AUTHENTICATOR"] == "SNOWFLAKE_JWT" {
            failure("390144", "JWT token is invalid.")
        } else {
            failure("390100", "Incorrect username or password was specified.")
        };
    }
    let database = query
        .split('&')
        .find_map(|p| p.strip_prefix("databaseName="))
        .map(str::to_string);
    let mut tokens = shared.tokens.lock().unwrap();
    let issued = shared
        .issued
        .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let token = format!("{TOKEN_PREFIX}{}", issued + 1);
    tokens.push(token.clone());
    axum::Json(json!({
        "data": {
            "token": token,
            "masterToken": format!("MASTER-{token}"),
            "validityInSeconds": 3600,
            "serverVersion": "9.99.0",
            "sessionInfo": {
                "databaseName": if config.database_exists { database.map(Value::from).unwrap_or(Value::Null) } else { Value::Null },
                "schemaName": "PUBLIC",
                "warehouseName": "WH",
                "roleName": "LORE_READER",
            },
        },
        "code": null,
        "message": null,
        "success": true,
    }))
    .into_response()
}

/// Checks an RS256 JWT with the PKCS#1 public key; its claims when valid.
fn verify_jwt(token: &str, public_key: &[u8]) -> Option<Value> {
    let mut parts = token.split('.');
    let (header, payload, signature) = (parts.next()?, parts.next()?, parts.next()?);
    let header: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).ok()?).ok()?;
    if header["alg"] != "RS256" {
        return None;
    }
    ring::signature::UnparsedPublicKey::new(
        &ring::signature::RSA_PKCS1_2048_8192_SHA256,
        public_key,
    )
    .verify(
        format!("{}.{payload}", token.split('.').next()?).as_bytes(),
        &URL_SAFE_NO_PAD.decode(signature).ok()?,
    )
    .ok()?;
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()
}

fn session_token(shared: &Shared, headers: &HeaderMap) -> Option<String> {
    let value = headers.get("authorization")?.to_str().ok()?;
    let token = value
        .strip_prefix("Snowflake Token=\"")?
        .strip_suffix('"')?;
    shared
        .tokens
        .lock()
        .unwrap()
        .contains(&token.to_string())
        .then(|| token.to_string())
}

async fn query(
    State(shared): State<Arc<Shared>>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(token) = session_token(&shared, &headers) else {
        return (StatusCode::UNAUTHORIZED, axum::Json(json!({"data": null, "code": "390104", "message": "User must login again to access the service.", "success": false}))).into_response();
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let request_id = raw
        .unwrap_or_default()
        .split('&')
        .find_map(|p| p.strip_prefix("requestId="))
        .unwrap_or("")
        .to_string();
    shared
        .seen
        .lock()
        .unwrap()
        .queries
        .push((request_id.clone(), body.clone()));
    let sql = body["sqlText"].as_str().unwrap_or("").to_string();
    let answer = {
        let mut config = shared.config.lock().unwrap();
        if config.expire_next_query {
            config.expire_next_query = false;
            shared.tokens.lock().unwrap().retain(|t| t != &token);
            return failure("390112", "Your session has expired. Please login again.");
        }
        config.answers.get(&sql).cloned()
    };
    match answer {
        None if sql == "ROLLBACK" => {
            success(json!({"rowtype": [], "rowset": [], "statementTypeId": 0x5200}))
        }
        None => failure(
            "001003",
            "SQL compilation error: the double has no answer for this statement",
        ),
        Some(Answer::Data(data)) => success(data),
        Some(Answer::Error { code, message }) => failure(code, message),
        Some(Answer::Running { polls, then }) => {
            let id = uuid::Uuid::new_v4().to_string();
            shared
                .running
                .lock()
                .unwrap()
                .insert(id.clone(), (polls, then));
            axum::Json(json!({
                "data": {"queryId": id, "getResultUrl": format!("/queries/{id}/result")},
                "code": "333334",
                "message": "Asynchronous execution in progress. Use provided query id to perform query monitoring and management.",
                "success": true,
            }))
            .into_response()
        }
        Some(Answer::Endless) => {
            for _ in 0..600 {
                let aborted = shared
                    .seen
                    .lock()
                    .unwrap()
                    .aborts
                    .iter()
                    .any(|a| a["requestId"] == request_id);
                if aborted {
                    return failure("000604", "SQL execution canceled");
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            failure(
                "000630",
                "Statement reached its statement or warehouse timeout of 1 second(s) and was canceled.",
            )
        }
    }
}

fn success(data: Value) -> Response {
    axum::Json(json!({"data": data, "code": null, "message": null, "success": true}))
        .into_response()
}

async fn poll(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    if session_token(&shared, &headers).is_none() {
        return failure("390104", "User must login again to access the service.");
    }
    shared.seen.lock().unwrap().polls += 1;
    let mut running = shared.running.lock().unwrap();
    let Some((left, then)) = running.get_mut(&id) else {
        return failure("000709", "Statement not found");
    };
    if *left > 0 {
        *left -= 1;
        return axum::Json(json!({
            "data": {"queryId": id, "getResultUrl": format!("/queries/{id}/result")},
            "code": "333333",
            "message": "Query execution in progress.",
            "success": true,
        }))
        .into_response();
    }
    let data = then.clone();
    running.remove(&id);
    success(data)
}

async fn abort(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    if session_token(&shared, &headers).is_none() {
        return failure("390104", "User must login again to access the service.");
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    shared.seen.lock().unwrap().aborts.push(body);
    success(Value::Null)
}

async fn logout(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if let Some(token) = session_token(&shared, &headers) {
        shared.tokens.lock().unwrap().retain(|t| t != &token);
        shared.seen.lock().unwrap().logouts += 1;
    }
    success(Value::Null)
}

async fn chunk(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    let key = headers
        .get("x-amz-server-side-encryption-customer-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let algorithm_ok = headers
        .get("x-amz-server-side-encryption-customer-algorithm")
        .is_some_and(|v| v == "AES256");
    shared
        .seen
        .lock()
        .unwrap()
        .chunks
        .push((name.clone(), key.clone()));
    // The chunks are "encrypted" with the query result master key: without
    // the SSE-C headers, storage refuses, as S3 does.
    if key.as_deref() != Some("QRMK-KEY") || !algorithm_ok {
        return (
            StatusCode::FORBIDDEN,
            "<Error><Code>AccessDenied</Code></Error>",
        )
            .into_response();
    }
    let config = shared.config.lock().unwrap();
    match config.chunks.get(&name) {
        Some((bytes, gzip)) => {
            let body = if *gzip {
                use std::io::Write;
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                encoder.write_all(bytes).unwrap();
                encoder.finish().unwrap()
            } else {
                bytes.clone()
            };
            body.into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The `rowtype` entry of a column.
pub fn column(name: &str, kind: &str, precision: i64, scale: i64) -> Value {
    json!({"name": name, "database": "DB", "schema": "PUBLIC", "table": "T", "nullable": true,
           "type": kind, "precision": precision, "scale": scale, "length": null, "byteLength": null, "collation": null})
}

/// An Arrow IPC stream of one batch, as Snowflake's `rowsetBase64` or an
/// Arrow chunk carries it.
pub fn arrow_stream(batch: &arrow_array::RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut writer =
            arrow_ipc::writer::StreamWriter::try_new(&mut out, &batch.schema()).unwrap();
        writer.write(batch).unwrap();
        writer.finish().unwrap();
    }
    out
}

/// `bytes` as `rowsetBase64`.
pub fn base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}
