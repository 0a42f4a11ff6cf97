//! Lore's service layer: what every front end (the MCP adapter, the CLI)
//! asks of a project, in plain domain types (serde, with JSON Schemas the
//! adapter may publish). Nothing here knows MCP: the adapter maps tool
//! arguments onto these requests and these results onto tool results.
//!
//! - [`discover`]: one ranked search over the wiki, the semantic layer and
//!   the scanned schema (`discover_data`, `lore search`), with the optional
//!   embedding lane and the watch that keeps the index fresh.
//! - [`wiki`]: pages kept in the knowledge store and mirrored to `wiki/`
//!   (search, read, write, sync).
//! - [`memory`]: text queries of the knowledge memory through the shared
//!   index, and the shapes the memory operations answer with.
//! - [`semantic`]: a semantic query compiled for its connection, checked by
//!   the read-only guard, and run; the model's files kept in the store
//!   (history, undo) and a starting model generated from a scan.
//!
//! - [`health`]: the project's health checks (`lore status`).
//! - [`services`]: the composition root, every service of a project built
//!   once over shared parts; the MCP server and the CLI both start there.
//!
//! Services hold the knowledge store through `lore_store::feed::StoreHandle`.
#![doc = include_str!("../README.md")]

pub mod discover;
pub mod health;
pub mod memory;
pub mod semantic;
pub mod services;
pub mod wiki;
