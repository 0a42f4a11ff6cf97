//! The SQLite queries behind the version rules (`versioning/` and
//! `rules.rs` hold every rule and message): a write is one `BEGIN IMMEDIATE`
//! transaction ([`Writer`] for a connection) that either commits whole or
//! leaves nothing (a dropped `rusqlite::Transaction` rolls back), and
//! [`WriteTx`] for that transaction makes each read and write the rules
//! ask for. The inserts of one version row are shared with a restore
//! from a backup (`restore.rs`).

use lore_core::time::UtcMillis;
use rusqlite::{Connection, OptionalExtension, Transaction as SqlTx, TransactionBehavior, params};

use super::read::{ENTRY_COLUMNS, TRIPLE_COLUMNS, entry_from_row, triple_from_row};
use super::schema::OPEN;
use crate::error::StoreError;
use crate::model::*;
use crate::versioning::{VersionTable, WriteTx, Writer};

impl Writer for Connection {
    type Tx<'a> = SqlTx<'a>;

    fn begin_write(&mut self) -> Result<SqlTx<'_>, StoreError> {
        Ok(self.transaction_with_behavior(TransactionBehavior::Immediate)?)
    }
}

impl WriteTx for SqlTx<'_> {
    fn log_transaction(
        &mut self,
        actor: &str,
        kind: &str,
        summary: &str,
        reverts: Option<TxId>,
    ) -> Result<(TxId, String), StoreError> {
        let at = UtcMillis::now().to_iso();
        self.prepare_cached(
            "INSERT INTO transactions (at, actor, kind, summary, reverts_tx_id) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![at, actor, kind, summary, reverts])?;
        Ok((self.last_insert_rowid(), at))
    }

    fn next_vid(&mut self, table: VersionTable) -> Result<i64, StoreError> {
        Ok(self
            .prepare_cached(&format!(
                "SELECT coalesce(max(vid), 0) + 1 FROM {}",
                table.name()
            ))?
            .query_row([], |row| row.get(0))?)
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
        Ok(self
            .prepare_cached(&format!(
                "SELECT {ENTRY_COLUMNS} FROM entry_versions ev
                 WHERE ev.topic_key = ?1 AND ev.to_tx = ?2 AND ev.deleted = 0 AND ev.kind = ?3
                 ORDER BY ev.vid LIMIT 1"
            ))?
            .query_row(
                params![topic.to_lowercase(), OPEN, kind.as_str()],
                entry_from_row,
            )
            .optional()?)
    }

    fn triple_by_spo(&mut self, s: &str, p: &str, o: &str) -> Result<Option<Triple>, StoreError> {
        Ok(self
            .prepare_cached(&format!(
                "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
                 WHERE subject = ?1 AND to_tx = ?4 AND predicate = ?2 AND object = ?3
                 ORDER BY deleted LIMIT 1"
            ))?
            .query_row(params![s, p, o, OPEN], triple_from_row)
            .optional()?)
    }

    fn relations_of(&mut self, subject: &str) -> Result<Vec<Triple>, StoreError> {
        let mut statement = self.prepare_cached(&format!(
            "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
             WHERE subject = ?1 AND to_tx = ?2 ORDER BY deleted DESC"
        ))?;
        let triples = statement
            .query_map(params![subject, OPEN], triple_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(triples)
    }

    fn close_version(
        &mut self,
        table: VersionTable,
        id: &str,
        tx_id: TxId,
    ) -> Result<(), StoreError> {
        self.prepare_cached(&format!(
            "UPDATE {} SET to_tx = ?1 WHERE id = ?2 AND to_tx = ?3",
            table.name()
        ))?
        .execute(params![tx_id, id, OPEN])?;
        Ok(())
    }

    fn insert_entry_version(&mut self, vid: i64, entry: Entry) -> Result<Entry, StoreError> {
        insert_entry_version(self, vid, &entry, OPEN)?;
        Ok(entry)
    }

    fn insert_triple_version(&mut self, vid: i64, triple: Triple) -> Result<Triple, StoreError> {
        insert_triple_version(self, vid, &triple, OPEN)?;
        Ok(triple)
    }

    fn transaction_record(&mut self, tx_id: TxId) -> Result<Option<(String, String)>, StoreError> {
        Ok(self
            .prepare_cached("SELECT kind, summary FROM transactions WHERE tx_id = ?1")?
            .query_row([tx_id], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?)
    }

    fn ids_written_by(
        &mut self,
        table: VersionTable,
        tx_id: TxId,
    ) -> Result<Vec<String>, StoreError> {
        let mut statement = self.prepare_cached(&format!(
            "SELECT id FROM {} WHERE from_tx = ?1 ORDER BY vid",
            table.name()
        ))?;
        let ids = statement
            .query_map([tx_id], |row| row.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ids)
    }

    fn next_change(
        &mut self,
        table: VersionTable,
        id: &str,
        after: TxId,
    ) -> Result<Option<TxId>, StoreError> {
        Ok(self
            .prepare_cached(&format!(
                "SELECT min(from_tx) FROM {} WHERE id = ?1 AND from_tx > ?2",
                table.name()
            ))?
            .query_row(params![id, after], |row| row.get(0))?)
    }

    fn newest_revert_of(&mut self, tx_id: TxId) -> Result<Option<TxId>, StoreError> {
        Ok(self
            .prepare_cached("SELECT max(tx_id) FROM transactions WHERE reverts_tx_id = ?1")?
            .query_row([tx_id], |row| row.get(0))?)
    }

    fn commit(self) -> Result<(), StoreError> {
        Ok(SqlTx::commit(self)?)
    }
}

/// The version of an entry whose validity ends at `to_tx`: the current
/// one (a tombstone included) for [`OPEN`], or the one transaction
/// `to_tx` replaced.
fn entry_ending(conn: &Connection, id: &str, to_tx: TxId) -> Result<Option<Entry>, StoreError> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entry_versions ev WHERE id = ?1 AND to_tx = ?2"
        ))?
        .query_row(params![id, to_tx], entry_from_row)
        .optional()?)
}

