//! The semantic lane's parts: an OpenAI-compatible embeddings client
//! (`POST <url>/embeddings`, the wire format OpenAI, Azure OpenAI, Ollama,
//! vLLM, LM Studio and TEI all speak), the text a document is embedded by,
//! its content hash (the cache key) and cosine similarity.

use std::time::Duration;

use lore_core::config::EmbeddingsConfig;
use serde::Deserialize;

use crate::{MatchField, SearchDoc};

/// The longest text embedded for one document, in characters (well inside
/// every current model's input limit).
pub const MAX_EMBED_CHARS: usize = 2_000;

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
        let mut request = self
            .agent
            .post(&self.endpoint)
            .header("Content-Type", "application/json");
        if let Some(key) = &self.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let response =
            request
                .send(body.to_string().as_bytes())
                .map_err(|e| EmbedError::Unreachable {
                    endpoint: self.endpoint.clone(),
                    reason: self.redact(&e.to_string()),
                })?;
        let status = response.status().as_u16();
        let mut reader = response.into_body().into_reader();
        if status != 200 {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(
                &mut std::io::Read::take(&mut reader, 64 * 1024),
                &mut text,
            );
            return Err(EmbedError::Refused {
                endpoint: self.endpoint.clone(),
                status,
                message: self.redact(&error_message(&text, status)),
            });
        }
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

/// The text a document is embedded by: what it is and its name, then its
/// descriptions, body, expression and sample values, cut at
/// [`MAX_EMBED_CHARS`].
pub fn embed_text(doc: &SearchDoc) -> String {
    let field = |wanted: MatchField| {
        doc.fields
            .iter()
            .filter(move |(f, _)| *f == wanted)
            .map(|(_, text)| text.trim())
            .filter(|t| !t.is_empty())
    };
    let mut text = format!("{}: {}", doc.kind.as_str().replace('_', " "), doc.id);
    for wanted in [
        MatchField::Display,
        MatchField::Description,
        MatchField::Comment,
        MatchField::Body,
        MatchField::Expr,
    ] {
        for part in field(wanted) {
            text.push('\n');
            text.push_str(part);
        }
    }
    let values: Vec<&str> = field(MatchField::SampleValue).collect();
    if !values.is_empty() {
        text.push_str("\nvalues: ");
        text.push_str(&values.join(", "));
    }
    truncate(&text, MAX_EMBED_CHARS).to_string()
}

/// The cache key of an embedded text.
pub fn content_hash(text: &str) -> String {
    format!("{:016x}", lore_core::hash::fnv1a(&[text.as_bytes()]))
}

/// `vector` scaled to length 1 (so a dot product is the cosine); none for
/// a zero vector.
pub fn normalized(vector: &[f32]) -> Option<Vec<f32>> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    (norm > 0.0 && norm.is_finite()).then(|| vector.iter().map(|x| x / norm).collect())
}

/// The dot product (the cosine of two normalised vectors); 0 when their
/// sizes differ.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    // Eight independent sums, so the compiler can use vector registers
    // (one running sum fixes the order of additions and cannot).
    let mut lanes = [0.0f32; 8];
    let (chunks_a, chunks_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let rest: f32 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in chunks_a.zip(chunks_b) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + rest
}

/// The `k` best of `scored` (highest score first, ties by key), without
/// sorting the rest.
pub fn top_k<K: Ord>(mut scored: Vec<(f32, K)>, k: usize) -> Vec<(f32, K)> {
    let order = |a: &(f32, K), b: &(f32, K)| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1));
    if k == 0 {
        return Vec::new();
    }
    if scored.len() > k {
        scored.select_nth_unstable_by(k - 1, order);
        scored.truncate(k);
    }
    scored.sort_by(order);
    scored
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
    use crate::DocKind;

    #[test]
    fn a_documents_text_names_it_and_carries_its_descriptions() {
        let doc = SearchDoc {
            kind: DocKind::SlMeasure,
            connection: Some("w".to_string()),
            id: "invoices.revenue".to_string(),
            fields: vec![
                (MatchField::Name, "revenue".to_string()),
                (
                    MatchField::Description,
                    "Money billed, in dollars".to_string(),
                ),
                (MatchField::Expr, "sum(total_cents) / 100.0".to_string()),
                (MatchField::SampleValue, "paid".to_string()),
                (MatchField::SampleValue, "void".to_string()),
            ],
            payload: serde_json::Value::Null,
        };
        assert_eq!(
            embed_text(&doc),
            "sl measure: invoices.revenue\nMoney billed, in dollars\nsum(total_cents) / 100.0\nvalues: paid, void"
        );
        let long = SearchDoc {
            fields: vec![(MatchField::Body, "é".repeat(5_000))],
            ..doc
        };
        assert_eq!(embed_text(&long).chars().count(), MAX_EMBED_CHARS);
        assert_ne!(content_hash("a"), content_hash("b"));
    }

    #[test]
    fn cosine_of_normalised_vectors() {
        let a = normalized(&[3.0, 4.0]).unwrap();
        assert!((dot(&a, &a) - 1.0).abs() < 1e-6);
        assert!(dot(&a, &normalized(&[-4.0, 3.0]).unwrap()).abs() < 1e-6);
        assert!(normalized(&[0.0, 0.0]).is_none());
        assert_eq!(dot(&a, &[1.0]), 0.0);
        let long: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let naive: f32 = long.iter().map(|x| x * x).sum();
        assert_eq!(dot(&long, &long), naive);
    }

    #[test]
    fn top_k_keeps_the_best_in_order() {
        let scored = vec![(0.1, "a"), (0.9, "b"), (0.5, "c"), (0.9, "a"), (-1.0, "d")];
        assert_eq!(
            top_k(scored.clone(), 3),
            vec![(0.9, "a"), (0.9, "b"), (0.5, "c")]
        );
        assert_eq!(top_k(scored.clone(), 10).len(), 5);
        assert!(top_k(scored, 0).is_empty());
    }

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
}
