//! The store's one error enum; every variant maps to a stable public code.

use lore_core::error::{ErrorCode, HasErrorCode};

/// Why a store operation failed. Messages say how to fix the request and
/// never carry SQL or file-system internals.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The request is malformed (empty topic, confidence out of range…).
    #[error("{0}")]
    Invalid(String),
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
    /// The operating system refused access to the store's file.
    #[error("{0}")]
    PermissionDenied(String),
}

impl HasErrorCode for StoreError {
    fn code(&self) -> ErrorCode {
        match self {
            StoreError::Invalid(_) => ErrorCode::InvalidRequest,
            StoreError::NotFound(_) => ErrorCode::NotFound,
            StoreError::Conflict { .. } => ErrorCode::Conflict,
            StoreError::Busy => ErrorCode::Timeout,
            StoreError::Unavailable(_) => ErrorCode::UpstreamError,
            StoreError::PermissionDenied(_) => ErrorCode::PermissionDenied,
        }
    }

    fn retryable(&self) -> bool {
        matches!(self, StoreError::Busy)
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
