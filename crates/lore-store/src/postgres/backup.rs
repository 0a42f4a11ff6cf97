//! Backups of a PostgreSQL store as an SQLite store file: every
//! transaction, version, cached vector, search, piece of feedback, ingest
//! run and version of the gateway's file log, with the same ids and
//! sequence numbers, read from one snapshot (a read-only `REPEATABLE READ`
//! transaction, which blocks no writer). The file opens with
//! `SqliteStore::open`, so a backup restores into the embedded backend
//! (or is read with `sqlite3`), and `migrate_sqlite_to_postgres` moves it
//! into a new PostgreSQL store; either way numbering goes on after the
//! highest copied row. Leases and MCP task records are not copied: they
//! belong to the processes running now (see `crate::shared`).

use std::path::Path;

use super::read::{ENTRY_COLUMNS, TRIPLE_COLUMNS, entry_from_row, triple_from_row};
use super::session::{Session, get};
use crate::error::StoreError;
use crate::model::*;
use crate::sqlite::restore::Restore;

/// Rows read per round trip (entry versions hold up to 1 MiB each).
const PAGE_ROWS: i64 = 500;
const ENTRY_PAGE_ROWS: i64 = 100;
/// File log versions read per round trip (each holds a file's chunks).
const FILE_PAGE_ROWS: i64 = 100;

/// Writes the store as of one snapshot to the SQLite file `target` (which
/// must not exist yet); returns the newest transaction it holds.
pub(super) fn to_sqlite(session: &mut Session, target: &Path) -> Result<TxId, StoreError> {
    if target.exists() {
        return Err(StoreError::Conflict {
            message: format!("{} already exists; back up to a new path", target.display()),
            ids: Vec::new(),
        });
    }
    // Written beside the target first, so a failure leaves nothing there.
    let partial = target.with_extension("partial");
    let _ = std::fs::remove_file(&partial);
    let copied = copy(session, &partial).and_then(|head| {
        std::fs::rename(&partial, target)
            .map_err(|e| StoreError::Unavailable(format!("cannot write the backup: {e}")))?;
        Ok(head)
    });
    if copied.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    copied
}

/// Copies every row of one snapshot of the store into a new SQLite store
/// file at `path`; returns the newest transaction copied.
fn copy(session: &mut Session, path: &Path) -> Result<TxId, StoreError> {
    let mut snapshot = session.begin_snapshot()?;
    let head: TxId = get(
        &snapshot.query_one(
            "SELECT coalesce(max(tx_id), 0)::BIGINT FROM transactions",
            &[],
        )?,
        0,
    )?;
    let restore = Restore::create(path)?;
    copy_transactions(&mut snapshot, &restore)?;
    copy_entry_versions(&mut snapshot, &restore)?;
    copy_triple_versions(&mut snapshot, &restore)?;
    copy_vectors(&mut snapshot, &restore)?;
    copy_searches(&mut snapshot, &restore)?;
    copy_feedback(&mut snapshot, &restore)?;
    copy_ingest_runs(&mut snapshot, &restore)?;
    copy_shared_files(&mut snapshot, &restore)?;
    snapshot.commit()?;

    let copied = restore.finish()?;
    if copied != head {
        return Err(StoreError::Unavailable(format!(
            "the backup holds transactions up to {copied}, not {head}; nothing was written"
        )));
    }
    Ok(head)
}

/// Copies the transaction log, oldest first.
fn copy_transactions(snapshot: &mut Session, restore: &Restore) -> Result<(), StoreError> {
    let mut after = 0_i64;
    loop {
        let rows = snapshot.query(
            "SELECT tx_id, at, actor, kind, summary, reverts_tx_id FROM transactions
             WHERE tx_id > $1 ORDER BY tx_id LIMIT $2",
            &[&after, &PAGE_ROWS],
        )?;
        for row in &rows {
            let transaction = Transaction {
                tx_id: get(row, 0)?,
                at: get(row, 1)?,
                actor: get(row, 2)?,
                kind: get(row, 3)?,
                summary: get(row, 4)?,
                reverts_tx_id: get(row, 5)?,
                changed_ids: Vec::new(),
                changed_ids_truncated: false,
            };
            restore.transaction(&transaction)?;
            after = transaction.tx_id;
        }
        if (rows.len() as i64) < PAGE_ROWS {
            return Ok(());
        }
    }
}

