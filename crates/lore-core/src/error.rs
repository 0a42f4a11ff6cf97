//! Stable error codes shared by every Lore surface (MCP tools, CLI, HTTP).
//!
//! Each crate keeps its own `thiserror` enum, and each variant maps to one
//! [`ErrorCode`] through [`HasErrorCode`]. The code string is a public
//! contract: agents branch on it, so a code is never renamed or reused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A stable, machine-readable error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request is malformed or names something invalid; fix the input.
    InvalidRequest,
    /// A tool's or command's arguments do not fit its schema (a missing or
    /// unknown field, a wrong type, a NUL byte): the message names the
    /// field, what it expects and an example.
    InvalidArguments,
    /// The SQL text does not parse in the connection's dialect.
    InvalidSql,
    /// An identifier is malformed (a graph node id that is not
    /// `Label:name` with a known label): the message shows the form.
    InvalidIdentifier,
    /// The SQL parses but would write, lock, or cause side effects.
    ReadOnlyViolation,
    /// The named connection, table or object does not exist.
    NotFound,
    /// The request conflicts with the current state.
    Conflict,
    /// Credentials are missing.
    Unauthorized,
    /// Credentials are present but not sufficient.
    Forbidden,
    /// The client sent more requests than its limit allows; retry after
    /// the delay the answer names.
    RateLimited,
    /// The project configuration (`lore.yaml`) is missing or wrong.
    ConfigError,
    /// The database or another upstream system failed.
    UpstreamError,
    /// The operation is not supported for this connection or build.
    UnsupportedOperation,
    /// The operation ran past its time limit and was interrupted.
    Timeout,
    /// The query would read, hold, return or cost more than the
    /// connection's budget allows (bytes, rows, memory; BigQuery's
    /// `maximum_bytes_billed`): the message says what to narrow or which
    /// setting to raise.
    BudgetExceeded,
    /// The server is stopping and cut the call off before it finished;
    /// retry once the server runs again.
    Unavailable,
    /// The knowledge store's database server (PostgreSQL) cannot be
    /// reached right now; retry once it runs again (nothing was written).
    StoreUnavailable,
    /// The operating system refused access to a file or folder Lore needs
    /// (permissions); the message names it.
    PermissionDenied,
    /// No recipe has that name: the message names the closest and where
    /// a project's own recipes go.
    RecipeNotFound,
    /// A recipe step's tool call failed: the message names the step, the
    /// tool and its error (retryable when that error is).
    ToolFailed,
    /// A recipe step's answer did not meet an `expect` or `assert`, or a
    /// template or capture found nothing there: the message names the step
    /// and what was found.
    AssertFailed,
    /// A bug in Lore; the message says what happened without internals.
    Internal,
}

impl ErrorCode {
    /// The code as it appears on the wire, e.g. `read_only_violation`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::InvalidSql => "invalid_sql",
            ErrorCode::InvalidIdentifier => "invalid_identifier",
            ErrorCode::ReadOnlyViolation => "read_only_violation",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Conflict => "conflict",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::ConfigError => "config_error",
            ErrorCode::UpstreamError => "upstream_error",
            ErrorCode::UnsupportedOperation => "unsupported_operation",
            ErrorCode::Timeout => "timeout",
            ErrorCode::BudgetExceeded => "budget_exceeded",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::PermissionDenied => "permission_denied",
            ErrorCode::RecipeNotFound => "recipe_not_found",
            ErrorCode::ToolFailed => "tool_failed",
            ErrorCode::AssertFailed => "assert_failed",
            ErrorCode::Internal => "internal",
        }
    }

    /// Whether retrying the same request unchanged may succeed.
    ///
    /// Only transient conditions are retryable: a timeout (the warehouse may
    /// be less loaded), an upstream failure (a connection may come back), a
    /// rate limit (after its delay) or a server that was stopping.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::Timeout
                | ErrorCode::UpstreamError
                | ErrorCode::RateLimited
                | ErrorCode::Unavailable
                | ErrorCode::StoreUnavailable
        )
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Implemented by every crate's error enum so any surface can report it.
pub trait HasErrorCode: std::error::Error {
    /// The stable code for this error.
    fn code(&self) -> ErrorCode;

    /// Whether the same request may succeed if retried unchanged.
    fn retryable(&self) -> bool {
        self.code().is_retryable()
    }

    /// The error as the public `{code, message, retryable}` shape.
    fn report(&self) -> ErrorReport {
        ErrorReport {
            code: self.code(),
            message: self.to_string(),
            retryable: self.retryable(),
        }
    }
}

/// The public shape of an error: what agents and users see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorReport {
    /// Stable machine-readable code, e.g. `read_only_violation`.
    pub code: ErrorCode,
    /// What went wrong and how to fix it.
    pub message: String,
    /// Whether retrying the same request unchanged may succeed.
    pub retryable: bool,
}

impl ErrorReport {
    /// A report with the code's default retryability.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorReport {
            code,
            message: message.into(),
            retryable: code.is_retryable(),
        }
    }
}

impl std::fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ErrorReport {}

impl HasErrorCode for ErrorReport {
    fn code(&self) -> ErrorCode {
        self.code
    }
    fn retryable(&self) -> bool {
        self.retryable
    }
    fn report(&self) -> ErrorReport {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_their_wire_names() {
        for code in [
            ErrorCode::InvalidRequest,
            ErrorCode::InvalidSql,
            ErrorCode::ReadOnlyViolation,
            ErrorCode::NotFound,
            ErrorCode::ConfigError,
            ErrorCode::UpstreamError,
            ErrorCode::UnsupportedOperation,
            ErrorCode::Timeout,
            ErrorCode::BudgetExceeded,
            ErrorCode::RecipeNotFound,
            ErrorCode::ToolFailed,
            ErrorCode::AssertFailed,
            ErrorCode::StoreUnavailable,
            ErrorCode::Internal,
        ] {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, serde_json::Value::String(code.as_str().into()));
        }
    }

    #[test]
    fn only_transient_failures_are_retryable() {
        assert!(ErrorCode::Timeout.is_retryable());
        assert!(ErrorCode::UpstreamError.is_retryable());
        assert!(ErrorCode::StoreUnavailable.is_retryable());
        assert!(!ErrorCode::ReadOnlyViolation.is_retryable());
        assert!(!ErrorCode::InvalidSql.is_retryable());
        assert!(!ErrorCode::BudgetExceeded.is_retryable());
    }
}
