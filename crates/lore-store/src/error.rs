//! The store's one error enum; every variant maps to a stable public code.

use lore_core::error::{ErrorCode, HasErrorCode};

/// Why a store operation failed. Messages say how to fix the request and
/// never carry SQL or file-system internals.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An argument is refused (empty topic, confidence or depth out of
    /// range, a transaction in the future, a bad cursor): `invalid_arguments`.
    #[error("{0}")]
    Invalid(String),
    /// Well-formed, but the request cannot be done as asked (a topic
    /// written twice in one batch, an undo with nothing to undo, a store
    /// URL whose TLS cannot be used): `invalid_request`.
    #[error("{0}")]
    Refused(String),
    /// The entry, triple or transaction does not exist (or no longer does).
    #[error("{0}")]
    NotFound(String),
    /// The request conflicts with what is stored now (a stale
    /// `expected_version`, an undo over later changes).
    #[error("{message}")]
    Conflict {
        /// What conflicts and how to resolve it.
        message: String,
        /// The ids whose later changes cause the conflict.
        ids: Vec<String>,
    },
    /// Another process held the store's write lock for longer than the busy
    /// timeout; retrying later succeeds.
    #[error("the knowledge store is busy (another process is writing); retry in a moment")]
    Busy,
    /// The store file cannot be opened or read (corruption, a newer
    /// schema, a full disk).
    #[error("{0}")]
    Unavailable(String),
    /// The operating system refused access to the store's file, or the
    /// database server refused the store's login or a privilege.
    #[error("{0}")]
    PermissionDenied(String),
    /// The store's database server cannot be reached right now (down,
    /// restarting, out of connections, the network): retrying once it
    /// runs again succeeds.
    #[error("{0}")]
    ServerUnavailable(String),
}

impl HasErrorCode for StoreError {
    fn code(&self) -> ErrorCode {
        match self {
            StoreError::Invalid(_) => ErrorCode::InvalidArguments,
            StoreError::Refused(_) => ErrorCode::InvalidRequest,
            StoreError::NotFound(_) => ErrorCode::NotFound,
            StoreError::Conflict { .. } => ErrorCode::Conflict,
            StoreError::Busy => ErrorCode::Timeout,
            StoreError::Unavailable(_) => ErrorCode::UpstreamError,
            StoreError::PermissionDenied(_) => ErrorCode::PermissionDenied,
            StoreError::ServerUnavailable(_) => ErrorCode::StoreUnavailable,
        }
    }

    fn retryable(&self) -> bool {
        matches!(self, StoreError::Busy | StoreError::ServerUnavailable(_))
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode as Sqlite;
        match error.sqlite_error_code() {
            Some(Sqlite::DatabaseBusy | Sqlite::DatabaseLocked) => StoreError::Busy,
            Some(Sqlite::ReadOnly | Sqlite::PermissionDenied | Sqlite::CannotOpen) => {
                StoreError::PermissionDenied(
                    "the knowledge store (.lore/store.db) cannot be written: check the file's permissions"
                        .to_string(),
                )
            }
            Some(Sqlite::DatabaseCorrupt | Sqlite::NotADatabase) => StoreError::Unavailable(
                "the knowledge store (.lore/store.db) is damaged; restore it from a backup".to_string(),
            ),
            Some(Sqlite::DiskFull) => StoreError::Unavailable(
                "the disk holding the knowledge store is full; nothing was written".to_string(),
            ),
            _ => StoreError::Unavailable(format!("the knowledge store failed: {}", short(&error))),
        }
    }
}

/// The SQLite message without the statement text.
fn short(error: &rusqlite::Error) -> String {
    match error {
        rusqlite::Error::SqliteFailure(e, _) => e.to_string(),
        other => other.to_string(),
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(error: tokio_postgres::Error) -> Self {
        let Some(db) = error.as_db_error() else {
            return StoreError::ServerUnavailable(format!(
                "lost the connection to the PostgreSQL server of the knowledge store ({error}); retry once it is reachable again"
            ));
        };
        let message = db.message();
        match db.code().code() {
            // Serialization failures, deadlocks, a lock not granted within
            // `lock_timeout`, a cancelled statement: a retry succeeds.
            "40001" | "40P01" | "55P03" | "57014" => StoreError::Busy,
            // The only character a Rust string holds that PostgreSQL text
            // cannot.
            "22021" => StoreError::Refused(
                "text must not contain NUL characters (\\0); remove them and retry".to_string(),
            ),
            "54000" => StoreError::Refused(format!(
                "a value is too large for the PostgreSQL store ({message}); shorten it"
            )),
            "42501" => StoreError::PermissionDenied(format!(
                "the PostgreSQL role of the store url lacks a privilege ({message}); grant it CREATE and USAGE on the store's schema (or the database), or use the role that owns the schema"
            )),
            "3D000" => StoreError::Unavailable(format!(
                "{message}: create the database, or fix the database name in the store url"
            )),
            code if code.starts_with("28") => StoreError::PermissionDenied(format!(
                "the PostgreSQL server refused the store's login ({message}); check the user and password in the store url"
            )),
            // Connection exceptions, too many connections, a server
            // shutting down or starting up.
            code if code.starts_with("08") || code.starts_with("53") || code.starts_with("57P") => {
                StoreError::ServerUnavailable(format!(
                    "the PostgreSQL server of the knowledge store is unavailable ({message}); retry in a moment"
                ))
            }
            _ => StoreError::Unavailable(format!(
                "the knowledge store's PostgreSQL server failed: {message}"
            )),
        }
    }
}