/// Like [`entry_ending`], for a triple.
fn triple_ending(conn: &Connection, id: &str, to_tx: TxId) -> Result<Option<Triple>, StoreError> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv WHERE id = ?1 AND to_tx = ?2"
        ))?
        .query_row(params![id, to_tx], triple_from_row)
        .optional()?)
}

/// Inserts one entry version valid until `to_tx` (with its full-text and
/// tag rows when it is not a tombstone).
pub(crate) fn insert_entry_version(
    conn: &Connection,
    vid: i64,
    entry: &Entry,
    to_tx: TxId,
) -> Result<(), StoreError> {
    let tags_json = serde_json::to_string(&entry.tags).unwrap_or_else(|_| "[]".to_string());
    conn.prepare_cached(
        "INSERT INTO entry_versions (vid, id, version, from_tx, to_tx, deleted, kind, topic, topic_key,
             content, confidence, tags, source, recorded_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?
    .execute(params![
        vid,
        entry.id,
        entry.version,
        entry.tx_id,
        to_tx,
        entry.deleted,
        entry.kind.as_str(),
        entry.topic,
        entry.topic.to_lowercase(),
        entry.content,
        entry.confidence,
        tags_json,
        entry.source,
        entry.recorded_at,
        entry.updated_at
    ])?;
    if !entry.deleted {
        conn.prepare_cached(
            "INSERT INTO entry_text (rowid, topic, content, tags) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![vid, entry.topic, entry.content, tags_json])?;
        let mut insert_tag =
            conn.prepare_cached("INSERT INTO entry_tags (tag, vid) VALUES (?1, ?2)")?;
        for tag in &entry.tags {
            insert_tag.execute(params![tag, vid])?;
        }
    }
    Ok(())
}

/// Inserts one triple version valid until `to_tx`.
pub(crate) fn insert_triple_version(
    conn: &Connection,
    vid: i64,
    triple: &Triple,
    to_tx: TxId,
) -> Result<(), StoreError> {
    let properties = triple
        .properties
        .as_ref()
        .map(|p| serde_json::Value::Object(p.clone()).to_string());
    conn.prepare_cached(
        "INSERT INTO triple_versions (vid, id, version, from_tx, to_tx, deleted, subject, predicate, object, confidence, properties)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        vid,
        triple.id,
        triple.version,
        triple.tx_id,
        to_tx,
        triple.deleted,
        triple.subject,
        triple.predicate,
        triple.object,
        triple.confidence,
        properties
    ])?;
    Ok(())
}
