//! The knowledge memory's services.
//!
//! - [`query`]: text queries ranked by the shared search index, with
//!   cursors that keep their ranking.
//! - [`results`]: what the memory operations answer, shared by the memory
//!   tools and `lore memory`.

pub mod query;
pub mod results;