/// Copies every entry version with its row id and validity.
fn copy_entry_versions(snapshot: &mut Session, restore: &Restore) -> Result<(), StoreError> {
    let mut after = 0_i64;
    loop {
        let rows = snapshot.query(
            &format!(
                "SELECT {ENTRY_COLUMNS}, ev.vid, ev.to_tx FROM entry_versions ev
                 WHERE ev.vid > $1 ORDER BY ev.vid LIMIT $2"
            ),
            &[&after, &ENTRY_PAGE_ROWS],
        )?;
        for row in &rows {
            let (vid, to_tx): (i64, TxId) = (get(row, 12)?, get(row, 13)?);
            restore.entry_version(vid, &entry_from_row(row)?, to_tx)?;
            after = vid;
        }
        if (rows.len() as i64) < ENTRY_PAGE_ROWS {
            return Ok(());
        }
    }
}

/// Copies every triple version with its row id and validity.
fn copy_triple_versions(snapshot: &mut Session, restore: &Restore) -> Result<(), StoreError> {
    let mut after = 0_i64;
    loop {
        let rows = snapshot.query(
            &format!(
                "SELECT {TRIPLE_COLUMNS}, tv.vid, tv.to_tx FROM triple_versions tv
                 WHERE tv.vid > $1 ORDER BY tv.vid LIMIT $2"
            ),
            &[&after, &PAGE_ROWS],
        )?;
        for row in &rows {
            let (vid, to_tx): (i64, TxId) = (get(row, 9)?, get(row, 10)?);
            restore.triple_version(vid, &triple_from_row(row)?, to_tx)?;
            after = vid;
        }
        if (rows.len() as i64) < PAGE_ROWS {
            return Ok(());
        }
    }
}

/// Copies the embedding cache.
fn copy_vectors(snapshot: &mut Session, restore: &Restore) -> Result<(), StoreError> {
    let (mut model, mut hash) = (String::new(), String::new());
    loop {
        let rows = snapshot.query(
            "SELECT model, hash, vector, created_at FROM embeddings
             WHERE (model, hash) > ($1, $2) ORDER BY model, hash LIMIT $3",
            &[&model, &hash, &PAGE_ROWS],
        )?;
        for row in &rows {
            (model, hash) = (get(row, 0)?, get(row, 1)?);
            let vector: Vec<u8> = get(row, 2)?;
            let created_at: String = get(row, 3)?;
            restore.embedding(&model, &hash, &vector, &created_at)?;
        }
        if (rows.len() as i64) < PAGE_ROWS {
            return Ok(());
        }
    }
}

/// Copies the recorded searches with their numbers.
fn copy_searches(snapshot: &mut Session, restore: &Restore) -> Result<(), StoreError> {
    let mut after = 0_i64;
    loop {
        let rows = snapshot.query(
            "SELECT seq, request_id, query, chunk_ids, created_at FROM gateway_searches
             WHERE seq > $1 ORDER BY seq LIMIT $2",
            &[&after, &PAGE_ROWS],
        )?;
        for row in &rows {
            after = get(row, 0)?;
            let search = SearchRecord {
                request_id: get(row, 1)?,
                query: get(row, 2)?,
                chunk_ids: get(row, 3)?,
                created_at: get(row, 4)?,
            };
            restore.search(after, &search)?;
        }
        if (rows.len() as i64) < PAGE_ROWS {
            return Ok(());
        }
    }
}

/// Copies the feedback with its ids.
fn copy_feedback(snapshot: &mut Session, restore: &Restore) -> Result<(), StoreError> {
    let mut after = 0_i64;
    loop {
        let feedback = super::feedback::since(snapshot, after, PAGE_ROWS as usize)?;
        for one in &feedback {
            restore.feedback(one)?;
            after = one.id;
        }
        if (feedback.len() as i64) < PAGE_ROWS {
            return Ok(());
        }
    }
}

/// Copies the `memory_ingest` runs with their numbers.
fn copy_ingest_runs(snapshot: &mut Session, restore: &Restore) -> Result<(), StoreError> {
    let mut after = 0_i64;
    loop {
        let rows = snapshot.query(
            "SELECT seq, run_id, status, record FROM ingest_runs
             WHERE seq > $1 ORDER BY seq LIMIT $2",
            &[&after, &PAGE_ROWS],
        )?;
        for row in &rows {
            after = get(row, 0)?;
            let (run_id, status, record): (String, String, String) =
                (get(row, 1)?, get(row, 2)?, get(row, 3)?);
            restore.ingest_run(after, &run_id, &status, &record)?;
        }
        if (rows.len() as i64) < PAGE_ROWS {
            return Ok(());
        }
    }
}

/// Copies the gateway's file log with its sequence numbers.
fn copy_shared_files(snapshot: &mut Session, restore: &Restore) -> Result<(), StoreError> {
    let mut after = 0_i64;
    loop {
        let versions = super::shared::since(snapshot, after, FILE_PAGE_ROWS as usize)?;
        for version in &versions {
            restore.shared_file(version)?;
            after = version.seq;
        }
        if (versions.len() as i64) < FILE_PAGE_ROWS {
            return Ok(());
        }
    }
}
