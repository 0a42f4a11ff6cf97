//! Lore's MCP adapter: tool schemas and annotations, in-band errors,
//! result shaping, resources, prompts, transports and auth over the
//! services of `lore-context`, which hold the business logic.
//!
//! - [`toolkit`]: the declarative [`toolkit::Tool`] trait and the registry
//!   that gives every tool the polish kit (schemas, annotations, in-band
//!   errors, progress).
//! - [`analytics`]: the analytics toolset (`discover_data`, `wiki_search`,
//!   `wiki_read`, `wiki_write`, `connection_list`, `entity_details`,
//!   `dictionary_search`, `sl_read_source`, `sl_query`, `sql_execution`).
//! - [`memory`]: the memory toolset (eight tools over the knowledge store),
//!   its resources with subscriptions, and its prompts.
//! - [`server`]: the MCP handler, shared by both transports.
//! - [`tasks`]: long tool calls as Tasks for clients with the extension.
//! - [`telemetry`]: Prometheus metrics and a structured log event for
//!   every tool call.
//! - [`transport`]: stdio and Streamable HTTP (axum): sessions, Host and
//!   Origin checks, bearer tokens with scopes, rate limits, request ids,
//!   `/health` and `/metrics`.
//!
//! Handlers are thin: parse, call a service of `lore-context` (or an
//! engine crate), map the result or error.
#![doc = include_str!("../README.md")]

pub mod analytics;
pub mod caller;
pub mod gateway;
pub mod memory;
mod panics;
pub mod server;
pub mod tasks;
pub mod telemetry;
pub mod toolkit;
pub mod transport;

pub use server::LoreServer;
