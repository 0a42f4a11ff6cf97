//! The gateway's search records and the feedback on their results: what
//! ranking learns from agents. Signals, not knowledge: no transactions,
//! no history (like the embedding cache).

use rusqlite::{Connection, OptionalExtension, params};

use super::SqliteStore;
use crate::error::StoreError;
use crate::model::{Feedback, NewFeedback, SearchRecord};

/// Searches kept (the newest).
const SEARCHES_KEPT: i64 = 10_000;

pub(super) fn record(store: &SqliteStore, record: &SearchRecord) -> Result<(), StoreError> {
    let chunk_ids = serde_json::to_string(&record.chunk_ids)
        .map_err(|e| StoreError::Refused(format!("search record: {e}")))?;
    store.with_writer(|conn| {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let seq = {
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO gateway_searches (request_id, query, chunk_ids, created_at) VALUES (?1, ?2, ?3, ?4)",
            )?;
            insert.execute(params![
                record.request_id,
                record.query,
                chunk_ids,
                record.created_at
            ])?;
            tx.last_insert_rowid()
        };
        // Trimmed now and then, not on every search.
        if seq % 100 == 0 {
            tx.execute(
                "DELETE FROM gateway_searches WHERE seq <= ?1",
                [seq - SEARCHES_KEPT],
            )?;
        }
        tx.commit()?;
        Ok(())
    })
}

pub(super) fn submit(store: &SqliteStore, feedback: NewFeedback) -> Result<Feedback, StoreError> {
    if !(-1..=1).contains(&feedback.vote) {
        return Err(StoreError::Invalid(format!(
            "vote must be -1 (not useful), 0 (withdraw) or 1 (useful), got {}",
            feedback.vote
        )));
    }
    let context = feedback
        .context
        .as_ref()
        .map(|c| serde_json::Value::Object(c.clone()).to_string());
    let created_at = lore_core::time::UtcMillis::now().to_iso();
    store.with_writer(|conn| {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let search: Option<(String, String)> = tx
            .prepare_cached("SELECT query, chunk_ids FROM gateway_searches WHERE request_id = ?1")?
            .query_row([&feedback.request_id], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        let Some((query, chunk_ids)) = search else {
            return Err(StoreError::NotFound(format!(
                "no recorded search `{}`: quote metadata.request_id of a recent km-search answer (the newest 10,000 searches are kept)",
                feedback.request_id
            )));
        };
        let results: Vec<String> = serde_json::from_str(&chunk_ids).unwrap_or_default();
        if !results.contains(&feedback.chunk_id) {
            let shown: Vec<&str> = results.iter().take(5).map(String::as_str).collect();
            return Err(StoreError::NotFound(format!(
                "chunk `{}` was not among the results of search `{}`; vote on one of its results ({}{})",
                feedback.chunk_id,
                feedback.request_id,
                shown.join(", "),
                if results.len() > shown.len() { ", …" } else { "" }
            )));
        }
        tx.prepare_cached(
            "INSERT INTO gateway_feedback (request_id, query, chunk_id, vote, note, context, voter, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?
        .execute(params![
            feedback.request_id,
            query,
            feedback.chunk_id,
            feedback.vote,
            feedback.note,
            context,
            feedback.voter,
            created_at
        ])?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(Feedback {
            id,
            request_id: feedback.request_id,
            query,
            chunk_id: feedback.chunk_id,
            vote: feedback.vote,
            note: feedback.note,
            context: feedback.context,
            voter: feedback.voter,
            created_at,
        })
    })
}

pub(super) fn since(
    store: &SqliteStore,
    after: i64,
    limit: usize,
) -> Result<Vec<Feedback>, StoreError> {
    store.with_reader(|conn| read_since(conn, after, limit))
}

/// [`since`] on one connection (a snapshot's read transaction, too).
pub(super) fn read_since(
    conn: &Connection,
    after: i64,
    limit: usize,
) -> Result<Vec<Feedback>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT id, request_id, query, chunk_id, vote, note, context, voter, created_at
             FROM gateway_feedback WHERE id > ?1 ORDER BY id LIMIT ?2",
    )?;
    let rows = statement.query_map(params![after, limit as i64], |row| {
        let context: Option<String> = row.get(6)?;
        Ok(Feedback {
            id: row.get(0)?,
            request_id: row.get(1)?,
            query: row.get(2)?,
            chunk_id: row.get(3)?,
            vote: row.get(4)?,
            note: row.get(5)?,
            context: context
                .and_then(|c| serde_json::from_str::<serde_json::Value>(&c).ok())
                .and_then(|v| v.as_object().cloned()),
            voter: row.get(7)?,
            created_at: row.get(8)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}
