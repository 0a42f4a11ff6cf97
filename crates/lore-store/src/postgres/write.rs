//! The PostgreSQL queries behind the version rules (`versioning/` and
//! `rules.rs` hold every rule and message, shared with the SQLite store):
//! a write is one PostgreSQL transaction ([`Writer`] for a session) that
//! either commits whole or leaves nothing (a dropped [`Tx`] rolls back),
//! and [`WriteTx`] for that transaction makes each read and write the
//! rules ask for.
//!
//! **Transaction ids.** A write transaction runs at `READ COMMITTED` and
//! first locks the one row `counters('tx')` (`SELECT … FOR UPDATE`). That
//! row lock queues writers from every process, as SQLite's
//! `BEGIN IMMEDIATE` does: each writer reads only after the previous one
//! committed, and sees its rows (`READ COMMITTED` takes a fresh snapshot
//! per statement). The transaction id is the counter plus one, written in
//! the same transaction, so ids are strictly increasing, never reused and
//! without gaps (a rolled-back write gives its number back), and they
//! commit in id order: a reader that sees transaction N sees every one
//! before it, and a change feed polling `tx_id > last` never skips a
//! transaction that commits late. A `SEQUENCE` hands out numbers in
//! allocation order, not commit order (a feed could skip one), and
//! `SERIALIZABLE` would still not order ids with commits and would make
//! every conflicting writer retry. Version ids (`vid`, which name new
//! entries `e-<vid>` and triples `t-<vid>`) are `max(vid) + 1` under the
//! same lock. A writer waits at most `lock_timeout` for the lock, then
//! fails with the retryable [`StoreError::Busy`].
//!
//! **Notification.** Every committed transaction notifies
//! `pg_notify(<channel>, '<tx_id>')` from inside the transaction, so the
//! notification is delivered exactly when (and only if) it commits.

use lore_core::time::UtcMillis;

use super::read::{ENTRY_COLUMNS, TRIPLE_COLUMNS, decode_all, entry_from_row, triple_from_row};
use super::schema::OPEN;
use super::session::{Session, Tx, get};
use super::versions::{EntryRow, TripleRow, insert_entry_versions, insert_triple_versions};
use crate::error::StoreError;
use crate::model::*;
use crate::versioning::{VersionTable, WriteTx, Writer};

impl Writer for Session {
    type Tx<'a> = Tx<'a>;

    /// Starts a write: a transaction holding the writers' lock.
    fn begin_write(&mut self) -> Result<Tx<'_>, StoreError> {
        let mut tx = self.begin()?;
        tx.query(
            "SELECT value FROM counters WHERE name = 'tx' FOR UPDATE",
            &[],
        )?;
        Ok(tx)
    }
}

