//! Reads, as the SQLite store's (`sqlite/read.rs`): every read names the
//! transaction it reads as of (the newest one when the caller gives none)
//! and selects the versions valid then: `from_tx <= as_of AND to_tx >
//! as_of`. Writers commit in transaction order (see `write.rs`), so a
//! reader that sees transaction N sees every transaction before it, and
//! a pinned read needs no read transaction of its own.

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::schema::OPEN;
use super::session::{Session, get};
use crate::cursor::{Cursor, fingerprint, finish_page};
use crate::error::StoreError;
use crate::model::*;

/// The columns [`entry_from_row`] reads, from `entry_versions ev`.
pub(super) const ENTRY_COLUMNS: &str = "ev.id, ev.version, ev.from_tx, ev.deleted, ev.kind, ev.topic, ev.content, ev.confidence, ev.tags, ev.source, ev.recorded_at, ev.updated_at";

/// The columns [`triple_from_row`] reads, from `triple_versions tv`.
pub(super) const TRIPLE_COLUMNS: &str = "tv.id, tv.version, tv.from_tx, tv.deleted, tv.subject, tv.predicate, tv.object, tv.confidence, tv.properties";

/// The text search configuration of `entry_versions.search`.
pub(super) const SEARCH_CONFIG: &str = "'lore_english'::regconfig";

pub(super) fn entry_from_row(row: &Row) -> Result<Entry, StoreError> {
    let kind: String = get(row, 4)?;
    Ok(Entry {
        id: get(row, 0)?,
        version: get(row, 1)?,
        tx_id: get(row, 2)?,
        deleted: get(row, 3)?,
        kind: EntryKind::parse(&kind).unwrap_or(EntryKind::Note),
        topic: get(row, 5)?,
        content: get(row, 6)?,
        confidence: get(row, 7)?,
        tags: get(row, 8)?,
        source: get(row, 9)?,
        recorded_at: get(row, 10)?,
        updated_at: get(row, 11)?,
    })
}

pub(super) fn triple_from_row(row: &Row) -> Result<Triple, StoreError> {
    let properties: Option<String> = get(row, 8)?;
    Ok(Triple {
        id: get(row, 0)?,
        version: get(row, 1)?,
        tx_id: get(row, 2)?,
        deleted: get(row, 3)?,
        subject: get(row, 4)?,
        predicate: get(row, 5)?,
        object: get(row, 6)?,
        confidence: get(row, 7)?,
        properties: properties.and_then(|p| match serde_json::from_str(&p) {
            Ok(serde_json::Value::Object(map)) => Some(map),
            _ => None,
        }),
    })
}

/// Every row decoded with `decode`.
pub(super) fn decode_all<T>(
    rows: Vec<Row>,
    decode: fn(&Row) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    rows.iter().map(decode).collect()
}

pub(super) fn head(session: &mut Session) -> Result<TxId, StoreError> {
    let row = session.query_one(
        "SELECT coalesce(max(tx_id), 0)::BIGINT FROM transactions",
        &[],
    )?;
    get(&row, 0)
}

/// The newest transaction that wrote a version of an entry of `kind`.
pub(super) fn kind_head(session: &mut Session, kind: EntryKind) -> Result<TxId, StoreError> {
    let row = session.query_one(
        "SELECT coalesce(max(from_tx), 0)::BIGINT FROM entry_versions WHERE kind = $1",
        &[&kind.as_str()],
    )?;
    get(&row, 0)
}

/// The transaction a read sees: the requested one (checked to exist) or
/// the newest.
fn resolve_as_of(session: &mut Session, requested: Option<TxId>) -> Result<TxId, StoreError> {
    crate::cursor::check_as_of(requested, head(session)?)
}

/// The pinned transaction and offset of a paged listing.
fn start_page(
    session: &mut Session,
    cursor: Option<&str>,
    as_of: Option<TxId>,
    filters: u64,
) -> Result<(TxId, i64), StoreError> {
    let (requested, offset) = crate::cursor::page_start(cursor, as_of, filters)?;
    Ok((resolve_as_of(session, requested)?, offset))
}

/// A `tsquery` matching any of the words of `text` (each quoted, so no
/// user text is query syntax: the words hold only letters and digits).
fn ts_query(text: &str) -> Result<String, StoreError> {
    Ok(crate::text::query_words(text)?
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" | "))
}

/// Parameters of a query built from filters.
#[derive(Default)]
struct Args(Vec<Box<dyn ToSql + Sync>>);

