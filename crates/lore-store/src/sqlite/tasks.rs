//! MCP task records (see `crate::tasks`): one JSON record per task, its
//! cancellation and expiry as columns.

use rusqlite::{OptionalExtension, params};

use super::SqliteStore;
use crate::error::StoreError;
use crate::model::TaskRecord;
use crate::tasks::{decode, encode, now};

pub(super) fn save(store: &SqliteStore, task: &TaskRecord) -> Result<bool, StoreError> {
    let record = encode(task)?;
    store.with_writer(|conn| {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.prepare_cached("DELETE FROM tasks WHERE expires_at < ?1")?
            .execute([now()])?;
        let cancel: bool = tx
            .prepare_cached(
                "INSERT INTO tasks (task_id, status, cancel_requested, expires_at, record)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (task_id) DO UPDATE SET status = excluded.status,
                     cancel_requested = tasks.cancel_requested OR excluded.cancel_requested,
                     expires_at = excluded.expires_at, record = excluded.record
                 RETURNING cancel_requested",
            )?
            .query_row(
                params![
                    task.task_id,
                    task.status,
                    task.cancel_requested,
                    task.expires_at,
                    record
                ],
                |row| row.get(0),
            )?;
        tx.commit()?;
        Ok(cancel)
    })
}

pub(super) fn get(store: &SqliteStore, task_id: &str) -> Result<Option<TaskRecord>, StoreError> {
    let row: Option<(String, bool)> = store.with_reader(|conn| {
        Ok(conn
            .prepare_cached(
                "SELECT record, cancel_requested FROM tasks
                 WHERE task_id = ?1 AND (expires_at IS NULL OR expires_at >= ?2)",
            )?
            .query_row(params![task_id, now()], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()?)
    })?;
    row.map(|(text, cancel)| decode(&text, cancel)).transpose()
}

pub(super) fn request_cancel(store: &SqliteStore, task_id: &str) -> Result<bool, StoreError> {
    store.with_writer(|conn| {
        Ok(conn
            .prepare_cached(
                "UPDATE tasks SET cancel_requested = 1
                 WHERE task_id = ?1 AND (expires_at IS NULL OR expires_at >= ?2)",
            )?
            .execute(params![task_id, now()])?
            > 0)
    })
}
