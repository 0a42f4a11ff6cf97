//! The embeddings client: `POST <url>/embeddings` in the OpenAI wire
//! format, which OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio and TEI all
//! speak. Texts in, vectors out; what a vector is paired with (a search
//! document, a cache key) is the caller's business.
//!
//! A request that the provider throttles (429) or fails (5xx) is retried
//! with backoff — the provider's `Retry-After` when it sends one, else
//! 250 ms, then 1 s — as long as the retry fits the configured timeout.
//! The API key is sent only as a bearer token: never in an error, a log
//! line or a `Debug` print.

use std::time::{Duration, Instant};

use lore_core::config::EmbeddingsConfig;
use serde::Deserialize;

/// Waits before the first and second retry of a throttled or failed
/// request (unless the provider says how long in `Retry-After`).
const BACKOFF: [Duration; 2] = [Duration::from_millis(250), Duration::from_secs(1)];

/// Most bytes of a provider's error message repeated to the user.
const MAX_MESSAGE: usize = 300;

/// Why an embedding request failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EmbedError {
    /// No answer: refused connection, DNS, TLS or timeout.
    #[error("cannot reach the embedding provider at {endpoint}: {reason}")]
    Unreachable {
        /// The URL posted to.
        endpoint: String,
        /// What went wrong.
        reason: String,
    },
    /// An HTTP error status.
    #[error("the embedding provider at {endpoint} answered HTTP {status}: {message}")]
    Refused {
        /// The URL posted to.
        endpoint: String,
        /// The status.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// An answer that is not an embeddings response for the texts sent.
    #[error("the embedding provider at {endpoint} gave an unusable answer: {reason}")]
    BadResponse {
        /// The URL posted to.
        endpoint: String,
        /// What was wrong with it.
        reason: String,
    },
}

/// A client of one embedding provider and model.
pub struct Embedder {
    endpoint: String,
    model: String,
    api_key: Option<String>,
    dimensions: Option<u32>,
    timeout: Duration,
    agent: ureq::Agent,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct EmbeddingsResponse {
    data: Vec<EmbeddingItem>,
}

#[derive(Deserialize)]
struct EmbeddingItem {
    index: usize,
    embedding: Vec<f32>,
}

impl Embedder {
    /// A client for `config`, with its API key already resolved.
    pub fn new(config: &EmbeddingsConfig, api_key: Option<String>) -> Embedder {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout()))
            .timeout_connect(Some(config.timeout().min(Duration::from_secs(2))))
            .http_status_as_error(false)
            .user_agent(concat!("lore/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Embedder {
            endpoint: config.endpoint(),
            model: config.model.trim().to_string(),
            api_key: api_key.filter(|k| !k.is_empty()),
            dimensions: config.dimensions,
            timeout: config.timeout(),
            agent,
        }
    }

    /// The name vectors are cached under: the model, and the size asked
    /// for when one is.
    pub fn cache_model(&self) -> String {
        match self.dimensions {
            Some(d) => format!("{}@{d}", self.model),
            None => self.model.clone(),
        }
    }

    /// One vector per text, in order. Blocking; at most the configured
    /// timeout.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut body = serde_json::json!({
            "model": self.model,
            "input": texts,
            "encoding_format": "float",
        });
        if let Some(dimensions) = self.dimensions {
            body["dimensions"] = dimensions.into();
        }
        let body = body.to_string();
        let started = Instant::now();
        let mut attempt = 0;
        let reader = loop {
            let mut request = self
                .agent
                .post(&self.endpoint)
                .header("Content-Type", "application/json");
            if let Some(key) = &self.api_key {
                request = request.header("Authorization", format!("Bearer {key}"));
            }
            let response = request
                .send(body.as_bytes())
                .map_err(|e| EmbedError::Unreachable {
                    endpoint: self.endpoint.clone(),
                    reason: self.redact(&e.to_string()),
                })?;
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let mut reader = response.into_body().into_reader();
            if status == 200 {
                break reader;
            }
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(
                &mut std::io::Read::take(&mut reader, 64 * 1024),
                &mut text,
            );
            let wait = retry_after.unwrap_or(BACKOFF[attempt.min(BACKOFF.len() - 1)]);
            let retryable = status == 429 || status >= 500;
            if retryable && attempt < BACKOFF.len() && started.elapsed() + wait < self.timeout {
                tracing::info!(
                    endpoint = %self.endpoint,
                    status,
                    wait_ms = wait.as_millis() as u64,
                    "embedding provider busy; retrying"
                );
                std::thread::sleep(wait);
                attempt += 1;
                continue;
            }
            return Err(EmbedError::Refused {
                endpoint: self.endpoint.clone(),
                status,
                message: self.redact(&error_message(&text, status)),
            });
        };
        let bad = |reason: String| EmbedError::BadResponse {
            endpoint: self.endpoint.clone(),
            reason,
        };
        let parsed: EmbeddingsResponse = serde_json::from_reader(reader).map_err(|e| {
            bad(format!(
                "{e} (expected {{\"data\":[{{\"index\":0,\"embedding\":[…]}}]}})"
            ))
        })?;
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for item in parsed.data {
            let slot = vectors.get_mut(item.index).ok_or_else(|| {
                bad(format!(
                    "index {} for {} texts sent",
                    item.index,
                    texts.len()
                ))
            })?;
            *slot = Some(item.embedding);
        }
        let vectors: Vec<Vec<f32>> = vectors
            .into_iter()
            .enumerate()
            .map(|(i, v)| v.ok_or_else(|| bad(format!("no vector for text {i}"))))
            .collect::<Result<_, _>>()?;
        let dims = vectors[0].len();
        if dims == 0 {
            return Err(bad("empty vectors".to_string()));
        }
        if vectors
            .iter()
            .any(|v| v.len() != dims || v.iter().any(|x| !x.is_finite()))
        {
            return Err(bad(
                "vectors of different sizes or with non-numbers".to_string()
            ));
        }
        Ok(vectors)
    }

    /// `text` without the API key, should a provider repeat it.
    fn redact(&self, text: &str) -> String {
        match &self.api_key {
            Some(key) if key.len() >= 4 => text.replace(key.as_str(), "***"),
            _ => text.to_string(),
        }
    }
}