impl Args {
    /// Adds a parameter; returns its placeholder (`$n`).
    fn push(&mut self, value: impl ToSql + Sync + 'static) -> String {
        self.0.push(Box::new(value));
        format!("${}", self.0.len())
    }

    fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.0.iter().map(|b| b.as_ref()).collect()
    }
}

pub(super) fn query_entries(
    session: &mut Session,
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
    let (as_of, offset) = start_page(session, query.cursor.as_deref(), query.as_of_tx_id, filters)?;

    let mut args = Args::default();
    let at = args.push(as_of);
    let mut sql = format!(
        "SELECT {ENTRY_COLUMNS} FROM entry_versions ev
         WHERE ev.from_tx <= {at} AND ev.to_tx > {at} AND NOT ev.deleted"
    );
    let ranked = match text {
        Some(text) => {
            let q = args.push(ts_query(text)?);
            sql.push_str(&format!(
                " AND ev.search @@ to_tsquery({SEARCH_CONFIG}, {q})"
            ));
            Some(q)
        }
        None => None,
    };
    if let Some(topic) = &topic {
        let from = args.push(topic.clone());
        let to = args.push(format!("{topic}\u{10FFFF}"));
        sql.push_str(&format!(
            " AND ev.topic_key >= {from} AND ev.topic_key < {to}"
        ));
    }
    if !tags.is_empty() {
        let all = args.push(tags.clone());
        sql.push_str(&format!(" AND ev.tags @> {all}::TEXT[]"));
    }
    if let Some(c) = query.min_confidence {
        let least = args.push(c);
        sql.push_str(&format!(" AND ev.confidence >= {least}"));
    }
    if let Some(kind) = query.kind {
        let kind = args.push(kind.as_str());
        sql.push_str(&format!(" AND ev.kind = {kind}"));
    }
    // Topic 3, tags 2, content 1 (the weights SQLite's BM25 ranks with,
    // scaled to the 0..1 `ts_rank` takes; the array is D, C, B, A).
    match ranked {
        Some(q) => sql.push_str(&format!(
            " ORDER BY ts_rank('{{0.0, 0.333333, 0.666667, 1.0}}'::FLOAT4[], ev.search, to_tsquery({SEARCH_CONFIG}, {q})) DESC, ev.vid DESC"
        )),
        None => sql.push_str(" ORDER BY ev.vid DESC"),
    }
    let l = args.push(limit as i64 + 1);
    let o = args.push(offset);
    sql.push_str(&format!(" LIMIT {l} OFFSET {o}"));

    let rows = session.query(&sql, &args.refs())?;
    let mut items = decode_all(rows, entry_from_row)?;
    Ok(finish_page(&mut items, limit, as_of, offset, filters))
}

/// The entries with these ids live as of a transaction, in no particular
/// order (ids without one then are left out).
pub(super) fn entries_by_id(
    session: &mut Session,
    ids: &[String],
    as_of: TxId,
) -> Result<Vec<Entry>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows = session.query(
        &format!(
            "SELECT {ENTRY_COLUMNS} FROM entry_versions ev
             WHERE ev.id = ANY($2) AND ev.from_tx <= $1 AND ev.to_tx > $1 AND NOT ev.deleted"
        ),
        &[&as_of, &ids],
    )?;
    decode_all(rows, entry_from_row)
}

/// Every live entry (of one kind, or all) as of a transaction, oldest
/// first, with the transaction read.
pub(super) fn entries_at(
    session: &mut Session,
    kind: Option<EntryKind>,
    as_of: Option<TxId>,
) -> Result<(TxId, Vec<Entry>), StoreError> {
    let as_of = resolve_as_of(session, as_of)?;
    let rows = session.query(
        &format!(
            "SELECT {ENTRY_COLUMNS} FROM entry_versions ev
             WHERE ev.from_tx <= $1 AND ev.to_tx > $1 AND NOT ev.deleted
               AND ($2::TEXT IS NULL OR ev.kind = $2)
             ORDER BY ev.vid"
        ),
        &[&as_of, &kind.map(EntryKind::as_str)],
    )?;
    Ok((as_of, decode_all(rows, entry_from_row)?))
}

