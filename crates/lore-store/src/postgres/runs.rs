//! `memory_ingest` runs, as the SQLite store's (`sqlite/runs.rs`):
//! operational records (no transactions, no history), one JSON record per
//! run with its status as a column.

use super::session::{Session, get};
use crate::error::StoreError;
use crate::model::IngestRunRecord;

/// `memory_ingest` runs kept (the newest).
const INGEST_RUNS_KEPT: i64 = 1_000;

pub(super) fn save(session: &mut Session, run: &IngestRunRecord) -> Result<(), StoreError> {
    let record =
        serde_json::to_string(run).map_err(|e| StoreError::Refused(format!("ingest run: {e}")))?;
    let mut tx = session.begin()?;
    let updated = tx.execute(
        "UPDATE ingest_runs SET status = $2, record = $3 WHERE run_id = $1",
        &[&run.run_id, &run.status, &record],
    )?;
    if updated == 0 {
        // Another process may save the same new run at once: then this is
        // the update.
        let inserted = tx.query_opt(
            "INSERT INTO ingest_runs (run_id, status, record) VALUES ($1, $2, $3)
             ON CONFLICT (run_id) DO UPDATE SET status = EXCLUDED.status, record = EXCLUDED.record
             RETURNING seq",
            &[&run.run_id, &run.status, &record],
        )?;
        if let Some(row) = inserted {
            let seq: i64 = get(&row, 0)?;
            if seq % 100 == 0 {
                tx.execute(
                    "DELETE FROM ingest_runs WHERE seq <= $1 AND status != 'running'",
                    &[&(seq - INGEST_RUNS_KEPT)],
                )?;
            }
        }
    }
    tx.commit()
}

fn decode_run(text: String) -> Result<IngestRunRecord, StoreError> {
    serde_json::from_str(&text)
        .map_err(|e| StoreError::Refused(format!("a stored ingest run does not read back: {e}")))
}

pub(super) fn get_run(
    session: &mut Session,
    run_id: &str,
) -> Result<Option<IngestRunRecord>, StoreError> {
    let row = session.query_opt(
        "SELECT record FROM ingest_runs WHERE run_id = $1",
        &[&run_id],
    )?;
    row.map(|row| get::<String>(&row, 0).and_then(decode_run))
        .transpose()
}

pub(super) fn running(session: &mut Session) -> Result<Vec<IngestRunRecord>, StoreError> {
    let rows = session.query(
        "SELECT record FROM ingest_runs WHERE status = 'running' ORDER BY seq",
        &[],
    )?;
    rows.iter()
        .map(|row| get::<String>(row, 0).and_then(decode_run))
        .collect()
}
