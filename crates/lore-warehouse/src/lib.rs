//! Lore's window onto the user's warehouses.
//!
//! - [`guard`]: decides from the parsed SQL whether a statement is a pure
//!   read. The first wall.
//! - [`connector`]: one connector per driver (SQLite, PostgreSQL,
//!   MySQL/MariaDB, ClickHouse, Snowflake, BigQuery, DuckDB with the `duckdb`
//!   feature), each running statements in sessions the database itself holds
//!   read-only where it can (the second wall; for Snowflake and BigQuery, the
//!   role's or service account's grants), with a bounded pool, a row cap, a
//!   statement timeout that really stops the query, and lossless JSON values.
//! - [`execute`]: every connection of a project; guards agents' SQL before
//!   it reaches a connector.
//! - [`schema`]: the model of a scanned warehouse (tables, columns, keys)
//!   and type normalisation.
//! - [`scan`]: `lore scan`: structure, column profiles and relationships,
//!   written as an immutable [`snapshot`].
//! - [`catalog`]: the latest snapshot of each connection, in memory and
//!   refreshed when a newer scan appears; entity details and the value
//!   dictionary agents query.
//! - `bigquery_double` (feature `bigquery-double`, tests only): a BigQuery
//!   REST double on loopback.
//!
//! Nothing here knows about MCP or terminals.
#![doc = include_str!("../README.md")]

#[cfg(feature = "bigquery-double")]
pub mod bigquery_double;
pub mod catalog;
pub mod connector;
pub mod dialect;
pub mod error;
pub mod execute;
pub mod guard;
pub mod scan;
pub mod schema;
pub mod snapshot;

/// The DuckDB engine (with the `duckdb` feature), for tools and tests that
/// build database files; connections open them read-only.
#[cfg(feature = "duckdb")]
pub use duckdb as duckdb_engine;