pub(super) fn list_triples(
    session: &mut Session,
    query: &TripleQuery,
) -> Result<Page<Triple>, StoreError> {
    let limit = page_size(query.limit)?;
    let filters = fingerprint(&[
        "triples",
        query.subject.as_deref().unwrap_or(""),
        query.predicate.as_deref().unwrap_or(""),
        query.object.as_deref().unwrap_or(""),
    ]);
    let (as_of, offset) = start_page(session, query.cursor.as_deref(), query.as_of_tx_id, filters)?;
    let mut args = Args::default();
    let at = args.push(as_of);
    let mut sql = format!(
        "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
         WHERE tv.from_tx <= {at} AND tv.to_tx > {at} AND NOT tv.deleted"
    );
    for (column, value) in [
        ("subject", &query.subject),
        ("predicate", &query.predicate),
        ("object", &query.object),
    ] {
        if let Some(value) = value {
            let p = args.push(value.trim().to_string());
            sql.push_str(&format!(" AND tv.{column} = {p}"));
        }
    }
    let l = args.push(limit as i64 + 1);
    let o = args.push(offset);
    sql.push_str(&format!(" ORDER BY tv.vid DESC LIMIT {l} OFFSET {o}"));
    let rows = session.query(&sql, &args.refs())?;
    let mut items = decode_all(rows, triple_from_row)?;
    Ok(finish_page(&mut items, limit, as_of, offset, filters))
}

pub(super) fn query_graph(
    session: &mut Session,
    query: &GraphQuery,
) -> Result<GraphResult, StoreError> {
    // Both steps use the session, one after the other.
    let session = std::cell::RefCell::new(session);
    crate::graph::walk(
        query,
        |requested| resolve_as_of(&mut session.borrow_mut(), requested),
        |node, from, as_of, predicate| {
            let rows = session.borrow_mut().query(
                &format!(
                    "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
                     WHERE tv.{from} = $1 AND tv.to_tx > $2 AND tv.from_tx <= $2 AND NOT tv.deleted
                       AND ($3::TEXT IS NULL OR tv.predicate = $3)
                     ORDER BY tv.vid",
                    from = from.column()
                ),
                &[&node, &as_of, &predicate],
            )?;
            decode_all(rows, triple_from_row)
        },
    )
}

fn transaction_from_row(row: &Row) -> Result<Transaction, StoreError> {
    Ok(Transaction {
        tx_id: get(row, 0)?,
        at: get(row, 1)?,
        actor: get(row, 2)?,
        kind: get(row, 3)?,
        summary: get(row, 4)?,
        reverts_tx_id: get(row, 5)?,
        changed_ids: Vec::new(),
        changed_ids_truncated: false,
    })
}

/// The ids a transaction wrote, capped.
fn changed_ids(session: &mut Session, tx_id: TxId) -> Result<(Vec<String>, bool), StoreError> {
    let rows = session.query(
        "SELECT id FROM (SELECT id, vid, 0 AS t FROM entry_versions WHERE from_tx = $1
                         UNION ALL SELECT id, vid, 1 AS t FROM triple_versions WHERE from_tx = $1) changed
         ORDER BY t, vid LIMIT $2",
        &[&tx_id, &(CHANGED_IDS_CAP as i64 + 1)],
    )?;
    let mut ids = rows
        .iter()
        .map(|row| get::<String>(row, 0))
        .collect::<Result<Vec<_>, _>>()?;
    let cut = ids.len() > CHANGED_IDS_CAP;
    ids.truncate(CHANGED_IDS_CAP);
    Ok((ids, cut))
}

const TRANSACTION_COLUMNS: &str = "t.tx_id, t.at, t.actor, t.kind, t.summary, t.reverts_tx_id";

/// See [`crate::KnowledgeStore::history`]: one page of transactions, with
/// what each changed (and, for one id, the version it wrote).
pub(super) fn history(
    session: &mut Session,
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
        refuse_unknown_id(session, id)?;
    }
    // Newest first, pinned to as_of (the position is the last tx shown);
    // or, with since_tx_id, oldest first after it (the polling path).
    let (as_of, position) = match &query.cursor {
        Some(text) => {
            let cursor = Cursor::decode(text, filters)?;
            (cursor.as_of, cursor.position)
        }
        None => {
            let as_of = resolve_as_of(session, query.as_of_tx_id)?;
            match since {
                Some(s) => (as_of, s),
                None => (as_of, as_of + 1),
            }
        }
    };
    let mut transactions = transactions_page(session, id, since.is_some(), position, as_of, limit)?;
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
        let (ids, cut) = changed_ids(session, transaction.tx_id)?;
        transaction.changed_ids = ids;
        transaction.changed_ids_truncated = cut;
        let state = match id {
            Some(id) => Some(version_written(session, id, transaction.tx_id)?),
            None => None,
        };
        items.push(HistoryItem { transaction, state });
    }
    Ok(Page {
        items,
        next_cursor,
        as_of_tx_id: if since.is_some() {
            head(session)?
        } else {
            as_of
        },
    })
}

