//! MCP task records, as the SQLite store's (`sqlite/tasks.rs`).

use super::session::{Session, get};
use crate::error::StoreError;
use crate::model::TaskRecord;
use crate::tasks::{decode, encode, now};

pub(super) fn save(session: &mut Session, task: &TaskRecord) -> Result<bool, StoreError> {
    let record = encode(task)?;
    let mut tx = session.begin()?;
    tx.execute("DELETE FROM tasks WHERE expires_at < $1", &[&now()])?;
    let row = tx.query_one(
        "INSERT INTO tasks (task_id, status, cancel_requested, expires_at, record)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (task_id) DO UPDATE SET status = EXCLUDED.status,
             cancel_requested = tasks.cancel_requested OR EXCLUDED.cancel_requested,
             expires_at = EXCLUDED.expires_at, record = EXCLUDED.record
         RETURNING cancel_requested",
        &[
            &task.task_id,
            &task.status,
            &task.cancel_requested,
            &task.expires_at,
            &record,
        ],
    )?;
    let cancel: bool = get(&row, 0)?;
    tx.commit()?;
    Ok(cancel)
}

pub(super) fn get_task(
    session: &mut Session,
    task_id: &str,
) -> Result<Option<TaskRecord>, StoreError> {
    let row = session.query_opt(
        "SELECT record, cancel_requested FROM tasks
         WHERE task_id = $1 AND (expires_at IS NULL OR expires_at >= $2)",
        &[&task_id, &now()],
    )?;
    match row {
        None => Ok(None),
        Some(row) => {
            let text: String = get(&row, 0)?;
            let cancel: bool = get(&row, 1)?;
            decode(&text, cancel).map(Some)
        }
    }
}

pub(super) fn request_cancel(session: &mut Session, task_id: &str) -> Result<bool, StoreError> {
    Ok(session.execute(
        "UPDATE tasks SET cancel_requested = true
         WHERE task_id = $1 AND (expires_at IS NULL OR expires_at >= $2)",
        &[&task_id, &now()],
    )? > 0)
}
