//! The few BigQuery v2 REST calls Lore makes, with their request and
//! answer shapes as the discovery document names them: `jobs.query`,
//! `jobs.getQueryResults`, `jobs.cancel`, `datasets.list`, `tables.list`
//! and `tables.testIamPermissions`. Every field read or sent here is
//! checked against Google's discovery document in
//! `tests/data/bigquery/bigquery.v2.json` (see `tests/bigquery.rs`).
//!
//! The calls are blocking (ureq) and run on tokio's blocking pool.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How long one HTTP exchange may take at most (a `jobs.query` waits up
/// to its `timeoutMs` for the job, which is less).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Most bytes of one answer read (a page of rows is capped by
/// `maxResults` and BigQuery's own 20 MB page limit).
const MAX_ANSWER: u64 = 64 * 1024 * 1024;

/// A blocking HTTP client for the REST root and the token endpoint.
#[derive(Clone)]
pub struct Http {
    agent: ureq::Agent,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Http")
    }
}

/// Why an exchange did not happen (an HTTP error status is an answer).
#[derive(Debug)]
pub enum HttpError {
    /// No answer: refused connection, DNS, TLS, timeout.
    Transport {
        /// `host:port`.
        target: String,
        /// What failed.
        message: String,
    },
}

impl Default for Http {
    fn default() -> Http {
        Http::new()
    }
}

impl Http {
    /// A client with Lore's timeouts.
    pub fn new() -> Http {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(REQUEST_TIMEOUT))
            .timeout_connect(Some(Duration::from_secs(10)))
            .http_status_as_error(false)
            .user_agent(concat!("lore/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Http { agent }
    }

    /// POSTs a form (the token exchange); answers status and body.
    pub fn post_form(&self, url: &str, body: &str) -> Result<(u16, String), HttpError> {
        let response = self
            .agent
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .send(body.as_bytes());
        read(url, response)
    }

    /// POSTs JSON with a bearer token; answers status and body.
    pub fn post_json(
        &self,
        url: &str,
        token: &str,
        body: &str,
    ) -> Result<(u16, String), HttpError> {
        let response = self
            .agent
            .post(url)
            .header("Content-Type", "application/json")
            .header("Authorization", &format!("Bearer {token}"))
            .send(body.as_bytes());
        read(url, response)
    }

    /// GETs with a bearer token; answers status and body.
    pub fn get(&self, url: &str, token: &str) -> Result<(u16, String), HttpError> {
        let response = self
            .agent
            .get(url)
            .header("Authorization", &format!("Bearer {token}"))
            .call();
        read(url, response)
    }
}

fn read(
    url: &str,
    response: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
) -> Result<(u16, String), HttpError> {
    let transport = |message: String| HttpError::Transport {
        target: target_of(url),
        message,
    };
    // ureq's messages name the host at most, never headers.
    let response = response.map_err(|e| transport(e.to_string()))?;
    let status = response.status().as_u16();
    let mut text = String::new();
    let mut reader = response.into_body().into_reader();
    std::io::Read::read_to_string(&mut std::io::Read::take(&mut reader, MAX_ANSWER), &mut text)
        .map_err(|e| transport(format!("the answer could not be read: {e}")))?;
    Ok((status, text))
}

/// `host:port` of a url.
pub fn target_of(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("https", url));
    let host = rest.split(['/', '?']).next().unwrap_or(rest);
    let host = host.rsplit('@').next().unwrap_or(host);
    if host.contains(':') && !host.ends_with(']') {
        host.to_string()
    } else if scheme == "http" {
        format!("{host}:80")
    } else {
        format!("{host}:443")
    }
}

