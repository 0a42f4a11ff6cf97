//! What both backends share about MCP task records: their JSON form.

use crate::error::StoreError;
use crate::model::TaskRecord;

/// A task record as stored (JSON).
pub(crate) fn encode(task: &TaskRecord) -> Result<String, StoreError> {
    if task.task_id.trim().is_empty() {
        return Err(StoreError::Invalid("a task needs an id".to_string()));
    }
    serde_json::to_string(task).map_err(|e| StoreError::Invalid(format!("task record: {e}")))
}

/// A stored record read back, with the cancellation the column says.
pub(crate) fn decode(text: &str, cancel_requested: bool) -> Result<TaskRecord, StoreError> {
    let mut task: TaskRecord = serde_json::from_str(text)
        .map_err(|e| StoreError::Refused(format!("a stored task does not read back: {e}")))?;
    task.cancel_requested |= cancel_requested;
    Ok(task)
}

/// Now, as `expires_at` is written (ISO-8601 UTC text sorts as time).
pub(crate) fn now() -> String {
    lore_core::time::UtcMillis::now().to_iso()
}
