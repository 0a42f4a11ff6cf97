//! Lore's clients of model providers, over plain HTTPS with no SDK:
//!
//! - [`embeddings`]: texts in, vectors out, from any OpenAI-compatible
//!   `/embeddings` endpoint (the optional embedding lane of search);
//! - [`provider`]: that client as a search lane uses it, behind a breaker
//!   and with recent query vectors in memory.
//!
//! Every client has a timeout, retries what a retry can fix (429, 5xx)
//! with backoff, names the provider and what to check in its errors, and
//! never repeats an API key in an error, a log line or a `Debug` print.
//! This crate knows nothing of search documents, the store or MCP.

pub mod embeddings;
pub mod provider;

pub use embeddings::{EmbedError, Embedder};
pub use provider::Provider;
