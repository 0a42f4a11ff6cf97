//! The copy read back before it commits: inside the copying transaction,
//! the PostgreSQL store must answer what users ask of a store as the
//! SQLite snapshot does — the same functions that answer
//! [`crate::KnowledgeStore`] calls on each backend, so "the same" means
//! what a user or an agent would see: the head and counts of `check`,
//! every page of the history, of the current entries and triples and of
//! the change feed, as-of reads of a spread of ids and transactions (the
//! first and last included), each sampled id's own history, the feedback,
//! the running ingest runs, how many rows each table holds, and the file
//! log's newest sequence number (where followers of the log go on).
//!
//! Answers are compared as the JSON they serialise to (times and floats
//! included, exactly), errors by code and message. The first difference
//! ends the migration with an error naming it, and the transaction rolls
//! back.

use serde::Serialize;
use serde_json::Value;

use super::MigrationReport;
use crate::error::StoreError;
use crate::model::*;
use crate::postgres::session::{Session, get};
use crate::postgres::{feedback, read, runs};
use crate::sqlite::snapshot::{Counted, Snapshot};
use lore_core::error::HasErrorCode;

/// Page size of the listings compared (the most a page may hold).
const PAGE: usize = limits::PAGE_MAX;

/// Entry ids, triple ids and transactions sampled for as-of reads.
const SAMPLED_ENTRIES: usize = 24;
const SAMPLED_TRIPLES: usize = 12;
const SAMPLED_TRANSACTIONS: usize = 16;

/// Fails with the first answer the copy gives differently from the
/// snapshot.
pub(super) fn same_answers(
    source: &Snapshot,
    target: &mut Session,
    report: &MigrationReport,
) -> Result<(), StoreError> {
    same_counts(source, target, report)?;
    same(|| "the head".to_string(), source.head(), read::head(target))?;
    let health = |h: StoreHealth| {
        serde_json::json!({
            "integrity_ok": h.integrity_ok,
            "head_tx_id": h.head_tx_id,
            "entries": h.entries,
            "triples": h.triples,
            "transactions_without_rows": h.transactions_without_rows,
        })
    };
    same(
        || "check".to_string(),
        source.check().map(health),
        read::check(target).map(health),
    )?;

    every_page(
        "history",
        HistoryQuery {
            limit: Some(PAGE),
            ..Default::default()
        },
        |q, cursor| q.cursor = Some(cursor),
        |q| (source.history(q), read::history(target, q)),
    )?;
    every_page(
        "the current entries",
        EntryQuery {
            limit: Some(PAGE),
            ..Default::default()
        },
        |q, cursor| q.cursor = Some(cursor),
        |q| (source.query(q), read::query_entries(target, q)),
    )?;
    every_page(
        "the current triples",
        TripleQuery {
            limit: Some(PAGE),
            ..Default::default()
        },
        |q, cursor| q.cursor = Some(cursor),
        |q| (source.list_triples(q), read::list_triples(target, q)),
    )?;
    same_change_feed(source, target)?;
    same_as_of_reads(source, target, report.head_tx_id)?;

    let mut after = 0;
    loop {
        let page = same(
            || format!("feedback after {after}"),
            source.feedback_since(after, PAGE),
            feedback::since(target, after, PAGE),
        )?
        .unwrap_or_default();
        match page.last() {
            Some(last) => after = last.id,
            None => break,
        }
    }
    same(
        || "the running ingest runs".to_string(),
        source.running_ingest_runs(),
        runs::running(target),
    )?;
    Ok(())
}

/// The rows of each table, the report's counts, and the vectors of each
/// model.
fn same_counts(
    source: &Snapshot,
    target: &mut Session,
    report: &MigrationReport,
) -> Result<(), StoreError> {
    for table in Counted::ALL {
        let copied = match table {
            Counted::Transactions => report.transactions,
            Counted::EntryVersions => report.entry_versions,
            Counted::TripleVersions => report.triple_versions,
            Counted::Vectors => report.vectors,
            Counted::Searches => report.searches,
            Counted::Feedback => report.feedback,
            Counted::IngestRuns => report.ingest_runs,
            Counted::SharedFiles => report.shared_files,
        };
        let name = table.table();
        let held = source.count(table)?;
        if held != copied {
            return Err(difference(
                &format!("the rows of {name}"),
                &format!("the SQLite store holds {held}, {copied} were copied"),
            ));
        }
        let row = target.query_one(&format!("SELECT count(*) FROM {name}"), &[])?;
        same(
            || format!("the rows of {name}"),
            Ok(held),
            get::<i64>(&row, 0),
        )?;
    }
    let row = target.query_one(
        "SELECT coalesce(max(seq), 0)::BIGINT FROM gateway_files",
        &[],
    )?;
    same(
        || "the file log's newest sequence number".to_string(),
        source.newest_shared_seq(),
        get::<i64>(&row, 0),
    )?;
    let rows = target.query(
        "SELECT model, count(*) FROM embeddings GROUP BY model ORDER BY model",
        &[],
    )?;
    let copied = rows
        .iter()
        .map(|row| Ok((get::<String>(row, 0)?, get::<i64>(row, 1)?)))
        .collect::<Result<Vec<_>, StoreError>>();
    same(
        || "the cached vectors of each model".to_string(),
        source.vectors_per_model(),
        copied,
    )?;
    Ok(())
}

