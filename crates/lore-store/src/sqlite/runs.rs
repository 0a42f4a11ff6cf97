//! `memory_ingest` runs: operational records (no transactions, no
//! history), one JSON record per run with its status as a column so the
//! runs still running are found at once.

use rusqlite::{Connection, OptionalExtension, params};

use super::SqliteStore;
use crate::error::StoreError;
use crate::model::IngestRunRecord;

/// `memory_ingest` runs kept (the newest).
const INGEST_RUNS_KEPT: i64 = 1_000;

pub(super) fn save(store: &SqliteStore, run: &IngestRunRecord) -> Result<(), StoreError> {
    let record =
        serde_json::to_string(run).map_err(|e| StoreError::Refused(format!("ingest run: {e}")))?;
    store.with_writer(|conn| {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let updated = tx
            .prepare_cached("UPDATE ingest_runs SET status = ?2, record = ?3 WHERE run_id = ?1")?
            .execute(params![run.run_id, run.status, record])?;
        if updated == 0 {
            tx.prepare_cached(
                "INSERT INTO ingest_runs (run_id, status, record) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![run.run_id, run.status, record])?;
            let seq = tx.last_insert_rowid();
            if seq % 100 == 0 {
                tx.execute(
                    "DELETE FROM ingest_runs WHERE seq <= ?1 AND status != 'running'",
                    [seq - INGEST_RUNS_KEPT],
                )?;
            }
        }
        tx.commit()?;
        Ok(())
    })
}

fn decode_run(text: String) -> Result<IngestRunRecord, StoreError> {
    serde_json::from_str(&text)
        .map_err(|e| StoreError::Refused(format!("a stored ingest run does not read back: {e}")))
}

pub(super) fn get(
    store: &SqliteStore,
    run_id: &str,
) -> Result<Option<IngestRunRecord>, StoreError> {
    let text: Option<String> = store.with_reader(|conn| {
        Ok(conn
            .prepare_cached("SELECT record FROM ingest_runs WHERE run_id = ?1")?
            .query_row([run_id], |row| row.get(0))
            .optional()?)
    })?;
    text.map(decode_run).transpose()
}

pub(super) fn running(store: &SqliteStore) -> Result<Vec<IngestRunRecord>, StoreError> {
    store.with_reader(read_running)
}

/// [`running`] on one connection (a snapshot's read transaction, too).
pub(super) fn read_running(conn: &Connection) -> Result<Vec<IngestRunRecord>, StoreError> {
    let mut statement = conn
        .prepare_cached("SELECT record FROM ingest_runs WHERE status = 'running' ORDER BY seq")?;
    let texts = statement
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    texts.into_iter().map(decode_run).collect()
}