/// A `not_found` unless a version of the entry or triple `id` was ever
/// stored.
fn refuse_unknown_id(session: &mut Session, id: &str) -> Result<(), StoreError> {
    let row = session.query_one(
        "SELECT EXISTS(SELECT 1 FROM entry_versions WHERE id = $1)
             OR EXISTS(SELECT 1 FROM triple_versions WHERE id = $1)",
        &[&id],
    )?;
    let known: bool = get(&row, 0)?;
    if !known {
        return Err(StoreError::NotFound(format!(
            "no entry or triple with id {id} was ever stored"
        )));
    }
    Ok(())
}

/// The transactions of one page of [`history`], and one more when more
/// follow: those that wrote a version of `id` (all when `None`); when
/// `polling` (`since_tx_id`), oldest first after `position`, otherwise
/// newest first before `position` and up to `as_of`.
fn transactions_page(
    session: &mut Session,
    id: Option<&str>,
    polling: bool,
    position: TxId,
    as_of: TxId,
    limit: usize,
) -> Result<Vec<Transaction>, StoreError> {
    Ok(match id {
        // One id: its versions name its transactions (a handful), so read
        // those instead of filtering the whole log.
        Some(id) => {
            let rows = session.query(
                &format!(
                    "SELECT {TRANSACTION_COLUMNS} FROM transactions t
                     WHERE t.tx_id IN (SELECT from_tx FROM entry_versions WHERE id = $1
                                       UNION SELECT from_tx FROM triple_versions WHERE id = $1)"
                ),
                &[&id],
            )?;
            let mut all = decode_all(rows, transaction_from_row)?;
            if polling {
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
            let rows = if polling {
                session.query(
                    &format!(
                        "SELECT {TRANSACTION_COLUMNS} FROM transactions t
                         WHERE t.tx_id > $1 ORDER BY t.tx_id LIMIT $2"
                    ),
                    &[&position, &(limit as i64 + 1)],
                )?
            } else {
                session.query(
                    &format!(
                        "SELECT {TRANSACTION_COLUMNS} FROM transactions t
                         WHERE t.tx_id < $1 AND t.tx_id <= $2 ORDER BY t.tx_id DESC LIMIT $3"
                    ),
                    &[&position, &as_of, &(limit as i64 + 1)],
                )?
            };
            decode_all(rows, transaction_from_row)?
        }
    })
}

/// See [`crate::KnowledgeStore::transaction_stamped`].
pub(super) fn transaction_stamped(
    session: &mut Session,
    prefix: &str,
) -> Result<Option<TxId>, StoreError> {
    if prefix.is_empty() {
        return Err(StoreError::Refused("a stamp must not be empty".into()));
    }
    session
        .query_opt(
            "SELECT tx_id FROM transactions WHERE starts_with(summary, $1)
             ORDER BY tx_id DESC LIMIT 1",
            &[&prefix],
        )?
        .map(|row| get(&row, 0))
        .transpose()
}

/// See [`crate::KnowledgeStore::reverted_by`].
pub(super) fn reverted_by(session: &mut Session, tx_id: TxId) -> Result<Option<TxId>, StoreError> {
    session
        .query_opt(
            "SELECT min(tx_id) FROM transactions WHERE reverts_tx_id = $1",
            &[&tx_id],
        )?
        .map(|row| get::<Option<TxId>>(&row, 0))
        .transpose()
        .map(Option::flatten)
}

/// The version of `id` that transaction `tx_id` wrote, as JSON.
fn version_written(
    session: &mut Session,
    id: &str,
    tx_id: TxId,
) -> Result<serde_json::Value, StoreError> {
    let entry = session
        .query_opt(
            &format!(
                "SELECT {ENTRY_COLUMNS} FROM entry_versions ev WHERE ev.id = $1 AND ev.from_tx = $2"
            ),
            &[&id, &tx_id],
        )?
        .map(|row| entry_from_row(&row))
        .transpose()?;
    if let Some(entry) = entry {
        return Ok(serde_json::to_value(entry).unwrap_or_default());
    }
    let triple = session
        .query_opt(
            &format!(
                "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv WHERE tv.id = $1 AND tv.from_tx = $2"
            ),
            &[&id, &tx_id],
        )?
        .map(|row| triple_from_row(&row))
        .transpose()?;
    Ok(triple
        .map(|t| serde_json::to_value(t).unwrap_or_default())
        .unwrap_or_default())
}

pub(super) fn get_one(
    session: &mut Session,
    id: &str,
    as_of: Option<TxId>,
) -> Result<serde_json::Value, StoreError> {
    let as_of = resolve_as_of(session, as_of)?;
    let id = id.trim();
    let value = if id.starts_with("t-") {
        session
            .query_opt(
                &format!(
                    "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
                     WHERE tv.id = $1 AND tv.from_tx <= $2 AND tv.to_tx > $2 AND NOT tv.deleted"
                ),
                &[&id, &as_of],
            )?
            .map(|row| triple_from_row(&row))
            .transpose()?
            .map(|t| serde_json::to_value(t).unwrap_or_default())
    } else {
        session
            .query_opt(
                &format!(
                    "SELECT {ENTRY_COLUMNS} FROM entry_versions ev
                     WHERE ev.id = $1 AND ev.from_tx <= $2 AND ev.to_tx > $2 AND NOT ev.deleted"
                ),
                &[&id, &as_of],
            )?
            .map(|row| entry_from_row(&row))
            .transpose()?
            .map(|e| serde_json::to_value(e).unwrap_or_default())
    };
    value.ok_or_else(|| {
        StoreError::NotFound(format!(
            "no entry or triple {id} as of transaction {as_of}; see history {{\"id\": \"{id}\"}}"
        ))
    })
}

pub(super) fn changes_since(
    session: &mut Session,
    after: TxId,
    limit: usize,
) -> Result<Vec<TxChanges>, StoreError> {
    let rows = session.query(
        "SELECT tx_id FROM transactions WHERE tx_id > $1 ORDER BY tx_id LIMIT $2",
        // `usize::MAX` reads everything, as in SQLite (where it wraps to a
        // negative LIMIT: none).
        &[&after, &i64::try_from(limit).unwrap_or(i64::MAX)],
    )?;
    let tx_ids = rows
        .iter()
        .map(|row| get::<TxId>(row, 0))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(tx_ids.len());
    for tx_id in tx_ids {
        let mut rows = |table: &str| -> Result<Vec<(String, ChangeType)>, StoreError> {
            let rows = session.query(
                &format!("SELECT id, deleted FROM {table} WHERE from_tx = $1 ORDER BY vid"),
                &[&tx_id],
            )?;
            rows.iter()
                .map(|row| {
                    let deleted: bool = get(row, 1)?;
                    Ok((
                        get::<String>(row, 0)?,
                        if deleted {
                            ChangeType::Delete
                        } else {
                            ChangeType::Upsert
                        },
                    ))
                })
                .collect()
        };
        let entries = rows("entry_versions")?;
        let triples = rows("triple_versions")?;
        out.push(TxChanges {
            tx_id,
            entries,
            triples,
        });
    }
    Ok(out)
}

/// Counts what the store holds and checks what PostgreSQL does not check
/// itself: every entry and triple has exactly one current version, and
/// the transaction counter is the newest transaction.
pub(super) fn check(session: &mut Session) -> Result<StoreHealth, StoreError> {
    let schema_version: i64 = get(
        &session.query_one(
            "SELECT coalesce(max(version), 0)::BIGINT FROM schema_migrations",
            &[],
        )?,
        0,
    )?;
    let mut count = |sql: &str| -> Result<i64, StoreError> {
        let row = session.query_one(sql, &[&OPEN])?;
        get(&row, 0)
    };
    let entries = count("SELECT count(*) FROM entry_versions WHERE to_tx = $1 AND NOT deleted")?;
    let triples = count("SELECT count(*) FROM triple_versions WHERE to_tx = $1 AND NOT deleted")?;
    let not_one_current = count(
        "SELECT (SELECT count(*) FROM (SELECT id FROM entry_versions GROUP BY id
                                       HAVING count(*) FILTER (WHERE to_tx = $1) <> 1) e)
              + (SELECT count(*) FROM (SELECT id FROM triple_versions GROUP BY id
                                       HAVING count(*) FILTER (WHERE to_tx = $1) <> 1) t)",
    )?;
    let head = head(session)?;
    let counter: i64 = get(
        &session.query_one("SELECT value FROM counters WHERE name = 'tx'", &[])?,
        0,
    )?;
    let orphans: i64 = get(
        &session.query_one(
            "SELECT count(*) FROM transactions t
             WHERE NOT EXISTS (SELECT 1 FROM entry_versions WHERE from_tx = t.tx_id)
               AND NOT EXISTS (SELECT 1 FROM triple_versions WHERE from_tx = t.tx_id)",
            &[],
        )?,
        0,
    )?;
    Ok(StoreHealth {
        integrity_ok: not_one_current == 0 && counter == head,
        schema_version,
        head_tx_id: head,
        entries,
        triples,
        transactions_without_rows: orphans,
    })
}
