//! Writes, as the SQLite store's (`sqlite/write.rs`, the reference for
//! every rule and message): each public function here is one PostgreSQL
//! transaction that either commits whole or leaves nothing (a dropped
//! [`Tx`] rolls back).
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

use std::collections::HashMap;

use lore_core::time::UtcMillis;

use super::read::{ENTRY_COLUMNS, TRIPLE_COLUMNS, decode_all, entry_from_row, triple_from_row};
use super::schema::OPEN;
use super::session::{Session, Tx, get};
use super::versions::{EntryRow, TripleRow, insert_entry_versions, insert_triple_versions};
use crate::error::StoreError;
use crate::model::*;
use crate::rules::{
    EntryState, TopicChange, TripleState, check_expected_version, check_node, check_patch, clip,
    missing, nothing_to_undo, patched, relate_plan, undo_conflict, update_summary,
};

/// Starts a write: a transaction holding the writers' lock.
fn begin(session: &mut Session) -> Result<Tx<'_>, StoreError> {
    let mut tx = session.begin()?;
    tx.query(
        "SELECT value FROM counters WHERE name = 'tx' FOR UPDATE",
        &[],
    )?;
    Ok(tx)
}

/// Appends the transaction record, notifies listeners (on commit) and
/// returns its id.
fn log_transaction(
    tx: &mut Session,
    actor: &str,
    kind: &str,
    summary: &str,
    reverts: Option<TxId>,
) -> Result<(TxId, String), StoreError> {
    let at = UtcMillis::now().to_iso();
    let row = tx.query_one(
        "UPDATE counters SET value = value + 1 WHERE name = 'tx' RETURNING value",
        &[],
    )?;
    let tx_id: TxId = get(&row, 0)?;
    tx.execute(
        "INSERT INTO transactions (tx_id, at, actor, kind, summary, reverts_tx_id)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[&tx_id, &at, &actor, &kind, &summary, &reverts],
    )?;
    let channel = tx.channel().to_string();
    tx.execute("SELECT pg_notify($1, $2)", &[&channel, &tx_id.to_string()])?;
    Ok((tx_id, at))
}

fn next_vid(tx: &mut Session, table: &str) -> Result<i64, StoreError> {
    let row = tx.query_one(
        &format!("SELECT coalesce(max(vid), 0)::BIGINT + 1 FROM {table}"),
        &[],
    )?;
    get(&row, 0)
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

/// A live entry or a `not_found` that says how to get a deleted one back.
fn live_entry(tx: &mut Session, id: &str) -> Result<Entry, StoreError> {
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
    tx: &mut Session,
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
        tx.execute(
            "UPDATE entry_versions SET to_tx = $1 WHERE id = $2 AND to_tx = $3",
            &[&tx_id, &id, &OPEN],
        )?;
    }
    let row = EntryRow::new(
        vid,
        Entry {
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
        },
        OPEN,
    );
    insert_entry_versions(tx, std::slice::from_ref(&row))?;
    Ok(row.into_entry())
}

fn write_triple_version(
    tx: &mut Session,
    vid: i64,
    id: &str,
    version: i64,
    tx_id: TxId,
    state: &TripleState,
    deleted: bool,
) -> Result<Triple, StoreError> {
    if version > 1 {
        tx.execute(
            "UPDATE triple_versions SET to_tx = $1 WHERE id = $2 AND to_tx = $3",
            &[&tx_id, &id, &OPEN],
        )?;
    }
    let row = TripleRow::new(
        vid,
        Triple {
            id: id.to_string(),
            subject: state.subject.clone(),
            predicate: state.predicate.clone(),
            object: state.object.clone(),
            confidence: state.confidence,
            properties: state.properties.clone(),
            version,
            tx_id,
            deleted,
        },
        OPEN,
    );
    insert_triple_versions(tx, std::slice::from_ref(&row))?;
    Ok(row.into_triple())
}

