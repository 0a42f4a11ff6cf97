//! The BigQuery connector, over the REST API v2.
//!
//! A connection is a `bigquery://PROJECT?…` url ([`settings`]) and a
//! service-account key ([`auth`]). Each query is:
//!
//! 1. a **dry run** (`jobs.query` with `dryRun: true`, free): BigQuery says
//!    how many bytes the query would process; over the connection's
//!    `maximum_bytes_billed` the query is refused with `budget_exceeded`,
//!    naming the estimate and the setting, before it costs anything;
//! 2. `jobs.query` with `maximumBytesBilled` (BigQuery refuses the job
//!    itself past it), `jobTimeoutMs` (BigQuery stops it itself past the
//!    statement timeout), `useLegacySql: false`, the location, and
//!    timestamps as exact int64 microseconds;
//! 3. `jobs.getQueryResults` until the job completes, then page by page
//!    (`pageToken`) until the row cap or the byte budget;
//! 4. `jobs.cancel` when the statement timeout passes or the caller drops
//!    the future before the job finished.
//!
//! BigQuery has no read-only session: the guard is the first wall, and the
//! service account's roles the second (BigQuery Data Viewer and Job User
//! cannot write). `server_info` checks them: it asks
//! `tables.testIamPermissions` whether the account may change the tables
//! it can see.

pub mod auth;
mod project;
pub mod rest;
pub mod settings;
pub mod value;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use lore_core::config::Secret;
use tokio::sync::{Mutex, Semaphore};

use super::{Fetched, QueryResult, ResultBudget, RowLimit};
use crate::error::WarehouseError;
use auth::{AccessToken, AuthError, ServiceAccount};
use rest::{ApiError, Http, HttpError, QueryAnswer, QueryRequest, encode};
use settings::{Settings, human_bytes};

/// Time allowed beyond the statement timeout for BigQuery to report it.
const TIMEOUT_SLACK: Duration = Duration::from_secs(5);
/// How long `jobs.query` waits for its job: short, because until it
/// answers Lore does not know the job's id and could not cancel it.
const FIRST_WAIT_MS: u64 = 2_000;
/// The longest one `jobs.getQueryResults` call waits for a job.
const POLL_MS: u64 = 10_000;
/// Rows asked for per page (BigQuery also caps a page at about 10 MB).
const PAGE_ROWS: usize = 10_000;
/// Write permissions whose absence `server_info` checks on a table.
pub const WRITE_PERMISSIONS: [&str; 3] = [
    "bigquery.tables.updateData",
    "bigquery.tables.update",
    "bigquery.tables.delete",
];
/// The variable Google's tools read for a key file when `credentials` is
/// not set.
pub const CREDENTIALS_VARIABLE: &str = "GOOGLE_APPLICATION_CREDENTIALS";

// BigQuery's quoting is the dialect's (the SQL any connector writes).
pub use crate::dialect::{bigquery_ident as quote_ident, bigquery_literal as quote_literal};

/// What a connection needs once its secrets are resolved.
#[derive(Debug)]
struct Resolved {
    settings: Settings,
    account: ServiceAccount,
}

/// Runs read-only queries as jobs of one BigQuery project.
#[derive(Debug)]
pub struct BigqueryConnector {
    id: String,
    url: Secret,
    credentials: Option<Secret>,
    project_dir: PathBuf,
    timeout: Duration,
    /// Jobs running at once at most (`max_connections`).
    slots: Arc<Semaphore>,
    http: Http,
    resolved: OnceLock<Arc<Resolved>>,
    token: Mutex<Option<AccessToken>>,
}

/// A finished job's first answer and where its rows are.
struct Job {
    answer: QueryAnswer,
    project: String,
    job_id: String,
    location: Option<String>,
}

impl BigqueryConnector {
    /// A connector for connection `id`; the url and key are resolved (and
    /// Google contacted) only at the first query.
    pub fn new(
        id: &str,
        url: Secret,
        credentials: Option<Secret>,
        project_dir: PathBuf,
        timeout: Duration,
        max_jobs: usize,
    ) -> BigqueryConnector {
        BigqueryConnector {
            id: id.to_string(),
            url,
            credentials,
            project_dir,
            timeout,
            slots: Arc::new(Semaphore::new(max_jobs.max(1))),
            http: Http::new(),
            resolved: OnceLock::new(),
            token: Mutex::new(None),
        }
    }

