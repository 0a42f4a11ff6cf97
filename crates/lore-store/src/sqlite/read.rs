//! Reads. Every read names the transaction it reads as of (the newest one
//! when the caller gives none) and selects the versions valid then:
//! `from_tx <= as_of AND to_tx > as_of`. Current and past reads are the
//! same code.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::schema::OPEN;
use crate::cursor::{Cursor, fingerprint, finish_page};
use crate::error::StoreError;
use crate::model::*;

/// The columns [`entry_from_row`] reads, from `entry_versions ev`.
pub(crate) const ENTRY_COLUMNS: &str = "ev.id, ev.version, ev.from_tx, ev.deleted, ev.kind, ev.topic, ev.content, ev.confidence, ev.tags, ev.source, ev.recorded_at, ev.updated_at";

/// The columns [`triple_from_row`] reads, from `triple_versions tv`.
pub(crate) const TRIPLE_COLUMNS: &str = "tv.id, tv.version, tv.from_tx, tv.deleted, tv.subject, tv.predicate, tv.object, tv.confidence, tv.properties";

pub(crate) fn entry_from_row(row: &Row<'_>) -> rusqlite::Result<Entry> {
    let kind: String = row.get(4)?;
    let tags: String = row.get(8)?;
    Ok(Entry {
        id: row.get(0)?,
        version: row.get(1)?,
        tx_id: row.get(2)?,
        deleted: row.get(3)?,
        kind: EntryKind::parse(&kind).unwrap_or(EntryKind::Note),
        topic: row.get(5)?,
        content: row.get(6)?,
        confidence: row.get(7)?,
        tags: serde_json::from_str(&tags).unwrap_or_default(),
        source: row.get(9)?,
        recorded_at: row.get(10)?,
        updated_at: row.get(11)?,
    })
}

pub(crate) fn triple_from_row(row: &Row<'_>) -> rusqlite::Result<Triple> {
    let properties: Option<String> = row.get(8)?;
    Ok(Triple {
        id: row.get(0)?,
        version: row.get(1)?,
        tx_id: row.get(2)?,
        deleted: row.get(3)?,
        subject: row.get(4)?,
        predicate: row.get(5)?,
        object: row.get(6)?,
        confidence: row.get(7)?,
        properties: properties.and_then(|p| match serde_json::from_str(&p) {
            Ok(serde_json::Value::Object(map)) => Some(map),
            _ => None,
        }),
    })
}

pub(crate) fn head(conn: &Connection) -> Result<TxId, StoreError> {
    Ok(conn
        .prepare_cached("SELECT coalesce(max(tx_id), 0) FROM transactions")?
        .query_row([], |row| row.get(0))?)
}

/// The newest transaction that wrote a version of an entry of `kind`.
pub(crate) fn kind_head(conn: &Connection, kind: EntryKind) -> Result<TxId, StoreError> {
    Ok(conn
        .prepare_cached("SELECT coalesce(max(from_tx), 0) FROM entry_versions WHERE kind = ?1")?
        .query_row([kind.as_str()], |row| row.get(0))?)
}

/// The transaction a read sees: the requested one (checked to exist) or
/// the newest.
fn resolve_as_of(conn: &Connection, requested: Option<TxId>) -> Result<TxId, StoreError> {
    crate::cursor::check_as_of(requested, head(conn)?)
}

/// The pinned transaction and offset of a paged listing.
fn start_page(
    conn: &Connection,
    cursor: Option<&str>,
    as_of: Option<TxId>,
    filters: u64,
) -> Result<(TxId, i64), StoreError> {
    let (requested, offset) = crate::cursor::page_start(cursor, as_of, filters)?;
    Ok((resolve_as_of(conn, requested)?, offset))
}

/// A safe FTS5 query: every word quoted (so no user text is FTS syntax),
/// joined with OR and ranked by BM25.
fn fts_query(text: &str) -> Result<String, StoreError> {
    Ok(crate::text::query_words(text)?
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(" OR "))
}