pub(super) fn store_entries(
    session: &mut Session,
    actor: &str,
    entries: Vec<EntryState>,
) -> Result<(TxId, Vec<Entry>), StoreError> {
    if entries.is_empty() {
        return Err(StoreError::Invalid("nothing to store".to_string()));
    }
    let mut tx = begin(session)?;
    let first_vid = next_vid(&mut tx, "entry_versions")?;
    let summary = match entries.as_slice() {
        [one] => format!(
            "stored e-{first_vid} \"{}\": {}",
            clip(&one.topic, 60),
            clip(&one.content, 80)
        ),
        many => format!("stored {} entries (e-{first_vid}…)", many.len()),
    };
    let (tx_id, at) = log_transaction(&mut tx, actor, "store", &summary, None)?;
    let mut written = Vec::with_capacity(entries.len());
    for (offset, state) in entries.iter().enumerate() {
        let vid = first_vid + offset as i64;
        let id = format!("e-{vid}");
        written.push(write_entry_version(
            &mut tx, vid, &id, 1, tx_id, state, false, &at, &at,
        )?);
    }
    tx.commit()?;
    Ok((tx_id, written))
}

pub(super) fn update_entry(
    session: &mut Session,
    actor: &str,
    id: &str,
    patch: EntryPatch,
) -> Result<Written<Entry>, StoreError> {
    check_patch(&patch)?;
    let mut tx = begin(session)?;
    let current = live_entry(&mut tx, id)?;
    let state = patched(&current, &patch)?;
    write_next_version(tx, actor, current, state, update_summary)
}

