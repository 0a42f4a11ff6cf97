//! Writes: each public function here is one `BEGIN IMMEDIATE` transaction
//! that either commits whole or leaves nothing (a dropped
//! `rusqlite::Transaction` rolls back).

use lore_core::time::UtcMillis;
use rusqlite::{Connection, OptionalExtension, Transaction as SqlTx, TransactionBehavior, params};

use super::read::{ENTRY_COLUMNS, TRIPLE_COLUMNS, entry_from_row, triple_from_row};
use super::schema::OPEN;
use crate::error::StoreError;
use crate::model::*;
use crate::rules::{
    EntryState, Spo, TopicChange, TripleState, check_expected_version, check_node, check_patch,
    clip, missing, nothing_to_undo, patched, relate_plan, undo_conflict, update_summary,
};

fn begin(conn: &mut Connection) -> Result<SqlTx<'_>, StoreError> {
    Ok(conn.transaction_with_behavior(TransactionBehavior::Immediate)?)
}

/// Appends the transaction record and returns its id.
fn log_transaction(
    tx: &SqlTx<'_>,
    actor: &str,
    kind: &str,
    summary: &str,
    reverts: Option<TxId>,
) -> Result<(TxId, String), StoreError> {
    let at = UtcMillis::now().to_iso();
    tx.prepare_cached(
        "INSERT INTO transactions (at, actor, kind, summary, reverts_tx_id) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![at, actor, kind, summary, reverts])?;
    Ok((tx.last_insert_rowid(), at))
}

fn next_vid(tx: &SqlTx<'_>, table: &str) -> Result<i64, StoreError> {
    Ok(tx
        .prepare_cached(&format!("SELECT coalesce(max(vid), 0) + 1 FROM {table}"))?
        .query_row([], |row| row.get(0))?)
}

/// The version of an entry whose validity ends at `to_tx`: the current
/// one (a tombstone included) for [`OPEN`], or the one transaction
/// `to_tx` replaced.
fn entry_ending(tx: &SqlTx<'_>, id: &str, to_tx: TxId) -> Result<Option<Entry>, StoreError> {
    Ok(tx
        .prepare_cached(&format!(
            "SELECT {ENTRY_COLUMNS} FROM entry_versions ev WHERE id = ?1 AND to_tx = ?2"
        ))?
        .query_row(params![id, to_tx], entry_from_row)
        .optional()?)
}

/// Like [`entry_ending`], for a triple.
fn triple_ending(tx: &SqlTx<'_>, id: &str, to_tx: TxId) -> Result<Option<Triple>, StoreError> {
    Ok(tx
        .prepare_cached(&format!(
            "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv WHERE id = ?1 AND to_tx = ?2"
        ))?
        .query_row(params![id, to_tx], triple_from_row)
        .optional()?)
}

/// A live entry or a `not_found` that says how to get a deleted one back.
fn live_entry(tx: &SqlTx<'_>, id: &str) -> Result<Entry, StoreError> {
    match entry_ending(tx, id, OPEN)? {
        Some(entry) if !entry.deleted => Ok(entry),
        Some(entry) => Err(StoreError::NotFound(format!(
            "entry {id} was deleted in transaction {0}; undo it with undo {{\"tx_id\": {0}}} to restore it",
            entry.tx_id
        ))),
        None => Err(StoreError::NotFound(format!(
            "no entry with id {id}; find ids with query"
        ))),
    }
}

/// Writes a new entry version, closing the current one if any.
#[allow(clippy::too_many_arguments)]
fn write_entry_version(
    tx: &SqlTx<'_>,
    vid: i64,
    id: &str,
    version: i64,
    tx_id: TxId,
    state: &EntryState,
    deleted: bool,
    recorded_at: &str,
    updated_at: &str,
) -> Result<Entry, StoreError> {
    if version > 1 {
        tx.prepare_cached("UPDATE entry_versions SET to_tx = ?1 WHERE id = ?2 AND to_tx = ?3")?
            .execute(params![tx_id, id, OPEN])?;
    }
    let entry = Entry {
        id: id.to_string(),
        topic: state.topic.clone(),
        content: state.content.clone(),
        confidence: state.confidence,
        tags: state.tags.clone(),
        source: state.source.clone(),
        kind: state.kind,
        recorded_at: recorded_at.to_string(),
        updated_at: updated_at.to_string(),
        version,
        tx_id,
        deleted,
    };
    insert_entry_version(tx, vid, &entry, OPEN)?;
    Ok(entry)
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

fn write_triple_version(
    tx: &SqlTx<'_>,
    vid: i64,
    id: &str,
    version: i64,
    tx_id: TxId,
    state: &TripleState,
    deleted: bool,
) -> Result<Triple, StoreError> {
    if version > 1 {
        tx.prepare_cached("UPDATE triple_versions SET to_tx = ?1 WHERE id = ?2 AND to_tx = ?3")?
            .execute(params![tx_id, id, OPEN])?;
    }
    let triple = Triple {
        id: id.to_string(),
        subject: state.subject.clone(),
        predicate: state.predicate.clone(),
        object: state.object.clone(),
        confidence: state.confidence,
        properties: state.properties.clone(),
        version,
        tx_id,
        deleted,
    };
    insert_triple_version(tx, vid, &triple, OPEN)?;
    Ok(triple)
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

pub(crate) fn store_entries(
    conn: &mut Connection,
    actor: &str,
    entries: Vec<EntryState>,
) -> Result<(TxId, Vec<Entry>), StoreError> {
    if entries.is_empty() {
        return Err(StoreError::Invalid("nothing to store".to_string()));
    }
    let tx = begin(conn)?;
    let first_vid = next_vid(&tx, "entry_versions")?;
    let summary = match entries.as_slice() {
        [one] => format!(
            "stored e-{first_vid} \"{}\": {}",
            clip(&one.topic, 60),
            clip(&one.content, 80)
        ),
        many => format!("stored {} entries (e-{first_vid}…)", many.len()),
    };
    let (tx_id, at) = log_transaction(&tx, actor, "store", &summary, None)?;
    let mut written = Vec::with_capacity(entries.len());
    for (offset, state) in entries.iter().enumerate() {
        let vid = first_vid + offset as i64;
        let id = format!("e-{vid}");
        written.push(write_entry_version(
            &tx, vid, &id, 1, tx_id, state, false, &at, &at,
        )?);
    }
    tx.commit()?;
    Ok((tx_id, written))
}

pub(crate) fn update_entry(
    conn: &mut Connection,
    actor: &str,
    id: &str,
    patch: EntryPatch,
) -> Result<Written<Entry>, StoreError> {
    check_patch(&patch)?;
    let tx = begin(conn)?;
    let current = live_entry(&tx, id)?;
    let state = patched(&current, &patch)?;
    write_next_version(tx, actor, current, state, update_summary)
}

/// Writes `state` as the next version of `current` and commits, logging
/// the summary `summary` makes; writes nothing when nothing changes.
fn write_next_version(
    tx: SqlTx<'_>,
    actor: &str,
    current: Entry,
    state: EntryState,
    summary: impl FnOnce(&Entry, &EntryState) -> String,
) -> Result<Written<Entry>, StoreError> {
    if state == EntryState::of(&current) {
        return Ok(Written {
            tx_id: current.tx_id,
            value: current,
            changed: false,
        });
    }
    let summary = summary(&current, &state);
    let (tx_id, at) = log_transaction(&tx, actor, "update", &summary, None)?;
    let vid = next_vid(&tx, "entry_versions")?;
    let entry = write_entry_version(
        &tx,
        vid,
        &current.id,
        current.version + 1,
        tx_id,
        &state,
        false,
        &current.recorded_at,
        &at,
    )?;
    tx.commit()?;
    Ok(Written {
        value: entry,
        tx_id,
        changed: true,
    })
}

/// Writes the live entry of `state.kind` whose topic is `state.topic`
/// (compared case-insensitively): its next version when there is one, a
/// new entry otherwise. Finding and writing happen in one transaction, so
/// two writers never create two entries for one topic.
pub(crate) fn put_entry(
    conn: &mut Connection,
    actor: &str,
    state: EntryState,
    expected_version: Option<i64>,
) -> Result<Written<Entry>, StoreError> {
    let tx = begin(conn)?;
    let current = live_by_topic(&tx, state.kind, &state.topic)?;
    check_expected_version(&state.topic, current.as_ref(), expected_version)?;
    let Some(current) = current else {
        let vid = next_vid(&tx, "entry_versions")?;
        let summary = format!(
            "stored e-{vid} \"{}\": {}",
            clip(&state.topic, 60),
            clip(&state.content, 80)
        );
        let (tx_id, at) = log_transaction(&tx, actor, "store", &summary, None)?;
        let entry = write_entry_version(
            &tx,
            vid,
            &format!("e-{vid}"),
            1,
            tx_id,
            &state,
            false,
            &at,
            &at,
        )?;
        tx.commit()?;
        return Ok(Written {
            value: entry,
            tx_id,
            changed: true,
        });
    };
    let mut next = state;
    // The topic keeps the spelling it was created with.
    next.topic = current.topic.clone();
    write_next_version(tx, actor, current, next, |current, next| {
        format!(
            "updated {} v{} (\"{}\"): {}",
            current.id,
            current.version + 1,
            clip(&next.topic, 60),
            clip(&next.content, 80)
        )
    })
}

/// The live entry of `kind` whose topic is `topic` (case-insensitively).
fn live_by_topic(
    tx: &SqlTx<'_>,
    kind: EntryKind,
    topic: &str,
) -> Result<Option<Entry>, StoreError> {
    Ok(tx
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

/// Writes (or removes) the live entries several topics name in one
/// transaction: every expected version is checked first, and a single
/// conflict refuses the whole batch. Writes nothing when nothing changes.
pub(crate) fn put_many(
    conn: &mut Connection,
    actor: &str,
    summary: &str,
    changes: Vec<TopicChange>,
) -> Result<BatchWritten, StoreError> {
    let tx = begin(conn)?;
    let mut current = Vec::with_capacity(changes.len());
    for change in &changes {
        let live = live_by_topic(&tx, change.state.kind, &change.state.topic)?;
        check_expected_version(&change.state.topic, live.as_ref(), change.expected_version)?;
        current.push(live);
    }
    let changed = |change: &TopicChange, live: &Option<Entry>| change.changes(live);
    if !changes.iter().zip(&current).any(|(c, l)| changed(c, l)) {
        let head = super::read::head(&tx)?;
        return Ok(BatchWritten {
            tx_id: head,
            changed: false,
            items: changes
                .into_iter()
                .zip(current)
                .map(|(c, live)| TopicWritten {
                    topic: c.state.topic,
                    entry: live,
                    changed: false,
                })
                .collect(),
        });
    }
    let summary = if summary.trim().is_empty() {
        format!("wrote {} entries", changes.len())
    } else {
        clip(summary, 160)
    };
    let (tx_id, at) = log_transaction(&tx, actor, "put", &summary, None)?;
    let mut items = Vec::with_capacity(changes.len());
    for (change, live) in changes.into_iter().zip(current) {
        if !changed(&change, &live) {
            items.push(TopicWritten {
                topic: change.state.topic,
                entry: live,
                changed: false,
            });
            continue;
        }
        let vid = next_vid(&tx, "entry_versions")?;
        let topic = live
            .as_ref()
            .map_or_else(|| change.state.topic.clone(), |l| l.topic.clone());
        let entry = match (change.remove, live) {
            (true, Some(live)) => {
                write_entry_version(
                    &tx,
                    vid,
                    &live.id,
                    live.version + 1,
                    tx_id,
                    &EntryState::of(&live),
                    true,
                    &live.recorded_at,
                    &at,
                )?;
                None
            }
            (false, Some(live)) => {
                let mut next = change.state;
                next.topic = live.topic.clone();
                Some(write_entry_version(
                    &tx,
                    vid,
                    &live.id,
                    live.version + 1,
                    tx_id,
                    &next,
                    false,
                    &live.recorded_at,
                    &at,
                )?)
            }
            (_, None) => Some(write_entry_version(
                &tx,
                vid,
                &format!("e-{vid}"),
                1,
                tx_id,
                &change.state,
                false,
                &at,
                &at,
            )?),
        };
        items.push(TopicWritten {
            topic,
            entry,
            changed: true,
        });
    }
    tx.commit()?;
    Ok(BatchWritten {
        tx_id,
        changed: true,
        items,
    })
}

pub(crate) fn delete(conn: &mut Connection, actor: &str, id: &str) -> Result<TxId, StoreError> {
    let tx = begin(conn)?;
    let tx_id = if id.starts_with("t-") {
        let triple = match triple_ending(&tx, id, OPEN)? {
            Some(t) if !t.deleted => t,
            Some(t) => {
                return Err(StoreError::NotFound(format!(
                    "triple {id} was already deleted in transaction {}",
                    t.tx_id
                )));
            }
            None => {
                return Err(StoreError::NotFound(format!(
                    "no triple with id {id}; find ids with query_graph"
                )));
            }
        };
        delete_triple(&tx, actor, &triple, "delete")?
    } else if id.starts_with("e-") {
        let entry = live_entry(&tx, id)?;
        let summary = format!("deleted {id} \"{}\"", clip(&entry.topic, 60));
        let (tx_id, at) = log_transaction(&tx, actor, "delete", &summary, None)?;
        let vid = next_vid(&tx, "entry_versions")?;
        write_entry_version(
            &tx,
            vid,
            id,
            entry.version + 1,
            tx_id,
            &EntryState::of(&entry),
            true,
            &entry.recorded_at,
            &at,
        )?;
        tx_id
    } else {
        return Err(StoreError::NotFound(format!(
            "`{id}` is not an entry id (e-…) or a triple id (t-…)"
        )));
    };
    tx.commit()?;
    Ok(tx_id)
}

fn delete_triple(
    tx: &SqlTx<'_>,
    actor: &str,
    triple: &Triple,
    kind: &str,
) -> Result<TxId, StoreError> {
    let summary = format!(
        "removed {} {} —{}→ {}",
        triple.id,
        clip(&triple.subject, 40),
        clip(&triple.predicate, 30),
        clip(&triple.object, 40)
    );
    let (tx_id, _) = log_transaction(tx, actor, kind, &summary, None)?;
    let vid = next_vid(tx, "triple_versions")?;
    write_triple_version(
        tx,
        vid,
        &triple.id,
        triple.version + 1,
        tx_id,
        &TripleState::of(triple),
        true,
    )?;
    Ok(tx_id)
}

/// The current relations of the subjects a batch touches, read once per
/// subject: (predicate, object) → the current version (a live one over a
/// tombstone).
#[derive(Default)]
struct SubjectRelations {
    by_subject:
        std::collections::HashMap<String, std::collections::HashMap<(String, String), Triple>>,
}

impl SubjectRelations {
    fn of(
        &mut self,
        tx: &SqlTx<'_>,
        subject: &str,
    ) -> Result<&std::collections::HashMap<(String, String), Triple>, StoreError> {
        if !self.by_subject.contains_key(subject) {
            let mut relations = std::collections::HashMap::new();
            let mut statement = tx.prepare_cached(&format!(
                "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
                 WHERE subject = ?1 AND to_tx = ?2 ORDER BY deleted DESC"
            ))?;
            let rows = statement.query_map(params![subject, OPEN], triple_from_row)?;
            for triple in rows {
                let triple = triple?;
                // Live versions come last and win.
                relations.insert((triple.predicate.clone(), triple.object.clone()), triple);
            }
            self.by_subject.insert(subject.to_string(), relations);
        }
        Ok(&self.by_subject[subject])
    }

    /// Records a version just written (its subject was read before).
    fn put(&mut self, triple: Triple) {
        if let Some(relations) = self.by_subject.get_mut(&triple.subject) {
            relations.insert((triple.predicate.clone(), triple.object.clone()), triple);
        }
    }
}

/// The current version (a tombstone included) of the relation s—p→o.
fn triple_by_spo(tx: &SqlTx<'_>, s: &str, p: &str, o: &str) -> Result<Option<Triple>, StoreError> {
    Ok(tx
        .prepare_cached(&format!(
            "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
             WHERE subject = ?1 AND to_tx = ?4 AND predicate = ?2 AND object = ?3
             ORDER BY deleted LIMIT 1"
        ))?
        .query_row(params![s, p, o, OPEN], triple_from_row)
        .optional()?)
}

pub(crate) fn relate(
    conn: &mut Connection,
    actor: &str,
    triple: NewTriple,
) -> Result<Written<Triple>, StoreError> {
    let state = TripleState::from_new(triple)?;
    let tx = begin(conn)?;
    let existing = triple_by_spo(&tx, &state.subject, &state.predicate, &state.object)?;
    if let Some(current) = &existing
        && !current.deleted
        && TripleState::of(current) == state
    {
        return Ok(Written {
            tx_id: current.tx_id,
            value: current.clone(),
            changed: false,
        });
    }
    let vid = next_vid(&tx, "triple_versions")?;
    let (id, version) = match &existing {
        Some(current) => (current.id.clone(), current.version + 1),
        None => (format!("t-{vid}"), 1),
    };
    let summary = format!(
        "related {id} {} —{}→ {}",
        clip(&state.subject, 40),
        clip(&state.predicate, 30),
        clip(&state.object, 40)
    );
    let (tx_id, _) = log_transaction(&tx, actor, "relate", &summary, None)?;
    let written = write_triple_version(&tx, vid, &id, version, tx_id, &state, false)?;
    tx.commit()?;
    Ok(Written {
        value: written,
        tx_id,
        changed: true,
    })
}

pub(crate) fn relate_many(
    conn: &mut Connection,
    actor: &str,
    summary: &str,
    relate: Vec<NewTriple>,
    unrelate: Vec<TripleKey>,
) -> Result<RelateManyWritten, StoreError> {
    let (states, removals): (Vec<TripleState>, Vec<Spo>) = relate_plan(relate, unrelate)?;
    let tx = begin(conn)?;
    let mut tx_id: Option<TxId> = None;
    let mut open_tx = |tx: &SqlTx<'_>| -> Result<TxId, StoreError> {
        if let Some(id) = tx_id {
            return Ok(id);
        }
        let (id, _) = log_transaction(tx, actor, "relate_many", summary, None)?;
        tx_id = Some(id);
        Ok(id)
    };
    let (mut related, mut unrelated) = (0, 0);
    // Each subject's current relations are read once (a file has many),
    // and the version ids are counted here: one writer holds the
    // transaction.
    let mut current = SubjectRelations::default();
    let mut vid: Option<i64> = None;
    let mut next = |tx: &SqlTx<'_>| -> Result<i64, StoreError> {
        let id = match vid {
            Some(id) => id + 1,
            None => next_vid(tx, "triple_versions")?,
        };
        vid = Some(id);
        Ok(id)
    };
    for state in &states {
        let existing = current
            .of(&tx, &state.subject)?
            .get(&(state.predicate.clone(), state.object.clone()))
            .cloned();
        if let Some(current) = &existing
            && !current.deleted
            && TripleState::of(current) == *state
        {
            continue;
        }
        let id_tx = open_tx(&tx)?;
        let vid = next(&tx)?;
        let (id, version) = match &existing {
            Some(current) => (current.id.clone(), current.version + 1),
            None => (format!("t-{vid}"), 1),
        };
        let written = write_triple_version(&tx, vid, &id, version, id_tx, state, false)?;
        current.put(written);
        related += 1;
    }
    for (s, p, o) in &removals {
        let Some(existing) = current
            .of(&tx, s)?
            .get(&(p.clone(), o.clone()))
            .filter(|t| !t.deleted)
            .cloned()
        else {
            continue;
        };
        let id_tx = open_tx(&tx)?;
        let vid = next(&tx)?;
        let written = write_triple_version(
            &tx,
            vid,
            &existing.id,
            existing.version + 1,
            id_tx,
            &TripleState::of(&existing),
            true,
        )?;
        current.put(written);
        unrelated += 1;
    }
    match tx_id {
        Some(tx_id) => {
            tx.commit()?;
            Ok(RelateManyWritten {
                tx_id,
                changed: true,
                related,
                unrelated,
            })
        }
        None => {
            let head = tx
                .prepare_cached("SELECT coalesce(max(tx_id), 0) FROM transactions")?
                .query_row([], |row| row.get(0))?;
            Ok(RelateManyWritten {
                tx_id: head,
                changed: false,
                related: 0,
                unrelated: 0,
            })
        }
    }
}

pub(crate) fn unrelate(
    conn: &mut Connection,
    actor: &str,
    subject: &str,
    predicate: &str,
    object: &str,
) -> Result<(String, TxId), StoreError> {
    let (s, p, o) = (
        check_node("subject", subject)?,
        check_node("predicate", predicate)?,
        check_node("object", object)?,
    );
    let tx = begin(conn)?;
    let triple = match triple_by_spo(&tx, &s, &p, &o)? {
        Some(t) if !t.deleted => t,
        _ => {
            return Err(StoreError::NotFound(format!(
                "no relation {s} —{p}→ {o}; see the node's relations with query_graph"
            )));
        }
    };
    let tx_id = delete_triple(&tx, actor, &triple, "unrelate")?;
    tx.commit()?;
    Ok((triple.id, tx_id))
}

/// One row an undo will restore.
enum Restore {
    Entry {
        current: Entry,
        target: Option<Entry>,
    },
    Triple {
        current: Triple,
        target: Option<Triple>,
    },
}

pub(crate) fn undo(
    conn: &mut Connection,
    actor: &str,
    undone: TxId,
    force: bool,
) -> Result<UndoResult, StoreError> {
    let tx = begin(conn)?;
    let record: Option<(String, String)> = tx
        .prepare_cached("SELECT kind, summary FROM transactions WHERE tx_id = ?1")?
        .query_row([undone], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let Some((kind, summary)) = record else {
        return Err(StoreError::NotFound(format!(
            "no transaction {undone}; list transactions with history"
        )));
    };
    let entry_ids = ids_written_by(&tx, "entry_versions", undone)?;
    let triple_ids = ids_written_by(&tx, "triple_versions", undone)?;

    // Later transactions that touched the same rows.
    let mut conflicts: Vec<(String, TxId)> = Vec::new();
    for (table, ids) in [
        ("entry_versions", &entry_ids),
        ("triple_versions", &triple_ids),
    ] {
        let mut later = tx.prepare_cached(&format!(
            "SELECT min(from_tx) FROM {table} WHERE id = ?1 AND from_tx > ?2"
        ))?;
        for id in ids {
            let next: Option<TxId> = later.query_row(params![id, undone], |row| row.get(0))?;
            if let Some(next) = next {
                conflicts.push((id.clone(), next));
            }
        }
    }
    if !conflicts.is_empty() && !force {
        let reverted_by: Option<TxId> = tx
            .prepare_cached("SELECT max(tx_id) FROM transactions WHERE reverts_tx_id = ?1")?
            .query_row([undone], |row| row.get(0))?;
        return Err(undo_conflict(undone, reverted_by, conflicts));
    }

    // What each row looked like before the undone transaction: the version
    // it closed (to_tx = undone), or nothing if it created the row.
    let mut plan = Vec::new();
    for id in &entry_ids {
        let current = entry_ending(&tx, id, OPEN)?.ok_or_else(|| missing(id))?;
        let target = entry_ending(&tx, id, undone)?;
        let unchanged = match &target {
            Some(t) => {
                t.deleted == current.deleted && EntryState::of(t) == EntryState::of(&current)
            }
            None => current.deleted,
        };
        if !unchanged {
            plan.push(Restore::Entry { current, target });
        }
    }
    for id in &triple_ids {
        let current = triple_ending(&tx, id, OPEN)?.ok_or_else(|| missing(id))?;
        let target = triple_ending(&tx, id, undone)?;
        let unchanged = match &target {
            Some(t) => {
                t.deleted == current.deleted && TripleState::of(t) == TripleState::of(&current)
            }
            None => current.deleted,
        };
        if !unchanged {
            plan.push(Restore::Triple { current, target });
        }
    }
    if plan.is_empty() {
        return Err(nothing_to_undo(undone));
    }

    let (tx_id, at) = log_transaction(
        &tx,
        actor,
        "undo",
        &format!(
            "undo of transaction {undone} ({kind}: {})",
            clip(&summary, 80)
        ),
        Some(undone),
    )?;
    let mut changed_ids = Vec::with_capacity(plan.len());
    for restore in plan {
        match restore {
            Restore::Entry { current, target } => {
                let vid = next_vid(&tx, "entry_versions")?;
                let (state, deleted) = match &target {
                    Some(t) => (EntryState::of(t), t.deleted),
                    None => (EntryState::of(&current), true),
                };
                write_entry_version(
                    &tx,
                    vid,
                    &current.id,
                    current.version + 1,
                    tx_id,
                    &state,
                    deleted,
                    &current.recorded_at,
                    &at,
                )?;
                changed_ids.push(current.id);
            }
            Restore::Triple { current, target } => {
                let vid = next_vid(&tx, "triple_versions")?;
                let (state, deleted) = match &target {
                    Some(t) => (TripleState::of(t), t.deleted),
                    None => (TripleState::of(&current), true),
                };
                write_triple_version(
                    &tx,
                    vid,
                    &current.id,
                    current.version + 1,
                    tx_id,
                    &state,
                    deleted,
                )?;
                changed_ids.push(current.id);
            }
        }
    }
    tx.commit()?;
    Ok(UndoResult {
        undone_tx_id: undone,
        tx_id,
        changed_ids,
    })
}

fn ids_written_by(tx: &SqlTx<'_>, table: &str, tx_id: TxId) -> Result<Vec<String>, StoreError> {
    let mut statement = tx.prepare_cached(&format!(
        "SELECT id FROM {table} WHERE from_tx = ?1 ORDER BY vid"
    ))?;
    let ids = statement
        .query_map([tx_id], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ids)
}
