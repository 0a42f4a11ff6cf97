//! The gateway's search records and the feedback on their results, as the
//! SQLite store's (`sqlite/feedback.rs`): signals, not knowledge (no
//! transactions, no history). Feedback ids come from a counter row locked
//! by the inserting transaction, so they are strictly increasing in commit
//! order and `feedback_since` never skips one that commits late.

use super::session::{Session, get};
use crate::error::StoreError;
use crate::model::{Feedback, NewFeedback, SearchRecord};

/// Searches kept (the newest).
const SEARCHES_KEPT: i64 = 10_000;

pub(super) fn record(session: &mut Session, record: &SearchRecord) -> Result<(), StoreError> {
    let mut tx = session.begin()?;
    // A search recorded again (the same request id) is replaced, and
    // counts as the newest.
    let row = tx.query_one(
        "INSERT INTO gateway_searches (request_id, query, chunk_ids, created_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (request_id) DO UPDATE
         SET query = EXCLUDED.query, chunk_ids = EXCLUDED.chunk_ids,
             created_at = EXCLUDED.created_at, seq = EXCLUDED.seq
         RETURNING seq",
        &[
            &record.request_id,
            &record.query,
            &record.chunk_ids,
            &record.created_at,
        ],
    )?;
    let seq: i64 = get(&row, 0)?;
    // Trimmed now and then, not on every search.
    if seq % 100 == 0 {
        tx.execute(
            "DELETE FROM gateway_searches WHERE seq <= $1",
            &[&(seq - SEARCHES_KEPT)],
        )?;
    }
    tx.commit()
}

pub(super) fn submit(session: &mut Session, feedback: NewFeedback) -> Result<Feedback, StoreError> {
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
    let mut tx = session.begin()?;
    let search = tx.query_opt(
        "SELECT query, chunk_ids FROM gateway_searches WHERE request_id = $1",
        &[&feedback.request_id],
    )?;
    let Some(search) = search else {
        return Err(StoreError::NotFound(format!(
            "no recorded search `{}`: quote metadata.request_id of a recent km-search answer (the newest 10,000 searches are kept)",
            feedback.request_id
        )));
    };
    let (query, results): (String, Vec<String>) = (get(&search, 0)?, get(&search, 1)?);
    if !results.contains(&feedback.chunk_id) {
        let shown: Vec<&str> = results.iter().take(5).map(String::as_str).collect();
        return Err(StoreError::NotFound(format!(
            "chunk `{}` was not among the results of search `{}`; vote on one of its results ({}{})",
            feedback.chunk_id,
            feedback.request_id,
            shown.join(", "),
            if results.len() > shown.len() {
                ", …"
            } else {
                ""
            }
        )));
    }
    let row = tx.query_one(
        "UPDATE counters SET value = value + 1 WHERE name = 'feedback' RETURNING value",
        &[],
    )?;
    let id: i64 = get(&row, 0)?;
    tx.execute(
        "INSERT INTO gateway_feedback (id, request_id, query, chunk_id, vote, note, context, voter, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        &[
            &id,
            &feedback.request_id,
            &query,
            &feedback.chunk_id,
            &i16::from(feedback.vote),
            &feedback.note,
            &context,
            &feedback.voter,
            &created_at,
        ],
    )?;
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
}

pub(super) fn since(
    session: &mut Session,
    after: i64,
    limit: usize,
) -> Result<Vec<Feedback>, StoreError> {
    let rows = session.query(
        "SELECT id, request_id, query, chunk_id, vote, note, context, voter, created_at
         FROM gateway_feedback WHERE id > $1 ORDER BY id LIMIT $2",
        // `usize::MAX` reads everything, as in SQLite (where it wraps to a
        // negative LIMIT: none).
        &[&after, &i64::try_from(limit).unwrap_or(i64::MAX)],
    )?;
    rows.iter()
        .map(|row| {
            let context: Option<String> = get(row, 6)?;
            let vote: i16 = get(row, 4)?;
            Ok(Feedback {
                id: get(row, 0)?,
                request_id: get(row, 1)?,
                query: get(row, 2)?,
                chunk_id: get(row, 3)?,
                // The column's check keeps it within -1..1.
                vote: i8::try_from(vote).unwrap_or_default(),
                note: get(row, 5)?,
                context: context
                    .and_then(|c| serde_json::from_str::<serde_json::Value>(&c).ok())
                    .and_then(|v| v.as_object().cloned()),
                voter: get(row, 7)?,
                created_at: get(row, 8)?,
            })
        })
        .collect()
}
