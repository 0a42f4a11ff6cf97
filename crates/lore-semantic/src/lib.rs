//! Lore's semantic layer.
//!
//! A *source* is a table (or a SQL query) with a grain (the columns that
//! identify one row), typed columns, joins to other sources, measures
//! (aggregates such as `sum(amount)`) and segments (named filters). Sources
//! live in `semantic-layer/<connection>/*.yaml`, one per file or a list
//! ([`model`]).
//!
//! A *query* asks for measures by dimensions, with filters, segments,
//! ordering and a limit ([`query`]). The [`planner`] compiles it to one SQL
//! statement that a careful analyst would write by hand: every measure is
//! aggregated at its own source's grain, so a one-to-many join never
//! multiplies it (the *fan trap*), and measures of several sources are
//! aggregated separately and joined on the shared dimensions (the *chasm
//! trap*). The SQL is rendered for the connection's dialect ([`dialect`]).
//!
//! This crate knows nothing about connections or MCP: it turns YAML and
//! queries into SQL text and explains what it did.
#![doc = include_str!("../README.md")]

pub mod dialect;
pub mod error;
pub mod generate;
pub mod model;
pub mod planner;
pub mod query;

pub use error::SemanticError;
