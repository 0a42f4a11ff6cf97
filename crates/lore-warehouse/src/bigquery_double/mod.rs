//! A BigQuery double for tests (cargo feature `bigquery-double`): an HTTP
//! server on loopback that speaks the REST shapes Lore's connector uses,
//! since no BigQuery emulator runs on Lore's machines.
//!
//! - `POST /token`: Google's OAuth token endpoint for service accounts.
//!   The JWT's RS256 signature is verified with the test key's public key,
//!   and its `iss`, `aud`, `scope`, `iat` and `exp` are checked.
//! - `jobs.query` (dry runs included), `jobs.getQueryResults` (long polls
//!   and `pageToken` paging), `jobs.cancel`, `datasets.list`, `tables.list`
//!   and `tables.testIamPermissions`, answering with Google's error
//!   envelope (`error.code`, `error.status`, `error.errors[].reason`:
//!   `authError`, `notFound`, `accessDenied`, `invalidQuery`,
//!   `bytesBilledLimitExceeded`, `stopped`, `timeout`).
//! - Queries run on SQLite through [`sql`], which parses them with the
//!   BigQuery dialect first; the project's tables are in [`fixture`].
//!   Bytes processed are the fixture's sizes, billed at least 10 MB per
//!   table as BigQuery does; `maximumBytesBilled` and `jobTimeoutMs` are
//!   enforced.
//! - Every request body, query parameter and answer is checked against
//!   the discovery document ([`discovery`]); [`BigqueryDouble::violations`]
//!   lists what did not fit.
//!
//! It is a double: it has the shapes and the failure modes, not
//! BigQuery's engine. What it has not been told (UNNEST, most functions)
//! it refuses rather than guesses.

pub mod discovery;
pub mod fixture;
pub mod sql;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use lore_core::time::{days_from_civil, format_date};
use rusqlite::functions::FunctionFlags;
use rusqlite::types::Value as Cell;
use serde_json::{Value, json};

use discovery::Discovery;
use fixture::FieldType;

/// The project the double serves.
pub const PROJECT: &str = "lore-double";
/// The test service account's key, as Google's console downloads it (its
/// `token_uri` is replaced by the double's).
pub const KEY_JSON: &str = include_str!("../../tests/data/bigquery/test-service-account.json");
const PUBLIC_KEY_B64: &str = include_str!("../../tests/data/bigquery/test-service-account.pub.b64");
/// BigQuery bills at least this much for each table a query reads.
const MIN_BILLED_PER_TABLE: u64 = 10 * 1024 * 1024;

/// One request the double answered.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// `resource.method` in the discovery document (`jobs.query`), or `token`.
    pub call: String,
    /// Query parameters.
    pub parameters: Vec<(String, String)>,
    /// The JSON body sent, if any.
    pub request: Option<Value>,
    /// The HTTP status answered.
    pub status: u16,
    /// The JSON answered.
    pub response: Value,
}

struct Job {
    location: String,
    names: Vec<String>,
    types: Vec<(FieldType, bool)>,
    rows: Vec<Vec<Cell>>,
    processed: u64,
    billed: u64,
    ready_at: Instant,
    /// `(reason, message)` once the job failed.
    failed: Option<(String, String)>,
    timeout_at: Option<Instant>,
}

struct Knobs {
    page_rows: usize,
    refuse_tokens: bool,
    writable: HashSet<String>,
}

struct Shared {
    db: Mutex<rusqlite::Connection>,
    types: Vec<FieldType>,
    tables: HashMap<(String, String), fixture::Table>,
    discovery: Discovery,
    public_key: Vec<u8>,
    root: String,
    tokens: Mutex<Vec<String>>,
    jobs: Mutex<HashMap<String, Job>>,
    knobs: Mutex<Knobs>,
    exchanges: Mutex<Vec<Exchange>>,
    violations: Mutex<Vec<String>>,
    cancelled: Mutex<Vec<String>>,
    counter: AtomicU64,
}