pub(crate) fn query_entries(
    conn: &Connection,
    query: &EntryQuery,
) -> Result<Page<Entry>, StoreError> {
    let limit = page_size(query.limit)?;
    let EntryFilter {
        topic,
        tags,
        min_confidence: _,
    } = EntryFilter::new(query.topic.as_deref(), &query.tags, query.min_confidence)?;
    let text = query
        .text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let min_confidence = query
        .min_confidence
        .map(|c| c.to_string())
        .unwrap_or_default();
    let kind = query.kind.map(EntryKind::as_str).unwrap_or_default();
    let mut parts = vec![
        "entries",
        text.unwrap_or(""),
        topic.as_deref().unwrap_or(""),
        &min_confidence,
        kind,
    ];
    parts.extend(tags.iter().map(String::as_str));
    let filters = fingerprint(&parts);
    let (as_of, offset) = start_page(conn, query.cursor.as_deref(), query.as_of_tx_id, filters)?;

    // Text queries rank FTS matches. The others pick the page's version
    // ids first, reading only indexes where they can (the topic index
    // covers the validity columns), or walking the newest versions first
    // when nothing narrows them; then they read just those rows.
    let v = if text.is_some() { "ev" } else { "v" };
    let mut sql = String::new();
    let mut args: Vec<SqlValue> = Vec::new();
    if let Some(text) = text {
        sql.push_str(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entry_text JOIN entry_versions ev ON ev.vid = entry_text.rowid
             WHERE entry_text MATCH ?1 AND ev.from_tx <= ?2 AND ev.to_tx > ?2 AND ev.deleted = 0"
        ));
        args.push(SqlValue::Text(fts_query(text)?));
    } else {
        sql.push_str(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entry_versions ev WHERE ev.vid IN (
               SELECT v.vid FROM entry_versions v
               WHERE ?1 IS NULL AND v.from_tx <= ?2 AND +v.to_tx > ?2 AND v.deleted = 0"
        ));
        args.push(SqlValue::Null);
    }
    args.push(SqlValue::Integer(as_of));
    if let Some(topic) = &topic {
        let n = args.len();
        sql.push_str(&format!(
            " AND {v}.topic_key >= ?{a} AND {v}.topic_key < ?{b}",
            a = n + 1,
            b = n + 2
        ));
        args.push(SqlValue::Text(topic.clone()));
        args.push(SqlValue::Text(format!("{topic}\u{10FFFF}")));
    }
    for tag in &tags {
        args.push(SqlValue::Text(tag.clone()));
        sql.push_str(&format!(
            " AND {v}.vid IN (SELECT vid FROM entry_tags WHERE tag = ?{})",
            args.len()
        ));
    }
    if let Some(c) = query.min_confidence {
        args.push(SqlValue::Real(c));
        sql.push_str(&format!(" AND {v}.confidence >= ?{}", args.len()));
    }
    if let Some(kind) = query.kind {
        args.push(SqlValue::Text(kind.as_str().to_string()));
        sql.push_str(&format!(" AND {v}.kind = ?{}", args.len()));
    }
    args.push(SqlValue::Integer(limit as i64 + 1));
    args.push(SqlValue::Integer(offset));
    let (l, o) = (args.len() - 1, args.len());
    if text.is_some() {
        sql.push_str(&format!(
            " ORDER BY bm25(entry_text, 3.0, 1.0, 2.0), ev.vid DESC LIMIT ?{l} OFFSET ?{o}"
        ));
    } else {
        sql.push_str(&format!(
            " ORDER BY v.vid DESC LIMIT ?{l} OFFSET ?{o}) ORDER BY ev.vid DESC"
        ));
    }

    let mut statement = conn.prepare_cached(&sql)?;
    let mut items = statement
        .query_map(params_from_iter(args), entry_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(finish_page(&mut items, limit, as_of, offset, filters))
}

/// The entries with these ids live as of a transaction, in no particular
/// order (ids without one then are left out).
pub(crate) fn entries_by_id(
    conn: &Connection,
    ids: &[String],
    as_of: TxId,
) -> Result<Vec<Entry>, StoreError> {
    let mut out = Vec::with_capacity(ids.len());
    // Well under SQLite's limit of bound parameters per statement.
    for chunk in ids.chunks(500) {
        let marks = (0..chunk.len())
            .map(|i| format!("?{}", i + 2))
            .collect::<Vec<_>>()
            .join(", ");
        let mut statement = conn.prepare(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entry_versions ev
             WHERE ev.id IN ({marks}) AND ev.from_tx <= ?1 AND ev.to_tx > ?1 AND ev.deleted = 0"
        ))?;
        let mut args = vec![SqlValue::Integer(as_of)];
        args.extend(chunk.iter().map(|id| SqlValue::Text(id.clone())));
        for entry in statement.query_map(params_from_iter(args), entry_from_row)? {
            out.push(entry?);
        }
    }
    Ok(out)
}