    /// The statement timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The connection's settings (the url parsed).
    pub fn settings(&self) -> Result<Settings, WarehouseError> {
        Ok(self.resolve()?.settings.clone())
    }

    fn resolve(&self) -> Result<Arc<Resolved>, WarehouseError> {
        if let Some(resolved) = self.resolved.get() {
            return Ok(Arc::clone(resolved));
        }
        let url = self
            .url
            .resolve(&format!("connection `{}` url", self.id), &self.project_dir)?;
        let settings = Settings::parse(&url).map_err(|reason| WarehouseError::InvalidUrl {
            id: self.id.clone(),
            driver: "bigquery",
            reason,
        })?;
        let what = format!("connection `{}` credentials", self.id);
        let (key, source) = match &self.credentials {
            Some(secret) => (
                secret.resolve_text(&what, &self.project_dir)?,
                "`credentials` in lore.yaml".to_string(),
            ),
            None => {
                let path = std::env::var(CREDENTIALS_VARIABLE).map_err(|_| WarehouseError::Unusable {
                    id: self.id.clone(),
                    message: format!(
                        "no service-account key: set `credentials: file:key.json` (or env:VAR) on the connection in lore.yaml, or export {CREDENTIALS_VARIABLE}"
                    ),
                })?;
                (
                    Secret::new(format!("file:{path}")).resolve_text(&what, &self.project_dir)?,
                    format!("the file named by {CREDENTIALS_VARIABLE}"),
                )
            }
        };
        let account = ServiceAccount::from_json(&key).map_err(|e| match e {
            AuthError::BadKey(reason) => WarehouseError::Unusable {
                id: self.id.clone(),
                message: format!("the service-account key ({source}) cannot be used: {reason}"),
            },
            other => self.auth_error(other),
        })?;
        let resolved = Arc::new(Resolved { settings, account });
        Ok(Arc::clone(self.resolved.get_or_init(|| resolved)))
    }

    fn auth_error(&self, e: AuthError) -> WarehouseError {
        match e {
            AuthError::BadKey(message) | AuthError::Refused(message) => {
                WarehouseError::LoginRefused {
                    id: self.id.clone(),
                    driver: "bigquery",
                    message,
                }
            }
            AuthError::Unreachable { target, message } => WarehouseError::Unreachable {
                id: self.id.clone(),
                driver: "bigquery",
                target,
                message,
            },
        }
    }

    /// A current access token: the cached one, or a new one.
    async fn token(&self, resolved: &Arc<Resolved>) -> Result<String, WarehouseError> {
        let mut cached = self.token.lock().await;
        if let Some(token) = cached.as_ref().filter(|t| t.fresh()) {
            return Ok(token.value.clone());
        }
        let http = self.http.clone();
        let owner = Arc::clone(resolved);
        let fetched = tokio::task::spawn_blocking(move || auth::fetch_token(&http, &owner.account))
            .await
            .map_err(|_| WarehouseError::Upstream {
                message: "the token request was interrupted".to_string(),
            })?
            .map_err(|e| self.auth_error(e))?;
        let value = fetched.value.clone();
        *cached = Some(fetched);
        Ok(value)
    }

    /// One REST call (`body` set: POST, else GET) answering the 200 body.
    /// A refused token is renewed once.
    async fn call(
        &self,
        resolved: &Arc<Resolved>,
        url: String,
        body: Option<String>,
    ) -> Result<String, ApiCallError> {
        for attempt in 0..2 {
            let token = self.token(resolved).await.map_err(ApiCallError::Lore)?;
            let http = self.http.clone();
            let (url, body) = (url.clone(), body.clone());
            let answer = tokio::task::spawn_blocking(move || match body {
                Some(body) => http.post_json(&url, &token, &body),
                None => http.get(&url, &token),
            })
            .await
            .map_err(|_| {
                ApiCallError::Lore(WarehouseError::Upstream {
                    message: "the request to BigQuery was interrupted".to_string(),
                })
            })?;
            let (status, text) = answer.map_err(|HttpError::Transport { target, message }| {
                ApiCallError::Lore(WarehouseError::Unreachable {
                    id: self.id.clone(),
                    driver: "bigquery",
                    target,
                    message,
                })
            })?;
            if (200..300).contains(&status) {
                return Ok(text);
            }
            if status == 401 && attempt == 0 {
                *self.token.lock().await = None;
                continue;
            }
            return Err(ApiCallError::Api(ApiError::from_answer(status, &text)));
        }
        Err(ApiCallError::Api(ApiError::from_answer(401, "")))
    }