/// A running double; dropping it stops the server.
pub struct BigqueryDouble {
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl BigqueryDouble {
    /// Starts a double on a free loopback port, on its own thread.
    pub fn start() -> BigqueryDouble {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let root = format!("http://{}", listener.local_addr().expect("an address"));
        let (types, tables, db) = build_database();
        let shared = Arc::new(Shared {
            db: Mutex::new(db),
            types,
            tables,
            discovery: Discovery::load(),
            public_key: base64::engine::general_purpose::STANDARD
                .decode(PUBLIC_KEY_B64.trim())
                .expect("the test public key"),
            root,
            tokens: Mutex::new(Vec::new()),
            jobs: Mutex::new(HashMap::new()),
            knobs: Mutex::new(Knobs {
                page_rows: 10_000,
                refuse_tokens: false,
                writable: HashSet::new(),
            }),
            exchanges: Mutex::new(Vec::new()),
            violations: Mutex::new(Vec::new()),
            cancelled: Mutex::new(Vec::new()),
            counter: AtomicU64::new(0),
        });
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let state = Arc::clone(&shared);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener =
                    tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
                let app = axum::Router::new().fallback(
                    move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                        let state = Arc::clone(&state);
                        async move { handle(state, method, uri, headers, body).await }
                    },
                );
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        BigqueryDouble {
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// The REST root (`http://127.0.0.1:PORT/bigquery/v2`).
    pub fn endpoint(&self) -> String {
        format!("{}/bigquery/v2", self.shared.root)
    }

    /// The token endpoint.
    pub fn token_uri(&self) -> String {
        format!("{}/token", self.shared.root)
    }

    /// The test key file, pointing at this double's token endpoint.
    pub fn key_json(&self) -> String {
        let mut key: Value = serde_json::from_str(KEY_JSON).unwrap_or_default();
        key["token_uri"] = Value::String(self.token_uri());
        serde_json::to_string_pretty(&key).unwrap_or_default()
    }

    /// The private key of the test service account (to check that it
    /// never leaks).
    pub fn private_key_pem() -> String {
        serde_json::from_str::<Value>(KEY_JSON).unwrap_or_default()["private_key"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// A connection url for the double: `bigquery://lore-double?endpoint=…`
    /// followed by `extra` parameters (`datasets=shop&location=US`).
    pub fn url(&self, extra: &str) -> String {
        let endpoint: String =
            form_urlencoded::byte_serialize(self.endpoint().as_bytes()).collect();
        let mut url = format!("bigquery://{PROJECT}?endpoint={endpoint}");
        if !extra.is_empty() {
            url.push('&');
            url.push_str(extra);
        }
        url
    }

    /// Rows per answer page at most (BigQuery's limit is about 10 MB).
    pub fn set_page_rows(&self, rows: usize) {
        self.shared.knobs.lock().expect("knobs").page_rows = rows.max(1);
    }

    /// Makes the token endpoint refuse every assertion (a deleted key).
    pub fn refuse_tokens(&self, refuse: bool) {
        self.shared.knobs.lock().expect("knobs").refuse_tokens = refuse;
    }

    /// Grants the service account write permissions on `dataset.table`.
    pub fn grant_write(&self, table: &str) {
        self.shared
            .knobs
            .lock()
            .expect("knobs")
            .writable
            .insert(table.to_string());
    }

    /// Every request answered so far.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.shared.exchanges.lock().expect("exchanges").clone()
    }

    /// What did not fit Google's discovery document, in requests or answers.
    pub fn violations(&self) -> Vec<String> {
        self.shared.violations.lock().expect("violations").clone()
    }

    /// The jobs `jobs.cancel` stopped, by id.
    pub fn cancelled_jobs(&self) -> Vec<String> {
        self.shared.cancelled.lock().expect("cancelled").clone()
    }

    /// The access tokens handed out.
    pub fn issued_tokens(&self) -> Vec<String> {
        self.shared.tokens.lock().expect("tokens").clone()
    }

    /// The discovery document's revision.
    pub fn discovery_revision(&self) -> String {
        self.shared.discovery.revision().to_string()
    }

    /// Checks `value` against schema `name` of the discovery document.
    pub fn check_schema(&self, name: &str, value: &Value) -> Vec<String> {
        self.shared.discovery.check(name, value)
    }
}

impl Drop for BigqueryDouble {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The SQLite database: one attached schema per dataset, with the
/// fixture's tables, their `INFORMATION_SCHEMA` views and `__TABLES__`.
fn build_database() -> (
    Vec<FieldType>,
    HashMap<(String, String), fixture::Table>,
    rusqlite::Connection,
) {
    let db = rusqlite::Connection::open_in_memory().expect("an in-memory database");
    register_functions(&db);
    let mut types: Vec<FieldType> = Vec::new();
    let mut declare = |bq_type: &str| -> String {
        let parsed = FieldType::parse(bq_type);
        let affinity = parsed.affinity();
        let index = match types.iter().position(|t| *t == parsed) {
            Some(i) => i,
            None => {
                types.push(parsed);
                types.len() - 1
            }
        };
        format!("{affinity}_T{index}")
    };
    let tables = fixture::tables();
    let mut datasets: Vec<&str> = tables.iter().map(|t| t.dataset).collect();
    datasets.sort();
    datasets.dedup();
    let mut script = String::new();
    for dataset in &datasets {
        script.push_str(&format!("ATTACH DATABASE ':memory:' AS `{dataset}`;\n"));
        for (view, columns) in fixture::INFORMATION_SCHEMA {
            let columns: Vec<String> = columns
                .iter()
                .map(|(name, t)| format!("`{name}` {}", declare(t)))
                .collect();
            script.push_str(&format!(
                "CREATE TABLE `{dataset}`.`INFORMATION_SCHEMA_{view}` ({});\n",
                columns.join(", ")
            ));
        }
        let columns: Vec<String> = fixture::META_TABLES
            .iter()
            .map(|(name, t)| format!("`{name}` {}", declare(t)))
            .collect();
        script.push_str(&format!(
            "CREATE TABLE `{dataset}`.`__TABLES__` ({});\n",
            columns.join(", ")
        ));
    }
    for table in &tables {
        let (ds, name) = (table.dataset, table.name);
        if table.kind == "VIEW" {
            script.push_str(&format!("CREATE VIEW `{ds}`.`{name}` AS {};\n", table.rows));
        } else {
            let columns: Vec<String> = table
                .columns
                .iter()
                .map(|c| format!("`{}` {}", c.name, declare(c.bq_type)))
                .collect();
            script.push_str(&format!(
                "CREATE TABLE `{ds}`.`{name}` ({});\nINSERT INTO `{ds}`.`{name}` VALUES {};\n",
                columns.join(", "),
                table.rows
            ));
        }
    }
    db.execute_batch(&script).expect("the fixture loads");
    let insert = |sql: &str, values: Vec<Cell>| {
        db.execute(sql, rusqlite::params_from_iter(values))
            .expect("metadata row");
    };
    let text = |s: &str| Cell::Text(s.to_string());
    for table in &tables {
        let (ds, name) = (table.dataset, table.name);
        let at = |view: &str, n: usize| {
            format!(
                "INSERT INTO `{ds}`.`INFORMATION_SCHEMA_{view}` VALUES ({})",
                vec!["?"; n].join(", ")
            )
        };
        insert(
            &at("TABLES", 5),
            vec![
                text(PROJECT),
                text(ds),
                text(name),
                text(table.kind),
                text("2024-01-01 00:00:00"),
            ],
        );
        if let Some(description) = table.description {
            insert(
                &at("TABLE_OPTIONS", 6),
                vec![
                    text(PROJECT),
                    text(ds),
                    text(name),
                    text("description"),
                    text("STRING"),
                    text(&fixture::sql_string(description)),
                ],
            );
        }
        for (index, column) in table.columns.iter().enumerate() {
            insert(
                &at("COLUMNS", 7),
                vec![
                    text(PROJECT),
                    text(ds),
                    text(name),
                    text(column.name),
                    Cell::Integer(index as i64 + 1),
                    text(if column.nullable { "YES" } else { "NO" }),
                    text(column.bq_type),
                ],
            );
            let mut paths = vec![(
                column.name.to_string(),
                column.bq_type.to_string(),
                column.description,
            )];
            let parsed = FieldType::parse(column.bq_type);
            if !parsed.repeated {
                for (field, kind) in &parsed.fields {
                    paths.push((format!("{}.{field}", column.name), kind.kind.clone(), None));
                }
            }
            for (path, kind, description) in paths {
                insert(
                    &at("COLUMN_FIELD_PATHS", 7),
                    vec![
                        text(PROJECT),
                        text(ds),
                        text(name),
                        text(column.name),
                        text(&path),
                        text(&kind),
                        description.map(text).unwrap_or(Cell::Null),
                    ],
                );
            }
        }
        let mut constraints: Vec<Constraint> = Vec::new();
        if !table.primary_key.is_empty() {
            constraints.push((
                format!("{name}.pk$"),
                "PRIMARY KEY",
                table.primary_key.iter().map(|c| (*c, None)).collect(),
                None,
            ));
        }
        for fk in &table.foreign_keys {
            let target = tables
                .iter()
                .find(|t| t.dataset == ds && t.name == fk.to_table)
                .expect("a foreign key's table");
            let columns = fk
                .columns
                .iter()
                .zip(fk.to_columns)
                .map(|(c, to)| {
                    let position = target.primary_key.iter().position(|p| p == to);
                    (*c, position.map(|p| p as i64 + 1))
                })
                .collect();
            constraints.push((fk.name.to_string(), "FOREIGN KEY", columns, Some(fk)));
        }
        for (constraint, kind, columns, fk) in constraints {
            insert(
                &at("TABLE_CONSTRAINTS", 10),
                vec![
                    text(PROJECT),
                    text(ds),
                    text(&constraint),
                    text(PROJECT),
                    text(ds),
                    text(name),
                    text(kind),
                    text("NO"),
                    text("NO"),
                    text("NO"),
                ],
            );
            for (ordinal, (column, position)) in columns.iter().enumerate() {
                insert(
                    &at("KEY_COLUMN_USAGE", 9),
                    vec![
                        text(PROJECT),
                        text(ds),
                        text(&constraint),
                        text(PROJECT),
                        text(ds),
                        text(name),
                        text(column),
                        Cell::Integer(ordinal as i64 + 1),
                        position.map(Cell::Integer).unwrap_or(Cell::Null),
                    ],
                );
            }
            let used: Vec<(&str, &str)> = match fk {
                Some(fk) => fk.to_columns.iter().map(|c| (fk.to_table, *c)).collect(),
                None => columns.iter().map(|(c, _)| (name, *c)).collect(),
            };
            for (used_table, column) in used {
                insert(
                    &at("CONSTRAINT_COLUMN_USAGE", 7),
                    vec![
                        text(PROJECT),
                        text(ds),
                        text(used_table),
                        text(column),
                        text(PROJECT),
                        text(ds),
                        text(&constraint),
                    ],
                );
            }
        }
        let rows: i64 = db
            .query_row(&format!("SELECT count(*) FROM `{ds}`.`{name}`"), [], |r| {
                r.get(0)
            })
            .expect("a count");
        insert(
            &format!("INSERT INTO `{ds}`.`__TABLES__` VALUES (?, ?, ?, ?, ?, ?)"),
            vec![
                text(PROJECT),
                text(ds),
                text(name),
                Cell::Integer(rows),
                Cell::Integer(table.logical_bytes as i64),
                Cell::Integer(if table.kind == "VIEW" { 2 } else { 1 }),
            ],
        );
    }
    let tables = tables
        .into_iter()
        .map(|t| ((t.dataset.to_string(), t.name.to_string()), t))
        .collect();
    (types, tables, db)
}

/// A constraint of a fixture table: name, type, columns with their
/// position in the referenced key, and the foreign key it declares.
type Constraint<'a> = (
    String,
    &'a str,
    Vec<(&'a str, Option<i64>)>,
    Option<&'a fixture::ForeignKeyDef>,
);

fn register_functions(db: &rusqlite::Connection) {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let _ = db.create_scalar_function("regexp_contains", 2, flags, |ctx| {
        let (Some(text), Some(pattern)) =
            (ctx.get::<Option<String>>(0)?, ctx.get::<Option<String>>(1)?)
        else {
            return Ok(None);
        };
        let regex = regex::Regex::new(&pattern)
            .map_err(|e| rusqlite::Error::UserFunctionError(Box::new(e)))?;
        Ok(Some(regex.is_match(&text)))
    });
    let _ = db.create_scalar_function("bq_date_trunc", 2, flags, |ctx| {
        let (Some(value), Some(part)) =
            (ctx.get::<Option<String>>(0)?, ctx.get::<Option<String>>(1)?)
        else {
            return Ok(None);
        };
        Ok(date_trunc(&value, &part))
    });
    let _ = db.create_scalar_function("bq_safe_divide", 2, flags, |ctx| {
        let (a, b) = (ctx.get::<Option<f64>>(0)?, ctx.get::<Option<f64>>(1)?);
        Ok(match (a, b) {
            (Some(a), Some(b)) if b != 0.0 => Some(a / b),
            _ => None,
        })
    });
    let _ = db.create_scalar_function("bq_to_json_string", 1, flags, |ctx| {
        Ok(match ctx.get_raw(0) {
            rusqlite::types::ValueRef::Null => "null".to_string(),
            rusqlite::types::ValueRef::Integer(i) => i.to_string(),
            rusqlite::types::ValueRef::Real(f) => f.to_string(),
            rusqlite::types::ValueRef::Text(t) => {
                let t = String::from_utf8_lossy(t).to_string();
                match serde_json::from_str::<Value>(&t) {
                    Ok(v @ (Value::Array(_) | Value::Object(_))) => v.to_string(),
                    _ => Value::String(t).to_string(),
                }
            }
            rusqlite::types::ValueRef::Blob(b) => {
                Value::String(base64::engine::general_purpose::STANDARD.encode(b)).to_string()
            }
        })
    });
}

/// BigQuery's `DATE_TRUNC(date, part)` on `YYYY-MM-DD…` text.
fn date_trunc(value: &str, part: &str) -> Option<String> {
    let date = value.get(..10)?;
    let mut fields = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (fields.next()??, fields.next()??, fields.next()??);
    let days = days_from_civil(y, m, d);
    // 1970-01-01 was a Thursday.
    let weekday_from_monday = (days + 3).rem_euclid(7);
    let start = match part {
        "DAY" => days,
        "ISOWEEK" | "WEEK(MONDAY)" => days - weekday_from_monday,
        "WEEK" => days - (days + 4).rem_euclid(7),
        "MONTH" => days_from_civil(y, m, 1),
        "QUARTER" => days_from_civil(y, (m - 1) / 3 * 3 + 1, 1),
        "YEAR" => days_from_civil(y, 1, 1),
        _ => return None,
    };
    Some(format_date(start))
}

fn json_response(status: u16, body: Value) -> Response {
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Google's error envelope.
fn google_error(status: u16, reason: &str, message: &str) -> Value {
    let status_name = match status {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        _ => "INTERNAL",
    };
    json!({"error": {
        "code": status,
        "message": message,
        "errors": [{"message": message, "domain": "global", "reason": reason}],
        "status": status_name,
    }})
}

async fn handle(
    state: Arc<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let parameters: Vec<(String, String)> =
        form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    let path = uri.path().to_string();
    let segments: Vec<String> = path
        .trim_start_matches('/')
        .split('/')
        .map(|s| {
            form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default()
        })
        .collect();
    if path == "/token" && method == Method::POST {
        let (status, answer) = token(&state, &body);
        record(&state, "token", parameters, None, status, &answer);
        return json_response(status, answer);
    }
    let request: Option<Value> = serde_json::from_slice(&body).ok();
    let segs: Vec<&str> = segments.iter().map(String::as_str).collect();
    let call = match (&method, segs.as_slice()) {
        (&Method::POST, ["bigquery", "v2", "projects", _, "queries"]) => "jobs.query",
        (&Method::GET, ["bigquery", "v2", "projects", _, "queries", _]) => "jobs.getQueryResults",
        (&Method::POST, ["bigquery", "v2", "projects", _, "jobs", _, "cancel"]) => "jobs.cancel",
        (&Method::GET, ["bigquery", "v2", "projects", _, "datasets"]) => "datasets.list",
        (&Method::GET, ["bigquery", "v2", "projects", _, "datasets", _, "tables"]) => "tables.list",
        (&Method::POST, ["bigquery", "v2", "projects", _, "datasets", _, "tables", t])
            if t.ends_with(":testIamPermissions") =>
        {
            "tables.testIamPermissions"
        }
        _ => {
            let answer = google_error(404, "notFound", &format!("Not found: {path}"));
            record(&state, "unknown", parameters, request, 404, &answer);
            return json_response(404, answer);
        }
    };
    let authorized = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|t| state.tokens.lock().expect("tokens").iter().any(|k| k == t));
    let (status, answer) = if !authorized {
        (
            401,
            google_error(
                401,
                "authError",
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
            ),
        )
    } else {
        let project = segs[3];
        match call {
            "jobs.query" => query(&state, project, request.as_ref()).await,
            "jobs.getQueryResults" => results(&state, segs[5], &parameters).await,
            "jobs.cancel" => cancel(&state, project, segs[5]),
            "datasets.list" => datasets(&state, project),
            "tables.list" => tables(&state, project, segs[5]),
            _ => permissions(
                &state,
                segs[5],
                segs[7].trim_end_matches(":testIamPermissions"),
                request.as_ref(),
            ),
        }
    };
    validate(&state, call, &parameters, request.as_ref(), status, &answer);
    record(&state, call, parameters, request, status, &answer);
    json_response(status, answer)
}

fn record(
    state: &Shared,
    call: &str,
    parameters: Vec<(String, String)>,
    request: Option<Value>,
    status: u16,
    response: &Value,
) {
    state.exchanges.lock().expect("exchanges").push(Exchange {
        call: call.to_string(),
        parameters,
        request,
        status,
        response: response.clone(),
    });
}

/// Checks an exchange against the discovery document.
fn validate(
    state: &Shared,
    call: &str,
    parameters: &[(String, String)],
    request: Option<&Value>,
    status: u16,
    answer: &Value,
) {
    let (resource, method) = call.split_once('.').unwrap_or((call, ""));
    let mut problems = state
        .discovery
        .check_parameters(resource, method, parameters);
    if let Some(m) = state.discovery.method(resource, method) {
        if let (Some(schema), Some(body)) = (m["request"]["$ref"].as_str(), request) {
            problems.extend(state.discovery.check(schema, body));
        }
        if let Some(schema) = m["response"]["$ref"].as_str()
            && status == 200
        {
            problems.extend(state.discovery.check(schema, answer));
        }
    }
    if status != 200 {
        // Google's error envelope is not in the discovery document; its
        // shape is AIP-193's.
        let error = &answer["error"];
        if !(error["code"].is_u64() && error["message"].is_string() && error["status"].is_string())
        {
            problems.push(format!(
                "{call}: error answer without code, message and status"
            ));
        }
    }
    state
        .violations
        .lock()
        .expect("violations")
        .extend(problems.into_iter().map(|p| format!("{call}: {p}")));
}

fn now_seconds() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The OAuth token endpoint: a JWT bearer grant signed with the test key.
fn token(state: &Shared, body: &[u8]) -> (u16, Value) {
    let refuse = |description: &str| {
        (
            400,
            json!({"error": "invalid_grant", "error_description": description}),
        )
    };
    let form: HashMap<String, String> = form_urlencoded::parse(body).into_owned().collect();
    if form.get("grant_type").map(String::as_str)
        != Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    {
        return (
            400,
            json!({"error": "unsupported_grant_type", "error_description": "Invalid grant_type: "}),
        );
    }
    let assertion = form.get("assertion").cloned().unwrap_or_default();
    let parts: Vec<&str> = assertion.split('.').collect();
    let [header, claims, signature] = parts.as_slice() else {
        return refuse("Invalid JWT: not three parts");
    };
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let decode =
        |part: &str| -> Option<Value> { serde_json::from_slice(&b64.decode(part).ok()?).ok() };
    let (Some(header), Some(claims), Ok(signature)) =
        (decode(header), decode(claims), b64.decode(signature))
    else {
        return refuse("Invalid JWT: malformed");
    };
    if header["alg"] != "RS256" {
        return refuse("Invalid JWT: alg must be RS256");
    }
    let signed = format!("{}.{}", parts[0], parts[1]);
    let key = ring::signature::UnparsedPublicKey::new(
        &ring::signature::RSA_PKCS1_2048_8192_SHA256,
        &state.public_key,
    );
    if key.verify(signed.as_bytes(), &signature).is_err() {
        return refuse("Invalid JWT Signature.");
    }
    let email = serde_json::from_str::<Value>(KEY_JSON).unwrap_or_default()["client_email"].clone();
    let now = now_seconds();
    let (iat, exp) = (
        claims["iat"].as_i64().unwrap_or(0),
        claims["exp"].as_i64().unwrap_or(0),
    );
    if claims["iss"] != email {
        return refuse("Invalid JWT: iss is not the service account");
    }
    if claims["aud"].as_str() != Some(&format!("{}/token", state.root)) {
        return refuse("Invalid JWT: aud is not the token endpoint");
    }
    if !claims["scope"]
        .as_str()
        .unwrap_or_default()
        .split(' ')
        .any(|s| s == "https://www.googleapis.com/auth/bigquery")
    {
        return refuse("Invalid JWT: no BigQuery scope");
    }
    if iat > now + 60 || exp <= now || exp - iat > 3600 {
        return refuse(
            "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.",
        );
    }
    if state.knobs.lock().expect("knobs").refuse_tokens {
        return refuse("Invalid grant: account not found");
    }
    let n = state.counter.fetch_add(1, Ordering::SeqCst);
    let token = format!(
        "ya29.double-{n}-{:x}",
        now.wrapping_mul(0x9e37_79b9) ^ n as i64
    );
    state.tokens.lock().expect("tokens").push(token.clone());
    (
        200,
        json!({"access_token": token, "expires_in": 3599, "token_type": "Bearer"}),
    )
}

/// Whether a dataset is hidden from the service account altogether.
fn dataset_denied(state: &Shared, dataset: &str) -> bool {
    let mut tables = state
        .tables
        .values()
        .filter(|t| t.dataset == dataset)
        .peekable();
    tables.peek().is_some() && tables.all(|t| t.denied)
}

async fn query(state: &Shared, project: &str, request: Option<&Value>) -> (u16, Value) {
    let Some(request) = request else {
        return (
            400,
            google_error(400, "invalid", "Invalid JSON payload received."),
        );
    };
    if project != PROJECT {
        return (
            404,
            google_error(404, "notFound", &format!("Not found: Project {project}")),
        );
    }
    if request["useLegacySql"] != false {
        return (
            400,
            google_error(
                400,
                "invalidQuery",
                "the double speaks Standard SQL only: send useLegacySql: false (BigQuery's default is legacy SQL)",
            ),
        );
    }
    let location = request["location"].as_str().unwrap_or("US").to_string();
    let sql = request["query"].as_str().unwrap_or_default();
    let translated = match sql::translate(sql, PROJECT) {
        Ok(t) => t,
        Err(sql::Refusal::Invalid(message)) => {
            return (400, google_error(400, "invalidQuery", &message));
        }
        Err(sql::Refusal::NotAQuery(verb)) => {
            return (
                403,
                google_error(
                    403,
                    "accessDenied",
                    &format!(
                        "Access Denied: Project {PROJECT}: User does not have permission to run {verb} statements (bigquery.tables.updateData)"
                    ),
                ),
            );
        }
    };
    let (mut processed, mut billed) = (0u64, 0u64);
    let mut delay = 0;
    for (table_project, dataset, table) in &translated.tables {
        if table_project != PROJECT {
            return (
                404,
                google_error(
                    404,
                    "notFound",
                    &format!("Not found: Project {table_project}"),
                ),
            );
        }
        let known_dataset = state.tables.keys().any(|(d, _)| d == dataset);
        if !known_dataset {
            return (
                404,
                google_error(
                    404,
                    "notFound",
                    &format!(
                        "Not found: Dataset {PROJECT}:{dataset} was not found in location {location}"
                    ),
                ),
            );
        }
        if let Some(view) = table.strip_prefix("INFORMATION_SCHEMA.") {
            if dataset_denied(state, dataset) {
                return (
                    403,
                    google_error(
                        403,
                        "accessDenied",
                        &format!(
                            "Access Denied: Dataset {PROJECT}:{dataset}: Permission bigquery.tables.list denied on dataset {PROJECT}:{dataset} (or it may not exist)."
                        ),
                    ),
                );
            }
            if !fixture::INFORMATION_SCHEMA.iter().any(|(v, _)| *v == view) {
                return (
                    404,
                    google_error(
                        404,
                        "notFound",
                        &format!(
                            "Not found: Table {PROJECT}:{dataset}.INFORMATION_SCHEMA.{view} was not found in location {location}"
                        ),
                    ),
                );
            }
            billed += MIN_BILLED_PER_TABLE;
            continue;
        }
        if table == "__TABLES__" {
            billed += MIN_BILLED_PER_TABLE;
            continue;
        }
        let Some(def) = state.tables.get(&(dataset.clone(), table.clone())) else {
            return (
                404,
                google_error(
                    404,
                    "notFound",
                    &format!(
                        "Not found: Table {PROJECT}:{dataset}.{table} was not found in location {location}"
                    ),
                ),
            );
        };
        if def.denied {
            return (
                403,
                google_error(
                    403,
                    "accessDenied",
                    &format!(
                        "Access Denied: Table {PROJECT}:{dataset}.{table}: User does not have permission to query table {PROJECT}:{dataset}.{table}, or perhaps it does not exist."
                    ),
                ),
            );
        }
        processed += def.logical_bytes;
        billed += def.logical_bytes.max(MIN_BILLED_PER_TABLE);
        delay = delay.max(def.delay_ms);
    }
    let executed = execute(state, &translated.sql);
    let (names, types, rows) = match executed {
        Ok(result) => result,
        Err(message) => return (400, google_error(400, "invalidQuery", &message)),
    };
    let schema = schema_json(&names, &types);
    if request["dryRun"] == true {
        return (
            200,
            json!({
                "kind": "bigquery#queryResponse",
                "jobReference": {"projectId": PROJECT, "location": location},
                "schema": schema,
                "totalBytesProcessed": processed.to_string(),
                "jobComplete": true,
                "cacheHit": false,
            }),
        );
    }
    if let Some(max) = request["maximumBytesBilled"]
        .as_str()
        .and_then(|m| m.parse::<u64>().ok())
        && billed > max
    {
        return (
            400,
            google_error(
                400,
                "bytesBilledLimitExceeded",
                &format!(
                    "Query exceeded limit for bytes billed: {max}. {billed} or higher required."
                ),
            ),
        );
    }
    let started = Instant::now();
    let job_id = format!(
        "job_double_{}",
        state.counter.fetch_add(1, Ordering::SeqCst)
    );
    let timeout_at = request["jobTimeoutMs"]
        .as_str()
        .and_then(|t| t.parse::<u64>().ok())
        .map(|ms| started + Duration::from_millis(ms));
    state.jobs.lock().expect("jobs").insert(
        job_id.clone(),
        Job {
            location,
            names,
            types,
            rows,
            processed,
            billed,
            ready_at: started + Duration::from_millis(delay),
            failed: None,
            timeout_at,
        },
    );
    let wait = request["timeoutMs"].as_u64().unwrap_or(10_000);
    let max_results = request["maxResults"].as_u64().map(|m| m as usize);
    let int64 = request["formatOptions"]["useInt64Timestamp"] == true;
    answer_job(
        state,
        &job_id,
        wait,
        max_results,
        0,
        int64,
        "bigquery#queryResponse",
    )
    .await
}

/// Runs translated SQL: column names, types and rows.
#[allow(clippy::type_complexity)]
fn execute(
    state: &Shared,
    sql: &str,
) -> Result<(Vec<String>, Vec<(FieldType, bool)>, Vec<Vec<Cell>>), String> {
    let db = state
        .db
        .lock()
        .map_err(|_| "the double's database is poisoned".to_string())?;
    let mut statement = db.prepare(sql).map_err(|e| format!("{e}"))?;
    let names: Vec<String> = statement.column_names().map(|n| n.to_string()).collect();
    let declared: Vec<Option<FieldType>> = statement
        .columns()
        .map(|c| {
            let decl = c.decl_type()?;
            let index: usize = decl.split_once("_T")?.1.parse().ok()?;
            state.types.get(index).cloned()
        })
        .collect();
    let count = names.len();
    let mut rows = Vec::new();
    let mut cursor = statement.query([]).map_err(|e| e.to_string())?;
    while let Some(row) = cursor.next().map_err(|e| e.to_string())? {
        let mut cells = Vec::with_capacity(count);
        for i in 0..count {
            cells.push(row.get::<_, Cell>(i).map_err(|e| e.to_string())?);
        }
        rows.push(cells);
    }
    let types = declared
        .into_iter()
        .enumerate()
        .map(|(i, t)| match t {
            Some(t) => (t, true),
            None => (infer(rows.iter().map(|r| &r[i])), true),
        })
        .collect();
    Ok((names, types, rows))
}

/// The type of a computed column, from its values.
fn infer<'a>(mut values: impl Iterator<Item = &'a Cell>) -> FieldType {
    let kind = match values.find(|v| !matches!(v, Cell::Null)) {
        Some(Cell::Integer(_)) | None => "INTEGER",
        Some(Cell::Real(_)) => "FLOAT",
        Some(Cell::Blob(_)) => "BYTES",
        Some(Cell::Text(t)) => {
            let b = t.as_bytes();
            let date = b.len() >= 10
                && b[4] == b'-'
                && b[7] == b'-'
                && b[..4].iter().all(u8::is_ascii_digit);
            if date && b.len() == 10 {
                "DATE"
            } else if date && b.len() >= 19 && b[10] == b' ' {
                "TIMESTAMP"
            } else {
                "STRING"
            }
        }
        Some(Cell::Null) => "INTEGER",
    };
    FieldType::parse(kind)
}

fn schema_json(names: &[String], types: &[(FieldType, bool)]) -> Value {
    json!({"fields": names
        .iter()
        .zip(types)
        .map(|(n, (t, nullable))| t.schema(n, *nullable))
        .collect::<Vec<_>>()})
}

/// Waits up to `wait_ms` for the job, then answers its state and a page.
async fn answer_job(
    state: &Shared,
    job_id: &str,
    wait_ms: u64,
    max_results: Option<usize>,
    offset: usize,
    int64: bool,
    kind: &str,
) -> (u16, Value) {
    let deadline = Instant::now() + Duration::from_millis(wait_ms);
    loop {
        let now = Instant::now();
        {
            let mut jobs = state.jobs.lock().expect("jobs");
            let Some(job) = jobs.get_mut(job_id) else {
                return (
                    404,
                    google_error(
                        404,
                        "notFound",
                        &format!("Not found: Job {PROJECT}:{job_id}"),
                    ),
                );
            };
            if job.failed.is_none()
                && let Some(at) = job.timeout_at
                && at < job.ready_at
                && now >= at
            {
                job.failed = Some((
                    "timeout".into(),
                    "Job execution was cancelled: Job timed out after the job timeout (jobTimeoutMs)".into(),
                ));
            }
            let reference =
                json!({"projectId": PROJECT, "jobId": job_id, "location": job.location});
            if let Some((reason, message)) = &job.failed {
                return (400, google_error(400, reason, message));
            }
            if now >= job.ready_at {
                let page_rows = state.knobs.lock().expect("knobs").page_rows;
                let take = max_results.unwrap_or(page_rows).min(page_rows);
                let end = (offset + take).min(job.rows.len());
                let rows: Vec<Value> = job.rows[offset.min(end)..end]
                    .iter()
                    .map(|row| {
                        json!({"f": row
                            .iter()
                            .zip(&job.types)
                            .map(|(cell, (t, _))| json!({"v": rest_cell(t, cell, int64)}))
                            .collect::<Vec<_>>()})
                    })
                    .collect();
                let mut answer = json!({
                    "kind": kind,
                    "jobReference": reference,
                    "schema": schema_json(&job.names, &job.types),
                    "totalRows": job.rows.len().to_string(),
                    "rows": rows,
                    "totalBytesProcessed": job.processed.to_string(),
                    "jobComplete": true,
                    "cacheHit": false,
                });
                if kind == "bigquery#queryResponse" {
                    answer["totalBytesBilled"] = Value::String(job.billed.to_string());
                }
                if end < job.rows.len() {
                    answer["pageToken"] = Value::String(
                        base64::engine::general_purpose::STANDARD.encode(format!("offset:{end}")),
                    );
                }
                return (200, answer);
            }
            if now >= deadline {
                return (
                    200,
                    json!({"kind": kind, "jobReference": reference, "jobComplete": false}),
                );
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn results(state: &Shared, job_id: &str, parameters: &[(String, String)]) -> (u16, Value) {
    let get = |key: &str| {
        parameters
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let offset = get("pageToken")
        .and_then(|t| base64::engine::general_purpose::STANDARD.decode(t).ok())
        .and_then(|t| String::from_utf8(t).ok())
        .and_then(|t| t.strip_prefix("offset:").and_then(|n| n.parse().ok()))
        .unwrap_or(0);
    let wait = get("timeoutMs")
        .and_then(|t| t.parse().ok())
        .unwrap_or(10_000);
    let max_results = get("maxResults").and_then(|m| m.parse().ok());
    let int64 = get("formatOptions.useInt64Timestamp") == Some("true");
    answer_job(
        state,
        job_id,
        wait,
        max_results,
        offset,
        int64,
        "bigquery#getQueryResultsResponse",
    )
    .await
}

fn cancel(state: &Shared, project: &str, job_id: &str) -> (u16, Value) {
    let mut jobs = state.jobs.lock().expect("jobs");
    let Some(job) = jobs.get_mut(job_id) else {
        return (
            404,
            google_error(
                404,
                "notFound",
                &format!("Not found: Job {project}:{job_id}"),
            ),
        );
    };
    let running = Instant::now() < job.ready_at && job.failed.is_none();
    if running {
        job.failed = Some((
            "stopped".into(),
            "Job execution was cancelled: User requested cancellation".into(),
        ));
        state
            .cancelled
            .lock()
            .expect("cancelled")
            .push(job_id.to_string());
    }
    (
        200,
        json!({"kind": "bigquery#jobCancelResponse", "job": {
            "kind": "bigquery#job",
            "id": format!("{project}:{}.{job_id}", job.location),
            "jobReference": {"projectId": project, "jobId": job_id, "location": job.location},
            "status": {"state": if running { "RUNNING" } else { "DONE" }},
        }}),
    )
}

fn datasets(state: &Shared, project: &str) -> (u16, Value) {
    if project != PROJECT {
        return (
            404,
            google_error(404, "notFound", &format!("Not found: Project {project}")),
        );
    }
    let mut names: Vec<&str> = state.tables.values().map(|t| t.dataset).collect();
    names.sort();
    names.dedup();
    let datasets: Vec<Value> = names
        .into_iter()
        .filter(|d| !dataset_denied(state, d))
        .map(|d| {
            json!({
                "kind": "bigquery#dataset",
                "id": format!("{PROJECT}:{d}"),
                "datasetReference": {"datasetId": d, "projectId": PROJECT},
                "location": "US",
            })
        })
        .collect();
    (
        200,
        json!({"kind": "bigquery#datasetList", "etag": "double", "datasets": datasets}),
    )
}

fn tables(state: &Shared, project: &str, dataset: &str) -> (u16, Value) {
    if project != PROJECT || !state.tables.keys().any(|(d, _)| d == dataset) {
        return (
            404,
            google_error(
                404,
                "notFound",
                &format!("Not found: Dataset {project}:{dataset}"),
            ),
        );
    }
    if dataset_denied(state, dataset) {
        return (
            403,
            google_error(
                403,
                "accessDenied",
                &format!(
                    "Access Denied: Dataset {project}:{dataset}: Permission bigquery.tables.list denied"
                ),
            ),
        );
    }
    let mut names: Vec<&str> = state
        .tables
        .values()
        .filter(|t| t.dataset == dataset)
        .map(|t| t.name)
        .collect();
    names.sort();
    let tables: Vec<Value> = names
        .iter()
        .map(|name| {
            json!({
                "kind": "bigquery#table",
                "id": format!("{project}:{dataset}.{name}"),
                "tableReference": {"projectId": project, "datasetId": dataset, "tableId": name},
                "type": "TABLE",
            })
        })
        .collect();
    (
        200,
        json!({"kind": "bigquery#tableList", "etag": "double", "tables": tables, "totalItems": names.len()}),
    )
}

fn permissions(
    state: &Shared,
    dataset: &str,
    table: &str,
    request: Option<&Value>,
) -> (u16, Value) {
    let asked: Vec<String> = request
        .and_then(|r| r["permissions"].as_array())
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let writable = state
        .knobs
        .lock()
        .expect("knobs")
        .writable
        .contains(&format!("{dataset}.{table}"));
    let exists = state
        .tables
        .get(&(dataset.to_string(), table.to_string()))
        .is_some_and(|t| !t.denied);
    let granted: Vec<String> = asked
        .into_iter()
        .filter(|p| {
            exists && (p == "bigquery.tables.getData" || p == "bigquery.tables.get" || writable)
        })
        .collect();
    (200, json!({"permissions": granted}))
}

/// A SQLite value as a REST cell of type `t`.
fn rest_cell(t: &FieldType, cell: &Cell, int64: bool) -> Value {
    if t.repeated || !t.fields.is_empty() {
        let Cell::Text(text) = cell else {
            return if t.repeated { json!([]) } else { Value::Null };
        };
        let parsed: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        return nested_cell(t, &parsed, int64);
    }
    match cell {
        Cell::Null => Value::Null,
        Cell::Integer(i) => Value::String(match t.kind.as_str() {
            "BOOLEAN" => (*i != 0).to_string(),
            _ => i.to_string(),
        }),
        Cell::Real(f) => Value::String(match t.kind.as_str() {
            "INTEGER" => (*f as i64).to_string(),
            _ => f.to_string(),
        }),
        Cell::Text(s) if t.kind == "TIMESTAMP" => Value::String(timestamp_cell(s, int64)),
        Cell::Text(s) => Value::String(s.clone()),
        Cell::Blob(b) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
    }
}

/// An array or record from the JSON the double stores it as.
fn nested_cell(t: &FieldType, value: &Value, int64: bool) -> Value {
    if t.repeated {
        let element = FieldType {
            repeated: false,
            ..t.clone()
        };
        let items = value.as_array().cloned().unwrap_or_default();
        return Value::Array(
            items
                .iter()
                .map(|item| json!({"v": nested_cell(&element, item, int64)}))
                .collect(),
        );
    }
    if !t.fields.is_empty() {
        if value.is_null() {
            return Value::Null;
        }
        return json!({"f": t
            .fields
            .iter()
            .map(|(name, ft)| json!({"v": nested_cell(ft, &value[name.as_str()], int64)}))
            .collect::<Vec<_>>()});
    }
    match value {
        Value::Null => Value::Null,
        Value::String(s) if t.kind == "TIMESTAMP" => Value::String(timestamp_cell(s, int64)),
        Value::String(s) => Value::String(s.clone()),
        other => Value::String(other.to_string()),
    }
}

/// `YYYY-MM-DD HH:MM:SS[.ffffff]` as BigQuery sends a TIMESTAMP: int64
/// microseconds, or float seconds (`1.7360712E9`).
fn timestamp_cell(text: &str, int64: bool) -> String {
    let parse = || -> Option<i64> {
        let (date, time) = text.split_once([' ', 'T'])?;
        let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
        let days = days_from_civil(d.next()??, d.next()??, d.next()??);
        let (clock, fraction) = time.split_once('.').unwrap_or((time, ""));
        let mut c = clock.split(':').map(|p| p.parse::<i64>().ok());
        let seconds = c.next()?? * 3600 + c.next()?? * 60 + c.next()??;
        let micros: i64 = format!("{fraction:0<6}").get(..6)?.parse().ok()?;
        Some((days * 86_400 + seconds) * 1_000_000 + micros)
    };
    match parse() {
        Some(micros) if int64 => micros.to_string(),
        Some(micros) => format!("{:E}", micros as f64 / 1_000_000.0),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_trunc_starts_the_period() {
        for (part, start) in [
            ("DAY", "2025-08-14"),
            ("ISOWEEK", "2025-08-11"),
            ("WEEK", "2025-08-10"),
            ("MONTH", "2025-08-01"),
            ("QUARTER", "2025-07-01"),
            ("YEAR", "2025-01-01"),
        ] {
            assert_eq!(
                date_trunc("2025-08-14 13:45:00", part).as_deref(),
                Some(start),
                "{part}"
            );
        }
    }

    #[test]
    fn timestamps_are_sent_as_bigquery_sends_them() {
        assert_eq!(
            timestamp_cell("2025-01-05 10:00:00", true),
            "1736071200000000"
        );
        assert_eq!(timestamp_cell("2025-01-05 10:00:00", false), "1.7360712E9");
        assert_eq!(
            timestamp_cell("2024-06-01 18:45:30.25", true),
            "1717267530250000"
        );
    }
}