/// The message of an error answer: OpenAI's `{"error":{"message"}}`,
/// Ollama's `{"error":"…"}`, else the start of the body.
fn error_message(body: &str, status: u16) -> String {
    let from_json = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let error = v.get("error")?;
            error
                .get("message")
                .and_then(|m| m.as_str())
                .or_else(|| error.as_str())
                .map(String::from)
        });
    let mut message = from_json.unwrap_or_else(|| body.trim().to_string());
    if message.is_empty() {
        message = match status {
            401 | 403 => "the API key was refused (check search.embeddings.api_key)".to_string(),
            404 => "no such endpoint or model (check search.embeddings.url and model)".to_string(),
            _ => "no message".to_string(),
        };
    }
    truncate(&message, MAX_MESSAGE).to_string()
}

fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_errors_are_read_from_openai_and_ollama_shapes() {
        assert_eq!(
            error_message(
                r#"{"error":{"message":"Incorrect API key","type":"x"}}"#,
                401
            ),
            "Incorrect API key"
        );
        assert_eq!(
            error_message(r#"{"error":"model not found"}"#, 404),
            "model not found"
        );
        assert!(error_message("", 401).contains("api_key"));
    }

    /// A provider on loopback that answers each request with the next of
    /// `answers` (status, extra header, body) and counts the requests.
    fn provider(
        answers: Vec<(u16, &'static str, String)>,
    ) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = std::sync::Arc::clone(&count);
        std::thread::spawn(move || {
            for (status, header, body) in answers {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                let mut reader = BufReader::new(stream);
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut request = vec![0; length];
                reader.read_exact(&mut request).unwrap();
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let mut stream = reader.into_inner();
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{header}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        (url, count)
    }

    fn embedder(url: &str, key: &str) -> Embedder {
        let config = EmbeddingsConfig {
            url: url.to_string(),
            model: "m".to_string(),
            api_key: None,
            dimensions: None,
            weight: None,
            timeout_ms: Some(5_000),
            batch_size: None,
            kinds: None,
        };
        Embedder::new(&config, Some(key.to_string()))
    }

    const VECTORS: &str =
        r#"{"data":[{"index":1,"embedding":[0.0,1.0]},{"index":0,"embedding":[1.0,0.0]}]}"#;

    #[test]
    fn throttled_and_failed_requests_are_retried_until_the_provider_answers() {
        let (url, count) = provider(vec![
            (
                429,
                "Retry-After: 0\r\n",
                r#"{"error":{"message":"slow down"}}"#.to_string(),
            ),
            (503, "", "busy".to_string()),
            (200, "", VECTORS.to_string()),
        ]);
        let vectors = embedder(&url, "sk-secret-key")
            .embed(&["a".to_string(), "b".to_string()])
            .unwrap();
        assert_eq!(vectors, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 3);
    }

    #[test]
    fn a_refusal_a_retry_cannot_fix_is_reported_at_once_without_the_key() {
        let (url, count) = provider(vec![(
            401,
            "",
            r#"{"error":{"message":"Incorrect API key sk-secret-key"}}"#.to_string(),
        )]);
        let error = embedder(&url, "sk-secret-key")
            .embed(&["a".to_string()])
            .unwrap_err();
        assert!(
            matches!(error, EmbedError::Refused { status: 401, .. }),
            "{error}"
        );
        assert!(!error.to_string().contains("sk-secret-key"), "{error}");
        assert!(error.to_string().contains("***"), "{error}");
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(!format!("{:?}", embedder(&url, "sk-secret-key")).contains("sk-secret"));
    }

    #[test]
    fn retries_stop_after_two_and_say_what_the_provider_said() {
        let busy = || {
            (
                500,
                "Retry-After: 0\r\n",
                r#"{"error":"overloaded"}"#.to_string(),
            )
        };
        let (url, count) = provider(vec![busy(), busy(), busy(), busy()]);
        let error = embedder(&url, "k").embed(&["a".to_string()]).unwrap_err();
        assert!(
            error.to_string().contains("HTTP 500: overloaded"),
            "{error}"
        );
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 3);
    }
}