/// A path segment or query value, percent-encoded.
pub fn encode(part: &str) -> String {
    form_urlencoded::byte_serialize(part.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

/// `jobs.query`'s request body (`QueryRequest`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryRequest<'a> {
    pub query: &'a str,
    pub use_legacy_sql: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<&'a str>,
    /// int64 as a decimal string, as the discovery document says.
    pub maximum_bytes_billed: String,
    pub dry_run: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_results: Option<u32>,
    /// int64 as a decimal string: BigQuery stops the job itself after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_timeout_ms: Option<String>,
    pub format_options: FormatOptions,
    pub request_id: String,
    pub labels: serde_json::Map<String, serde_json::Value>,
}

/// `DataFormatOptions`: timestamps as exact int64 microseconds.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FormatOptions {
    pub use_int64_timestamp: bool,
}

/// The parts of `QueryResponse` and `GetQueryResultsResponse` Lore reads
/// (the two share these fields).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryAnswer {
    #[serde(default)]
    pub job_complete: Option<bool>,
    #[serde(default)]
    pub job_reference: Option<JobReference>,
    #[serde(default)]
    pub schema: Option<TableSchema>,
    #[serde(default)]
    pub rows: Option<Vec<serde_json::Value>>,
    #[serde(default)]
    pub page_token: Option<String>,
    #[serde(default)]
    pub total_rows: Option<String>,
    #[serde(default)]
    pub total_bytes_processed: Option<String>,
    #[serde(default)]
    pub total_bytes_billed: Option<String>,
    #[serde(default)]
    pub errors: Option<Vec<ErrorProto>>,
}

/// `JobReference`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobReference {
    #[serde(default)]
    pub project_id: Option<String>,
    #[serde(default)]
    pub job_id: Option<String>,
    #[serde(default)]
    pub location: Option<String>,
}

/// `TableSchema`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TableSchema {
    #[serde(default)]
    pub fields: Vec<FieldSchema>,
}

/// `TableFieldSchema`: a column, possibly repeated or a record of fields.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FieldSchema {
    #[serde(default)]
    pub name: String,
    #[serde(default, rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub fields: Vec<FieldSchema>,
}

impl FieldSchema {
    /// Whether the field is an array (`mode: REPEATED`).
    pub fn repeated(&self) -> bool {
        self.mode.as_deref() == Some("REPEATED")
    }

    /// The type as SQL spells it: `INT64`, `ARRAY<STRING>`,
    /// `STRUCT<a INT64, b STRING>`.
    pub fn sql_type(&self) -> String {
        let base = match self.kind.as_str() {
            "RECORD" | "STRUCT" => format!(
                "STRUCT<{}>",
                self.fields
                    .iter()
                    .map(|f| format!("{} {}", f.name, f.sql_type()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "INTEGER" => "INT64".to_string(),
            "FLOAT" => "FLOAT64".to_string(),
            "BOOLEAN" => "BOOL".to_string(),
            other => other.to_string(),
        };
        if self.repeated() {
            format!("ARRAY<{base}>")
        } else {
            base
        }
    }
}

/// `ErrorProto`: one error of a job.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ErrorProto {
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub location: Option<String>,
}

/// Google's error envelope: `{"error": {"code", "message", "status",
/// "errors": [{"reason", "message", "domain"}]}}`.
#[derive(Debug, Default, Deserialize)]
pub struct ErrorEnvelope {
    #[serde(default)]
    pub error: ErrorBody,
}

/// The body of [`ErrorEnvelope`].
#[derive(Debug, Default, Deserialize)]
pub struct ErrorBody {
    #[serde(default)]
    pub code: Option<u16>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub errors: Vec<ErrorProto>,
}

/// An error answer of the REST API, as read from its envelope.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// HTTP status.
    pub status: u16,
    /// The first error's `reason` (`accessDenied`, `invalidQuery`…), else
    /// the envelope's `status` (`PERMISSION_DENIED`).
    pub reason: String,
    /// Google's message.
    pub message: String,
}

impl ApiError {
    /// Reads an error answer; a body that is not Google's envelope is
    /// described by its status.
    pub fn from_answer(status: u16, body: &str) -> ApiError {
        let envelope: ErrorEnvelope = serde_json::from_str(body).unwrap_or_default();
        let first = envelope.error.errors.first().cloned().unwrap_or_default();
        let reason = first
            .reason
            .or(envelope.error.status)
            .unwrap_or_else(|| format!("http{status}"));
        let message = envelope
            .error
            .message
            .or(first.message)
            .unwrap_or_else(|| match status {
                401 => "the access token was refused".to_string(),
                404 => "no such resource (check the endpoint and project)".to_string(),
                _ => format!("HTTP {status} without an error message"),
            });
        ApiError {
            status,
            reason,
            message: shorten(&message),
        }
    }

