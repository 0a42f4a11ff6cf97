//! The knowledge memory's services.
//!
//! - [`completion`]: what `completion/complete` suggests for a prompt or
//!   resource argument (topics, tags, ids, graph nodes), bounded.
//! - [`ingest`]: `memory_ingest`, a markdown note turned into wiki pages,
//!   notes and model files in one transaction, without an LLM.
//! - [`query`]: text queries ranked by the shared search index, with
//!   cursors that keep their ranking.
//! - [`results`]: what the memory operations answer, shared by the memory
//!   tools and `lore memory`.
//! - [`service`]: [`Memory`](service::Memory), the store's operations as
//!   the memory tools and `lore memory` run them (writes told to the
//!   change feed).

pub mod completion;
pub mod ingest;
pub mod query;
pub mod results;
pub mod service;
