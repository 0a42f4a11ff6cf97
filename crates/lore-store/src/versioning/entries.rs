//! The writes of entries: storing new ones, updating one by id, writing
//! the live entry a topic names (one, or a batch of topics in one
//! transaction), and deleting one.

use super::{VersionTable, WriteTx, Writer, write_entry_version};
use crate::error::StoreError;
use crate::model::*;
use crate::rules::{
    EntryState, TopicChange, check_expected_version, check_patch, clip, patched, update_summary,
};

/// Stores new entries, all in one transaction.
pub(crate) fn store_entries(
    conn: &mut impl Writer,
    actor: &str,
    entries: Vec<EntryState>,
) -> Result<(TxId, Vec<Entry>), StoreError> {
    if entries.is_empty() {
        return Err(StoreError::Invalid("nothing to store".to_string()));
    }
    let mut tx = conn.begin_write()?;
    let first_vid = tx.next_vid(VersionTable::Entries)?;
    let summary = match entries.as_slice() {
        [one] => format!(
            "stored e-{first_vid} \"{}\": {}",
            clip(&one.topic, 60),
            clip(&one.content, 80)
        ),
        many => format!("stored {} entries (e-{first_vid}…)", many.len()),
    };
    let (tx_id, at) = tx.log_transaction(actor, "store", &summary, None)?;
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

/// Applies `patch` to the live entry `id`, writing its next version
/// (nothing when nothing changes).
pub(crate) fn update_entry(
    conn: &mut impl Writer,
    actor: &str,
    id: &str,
    patch: EntryPatch,
) -> Result<Written<Entry>, StoreError> {
    check_patch(&patch)?;
    let mut tx = conn.begin_write()?;
    let current = live_entry(&mut tx, id)?;
    let state = patched(&current, &patch)?;
    write_next_version(tx, actor, current, state, update_summary)
}

/// A live entry or a `not_found` that says how to get a deleted one back.
fn live_entry(tx: &mut impl WriteTx, id: &str) -> Result<Entry, StoreError> {
    match tx.current_entry(id)? {
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

/// Writes `state` as the next version of `current` and commits, logging
/// the summary `summary` makes; writes nothing when nothing changes.
fn write_next_version<T: WriteTx>(
    mut tx: T,
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
    let (tx_id, at) = tx.log_transaction(actor, "update", &summary, None)?;
    let vid = tx.next_vid(VersionTable::Entries)?;
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
/// new entry otherwise. Finding and writing happen in one transaction, so
/// two writers never create two entries for one topic.
pub(crate) fn put_entry(
    conn: &mut impl Writer,
    actor: &str,
    state: EntryState,
    expected_version: Option<i64>,
) -> Result<Written<Entry>, StoreError> {
    let mut tx = conn.begin_write()?;
    let current = tx.live_by_topic(state.kind, &state.topic)?;
    check_expected_version(&state.topic, current.as_ref(), expected_version)?;
    let Some(current) = current else {
        let vid = tx.next_vid(VersionTable::Entries)?;
        let summary = format!(
            "stored e-{vid} \"{}\": {}",
            clip(&state.topic, 60),
            clip(&state.content, 80)
        );
        let (tx_id, at) = tx.log_transaction(actor, "store", &summary, None)?;
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

/// Writes (or removes) the live entries several topics name in one
/// transaction: every expected version is checked first, and a single
/// conflict refuses the whole batch. Writes nothing when nothing changes.
pub(crate) fn put_many(
    conn: &mut impl Writer,
    actor: &str,
    summary: &str,
    changes: Vec<TopicChange>,
) -> Result<BatchWritten, StoreError> {
    let mut tx = conn.begin_write()?;
    let mut current = Vec::with_capacity(changes.len());
    for change in &changes {
        let live = tx.live_by_topic(change.state.kind, &change.state.topic)?;
        check_expected_version(&change.state.topic, live.as_ref(), change.expected_version)?;
        current.push(live);
    }
    if !changes.iter().zip(&current).any(|(c, l)| c.changes(l)) {
        return Ok(BatchWritten {
            tx_id: tx.head()?,
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
    let (tx_id, at) = tx.log_transaction(actor, "put", &summary, None)?;
    let mut items = Vec::with_capacity(changes.len());
    for (change, live) in changes.into_iter().zip(current) {
        items.push(write_topic_change(&mut tx, change, live, tx_id, &at)?);
    }
    tx.commit()?;
    Ok(BatchWritten {
        tx_id,
        changed: true,
        items,
    })
}

/// Writes one change of a [`put_many`] (transaction `tx_id`, at `at`)
/// over `live`, the live entry of its topic: a new version of it, its
/// tombstone, or a new entry; nothing when the change changes nothing.
fn write_topic_change(
    tx: &mut impl WriteTx,
    change: TopicChange,
    live: Option<Entry>,
    tx_id: TxId,
    at: &str,
) -> Result<TopicWritten, StoreError> {
    if !change.changes(&live) {
        return Ok(TopicWritten {
            topic: change.state.topic,
            entry: live,
            changed: false,
        });
    }
    let vid = tx.next_vid(VersionTable::Entries)?;
    let topic = live
        .as_ref()
        .map_or_else(|| change.state.topic.clone(), |l| l.topic.clone());
    let entry = match (change.remove, live) {
        (true, Some(live)) => {
            write_entry_version(
                tx,
                vid,
                &live.id,
                live.version + 1,
                tx_id,
                &EntryState::of(&live),
                true,
                &live.recorded_at,
                at,
            )?;
            None
        }
        (false, Some(live)) => {
            let mut next = change.state;
            next.topic = live.topic.clone();
            Some(write_entry_version(
                tx,
                vid,
                &live.id,
                live.version + 1,
                tx_id,
                &next,
                false,
                &live.recorded_at,
                at,
            )?)
        }
        (_, None) => Some(write_entry_version(
            tx,
            vid,
            &format!("e-{vid}"),
            1,
            tx_id,
            &change.state,
            false,
            at,
            at,
        )?),
    };
    Ok(TopicWritten {
        topic,
        entry,
        changed: true,
    })
}

/// Deletes the live entry `id`: logs the transaction in `tx` and writes
/// the entry's tombstone.
pub(super) fn delete(tx: &mut impl WriteTx, actor: &str, id: &str) -> Result<TxId, StoreError> {
    let entry = live_entry(tx, id)?;
    let summary = format!("deleted {id} \"{}\"", clip(&entry.topic, 60));
    let (tx_id, at) = tx.log_transaction(actor, "delete", &summary, None)?;
    let vid = tx.next_vid(VersionTable::Entries)?;
    write_entry_version(
        tx,
        vid,
        id,
        entry.version + 1,
        tx_id,
        &EntryState::of(&entry),
        true,
        &entry.recorded_at,
        &at,
    )?;
    Ok(tx_id)
}