impl WriteTx for Tx<'_> {
    /// Appends the transaction record with the next id of the counter,
    /// and notifies listeners (on commit).
    fn log_transaction(
        &mut self,
        actor: &str,
        kind: &str,
        summary: &str,
        reverts: Option<TxId>,
    ) -> Result<(TxId, String), StoreError> {
        let at = UtcMillis::now().to_iso();
        let row = self.query_one(
            "UPDATE counters SET value = value + 1 WHERE name = 'tx' RETURNING value",
            &[],
        )?;
        let tx_id: TxId = get(&row, 0)?;
        self.execute(
            "INSERT INTO transactions (tx_id, at, actor, kind, summary, reverts_tx_id)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[&tx_id, &at, &actor, &kind, &summary, &reverts],
        )?;
        let channel = self.channel().to_string();
        self.execute("SELECT pg_notify($1, $2)", &[&channel, &tx_id.to_string()])?;
        Ok((tx_id, at))
    }

    fn next_vid(&mut self, table: VersionTable) -> Result<i64, StoreError> {
        let row = self.query_one(
            &format!(
                "SELECT coalesce(max(vid), 0)::BIGINT + 1 FROM {}",
                table.name()
            ),
            &[],
        )?;
        get(&row, 0)
    }

    fn head(&mut self) -> Result<TxId, StoreError> {
        super::read::head(self)
    }

    fn current_entry(&mut self, id: &str) -> Result<Option<Entry>, StoreError> {
        entry_ending(self, id, OPEN)
    }

    fn entry_replaced_by(&mut self, id: &str, tx_id: TxId) -> Result<Option<Entry>, StoreError> {
        entry_ending(self, id, tx_id)
    }

    fn current_triple(&mut self, id: &str) -> Result<Option<Triple>, StoreError> {
        triple_ending(self, id, OPEN)
    }

    fn triple_replaced_by(&mut self, id: &str, tx_id: TxId) -> Result<Option<Triple>, StoreError> {
        triple_ending(self, id, tx_id)
    }

    fn live_by_topic(&mut self, kind: EntryKind, topic: &str) -> Result<Option<Entry>, StoreError> {
        self.query_opt(
            &format!(
                "SELECT {ENTRY_COLUMNS} FROM entry_versions ev
                 WHERE ev.topic_key = $1 AND ev.to_tx = $2 AND NOT ev.deleted AND ev.kind = $3
                 ORDER BY ev.vid LIMIT 1"
            ),
            &[&topic.to_lowercase(), &OPEN, &kind.as_str()],
        )?
        .map(|row| entry_from_row(&row))
        .transpose()
    }

    fn triple_by_spo(&mut self, s: &str, p: &str, o: &str) -> Result<Option<Triple>, StoreError> {
        self.query_opt(
            &format!(
                "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
                 WHERE subject = $1 AND to_tx = $4 AND predicate = $2 AND object = $3
                 ORDER BY deleted LIMIT 1"
            ),
            &[&s, &p, &o, &OPEN],
        )?
        .map(|row| triple_from_row(&row))
        .transpose()
    }

    fn relations_of(&mut self, subject: &str) -> Result<Vec<Triple>, StoreError> {
        let rows = self.query(
            &format!(
                "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
                 WHERE subject = $1 AND to_tx = $2 ORDER BY deleted DESC"
            ),
            &[&subject, &OPEN],
        )?;
        decode_all(rows, triple_from_row)
    }

    fn close_version(
        &mut self,
        table: VersionTable,
        id: &str,
        tx_id: TxId,
    ) -> Result<(), StoreError> {
        self.execute(
            &format!(
                "UPDATE {} SET to_tx = $1 WHERE id = $2 AND to_tx = $3",
                table.name()
            ),
            &[&tx_id, &id, &OPEN],
        )?;
        Ok(())
    }

    fn insert_entry_version(&mut self, vid: i64, entry: Entry) -> Result<Entry, StoreError> {
        let row = EntryRow::new(vid, entry, OPEN);
        insert_entry_versions(self, std::slice::from_ref(&row))?;
        Ok(row.into_entry())
    }

    fn insert_triple_version(&mut self, vid: i64, triple: Triple) -> Result<Triple, StoreError> {
        let row = TripleRow::new(vid, triple, OPEN);
        insert_triple_versions(self, std::slice::from_ref(&row))?;
        Ok(row.into_triple())
    }

    fn transaction_record(&mut self, tx_id: TxId) -> Result<Option<(String, String)>, StoreError> {
        self.query_opt(
            "SELECT kind, summary FROM transactions WHERE tx_id = $1",
            &[&tx_id],
        )?
        .map(|row| Ok((get(&row, 0)?, get(&row, 1)?)))
        .transpose()
    }

    fn ids_written_by(
        &mut self,
        table: VersionTable,
        tx_id: TxId,
    ) -> Result<Vec<String>, StoreError> {
        let rows = self.query(
            &format!(
                "SELECT id FROM {} WHERE from_tx = $1 ORDER BY vid",
                table.name()
            ),
            &[&tx_id],
        )?;
        rows.iter().map(|row| get::<String>(row, 0)).collect()
    }

    fn next_change(
        &mut self,
        table: VersionTable,
        id: &str,
        after: TxId,
    ) -> Result<Option<TxId>, StoreError> {
        let row = self.query_one(
            &format!(
                "SELECT min(from_tx) FROM {} WHERE id = $1 AND from_tx > $2",
                table.name()
            ),
            &[&id, &after],
        )?;
        get(&row, 0)
    }

    fn newest_revert_of(&mut self, tx_id: TxId) -> Result<Option<TxId>, StoreError> {
        let row = self.query_one(
            "SELECT max(tx_id) FROM transactions WHERE reverts_tx_id = $1",
            &[&tx_id],
        )?;
        get(&row, 0)
    }

    fn commit(self) -> Result<(), StoreError> {
        Tx::commit(self)
    }
}

/// The version of an entry whose validity ends at `to_tx`: the current
/// one (a tombstone included) for [`OPEN`], or the one transaction
/// `to_tx` replaced.
fn entry_ending(tx: &mut Session, id: &str, to_tx: TxId) -> Result<Option<Entry>, StoreError> {
    tx.query_opt(
        &format!("SELECT {ENTRY_COLUMNS} FROM entry_versions ev WHERE id = $1 AND to_tx = $2"),
        &[&id, &to_tx],
    )?
    .map(|row| entry_from_row(&row))
    .transpose()
}

/// Like [`entry_ending`], for a triple.
fn triple_ending(tx: &mut Session, id: &str, to_tx: TxId) -> Result<Option<Triple>, StoreError> {
    tx.query_opt(
        &format!("SELECT {TRIPLE_COLUMNS} FROM triple_versions tv WHERE id = $1 AND to_tx = $2"),
        &[&id, &to_tx],
    )?
    .map(|row| triple_from_row(&row))
    .transpose()
}
