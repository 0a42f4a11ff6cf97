//! `llm:` in `lore.yaml`: the chat model `memory_ingest` may triage notes
//! with (optional; without it triage is deterministic).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Secret;

/// Which wire protocol the chat server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LlmProtocol {
    /// OpenAI's `POST <url>/chat/completions` with tools (OpenAI, Azure
    /// OpenAI, Ollama, vLLM, LM Studio, llama.cpp server, …).
    #[default]
    Openai,
    /// Anthropic's `POST <url>/v1/messages` with tools.
    Anthropic,
}

/// The chat model `memory_ingest` triages notes with.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LlmConfig {
    /// openai (default: any OpenAI-compatible server) or anthropic.
    #[serde(default)]
    pub provider: LlmProtocol,
    /// The API's base URL (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`,
    /// `https://api.anthropic.com`).
    pub url: String,
    /// The model name (`gpt-4.1-mini`, `llama3.1`, `claude-sonnet-4-5`).
    pub model: String,
    /// API key, when the server wants one: a literal, `env:VAR` or `file:PATH`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<Secret>,
    /// Longest one request may take, in milliseconds (default 60000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Most model turns per note (default 12, at most 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u32>,
    /// Most tokens per answer (default 4096).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// When the model fails (unreachable, 429 or 5xx after retries, a malformed
    /// answer): true (default) files the note by the deterministic triage with a
    /// warning naming the failure; false ends the run as an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<bool>,
}

impl LlmConfig {
    /// The request timeout.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.timeout_ms.unwrap_or(60_000))
    }

    /// Most model turns per note.
    pub fn max_steps(&self) -> u32 {
        self.max_steps.unwrap_or(12)
    }

    /// Most tokens per answer.
    pub fn max_tokens(&self) -> u32 {
        self.max_tokens.unwrap_or(4096)
    }

    /// Whether a failing model falls back to the deterministic triage.
    pub fn fallback(&self) -> bool {
        self.fallback.unwrap_or(true)
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        let url = self.url.trim().trim_end_matches('/');
        match self.provider {
            LlmProtocol::Openai if url.ends_with("/chat/completions") => url.to_string(),
            LlmProtocol::Openai => format!("{url}/chat/completions"),
            LlmProtocol::Anthropic if url.ends_with("/messages") => url.to_string(),
            LlmProtocol::Anthropic if url.ends_with("/v1") => format!("{url}/messages"),
            LlmProtocol::Anthropic => format!("{url}/v1/messages"),
        }
    }

    /// What is wrong with these settings, said so the user can fix it.
    pub(crate) fn problem(&self) -> Option<String> {
        if self.url.trim().is_empty() {
            return Some(
                "llm.url must name the chat server (e.g. http://127.0.0.1:11434/v1)".into(),
            );
        }
        if !(self.url.trim().starts_with("http://") || self.url.trim().starts_with("https://")) {
            return Some(format!(
                "llm.url must start with http:// or https://, not `{}`",
                self.url
            ));
        }
        if self.model.trim().is_empty() {
            return Some("llm.model must name the model".into());
        }
        if let Some(steps) = self.max_steps
            && !(1..=50).contains(&steps)
        {
            return Some(format!(
                "llm.max_steps must be between 1 and 50; it is {steps}"
            ));
        }
        if self.timeout_ms == Some(0) {
            return Some("llm.timeout_ms must be more than 0".into());
        }
        None
    }
}
