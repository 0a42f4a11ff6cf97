//! The DuckDB connector (`driver: duckdb`, `path:` a database file).
//!
//! DuckDB runs inside Lore's process. The file is opened once with
//! `access_mode = READ_ONLY` (the engine refuses every write to it, whatever
//! the SQL), `enable_external_access = false` (no file, URL or extension
//! is read: `read_csv`, `'x.parquet'` as a table, `ATTACH`, `COPY`,
//! `INSTALL` all fail inside the engine), no extension auto-loading, and
//! `lock_configuration = true` (no `SET` or `PRAGMA` can change any of
//! that). Each query runs on its own connection to that database, at most
//! `max_connections` at once, on the blocking pool; the statement timeout
//! and the caller dropping the future both interrupt it through DuckDB's
//! interrupt handle. Results stream chunk by chunk and stop at the row
//! cap and byte budget, so a `SELECT *` of a large table reads only what
//! is returned. DuckDB's memory is bounded by the connection's
//! `memory_limit_mb` (default [`DEFAULT_MEMORY_LIMIT_MB`]) and nothing
//! spills to disk: a query needing more fails with `budget_exceeded`.
//!
//! DuckDB lets one process write a file or many read it, never both: the
//! file is closed again once no query has run for [`RELEASE_AFTER_IDLE`],
//! so a job writing the file waits for Lore only while Lore is busy.
//!
//! The engine is DuckDB's C++ library, compiled into Lore only with the
//! `duckdb` cargo feature (a long build). Without it, a `duckdb`
//! connection answers `config_error` saying how to build a binary with it.

#[cfg(feature = "duckdb")]
mod engine;
#[cfg(not(feature = "duckdb"))]
mod unavailable;
#[cfg(feature = "duckdb")]
mod value;

#[cfg(feature = "duckdb")]
pub use engine::DuckdbConnector;
#[cfg(not(feature = "duckdb"))]
pub use unavailable::DuckdbConnector;

use std::time::Duration;

/// How long the database file stays open after the last query.
pub const RELEASE_AFTER_IDLE: Duration = Duration::from_secs(10);

/// DuckDB's memory limit when the connection sets no `memory_limit_mb`
/// (DuckDB's own default is 80% of the machine's RAM, too much for a
/// server that runs beside agents and other tools).
pub const DEFAULT_MEMORY_LIMIT_MB: u64 = 1024;

/// How to get a `lore` binary that speaks DuckDB, for error messages.
pub const HOW_TO_BUILD: &str = "build one with DuckDB compiled in: `cargo build --release -p lore --features duckdb` in Lore's source tree (see docs/warehouses/duckdb.md)";

/// Whether this build of Lore includes the DuckDB engine.
pub const AVAILABLE: bool = cfg!(feature = "duckdb");