    fn jobs_url(&self, settings: &Settings) -> String {
        format!(
            "{}/projects/{}/queries",
            settings.endpoint,
            encode(&settings.project)
        )
    }

    fn query_request<'a>(
        &self,
        settings: &'a Settings,
        sql: &'a str,
        dry_run: bool,
    ) -> QueryRequest<'a> {
        let mut labels = serde_json::Map::new();
        labels.insert("client".into(), "lore".into());
        QueryRequest {
            query: sql,
            use_legacy_sql: false,
            location: settings.location.as_deref(),
            maximum_bytes_billed: settings.maximum_bytes_billed.to_string(),
            dry_run,
            timeout_ms: (!dry_run)
                .then_some(FIRST_WAIT_MS.min(self.timeout.as_millis() as u64) as u32),
            max_results: (!dry_run).then_some(PAGE_ROWS as u32),
            job_timeout_ms: (!dry_run).then(|| self.timeout.as_millis().max(1).to_string()),
            format_options: rest::FormatOptions {
                use_int64_timestamp: true,
            },
            request_id: uuid::Uuid::new_v4().to_string(),
            labels,
        }
    }

    /// The bytes `sql` would process, from a dry run (free).
    pub async fn estimate_bytes(&self, sql: &str) -> Result<u64, WarehouseError> {
        let resolved = self.resolve()?;
        self.dry_run(&resolved, sql).await
    }

    async fn dry_run(&self, resolved: &Arc<Resolved>, sql: &str) -> Result<u64, WarehouseError> {
        let settings = &resolved.settings;
        let body =
            serde_json::to_string(&self.query_request(settings, sql, true)).map_err(internal)?;
        let text = self
            .call(resolved, self.jobs_url(settings), Some(body))
            .await
            .map_err(|e| self.classify(e, settings))?;
        let answer: QueryAnswer = serde_json::from_str(&text).map_err(bad_answer)?;
        if let Some(e) = answer.errors.as_deref().and_then(ApiError::from_job) {
            return Err(self.classify(ApiCallError::Api(e), settings));
        }
        Ok(answer
            .total_bytes_processed
            .as_deref()
            .and_then(|b| b.parse().ok())
            .unwrap_or(0))
    }

    /// Runs `sql` (already checked by the guard, or written by Lore) as a
    /// query job, fetching at most `max_rows + 1` rows.
    pub(crate) async fn run(
        &self,
        sql: &str,
        limit: RowLimit,
    ) -> Result<QueryResult, WarehouseError> {
        let work = async {
            let _slot = self.slots.acquire().await.map_err(internal)?;
            let resolved = self.resolve()?;
            let settings = &resolved.settings;
            let started = Instant::now();
            let estimate = self.dry_run(&resolved, sql).await?;
            if estimate > settings.maximum_bytes_billed {
                return Err(self.over_budget(settings, Some(estimate)));
            }
            let job = self
                .start(&resolved, sql, limit.rows.saturating_add(1))
                .await?;
            let (fetched, processed) = self.fetch(&resolved, job, limit).await?;
            let mut result = fetched.into_result(limit.rows, started.elapsed().as_millis() as u64);
            result.bytes_processed = Some(processed.unwrap_or(estimate));
            Ok(result)
        };
        match tokio::time::timeout(self.timeout + TIMEOUT_SLACK, work).await {
            Ok(outcome) => outcome,
            Err(_) => Err(WarehouseError::Timeout {
                timeout_ms: self.timeout.as_millis() as u64,
            }),
        }
    }

    /// `jobs.query`, then `jobs.getQueryResults` until the job is done;
    /// the answer holds the first page of at most `wanted` rows.
    async fn start(
        &self,
        resolved: &Arc<Resolved>,
        sql: &str,
        wanted: usize,
    ) -> Result<Job, WarehouseError> {
        let settings = &resolved.settings;
        let mut request = self.query_request(settings, sql, false);
        request.max_results = Some(wanted.min(PAGE_ROWS) as u32);
        let body = serde_json::to_string(&request).map_err(internal)?;
        let text = self
            .call(resolved, self.jobs_url(settings), Some(body))
            .await
            .map_err(|e| self.classify(e, settings))?;
        let answer: QueryAnswer = serde_json::from_str(&text).map_err(bad_answer)?;
        let reference = answer.job_reference.clone().unwrap_or_default();
        let mut job = Job {
            project: reference
                .project_id
                .unwrap_or_else(|| settings.project.clone()),
            job_id: reference.job_id.unwrap_or_default(),
            location: reference.location.or_else(|| settings.location.clone()),
            answer,
        };
        if job.job_id.is_empty() && job.answer.job_complete != Some(true) {
            return Err(bad_answer("jobs.query answered without a jobReference"));
        }
        if job.answer.job_complete == Some(true) {
            return Ok(job);
        }
        // Leaving before the job finished (the statement timeout, a dropped
        // future, an error) cancels it: it would run on otherwise.
        let cancel = CancelOnDrop {
            http: self.http.clone(),
            call: self.cancel_call(resolved, &job).await,
        };
        while job.answer.job_complete != Some(true) {
            if let Some(e) = job.answer.errors.as_deref().and_then(ApiError::from_job) {
                return Err(self.classify(ApiCallError::Api(e), settings));
            }
            job.answer = self.results_page(resolved, &job, None, wanted).await?;
        }
        cancel.disarm();
        if let Some(e) = job.answer.errors.as_deref().and_then(ApiError::from_job) {
            return Err(self.classify(ApiCallError::Api(e), settings));
        }
        Ok(job)
    }

    /// One `jobs.getQueryResults` call.
    async fn results_page(
        &self,
        resolved: &Arc<Resolved>,
        job: &Job,
        page_token: Option<&str>,
        max_results: usize,
    ) -> Result<QueryAnswer, WarehouseError> {
        let settings = &resolved.settings;
        let mut url = format!(
            "{}/projects/{}/queries/{}?formatOptions.useInt64Timestamp=true&timeoutMs={}",
            settings.endpoint,
            encode(&job.project),
            encode(&job.job_id),
            POLL_MS.min(self.timeout.as_millis() as u64),
        );
        url.push_str(&format!("&maxResults={}", max_results.min(PAGE_ROWS)));
        if let Some(location) = &job.location {
            url.push_str(&format!("&location={}", encode(location)));
        }
        if let Some(token) = page_token {
            url.push_str(&format!("&pageToken={}", encode(token)));
        }
        let text = self
            .call(resolved, url, None)
            .await
            .map_err(|e| self.classify(e, settings))?;
        let answer: QueryAnswer = serde_json::from_str(&text).map_err(bad_answer)?;
        if let Some(e) = answer.errors.as_deref().and_then(ApiError::from_job) {
            return Err(self.classify(ApiCallError::Api(e), settings));
        }
        Ok(answer)
    }

    /// The rows of a finished job, page by page, within `limit`.
    async fn fetch(
        &self,
        resolved: &Arc<Resolved>,
        job: Job,
        limit: RowLimit,
    ) -> Result<(Fetched, Option<u64>), WarehouseError> {
        let wanted = limit.rows.saturating_add(1);
        let mut budget = ResultBudget::new(limit);
        let mut stopped = false;
        let schema = job.answer.schema.clone().unwrap_or_default();
        let processed = job
            .answer
            .total_bytes_processed
            .as_deref()
            .and_then(|b| b.parse().ok());
        let mut rows = Vec::new();
        let mut page = job.answer.rows.clone().unwrap_or_default();
        let mut next = job.answer.page_token.clone();
        'pages: loop {
            for row in &page {
                if rows.len() >= wanted {
                    break 'pages;
                }
                let mut values = value::row_to_json(&schema.fields, row);
                if !budget.admit(&mut values) {
                    stopped = true;
                    break 'pages;
                }
                rows.push(values);
            }
            match next.take() {
                Some(token) if rows.len() < wanted => {
                    let answer = self
                        .results_page(resolved, &job, Some(&token), wanted - rows.len())
                        .await?;
                    page = answer.rows.unwrap_or_default();
                    next = answer.page_token;
                }
                _ => break,
            }
        }
        Ok((
            Fetched {
                headers: schema.fields.iter().map(|f| f.name.clone()).collect(),
                header_types: Some(schema.fields.iter().map(|f| f.sql_type()).collect()),
                rows,
                cut_at_bytes: budget.cut_at(stopped),
            },
            processed,
        ))
    }

    /// What `jobs.cancel` of `job` needs: its url and a token.
    async fn cancel_call(&self, resolved: &Arc<Resolved>, job: &Job) -> Option<(String, String)> {
        if job.job_id.is_empty() {
            return None;
        }
        let mut url = format!(
            "{}/projects/{}/jobs/{}/cancel",
            resolved.settings.endpoint,
            encode(&job.project),
            encode(&job.job_id)
        );
        if let Some(location) = &job.location {
            url.push_str(&format!("?location={}", encode(location)));
        }
        let token = self.token(resolved).await.ok()?;
        Some((url, token))
    }

    fn over_budget(&self, settings: &Settings, estimate: Option<u64>) -> WarehouseError {
        let budget = human_bytes(settings.maximum_bytes_billed);
        WarehouseError::BilledBudget {
            message: match estimate {
                Some(bytes) => format!(
                    "the query would process {} ({bytes} bytes, by BigQuery's dry run), more than connection `{}` may bill per query ({budget}, maximum_bytes_billed in its url); select fewer columns, filter on the partitioning or clustering columns, or raise maximum_bytes_billed",
                    human_bytes(bytes),
                    self.id
                ),
                None => format!(
                    "BigQuery stopped the query: it would bill more than connection `{}` allows per query ({budget}, maximum_bytes_billed in its url); select fewer columns, filter on the partitioning or clustering columns, or raise maximum_bytes_billed",
                    self.id
                ),
            },
        }
    }

    /// Maps a REST error to what the caller should do about it.
    fn classify(&self, e: ApiCallError, settings: &Settings) -> WarehouseError {
        let e = match e {
            ApiCallError::Lore(e) => return e,
            ApiCallError::Api(e) => e,
        };
        let message = e.message.clone();
        match e.reason.as_str() {
            "bytesBilledLimitExceeded" => self.over_budget(settings, None),
            "invalidQuery" | "invalid" | "duplicate" => WarehouseError::Query { message },
            "notFound" if message.contains("Project") || message.contains("project") => {
                WarehouseError::Unusable {
                    id: self.id.clone(),
                    message: format!(
                        "BigQuery does not know project `{}` ({message}); fix PROJECT in bigquery://PROJECT, and check that the BigQuery API is enabled on it",
                        settings.project
                    ),
                }
            }
            "notFound" => WarehouseError::Query { message },
            "accessDenied" | "PERMISSION_DENIED" | "http403" => WarehouseError::AccessDenied {
                message: format!(
                    "{message}; grant the service account BigQuery Job User on project `{}` and BigQuery Data Viewer on the datasets it reads",
                    settings.project
                ),
            },
            "authError" | "UNAUTHENTICATED" | "http401" => WarehouseError::LoginRefused {
                id: self.id.clone(),
                driver: "bigquery",
                message: format!(
                    "{message}; check that the key belongs to an enabled service account"
                ),
            },
            // `stopped`: the job was cancelled (by Lore at its timeout);
            // `timeout`: it ran past jobTimeoutMs.
            "stopped" | "timeout" => WarehouseError::Timeout {
                timeout_ms: self.timeout.as_millis() as u64,
            },
            "billingNotEnabled" | "billingTierLimitExceeded" => WarehouseError::Unusable {
                id: self.id.clone(),
                message: format!(
                    "{message}; enable billing on project `{}`",
                    settings.project
                ),
            },
            _ => WarehouseError::Upstream {
                message: format!("{message} ({})", e.reason),
            },
        }
    }
}

/// A REST call's failure: Lore's own (token, transport) or the API's.
enum ApiCallError {
    Lore(WarehouseError),
    Api(ApiError),
}

/// Sends `jobs.cancel` if dropped while armed (timeout, a cancelled MCP
/// request, an error while fetching).
struct CancelOnDrop {
    http: Http,
    call: Option<(String, String)>,
}

impl CancelOnDrop {
    fn disarm(mut self) {
        self.call = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some((url, token)) = self.call.take() {
            let http = self.http.clone();
            // A plain thread: this may run while the runtime shuts down.
            // Nothing is left to do when the cancel cannot be sent: the
            // job's own jobTimeoutMs stops it.
            std::thread::spawn(move || {
                let _ = http.post_json(&url, &token, "");
            });
        }
    }
}

fn bad_answer(e: impl std::fmt::Display) -> WarehouseError {
    WarehouseError::Upstream {
        message: format!("BigQuery answered in an unexpected shape: {e}"),
    }
}

fn internal(e: impl std::fmt::Display) -> WarehouseError {
    WarehouseError::Upstream {
        message: e.to_string(),
    }
}
