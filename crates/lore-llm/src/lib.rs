//! Lore's clients of model providers, over plain HTTPS with no SDK:
//!
//! - [`embeddings`]: texts in, vectors out, from any OpenAI-compatible
//!   `/embeddings` endpoint (the optional embedding lane of search);
//! - [`provider`]: that client as a search lane uses it, behind a breaker
//!   and with recent query vectors in memory;
//! - [`chat`]: a chat model with tools, over OpenAI's
//!   `/chat/completions` or Anthropic's `/v1/messages` (`memory_ingest`'s
//!   optional triage).
//!
//! Every client has a timeout, retries what a retry can fix (429, 5xx)
//! with backoff, names the provider and what to check in its errors, and
//! never repeats an API key in an error, a log line or a `Debug` print.
//! This crate knows nothing of search documents, the store or MCP.
#![doc = include_str!("../README.md")]

pub mod chat;
pub mod embeddings;
mod http;
pub mod provider;

#[cfg(test)]
mod loopback;

pub use chat::{Chat, ChatError, Message, Reply, ToolCall, ToolSpec};
pub use embeddings::{EmbedError, Embedder};
pub use provider::Provider;