/// Every page of one listing, following the snapshot's cursors.
fn every_page<Q, T: Serialize>(
    what: &str,
    mut query: Q,
    set_cursor: impl Fn(&mut Q, String),
    mut answer: impl FnMut(&Q) -> (Answer<Page<T>>, Answer<Page<T>>),
) -> Result<(), StoreError> {
    for page in 1.. {
        let (a, b) = answer(&query);
        let next = same(|| format!("page {page} of {what}"), a, b)?.and_then(|p| p.next_cursor);
        match next {
            Some(cursor) => set_cursor(&mut query, cursor),
            None => break,
        }
    }
    Ok(())
}

/// The whole change feed, a page at a time.
fn same_change_feed(source: &Snapshot, target: &mut Session) -> Result<(), StoreError> {
    let as_json = |changes: Vec<TxChanges>| -> Vec<Value> {
        changes
            .into_iter()
            .map(|c| serde_json::json!({"tx_id": c.tx_id, "entries": c.entries, "triples": c.triples}))
            .collect()
    };
    let mut after = 0;
    loop {
        let page = same(
            || format!("the change feed after transaction {after}"),
            source.changes_since(after, PAGE).map(as_json),
            read::changes_since(target, after, PAGE).map(as_json),
        )?
        .unwrap_or_default();
        match page.last().and_then(|c| c["tx_id"].as_i64()) {
            Some(last) => after = last,
            None => return Ok(()),
        }
    }
}

/// As-of reads of a spread of ids (the first and last entry and triple
/// among them) at a spread of transactions (the first and last among
/// them), and each sampled id's own history.
fn same_as_of_reads(source: &Snapshot, target: &mut Session, head: TxId) -> Result<(), StoreError> {
    let (entries, triples) = (source.ids(false)?, source.ids(true)?);
    let ids: Vec<&String> = spread(entries.len(), SAMPLED_ENTRIES)
        .into_iter()
        .map(|i| &entries[i])
        .chain(
            spread(triples.len(), SAMPLED_TRIPLES)
                .into_iter()
                .map(|i| &triples[i]),
        )
        .collect();
    let transactions: Vec<TxId> = spread(head as usize, SAMPLED_TRANSACTIONS)
        .into_iter()
        .map(|i| i as TxId + 1)
        .collect();
    for id in ids {
        for &tx in &transactions {
            same(
                || format!("{id} as of transaction {tx}"),
                source.get(id, Some(tx)),
                read::get_one(target, id, Some(tx)),
            )?;
        }
        let query = HistoryQuery {
            id: Some(id.clone()),
            limit: Some(PAGE),
            ..Default::default()
        };
        same(
            || format!("the history of {id}"),
            source.history(&query),
            read::history(target, &query),
        )?;
    }
    Ok(())
}

/// Up to `n` indexes spread evenly over `0..len`, the first and last
/// included.
fn spread(len: usize, n: usize) -> Vec<usize> {
    if len <= n {
        return (0..len).collect();
    }
    let mut picked: Vec<usize> = (0..n).map(|i| i * (len - 1) / (n - 1)).collect();
    picked.dedup();
    picked
}

/// One side's answer.
type Answer<T> = Result<T, StoreError>;

