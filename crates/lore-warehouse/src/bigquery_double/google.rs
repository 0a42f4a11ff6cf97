//! What the double answers as Google does, for every endpoint: the error
//! envelope, which datasets the service account may not see, and the
//! clock tokens are dated by.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::Shared;

/// Google's error envelope.
pub(super) fn google_error(status: u16, reason: &str, message: &str) -> Value {
    let status_name = match status {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        _ => "INTERNAL",
    };
    json!({"error": {
        "code": status,
        "message": message,
        "errors": [{"message": message, "domain": "global", "reason": reason}],
        "status": status_name,
    }})
}

/// Whether a dataset is hidden from the service account altogether.
pub(super) fn dataset_denied(state: &Shared, dataset: &str) -> bool {
    let mut tables = state
        .tables
        .values()
        .filter(|t| t.dataset == dataset)
        .peekable();
    tables.peek().is_some() && tables.all(|t| t.denied)
}

/// Seconds since the epoch (what tokens' `exp` and `iat` count).
pub(super) fn now_seconds() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