/// Writes `state` as the next version of `current` and commits, logging
/// the summary `summary` makes; writes nothing when nothing changes.
fn write_next_version(
    mut tx: Tx<'_>,
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
    let (tx_id, at) = log_transaction(&mut tx, actor, "update", &summary, None)?;
    let vid = next_vid(&mut tx, "entry_versions")?;
    let entry = write_entry_version(
        &mut tx,
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
/// new entry otherwise, in one transaction.
pub(super) fn put_entry(
    session: &mut Session,
    actor: &str,
    state: EntryState,
    expected_version: Option<i64>,
) -> Result<Written<Entry>, StoreError> {
    let mut tx = begin(session)?;
    let current = live_by_topic(&mut tx, state.kind, &state.topic)?;
    check_expected_version(&state.topic, current.as_ref(), expected_version)?;
    let Some(current) = current else {
        let vid = next_vid(&mut tx, "entry_versions")?;
        let summary = format!(
            "stored e-{vid} \"{}\": {}",
            clip(&state.topic, 60),
            clip(&state.content, 80)
        );
        let (tx_id, at) = log_transaction(&mut tx, actor, "store", &summary, None)?;
        let entry = write_entry_version(
            &mut tx,
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
    tx: &mut Session,
    kind: EntryKind,
    topic: &str,
) -> Result<Option<Entry>, StoreError> {
    tx.query_opt(
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

/// Writes (or removes) the live entries several topics name in one
/// transaction: every expected version is checked first, and a single
/// conflict refuses the whole batch. Writes nothing when nothing changes.
pub(super) fn put_many(
    session: &mut Session,
    actor: &str,
    summary: &str,
    changes: Vec<TopicChange>,
) -> Result<BatchWritten, StoreError> {
    let mut tx = begin(session)?;
    let mut current = Vec::with_capacity(changes.len());
    for change in &changes {
        let live = live_by_topic(&mut tx, change.state.kind, &change.state.topic)?;
        check_expected_version(&change.state.topic, live.as_ref(), change.expected_version)?;
        current.push(live);
    }
    if !changes.iter().zip(&current).any(|(c, l)| c.changes(l)) {
        let head = super::read::head(&mut tx)?;
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
    let (tx_id, at) = log_transaction(&mut tx, actor, "put", &summary, None)?;
    let mut items = Vec::with_capacity(changes.len());
    for (change, live) in changes.into_iter().zip(current) {
        if !change.changes(&live) {
            items.push(TopicWritten {
                topic: change.state.topic,
                entry: live,
                changed: false,
            });
            continue;
        }
        let vid = next_vid(&mut tx, "entry_versions")?;
        let topic = live
            .as_ref()
            .map_or_else(|| change.state.topic.clone(), |l| l.topic.clone());
        let entry = match (change.remove, live) {
            (true, Some(live)) => {
                write_entry_version(
                    &mut tx,
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
                    &mut tx,
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
                &mut tx,
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

pub(super) fn delete(session: &mut Session, actor: &str, id: &str) -> Result<TxId, StoreError> {
    let mut tx = begin(session)?;
    let tx_id = if id.starts_with("t-") {
        let triple = match triple_ending(&mut tx, id, OPEN)? {
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
        delete_triple(&mut tx, actor, &triple, "delete")?
    } else if id.starts_with("e-") {
        let entry = live_entry(&mut tx, id)?;
        let summary = format!("deleted {id} \"{}\"", clip(&entry.topic, 60));
        let (tx_id, at) = log_transaction(&mut tx, actor, "delete", &summary, None)?;
        let vid = next_vid(&mut tx, "entry_versions")?;
        write_entry_version(
            &mut tx,
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
    tx: &mut Session,
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
    by_subject: HashMap<String, HashMap<(String, String), Triple>>,
}

impl SubjectRelations {
    fn of(
        &mut self,
        tx: &mut Session,
        subject: &str,
    ) -> Result<&HashMap<(String, String), Triple>, StoreError> {
        if !self.by_subject.contains_key(subject) {
            let mut relations = HashMap::new();
            let rows = tx.query(
                &format!(
                    "SELECT {TRIPLE_COLUMNS} FROM triple_versions tv
                     WHERE subject = $1 AND to_tx = $2 ORDER BY deleted DESC"
                ),
                &[&subject, &OPEN],
            )?;
            for triple in decode_all(rows, triple_from_row)? {
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
fn triple_by_spo(
    tx: &mut Session,
    s: &str,
    p: &str,
    o: &str,
) -> Result<Option<Triple>, StoreError> {
    tx.query_opt(
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

pub(super) fn relate(
    session: &mut Session,
    actor: &str,
    triple: NewTriple,
) -> Result<Written<Triple>, StoreError> {
    let state = TripleState::from_new(triple)?;
    let mut tx = begin(session)?;
    let existing = triple_by_spo(&mut tx, &state.subject, &state.predicate, &state.object)?;
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
    let vid = next_vid(&mut tx, "triple_versions")?;
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
    let (tx_id, _) = log_transaction(&mut tx, actor, "relate", &summary, None)?;
    let written = write_triple_version(&mut tx, vid, &id, version, tx_id, &state, false)?;
    tx.commit()?;
    Ok(Written {
        value: written,
        tx_id,
        changed: true,
    })
}

/// The transaction of a [`relate_many`], logged at its first change, and
/// the version ids it hands out (one writer holds the lock, so they are
/// counted here).
struct Batch<'a> {
    actor: &'a str,
    summary: &'a str,
    tx_id: Option<TxId>,
    vid: Option<i64>,
}

impl Batch<'_> {
    fn tx_id(&mut self, tx: &mut Session) -> Result<TxId, StoreError> {
        if let Some(id) = self.tx_id {
            return Ok(id);
        }
        let (id, _) = log_transaction(tx, self.actor, "relate_many", self.summary, None)?;
        self.tx_id = Some(id);
        Ok(id)
    }

    fn next_vid(&mut self, tx: &mut Session) -> Result<i64, StoreError> {
        let id = match self.vid {
            Some(id) => id + 1,
            None => next_vid(tx, "triple_versions")?,
        };
        self.vid = Some(id);
        Ok(id)
    }
}

pub(super) fn relate_many(
    session: &mut Session,
    actor: &str,
    summary: &str,
    relate: Vec<NewTriple>,
    unrelate: Vec<TripleKey>,
) -> Result<RelateManyWritten, StoreError> {
    let (states, removals) = relate_plan(relate, unrelate)?;
    let mut tx = begin(session)?;
    let mut batch = Batch {
        actor,
        summary,
        tx_id: None,
        vid: None,
    };
    let (mut related, mut unrelated) = (0, 0);
    // Each subject's current relations are read once (a file has many).
    let mut current = SubjectRelations::default();
    for state in &states {
        let existing = current
            .of(&mut tx, &state.subject)?
            .get(&(state.predicate.clone(), state.object.clone()))
            .cloned();
        if let Some(current) = &existing
            && !current.deleted
            && TripleState::of(current) == *state
        {
            continue;
        }
        let id_tx = batch.tx_id(&mut tx)?;
        let vid = batch.next_vid(&mut tx)?;
        let (id, version) = match &existing {
            Some(current) => (current.id.clone(), current.version + 1),
            None => (format!("t-{vid}"), 1),
        };
        let written = write_triple_version(&mut tx, vid, &id, version, id_tx, state, false)?;
        current.put(written);
        related += 1;
    }
    for (s, p, o) in &removals {
        let Some(existing) = current
            .of(&mut tx, s)?
            .get(&(p.clone(), o.clone()))
            .filter(|t| !t.deleted)
            .cloned()
        else {
            continue;
        };
        let id_tx = batch.tx_id(&mut tx)?;
        let vid = batch.next_vid(&mut tx)?;
        let written = write_triple_version(
            &mut tx,
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
    match batch.tx_id {
        Some(tx_id) => {
            tx.commit()?;
            Ok(RelateManyWritten {
                tx_id,
                changed: true,
                related,
                unrelated,
            })
        }
        None => Ok(RelateManyWritten {
            tx_id: super::read::head(&mut tx)?,
            changed: false,
            related: 0,
            unrelated: 0,
        }),
    }
}

pub(super) fn unrelate(
    session: &mut Session,
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
    let mut tx = begin(session)?;
    let triple = match triple_by_spo(&mut tx, &s, &p, &o)? {
        Some(t) if !t.deleted => t,
        _ => {
            return Err(StoreError::NotFound(format!(
                "no relation {s} —{p}→ {o}; see the node's relations with query_graph"
            )));
        }
    };
    let tx_id = delete_triple(&mut tx, actor, &triple, "unrelate")?;
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

pub(super) fn undo(
    session: &mut Session,
    actor: &str,
    undone: TxId,
    force: bool,
) -> Result<UndoResult, StoreError> {
    let mut tx = begin(session)?;
    let record = tx.query_opt(
        "SELECT kind, summary FROM transactions WHERE tx_id = $1",
        &[&undone],
    )?;
    let Some(record) = record else {
        return Err(StoreError::NotFound(format!(
            "no transaction {undone}; list transactions with history"
        )));
    };
    let (kind, summary): (String, String) = (get(&record, 0)?, get(&record, 1)?);
    let entry_ids = ids_written_by(&mut tx, "entry_versions", undone)?;
    let triple_ids = ids_written_by(&mut tx, "triple_versions", undone)?;

    // Later transactions that touched the same rows.
    let mut conflicts: Vec<(String, TxId)> = Vec::new();
    for (table, ids) in [
        ("entry_versions", &entry_ids),
        ("triple_versions", &triple_ids),
    ] {
        for id in ids {
            let row = tx.query_one(
                &format!("SELECT min(from_tx) FROM {table} WHERE id = $1 AND from_tx > $2"),
                &[id, &undone],
            )?;
            if let Some(next) = get::<Option<TxId>>(&row, 0)? {
                conflicts.push((id.clone(), next));
            }
        }
    }
    if !conflicts.is_empty() && !force {
        let row = tx.query_one(
            "SELECT max(tx_id) FROM transactions WHERE reverts_tx_id = $1",
            &[&undone],
        )?;
        let reverted_by: Option<TxId> = get(&row, 0)?;
        return Err(undo_conflict(undone, reverted_by, conflicts));
    }

    // What each row looked like before the undone transaction: the version
    // it closed (to_tx = undone), or nothing if it created the row.
    let mut plan = Vec::new();
    for id in &entry_ids {
        let current = entry_ending(&mut tx, id, OPEN)?.ok_or_else(|| missing(id))?;
        let target = entry_ending(&mut tx, id, undone)?;
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
        let current = triple_ending(&mut tx, id, OPEN)?.ok_or_else(|| missing(id))?;
        let target = triple_ending(&mut tx, id, undone)?;
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
        &mut tx,
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
                let vid = next_vid(&mut tx, "entry_versions")?;
                let (state, deleted) = match &target {
                    Some(t) => (EntryState::of(t), t.deleted),
                    None => (EntryState::of(&current), true),
                };
                write_entry_version(
                    &mut tx,
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
                let vid = next_vid(&mut tx, "triple_versions")?;
                let (state, deleted) = match &target {
                    Some(t) => (TripleState::of(t), t.deleted),
                    None => (TripleState::of(&current), true),
                };
                write_triple_version(
                    &mut tx,
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

fn ids_written_by(tx: &mut Session, table: &str, tx_id: TxId) -> Result<Vec<String>, StoreError> {
    let rows = tx.query(
        &format!("SELECT id FROM {table} WHERE from_tx = $1 ORDER BY vid"),
        &[&tx_id],
    )?;
    rows.iter().map(|row| get::<String>(row, 0)).collect()
}