/// Every live entry (of one kind, or all) as of a transaction, oldest
/// first, with the transaction read.
pub(crate) fn entries_at(
    conn: &Connection,
    kind: Option<EntryKind>,
    as_of: Option<TxId>,
) -> Result<(TxId, Vec<Entry>), StoreError> {
    let as_of = resolve_as_of(conn, as_of)?;
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {ENTRY_COLUMNS} FROM entry_versions ev
         WHERE ev.from_tx <= ?1 AND ev.to_tx > ?1 AND ev.deleted = 0 AND (?2 IS NULL OR ev.kind = ?2)
         ORDER BY ev.vid"
    ))?;
    let items = statement
        .query_map(params![as_of, kind.map(EntryKind::as_str)], entry_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok((as_of, items))
}

pub(crate) fn list_triples(
    conn: &Connection,
    query: &TripleQuery,
) -> Result<Page<Triple>, StoreError> {
    let limit = page_size(query.limit)?;
    let filters = fingerprint(&[
        "triples",
        query.subject.as_deref().unwrap_or(""),
        query.predicate.as_deref().unwrap_or(""),
        query.object.as_deref().unwrap_or(""),
    ]);
    let (as_of, offset) = start_page(conn, query.cursor.as_deref(), query.as_of_tx_id, filters)?;
    let mut sql = format!(
        "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv WHERE tv.from_tx <= ?1 AND +tv.to_tx > ?1 AND tv.deleted = 0"
    );
    let mut args = vec![SqlValue::Integer(as_of)];
    for (column, value) in [
        ("subject", &query.subject),
        ("predicate", &query.predicate),
        ("object", &query.object),
    ] {
        if let Some(value) = value {
            args.push(SqlValue::Text(value.trim().to_string()));
            sql.push_str(&format!(" AND tv.{column} = ?{}", args.len()));
        }
    }
    args.push(SqlValue::Integer(limit as i64 + 1));
    args.push(SqlValue::Integer(offset));
    sql.push_str(&format!(
        " ORDER BY tv.vid DESC LIMIT ?{} OFFSET ?{}",
        args.len() - 1,
        args.len()
    ));
    let mut statement = conn.prepare_cached(&sql)?;
    let mut items = statement
        .query_map(params_from_iter(args), triple_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(finish_page(&mut items, limit, as_of, offset, filters))
}

pub(crate) fn query_graph(
    conn: &Connection,
    query: &GraphQuery,
) -> Result<GraphResult, StoreError> {
    crate::graph::walk(
        query,
        |requested| resolve_as_of(conn, requested),
        |node, from, as_of, predicate| {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
                 WHERE tv.{from} = ?1 AND tv.to_tx > ?2 AND tv.from_tx <= ?2 AND tv.deleted = 0
                   AND (?3 IS NULL OR tv.predicate = ?3)
                 ORDER BY tv.vid",
                from = from.column()
            ))?;
            let found = statement
                .query_map(params![node, as_of, predicate], triple_from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(found)
        },
    )
}

fn transaction_from_row(row: &Row<'_>) -> rusqlite::Result<Transaction> {
    Ok(Transaction {
        tx_id: row.get(0)?,
        at: row.get(1)?,
        actor: row.get(2)?,
        kind: row.get(3)?,
        summary: row.get(4)?,
        reverts_tx_id: row.get(5)?,
        changed_ids: Vec::new(),
        changed_ids_truncated: false,
    })
}

