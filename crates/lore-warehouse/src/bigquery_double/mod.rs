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

mod database;
pub mod discovery;
pub mod fixture;
mod google;
mod jobs;
mod server;
pub mod sql;
mod token;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, Uri};
use base64::Engine;
use rusqlite::types::Value as Cell;
use serde_json::Value;

use database::build_database;
use discovery::Discovery;
use fixture::FieldType;
use server::handle;

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
