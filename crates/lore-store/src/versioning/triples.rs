//! The writes of triples: relating two nodes (or changing how), removing
//! a relation by its nodes or by id, and adding and removing many
//! relations in one transaction.

use std::collections::HashMap;

use super::{VersionTable, WriteTx, Writer, write_triple_version};
use crate::error::StoreError;
use crate::model::*;
use crate::rules::{Spo, TripleState, check_node, clip, relate_plan};

/// Relates two nodes; relating an existing relation again writes a new
/// version only when something differs (confidence, properties).
pub(crate) fn relate(
    conn: &mut impl Writer,
    actor: &str,
    triple: NewTriple,
) -> Result<Written<Triple>, StoreError> {
    let state = TripleState::from_new(triple)?;
    let mut tx = conn.begin_write()?;
    let existing = tx.triple_by_spo(&state.subject, &state.predicate, &state.object)?;
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
    let vid = tx.next_vid(VersionTable::Triples)?;
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
    let (tx_id, _) = tx.log_transaction(actor, "relate", &summary, None)?;
    let written = write_triple_version(&mut tx, vid, &id, version, tx_id, &state, false)?;
    tx.commit()?;
    Ok(Written {
        value: written,
        tx_id,
        changed: true,
    })
}

/// Removes the live relation `subject —predicate→ object`; returns its id
/// and the transaction.
pub(crate) fn unrelate(
    conn: &mut impl Writer,
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
    let mut tx = conn.begin_write()?;
    let triple = match tx.triple_by_spo(&s, &p, &o)? {
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

/// Deletes the live triple `id`: logs the transaction in `tx` and writes
/// the triple's tombstone.
pub(super) fn delete_by_id(
    tx: &mut impl WriteTx,
    actor: &str,
    id: &str,
) -> Result<TxId, StoreError> {
    let triple = match tx.current_triple(id)? {
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
    delete_triple(tx, actor, &triple, "delete")
}

/// Logs a transaction of `kind` that removes `triple` and writes its
/// tombstone.
fn delete_triple(
    tx: &mut impl WriteTx,
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
    let (tx_id, _) = tx.log_transaction(actor, kind, &summary, None)?;
    let vid = tx.next_vid(VersionTable::Triples)?;
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

/// Adds (or changes) the relations of `relate` and removes those of
/// `unrelate` in one transaction whose summary is `summary`, logged at
/// the first change: nothing is written when nothing changes.
pub(crate) fn relate_many(
    conn: &mut impl Writer,
    actor: &str,
    summary: &str,
    relate: Vec<NewTriple>,
    unrelate: Vec<TripleKey>,
) -> Result<RelateManyWritten, StoreError> {
    let (states, removals) = relate_plan(relate, unrelate)?;
    let mut tx = conn.begin_write()?;
    let mut batch = Batch {
        actor,
        summary,
        tx_id: None,
        vid: None,
        // Each subject's current relations are read once (a file has many).
        current: SubjectRelations::default(),
    };
    let related = batch.relate(&mut tx, &states)?;
    let unrelated = batch.unrelate(&mut tx, &removals)?;
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
            tx_id: tx.head()?,
            changed: false,
            related: 0,
            unrelated: 0,
        }),
    }
}

/// The writes of one [`relate_many`]: its transaction, logged at its first
/// change, the version ids it hands out (one writer holds the
/// transaction, so they are counted here), and the current relations of
/// the subjects it touched.
struct Batch<'a> {
    actor: &'a str,
    summary: &'a str,
    tx_id: Option<TxId>,
    vid: Option<i64>,
    current: SubjectRelations,
}

impl Batch<'_> {
    /// The batch's transaction, logged on the first call.
    fn tx_id(&mut self, tx: &mut impl WriteTx) -> Result<TxId, StoreError> {
        if let Some(id) = self.tx_id {
            return Ok(id);
        }
        let (id, _) = tx.log_transaction(self.actor, "relate_many", self.summary, None)?;
        self.tx_id = Some(id);
        Ok(id)
    }

    /// The row id of the next triple version.
    fn next_vid(&mut self, tx: &mut impl WriteTx) -> Result<i64, StoreError> {
        let id = match self.vid {
            Some(id) => id + 1,
            None => tx.next_vid(VersionTable::Triples)?,
        };
        self.vid = Some(id);
        Ok(id)
    }

    /// Writes each relation of `states` not already live as it asks;
    /// returns how many it wrote.
    fn relate(
        &mut self,
        tx: &mut impl WriteTx,
        states: &[TripleState],
    ) -> Result<usize, StoreError> {
        let mut related = 0;
        for state in states {
            let existing = self
                .current
                .of(tx, &state.subject)?
                .get(&(state.predicate.clone(), state.object.clone()))
                .cloned();
            if let Some(current) = &existing
                && !current.deleted
                && TripleState::of(current) == *state
            {
                continue;
            }
            let id_tx = self.tx_id(tx)?;
            let vid = self.next_vid(tx)?;
            let (id, version) = match &existing {
                Some(current) => (current.id.clone(), current.version + 1),
                None => (format!("t-{vid}"), 1),
            };
            let written = write_triple_version(tx, vid, &id, version, id_tx, state, false)?;
            self.current.put(written);
            related += 1;
        }
        Ok(related)
    }

    /// Writes the tombstone of each live relation of `removals`, skipping
    /// those not live; returns how many it wrote.
    fn unrelate(&mut self, tx: &mut impl WriteTx, removals: &[Spo]) -> Result<usize, StoreError> {
        let mut unrelated = 0;
        for (s, p, o) in removals {
            let Some(existing) = self
                .current
                .of(tx, s)?
                .get(&(p.clone(), o.clone()))
                .filter(|t| !t.deleted)
                .cloned()
            else {
                continue;
            };
            let id_tx = self.tx_id(tx)?;
            let vid = self.next_vid(tx)?;
            let written = write_triple_version(
                tx,
                vid,
                &existing.id,
                existing.version + 1,
                id_tx,
                &TripleState::of(&existing),
                true,
            )?;
            self.current.put(written);
            unrelated += 1;
        }
        Ok(unrelated)
    }
}

/// The current relations of the subjects a batch touches, read once per
/// subject: (predicate, object) → the current version (a live one over a
/// tombstone).
#[derive(Default)]
struct SubjectRelations {
    by_subject: HashMap<String, HashMap<(String, String), Triple>>,
}

impl SubjectRelations {
    /// The relations of `subject`, read on the first call.
    fn of(
        &mut self,
        tx: &mut impl WriteTx,
        subject: &str,
    ) -> Result<&HashMap<(String, String), Triple>, StoreError> {
        if !self.by_subject.contains_key(subject) {
            let mut relations = HashMap::new();
            for triple in tx.relations_of(subject)? {
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