/// The ids a transaction wrote, capped.
fn changed_ids(conn: &Connection, tx_id: TxId) -> Result<(Vec<String>, bool), StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT id FROM (SELECT id, vid, 0 AS t FROM entry_versions WHERE from_tx = ?1
                         UNION ALL SELECT id, vid, 1 AS t FROM triple_versions WHERE from_tx = ?1)
         ORDER BY t, vid LIMIT ?2",
    )?;
    let mut ids = statement
        .query_map(params![tx_id, CHANGED_IDS_CAP as i64 + 1], |row| {
            row.get::<_, String>(0)
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let cut = ids.len() > CHANGED_IDS_CAP;
    ids.truncate(CHANGED_IDS_CAP);
    Ok((ids, cut))
}

pub(crate) fn history(
    conn: &Connection,
    query: &HistoryQuery,
) -> Result<Page<HistoryItem>, StoreError> {
    let limit = page_size(query.limit)?;
    let id = query.id.as_deref().map(str::trim);
    let since = query.since_tx_id;
    if let Some(s) = since
        && s < 0
    {
        return Err(StoreError::Invalid(
            "since_tx_id must be 0 or more".to_string(),
        ));
    }
    let since_text = since.map(|s| s.to_string()).unwrap_or_default();
    let filters = fingerprint(&["history", id.unwrap_or(""), &since_text]);
    if let Some(id) = id {
        let known: bool = conn
            .prepare_cached(
                "SELECT EXISTS(SELECT 1 FROM entry_versions WHERE id = ?1)
                     OR EXISTS(SELECT 1 FROM triple_versions WHERE id = ?1)",
            )?
            .query_row([id], |row| row.get(0))?;
        if !known {
            return Err(StoreError::NotFound(format!(
                "no entry or triple with id {id} was ever stored"
            )));
        }
    }
    // Newest first, pinned to as_of (the position is the last tx shown);
    // or, with since_tx_id, oldest first after it (the polling path).
    let (as_of, position) = match &query.cursor {
        Some(text) => {
            let cursor = Cursor::decode(text, filters)?;
            (cursor.as_of, cursor.position)
        }
        None => {
            let as_of = resolve_as_of(conn, query.as_of_tx_id)?;
            match since {
                Some(s) => (as_of, s),
                None => (as_of, as_of + 1),
            }
        }
    };
    let mut transactions = match id {
        // One id: its versions name its transactions (a handful), so read
        // those instead of filtering the whole log.
        Some(id) => {
            let mut statement = conn.prepare_cached(
                "SELECT t.tx_id, t.at, t.actor, t.kind, t.summary, t.reverts_tx_id FROM transactions t
                 WHERE t.tx_id IN (SELECT from_tx FROM entry_versions WHERE id = ?1
                                   UNION SELECT from_tx FROM triple_versions WHERE id = ?1)",
            )?;
            let mut all = statement
                .query_map([id], transaction_from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            if since.is_some() {
                all.retain(|t| t.tx_id > position);
                all.sort_by_key(|t| t.tx_id);
            } else {
                all.retain(|t| t.tx_id < position && t.tx_id <= as_of);
                all.sort_by_key(|t| std::cmp::Reverse(t.tx_id));
            }
            all.truncate(limit + 1);
            all
        }
        None => {
            let sql = if since.is_some() {
                "SELECT t.tx_id, t.at, t.actor, t.kind, t.summary, t.reverts_tx_id FROM transactions t
                 WHERE t.tx_id > ?1 AND ?2 >= 0 ORDER BY t.tx_id LIMIT ?3"
            } else {
                "SELECT t.tx_id, t.at, t.actor, t.kind, t.summary, t.reverts_tx_id FROM transactions t
                 WHERE t.tx_id < ?1 AND t.tx_id <= ?2 ORDER BY t.tx_id DESC LIMIT ?3"
            };
            let mut statement = conn.prepare_cached(sql)?;
            statement
                .query_map(
                    params![position, as_of, limit as i64 + 1],
                    transaction_from_row,
                )?
                .collect::<Result<Vec<_>, _>>()?
        }
    };
    let more = transactions.len() > limit;
    transactions.truncate(limit);
    let next_cursor = match transactions.last() {
        Some(last) if more => Some(
            Cursor {
                as_of,
                position: last.tx_id,
                filters,
            }
            .encode(),
        ),
        _ => None,
    };
    let mut items = Vec::with_capacity(transactions.len());
    for mut transaction in transactions {
        let (ids, cut) = changed_ids(conn, transaction.tx_id)?;
        transaction.changed_ids = ids;
        transaction.changed_ids_truncated = cut;
        let state = match id {
            Some(id) => Some(version_written(conn, id, transaction.tx_id)?),
            None => None,
        };
        items.push(HistoryItem { transaction, state });
    }
    Ok(Page {
        items,
        next_cursor,
        as_of_tx_id: if since.is_some() { head(conn)? } else { as_of },
    })
}

/// See [`crate::KnowledgeStore::transaction_stamped`]. `substr`, not
/// `LIKE`: a stamp's `_` is no wildcard.
pub(crate) fn transaction_stamped(
    conn: &Connection,
    prefix: &str,
) -> Result<Option<TxId>, StoreError> {
    if prefix.is_empty() {
        return Err(StoreError::Refused("a stamp must not be empty".into()));
    }
    Ok(conn
        .prepare_cached(
            "SELECT tx_id FROM transactions WHERE substr(summary, 1, length(?1)) = ?1
             ORDER BY tx_id DESC LIMIT 1",
        )?
        .query_row([prefix], |row| row.get(0))
        .optional()?)
}

/// See [`crate::KnowledgeStore::reverted_by`].
pub(crate) fn reverted_by(conn: &Connection, tx_id: TxId) -> Result<Option<TxId>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT min(tx_id) FROM transactions WHERE reverts_tx_id = ?1")?
        .query_row([tx_id], |row| row.get(0))?)
}

