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

use std::time::Duration;

use lore_core::config::EmbeddingsConfig;
use serde::Deserialize;

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
        let mut headers = Vec::new();
        if let Some(key) = &self.api_key {
            headers.push(("Authorization", format!("Bearer {key}")));
        }
        let text = crate::http::post_json(
            &self.agent,
            &self.endpoint,
            &headers,
            &body,
            self.timeout,
            &|t| self.redact(t),
            "search.embeddings",
        )
        .map_err(|e| match e {
            crate::http::PostError::Unreachable(reason) => EmbedError::Unreachable {
                endpoint: self.endpoint.clone(),
                reason,
            },
            crate::http::PostError::Refused { status, message } => EmbedError::Refused {
                endpoint: self.endpoint.clone(),
                status,
                message,
            },
        })?;
        let bad = |reason: String| EmbedError::BadResponse {
            endpoint: self.endpoint.clone(),
            reason,
        };
        let parsed: EmbeddingsResponse = serde_json::from_str(&text).map_err(|e| {
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::loopback::provider;

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
