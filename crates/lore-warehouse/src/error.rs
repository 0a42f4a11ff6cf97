//! Why a warehouse operation failed, as one enum whose variants map to the
//! stable public codes. Messages say what to do next and never carry a
//! secret: connection URLs are not echoed, only host, port and user.

use lore_core::config::ConfigError;
use lore_core::error::{ErrorCode, HasErrorCode};

use crate::guard::GuardError;

/// Why a query, a connection test or a scan could not run.
#[derive(Debug, thiserror::Error)]
pub enum WarehouseError {
    /// No connection has that id.
    #[error("no connection `{id}`; configured connections: {}", if known.is_empty() { "none (add one to lore.yaml)".to_string() } else { known.join(", ") })]
    UnknownConnection {
        /// The id asked for.
        id: String,
        /// The ids that exist.
        known: Vec<String>,
    },
    /// The guard refused the SQL.
    #[error(transparent)]
    Guard(#[from] GuardError),
    /// The database itself refused a write (the read-only session held).
    #[error("the database refused to write (the session is read-only): {message}")]
    RefusedByDatabase {
        /// The database's message.
        message: String,
    },
    /// The database rejected the SQL (unknown table or column, type error…).
    #[error("the database rejected the query: {message}")]
    Query {
        /// The database's message.
        message: String,
    },
    /// The database user may not read what the query touches.
    #[error(
        "the database denied access: {message}; grant the connection's user SELECT on it, or query something else"
    )]
    PermissionDenied {
        /// The database's message.
        message: String,
    },
    /// The statement ran past its timeout and was interrupted.
    #[error(
        "the query ran longer than {timeout_ms} ms and was interrupted; narrow it (filters, LIMIT, aggregates) or raise statement_timeout_ms in lore.yaml"
    )]
    Timeout {
        /// The limit that was hit.
        timeout_ms: u64,
    },
    /// A configuration problem (missing secret, bad path).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The connection URL in `lore.yaml` cannot be used as written.
    #[error(
        "connection `{id}`: the url is not a valid {driver} URL ({reason}); fix `url` in lore.yaml"
    )]
    InvalidUrl {
        /// Connection id.
        id: String,
        /// Driver name.
        driver: &'static str,
        /// What is wrong, without the URL itself.
        reason: String,
    },
    /// The SQLite file named in `lore.yaml` does not exist.
    #[error("the database file {} of connection `{id}` does not exist; check `path` in lore.yaml", path.display())]
    DatabaseMissing {
        /// Connection id.
        id: String,
        /// The missing file.
        path: std::path::PathBuf,
    },
    /// The database file exists but cannot be opened as a database of the
    /// connection's driver (another format, a newer storage version).
    #[error("the database file {} of connection `{id}` cannot be opened: {message}; check `path` in lore.yaml", path.display())]
    DatabaseUnreadable {
        /// Connection id.
        id: String,
        /// The file.
        path: std::path::PathBuf,
        /// What the engine said.
        message: String,
    },
    /// The connection's driver is not compiled into this `lore` binary.
    #[error(
        "connection `{id}` uses driver `{driver}`, but this lore binary was built without it; {how}"
    )]
    DriverNotBuilt {
        /// Connection id.
        id: String,
        /// Driver name.
        driver: &'static str,
        /// How to get a binary with the driver.
        how: &'static str,
    },
    /// The server's host name does not resolve (a typo in the url, or a
    /// name only another network knows).
    #[error(
        "could not resolve host {host} (connection `{id}`, {driver}): check the host name in the url in lore.yaml, and that this machine's DNS (or VPN) knows it"
    )]
    HostNotFound {
        /// Connection id.
        id: String,
        /// Driver name.
        driver: &'static str,
        /// The host name as the url gives it.
        host: String,
    },
    /// The server could not be reached.
    #[error(
        "cannot reach the {driver} server of connection `{id}` ({message} at {target}); check that it is running and that host and port in lore.yaml are right"
    )]
    Unreachable {
        /// Connection id.
        id: String,
        /// Driver name.
        driver: &'static str,
        /// `host:port` (never the URL).
        target: String,
        /// What failed.
        message: String,
    },
    /// TLS could not be set up as the connection's url asks (the server
    /// offers none, its certificate is not trusted, a CA file is unusable).
    #[error("connection `{id}` ({driver} server at {target}): {message}")]
    Tls {
        /// Connection id.
        id: String,
        /// Driver name.
        driver: &'static str,
        /// `host:port` (never the URL).
        target: String,
        /// What failed and what to change.
        message: String,
    },
    /// The server refused the credentials or the database name.
    #[error(
        "the {driver} server of connection `{id}` refused the login: {message}; fix the user, password or database in the connection's url"
    )]
    LoginRefused {
        /// Connection id.
        id: String,
        /// Driver name.
        driver: &'static str,
        /// The server's reason (never the password).
        message: String,
    },
    /// The database refused a query over its byte, row or memory budget.
    #[error(
        "the database stopped the query at its budget: {message}; narrow it (filters, fewer columns, LIMIT, aggregates)"
    )]
    BudgetExceeded {
        /// The database's message.
        message: String,
    },
    /// The server accepted the login but the connection cannot work as
    /// configured (a database, warehouse or key it cannot use).
    #[error("connection `{id}` ({driver}): {message}")]
    Setup {
        /// Connection id.
        id: String,
        /// Driver name.
        driver: &'static str,
        /// What is wrong and what to change.
        message: String,
    },
    /// The request itself is out of range.
    #[error("{message}")]
    InvalidRequest {
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A connection cannot be used as configured (a key file, a project
    /// that does not exist); the message says what to fix.
    #[error("connection `{id}`: {message}")]
    Unusable {
        /// Connection id.
        id: String,
        /// What is wrong and how to fix it (never a secret).
        message: String,
    },
    /// The account may not do what the query needs; the message names the
    /// role or grant to add.
    #[error("the warehouse denied access: {message}")]
    AccessDenied {
        /// The warehouse's message and the grant to add.
        message: String,
    },
    /// The query would bill more than the connection allows; the message
    /// gives the estimate and the setting to raise.
    #[error("{message}")]
    BilledBudget {
        /// The estimate, the budget and what to change.
        message: String,
    },
    /// The database failed for a reason that may pass (busy, I/O, a dropped connection).
    #[error("the database failed: {message}")]
    Upstream {
        /// The database's message.
        message: String,
    },
}

impl HasErrorCode for WarehouseError {
    fn code(&self) -> ErrorCode {
        match self {
            WarehouseError::UnknownConnection { .. } => ErrorCode::NotFound,
            WarehouseError::Guard(e) => e.code(),
            WarehouseError::RefusedByDatabase { .. } => ErrorCode::ReadOnlyViolation,
            WarehouseError::Query { .. } => ErrorCode::InvalidSql,
            WarehouseError::PermissionDenied { .. } | WarehouseError::AccessDenied { .. } => {
                ErrorCode::Forbidden
            }
            WarehouseError::BilledBudget { .. } => ErrorCode::BudgetExceeded,
            WarehouseError::Unusable { .. } => ErrorCode::ConfigError,
            WarehouseError::Timeout { .. } => ErrorCode::Timeout,
            WarehouseError::BudgetExceeded { .. } => ErrorCode::BudgetExceeded,
            WarehouseError::Config(_)
            | WarehouseError::InvalidUrl { .. }
            | WarehouseError::DatabaseMissing { .. }
            | WarehouseError::DatabaseUnreadable { .. }
            | WarehouseError::DriverNotBuilt { .. }
            | WarehouseError::Tls { .. }
            | WarehouseError::LoginRefused { .. }
            | WarehouseError::Setup { .. } => ErrorCode::ConfigError,
            WarehouseError::InvalidRequest { .. } => ErrorCode::InvalidRequest,
            WarehouseError::HostNotFound { .. }
            | WarehouseError::Unreachable { .. }
            | WarehouseError::Upstream { .. } => ErrorCode::UpstreamError,
        }
    }

    /// A statement that ran past its timeout will do so again unchanged:
    /// it is not retryable (the message says how to narrow it).
    fn retryable(&self) -> bool {
        !matches!(self, WarehouseError::Timeout { .. }) && self.code().is_retryable()
    }
}
