//! Undo: reverting one transaction by writing a new one that gives every
//! row it changed the version it had before it (or a tombstone, for a row
//! it created). Refused when a later transaction changed one of those
//! rows (unless forced: then the state from before the undone transaction
//! is restored anyway), and when every row already looks as it did before.

use super::{VersionTable, WriteTx, Writer, write_entry_version, write_triple_version};
use crate::error::StoreError;
use crate::model::*;
use crate::rules::{EntryState, TripleState, clip, missing, nothing_to_undo, undo_conflict};

/// Reverts transaction `undone` as a new transaction.
pub(crate) fn undo(
    conn: &mut impl Writer,
    actor: &str,
    undone: TxId,
    force: bool,
) -> Result<UndoResult, StoreError> {
    let mut tx = conn.begin_write()?;
    let Some((kind, summary)) = tx.transaction_record(undone)? else {
        return Err(StoreError::NotFound(format!(
            "no transaction {undone}; list transactions with history"
        )));
    };
    let entry_ids = tx.ids_written_by(VersionTable::Entries, undone)?;
    let triple_ids = tx.ids_written_by(VersionTable::Triples, undone)?;
    let conflicts = later_changes(&mut tx, undone, &entry_ids, &triple_ids)?;
    if !conflicts.is_empty() && !force {
        let reverted_by = tx.newest_revert_of(undone)?;
        return Err(undo_conflict(undone, reverted_by, conflicts));
    }
    let plan = restore_plan(&mut tx, undone, &entry_ids, &triple_ids)?;
    if plan.is_empty() {
        return Err(nothing_to_undo(undone));
    }
    let (tx_id, at) = tx.log_transaction(
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
        changed_ids.push(restore.write(&mut tx, tx_id, &at)?);
    }
    tx.commit()?;
    Ok(UndoResult {
        undone_tx_id: undone,
        tx_id,
        changed_ids,
    })
}

/// The rows `undone` wrote that a later transaction changed too, each
/// with the first such transaction.
fn later_changes(
    tx: &mut impl WriteTx,
    undone: TxId,
    entry_ids: &[String],
    triple_ids: &[String],
) -> Result<Vec<(String, TxId)>, StoreError> {
    let mut conflicts = Vec::new();
    for (table, ids) in [
        (VersionTable::Entries, entry_ids),
        (VersionTable::Triples, triple_ids),
    ] {
        for id in ids {
            if let Some(next) = tx.next_change(table, id, undone)? {
                conflicts.push((id.clone(), next));
            }
        }
    }
    Ok(conflicts)
}

/// One row an undo will restore: its current version, and the version it
/// had before the undone transaction (`None`: that transaction created
/// it).
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

/// What undoing `undone` restores: every row it wrote that does not
/// already look as it did before it (as the version `undone` closed, or
/// deleted when `undone` created the row).
fn restore_plan(
    tx: &mut impl WriteTx,
    undone: TxId,
    entry_ids: &[String],
    triple_ids: &[String],
) -> Result<Vec<Restore>, StoreError> {
    let mut plan = Vec::new();
    for id in entry_ids {
        let current = tx.current_entry(id)?.ok_or_else(|| missing(id))?;
        let target = tx.entry_replaced_by(id, undone)?;
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
    for id in triple_ids {
        let current = tx.current_triple(id)?.ok_or_else(|| missing(id))?;
        let target = tx.triple_replaced_by(id, undone)?;
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
    Ok(plan)
}

impl Restore {
    /// Writes the row's next version (in transaction `tx_id`, at `at`):
    /// the target's state, or a tombstone when there is no target.
    /// Returns the row's id.
    fn write(self, tx: &mut impl WriteTx, tx_id: TxId, at: &str) -> Result<String, StoreError> {
        match self {
            Restore::Entry { current, target } => {
                let vid = tx.next_vid(VersionTable::Entries)?;
                let (state, deleted) = match &target {
                    Some(t) => (EntryState::of(t), t.deleted),
                    None => (EntryState::of(&current), true),
                };
                write_entry_version(
                    tx,
                    vid,
                    &current.id,
                    current.version + 1,
                    tx_id,
                    &state,
                    deleted,
                    &current.recorded_at,
                    at,
                )?;
                Ok(current.id)
            }
            Restore::Triple { current, target } => {
                let vid = tx.next_vid(VersionTable::Triples)?;
                let (state, deleted) = match &target {
                    Some(t) => (TripleState::of(t), t.deleted),
                    None => (TripleState::of(&current), true),
                };
                write_triple_version(
                    tx,
                    vid,
                    &current.id,
                    current.version + 1,
                    tx_id,
                    &state,
                    deleted,
                )?;
                Ok(current.id)
            }
        }
    }
}