    /// A job error from an answer's `errors` (the first one).
    pub fn from_job(errors: &[ErrorProto]) -> Option<ApiError> {
        let first = errors.first()?;
        Some(ApiError {
            status: 200,
            reason: first.reason.clone().unwrap_or_default(),
            message: shorten(first.message.as_deref().unwrap_or("the job failed")),
        })
    }
}

/// Google's messages are short; keep them so.
fn shorten(message: &str) -> String {
    const MAX: usize = 500;
    match message.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &message[..at]),
        None => message.to_string(),
    }
}

/// `DatasetList`, the parts Lore reads.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatasetList {
    #[serde(default)]
    pub datasets: Vec<DatasetListItem>,
    #[serde(default)]
    pub next_page_token: Option<String>,
}

/// One dataset of a [`DatasetList`].
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatasetListItem {
    #[serde(default)]
    pub dataset_reference: DatasetReference,
    #[serde(default)]
    pub location: Option<String>,
}

/// `DatasetReference`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatasetReference {
    #[serde(default)]
    pub dataset_id: String,
    #[serde(default)]
    pub project_id: Option<String>,
}

/// `TableList`, the parts Lore reads.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct TableList {
    #[serde(default)]
    pub tables: Vec<TableListItem>,
}

/// One table of a [`TableList`].
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableListItem {
    #[serde(default)]
    pub table_reference: TableReference,
}

/// `TableReference`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TableReference {
    #[serde(default)]
    pub project_id: String,
    #[serde(default)]
    pub dataset_id: String,
    #[serde(default)]
    pub table_id: String,
}

/// `TestIamPermissionsRequest` and `TestIamPermissionsResponse`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Permissions {
    #[serde(default)]
    pub permissions: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn google_error_envelopes_give_reason_and_message() {
        let e = ApiError::from_answer(
            403,
            r#"{"error":{"code":403,"message":"Access Denied: Table p:d.t","errors":[{"message":"Access Denied: Table p:d.t","domain":"global","reason":"accessDenied"}],"status":"PERMISSION_DENIED"}}"#,
        );
        assert_eq!(e.reason, "accessDenied");
        assert_eq!(e.message, "Access Denied: Table p:d.t");
        let e = ApiError::from_answer(401, "<html>no</html>");
        assert_eq!(e.reason, "http401");
        assert!(e.message.contains("token"), "{}", e.message);
    }

    #[test]
    fn types_are_spelt_as_sql_spells_them() {
        let field: FieldSchema = serde_json::from_value(serde_json::json!({
            "name": "r", "type": "RECORD", "mode": "REPEATED",
            "fields": [{"name": "a", "type": "INTEGER"}, {"name": "b", "type": "STRING", "mode": "REPEATED"}]
        }))
        .unwrap();
        assert_eq!(field.sql_type(), "ARRAY<STRUCT<a INT64, b ARRAY<STRING>>>");
    }

    #[test]
    fn targets_name_host_and_port_only() {
        assert_eq!(
            target_of("https://oauth2.googleapis.com/token"),
            "oauth2.googleapis.com:443"
        );
        assert_eq!(target_of("http://127.0.0.1:9/x?y=1"), "127.0.0.1:9");
    }
}
