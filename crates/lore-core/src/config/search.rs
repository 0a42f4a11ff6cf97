//! `search:` in `lore.yaml`: the optional embedding lane.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Secret;

/// Kinds of searchable things an embedding can be computed for, as written
/// in `search.embeddings.kinds`.
pub const EMBEDDABLE_KINDS: [&str; 7] = [
    "wiki",
    "entry",
    "sl_source",
    "sl_measure",
    "sl_dimension",
    "table",
    "column",
];

/// Kinds embedded when `kinds` is not set: everything but columns, which
/// outnumber tables twenty to one in a typical warehouse and are found
/// well by their names.
const DEFAULT_KINDS: [&str; 6] = [
    "wiki",
    "entry",
    "sl_source",
    "sl_measure",
    "sl_dimension",
    "table",
];

/// Default time a call to the embedding provider may take.
pub const DEFAULT_EMBEDDING_TIMEOUT_MS: u64 = 3_000;

/// Default number of texts sent in one embedding request.
pub const DEFAULT_EMBEDDING_BATCH: usize = 64;

/// Settings of search.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct SearchConfig {
    /// An embedding provider for the semantic lane (off when absent: search is lexical).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embeddings: Option<EmbeddingsConfig>,
}

/// An OpenAI-compatible embedding provider (`POST <url>/embeddings`):
/// OpenAI, Azure OpenAI, Ollama, LM Studio, vLLM, LocalAI, TEI…
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct EmbeddingsConfig {
    /// The API's base URL (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`);
    /// Lore posts to `<url>/embeddings`. A URL already ending in `/embeddings` is used as is.
    pub url: String,
    /// The model name sent with each request (`text-embedding-3-small`, `nomic-embed-text`).
    pub model: String,
    /// Bearer token, when the provider wants one: a literal, `env:VAR` or `file:PATH`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<Secret>,
    /// Vector size to ask for, for models that can shorten their vectors (sent as `dimensions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<u32>,
    /// Weight of the semantic lane in rank fusion; each lexical lane weighs 1 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// Longest a request may take, in milliseconds (default 3000). A slower or unreachable
    /// provider is skipped: search answers from the lexical lanes and says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Texts sent per request (default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<usize>,
    /// What to embed (default: wiki, entry, sl_source, sl_measure, sl_dimension, table;
    /// add `column` for small catalogs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinds: Option<Vec<String>>,
}

impl SearchConfig {
    /// What is wrong with these settings, said so the user can fix it.
    pub(crate) fn problem(&self) -> Option<String> {
        self.embeddings.as_ref().and_then(EmbeddingsConfig::problem)
    }
}

impl EmbeddingsConfig {
    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        let url = self.url.trim().trim_end_matches('/');
        if url.ends_with("/embeddings") {
            url.to_string()
        } else {
            format!("{url}/embeddings")
        }
    }

    /// The lane's weight in fusion.
    pub fn weight(&self) -> f64 {
        self.weight.unwrap_or(1.0)
    }

    /// The request timeout.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_EMBEDDING_TIMEOUT_MS))
    }

    /// Texts per request.
    pub fn batch_size(&self) -> usize {
        self.batch_size.unwrap_or(DEFAULT_EMBEDDING_BATCH)
    }

    /// The kinds to embed, by their wire names.
    pub fn kinds(&self) -> Vec<String> {
        match &self.kinds {
            Some(kinds) => kinds.clone(),
            None => DEFAULT_KINDS.iter().map(|k| k.to_string()).collect(),
        }
    }

    fn problem(&self) -> Option<String> {
        let url = self.url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://"))
            || url.len() <= "https://".len()
        {
            return Some(format!(
                "search.embeddings.url must be an http:// or https:// URL such as https://api.openai.com/v1, got `{url}`"
            ));
        }
        if self.model.trim().is_empty() {
            return Some(
                "search.embeddings.model must name the embedding model (for example text-embedding-3-small)".to_string(),
            );
        }
        if self.weight.is_some_and(|w| !(w > 0.0 && w <= 10.0)) {
            return Some("search.embeddings.weight must be above 0 and at most 10".to_string());
        }
        if self.timeout_ms.is_some_and(|t| !(1..=120_000).contains(&t)) {
            return Some("search.embeddings.timeout_ms must be between 1 and 120000".to_string());
        }
        if self.batch_size.is_some_and(|b| !(1..=2048).contains(&b)) {
            return Some("search.embeddings.batch_size must be between 1 and 2048".to_string());
        }
        if self.dimensions == Some(0) {
            return Some("search.embeddings.dimensions must be at least 1".to_string());
        }
        if let Some(kinds) = &self.kinds {
            if kinds.is_empty() {
                return Some(format!(
                    "search.embeddings.kinds must list at least one of {} (leave it out for the default)",
                    EMBEDDABLE_KINDS.join(", ")
                ));
            }
            if let Some(bad) = kinds
                .iter()
                .find(|k| !EMBEDDABLE_KINDS.contains(&k.as_str()))
            {
                return Some(format!(
                    "search.embeddings.kinds: unknown kind `{bad}`; use {}",
                    EMBEDDABLE_KINDS.join(", ")
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::parse_config;

    #[test]
    fn embeddings_load_with_defaults_and_build_the_endpoint() {
        let loaded = parse_config(
            "search:\n  embeddings:\n    url: http://127.0.0.1:11434/v1/\n    model: nomic-embed-text\n    api_key: env:OPENAI_API_KEY\n",
            Path::new("lore.yaml"),
        )
        .unwrap();
        let embeddings = loaded.config.search.embeddings.unwrap();
        assert_eq!(
            embeddings.endpoint(),
            "http://127.0.0.1:11434/v1/embeddings"
        );
        assert_eq!(embeddings.weight(), 1.0);
        assert_eq!(embeddings.batch_size(), 64);
        assert!(!embeddings.kinds().contains(&"column".to_string()));
        assert!(embeddings.api_key.is_some());
        assert!(loaded.warnings.is_empty());
    }

    #[test]
    fn an_endpoint_url_is_kept() {
        let loaded = parse_config(
            "search:\n  embeddings: { url: \"https://h.example/v1/embeddings\", model: m }\n",
            Path::new("lore.yaml"),
        )
        .unwrap();
        assert_eq!(
            loaded.config.search.embeddings.unwrap().endpoint(),
            "https://h.example/v1/embeddings"
        );
    }

    #[test]
    fn bad_embedding_settings_say_what_to_write() {
        for (yaml, expected) in [
            ("{ url: localhost:11434, model: m }", "http:// or https://"),
            ("{ url: \"http://h/v1\", model: \" \" }", "model must name"),
            (
                "{ url: \"http://h/v1\", model: m, weight: 0 }",
                "weight must be above 0",
            ),
            (
                "{ url: \"http://h/v1\", model: m, batch_size: 0 }",
                "batch_size",
            ),
            (
                "{ url: \"http://h/v1\", model: m, kinds: [tables] }",
                "unknown kind `tables`",
            ),
            (
                "{ url: \"http://h/v1\", model: m, kinds: [] }",
                "at least one",
            ),
        ] {
            let text = format!("search:\n  embeddings: {yaml}\n");
            let err = parse_config(&text, Path::new("lore.yaml")).unwrap_err();
            assert!(err.to_string().contains(expected), "{yaml}: {err}");
        }
    }
}
