//! Writing a new store file from rows read elsewhere, exactly as they were
//! (ids, versions, transactions): a backup of a PostgreSQL store is an
//! ordinary SQLite store that `SqliteStore::open` reads.
//!
//! Rows keep their numbers (transaction ids, the sequence numbers of the
//! file log, searches and ingest runs), and SQLite numbers a new row after
//! the highest one a table holds, so the restored store goes on counting
//! where the copy ends: a follower that has read the file log "up to N"
//! misses nothing written after the restore. Leases are never written
//! here: a restored store starts with none (see `crate::shared`).

use std::path::Path;

use rusqlite::{Connection, params};

use super::write::{insert_entry_version, insert_triple_version};
use crate::error::StoreError;
use crate::model::*;
use crate::shared::SharedFileVersion;

/// A new store file being filled, in one transaction (a failure leaves a
/// file the caller removes).
pub(crate) struct Restore {
    conn: Connection,
}

impl Restore {
    /// Creates the file at `path` (which must not exist) with the current
    /// schema and starts filling it.
    pub fn create(path: &Path) -> Result<Restore, StoreError> {
        let mut conn = Connection::open(path).map_err(|e| {
            StoreError::Unavailable(format!(
                "cannot create the backup {}: {}",
                path.display(),
                e
            ))
        })?;
        super::schema::migrate(&mut conn)?;
        conn.execute_batch("BEGIN")?;
        Ok(Restore { conn })
    }

    /// One transaction record.
    pub fn transaction(&self, t: &Transaction) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT INTO transactions (tx_id, at, actor, kind, summary, reverts_tx_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                t.tx_id,
                t.at,
                t.actor,
                t.kind,
                t.summary,
                t.reverts_tx_id
            ])?;
        Ok(())
    }

    /// One entry version (`vid`, valid until `to_tx`).
    pub fn entry_version(&self, vid: i64, entry: &Entry, to_tx: TxId) -> Result<(), StoreError> {
        insert_entry_version(&self.conn, vid, entry, to_tx)
    }

    /// One triple version (`vid`, valid until `to_tx`).
    pub fn triple_version(&self, vid: i64, triple: &Triple, to_tx: TxId) -> Result<(), StoreError> {
        insert_triple_version(&self.conn, vid, triple, to_tx)
    }

    /// One cached vector (little-endian `f32`s).
    pub fn embedding(
        &self,
        model: &str,
        hash: &str,
        vector: &[u8],
        created_at: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT INTO embeddings (model, hash, vector, created_at) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![model, hash, vector, created_at])?;
        Ok(())
    }

    /// One recorded search.
    pub fn search(&self, seq: i64, search: &SearchRecord) -> Result<(), StoreError> {
        let chunk_ids = serde_json::to_string(&search.chunk_ids)
            .map_err(|e| StoreError::Refused(format!("search record: {e}")))?;
        self.conn
            .prepare_cached(
                "INSERT INTO gateway_searches (seq, request_id, query, chunk_ids, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                seq,
                search.request_id,
                search.query,
                chunk_ids,
                search.created_at
            ])?;
        Ok(())
    }

    /// One piece of feedback.
    pub fn feedback(&self, feedback: &Feedback) -> Result<(), StoreError> {
        let context = feedback
            .context
            .as_ref()
            .map(|c| serde_json::Value::Object(c.clone()).to_string());
        self.conn
            .prepare_cached(
                "INSERT INTO gateway_feedback (id, request_id, query, chunk_id, vote, note, context, voter, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                feedback.id,
                feedback.request_id,
                feedback.query,
                feedback.chunk_id,
                feedback.vote,
                feedback.note,
                context,
                feedback.voter,
                feedback.created_at
            ])?;
        Ok(())
    }

    /// One `memory_ingest` run record (its JSON as stored).
    pub fn ingest_run(
        &self,
        seq: i64,
        run_id: &str,
        status: &str,
        record: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT INTO ingest_runs (seq, run_id, status, record) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![seq, run_id, status, record])?;
        Ok(())
    }

    /// One version of the gateway's file log, with its sequence number.
    pub fn shared_file(&self, version: &SharedFileVersion) -> Result<(), StoreError> {
        let file = &version.file;
        self.conn
            .prepare_cached(
                "INSERT INTO gateway_files (seq, root, path, hash, chunks, origin, written_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                version.seq,
                file.root,
                file.path,
                file.hash,
                file.chunks,
                version.origin,
                version.written_ms
            ])?;
        Ok(())
    }

    /// Commits and closes the file; returns the newest transaction it
    /// holds.
    pub fn finish(self) -> Result<TxId, StoreError> {
        self.conn.execute_batch("COMMIT")?;
        let head = super::read::head(&self.conn)?;
        self.conn.close().map_err(|(_, e)| StoreError::from(e))?;
        Ok(head)
    }
}