/// The snapshot's answer when the copy gives the same (as JSON, or the
/// same error); else the difference as an error.
fn same<T: Serialize>(
    what: impl FnOnce() -> String,
    source: Answer<T>,
    target: Answer<T>,
) -> Result<Option<T>, StoreError> {
    let refusal = |e: &StoreError| format!("refuses ({}: {e})", e.code().as_str());
    let shown = |v: &Value| crate::rules::clip(&v.to_string(), 200);
    let detail = match (&source, &target) {
        (Ok(a), Ok(b)) => {
            let (a, b) = (json(a)?, json(b)?);
            first_difference(&a, &b, String::new()).map(|(path, a, b)| {
                format!(
                    "at {path} the SQLite store has {}, the copy {}",
                    shown(&a),
                    shown(&b)
                )
            })
        }
        (Err(a), Err(b)) => (a.code() != b.code() || a.to_string() != b.to_string())
            .then(|| format!("the SQLite store {}, the copy {}", refusal(a), refusal(b))),
        (Ok(a), Err(b)) => Some(format!(
            "the SQLite store answers {}, the copy {}",
            shown(&json(a)?),
            refusal(b)
        )),
        (Err(a), Ok(b)) => Some(format!(
            "the SQLite store {}, the copy answers {}",
            refusal(a),
            shown(&json(b)?)
        )),
    };
    match detail {
        Some(detail) => Err(difference(&what(), &detail)),
        None => Ok(source.ok()),
    }
}

fn json<T: Serialize>(value: &T) -> Result<Value, StoreError> {
    serde_json::to_value(value)
        .map_err(|e| StoreError::Unavailable(format!("cannot compare an answer: {e}")))
}

/// The first place (a JSON path) where `a` and `b` differ, with the
/// values there.
fn first_difference(a: &Value, b: &Value, path: String) -> Option<(String, Value, Value)> {
    let at = |path: &str| {
        if path.is_empty() {
            "the answer".to_string()
        } else {
            path.to_string()
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|key| {
                let (va, vb) = (
                    x.get(key).unwrap_or(&Value::Null),
                    y.get(key).unwrap_or(&Value::Null),
                );
                let inner = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match (x.contains_key(key), y.contains_key(key)) {
                    (true, true) => first_difference(va, vb, inner),
                    _ => Some((inner, va.clone(), vb.clone())),
                }
            })
        }
        (Value::Array(x), Value::Array(y)) => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(va, vb, format!("{path}[{i}]")))
            .or_else(|| {
                (x.len() != y.len()).then(|| {
                    (
                        format!("{} (its length)", at(&path)),
                        Value::from(x.len()),
                        Value::from(y.len()),
                    )
                })
            }),
        _ => (a != b).then(|| (at(&path), a.clone(), b.clone())),
    }
}

/// The error a difference ends the migration with.
fn difference(what: &str, detail: &str) -> StoreError {
    StoreError::Unavailable(format!(
        "the copy in PostgreSQL does not answer as the SQLite store does ({what}: {detail}), so it was rolled back: nothing was written and the SQLite store is unchanged; keep using it, and report this as a bug in Lore"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_holds_the_first_and_last_index() {
        assert_eq!(spread(0, 4), Vec::<usize>::new());
        assert_eq!(spread(3, 4), vec![0, 1, 2]);
        assert_eq!(spread(10, 4), vec![0, 3, 6, 9]);
        assert_eq!(spread(100, 2), vec![0, 99]);
    }

    #[test]
    fn a_difference_names_the_first_field_that_differs() {
        let a = serde_json::json!({"items": [{"id": "e-1", "topic": "a"}, {"id": "e-2", "topic": "b"}]});
        let b = serde_json::json!({"items": [{"id": "e-1", "topic": "a"}, {"id": "e-2", "topic": "c"}]});
        let error = same(|| "page 1 of the current entries".to_string(), Ok(a), Ok(b))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(
                "page 1 of the current entries: at items[1].topic the SQLite store has \"b\", the copy \"c\""
            ),
            "{error}"
        );
        let short = serde_json::json!([1, 2]);
        let long = serde_json::json!([1, 2, 3]);
        let error = same(|| "x".to_string(), Ok(short), Ok(long))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("at the answer (its length) the SQLite store has 2, the copy 3"),
            "{error}"
        );
        let refused = same(
            || "e-9 as of transaction 1".to_string(),
            Ok(serde_json::json!({"id": "e-9"})),
            Err(StoreError::NotFound("no entry".into())),
        )
        .unwrap_err()
        .to_string();
        assert!(
            refused.contains("the copy refuses (not_found: no entry)"),
            "{refused}"
        );
        assert!(same(|| "same".to_string(), Ok(1), Ok(1)).unwrap() == Some(1));
    }
}