/// The version of `id` that transaction `tx_id` wrote, as JSON.
fn version_written(
    conn: &Connection,
    id: &str,
    tx_id: TxId,
) -> Result<serde_json::Value, StoreError> {
    let entry = conn
        .prepare_cached(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entry_versions ev WHERE ev.id = ?1 AND ev.from_tx = ?2"
        ))?
        .query_row(params![id, tx_id], entry_from_row)
        .optional()?;
    if let Some(entry) = entry {
        return Ok(serde_json::to_value(entry).unwrap_or_default());
    }
    let triple = conn
        .prepare_cached(&format!(
            "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv WHERE tv.id = ?1 AND tv.from_tx = ?2"
        ))?
        .query_row(params![id, tx_id], triple_from_row)
        .optional()?;
    Ok(triple
        .map(|t| serde_json::to_value(t).unwrap_or_default())
        .unwrap_or_default())
}

pub(crate) fn get(
    conn: &Connection,
    id: &str,
    as_of: Option<TxId>,
) -> Result<serde_json::Value, StoreError> {
    let as_of = resolve_as_of(conn, as_of)?;
    let id = id.trim();
    let value = if id.starts_with("t-") {
        conn.prepare_cached(&format!(
            "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv WHERE tv.id = ?1 AND tv.from_tx <= ?2 AND tv.to_tx > ?2 AND tv.deleted = 0"
        ))?
        .query_row(params![id, as_of], triple_from_row)
        .optional()?
        .map(|t| serde_json::to_value(t).unwrap_or_default())
    } else {
        conn.prepare_cached(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entry_versions ev WHERE ev.id = ?1 AND ev.from_tx <= ?2 AND ev.to_tx > ?2 AND ev.deleted = 0"
        ))?
        .query_row(params![id, as_of], entry_from_row)
        .optional()?
        .map(|e| serde_json::to_value(e).unwrap_or_default())
    };
    value.ok_or_else(|| {
        StoreError::NotFound(format!(
            "no entry or triple {id} as of transaction {as_of}; see history {{\"id\": \"{id}\"}}"
        ))
    })
}

pub(crate) fn changes_since(
    conn: &Connection,
    after: TxId,
    limit: usize,
) -> Result<Vec<TxChanges>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT tx_id FROM transactions WHERE tx_id > ?1 ORDER BY tx_id LIMIT ?2",
    )?;
    let tx_ids = statement
        .query_map(params![after, limit as i64], |row| row.get::<_, TxId>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(tx_ids.len());
    for tx_id in tx_ids {
        let rows = |table: &str| -> Result<Vec<(String, ChangeType)>, StoreError> {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT id, deleted FROM {table} WHERE from_tx = ?1 ORDER BY vid"
            ))?;
            let rows = statement
                .query_map([tx_id], |row| {
                    let deleted: bool = row.get(1)?;
                    Ok((
                        row.get::<_, String>(0)?,
                        if deleted {
                            ChangeType::Delete
                        } else {
                            ChangeType::Upsert
                        },
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        };
        out.push(TxChanges {
            tx_id,
            entries: rows("entry_versions")?,
            triples: rows("triple_versions")?,
        });
    }
    Ok(out)
}

pub(crate) fn check(conn: &Connection) -> Result<StoreHealth, StoreError> {
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |row| row.get(0))?;
    let schema_version: i64 = conn.query_row(
        "SELECT coalesce(max(version), 0) FROM schema_migrations",
        [],
        |row| row.get(0),
    )?;
    let count = |sql: &str| -> Result<i64, StoreError> {
        Ok(conn.query_row(sql, [OPEN], |row| row.get(0))?)
    };
    let entries = count("SELECT count(*) FROM entry_versions WHERE to_tx = ?1 AND deleted = 0")?;
    let triples = count("SELECT count(*) FROM triple_versions WHERE to_tx = ?1 AND deleted = 0")?;
    let orphans: i64 = conn.query_row(
        "SELECT count(*) FROM transactions t
         WHERE NOT EXISTS (SELECT 1 FROM entry_versions WHERE from_tx = t.tx_id)
           AND NOT EXISTS (SELECT 1 FROM triple_versions WHERE from_tx = t.tx_id)",
        [],
        |row| row.get(0),
    )?;
    Ok(StoreHealth {
        integrity_ok: integrity == "ok",
        schema_version,
        head_tx_id: head(conn)?,
        entries,
        triples,
        transactions_without_rows: orphans,
    })
}
