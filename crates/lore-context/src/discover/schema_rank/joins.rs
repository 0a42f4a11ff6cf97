//! How joins move tables' scores (rule 2 of `score.rs`): a table
//! gets a share of its best joined neighbour's, a bridge between two of
//! the best tables ranks with them, best tables joining each other gain;
//! and the rest of a small schema is listed below everything found.

use super::dense::DenseMap;
use super::model::SchemaModel;
use super::weights::Weights;

/// The `n` best-scored tables, best first.
pub(super) fn best_of(scores: impl Iterator<Item = (u32, f32)>, n: usize) -> Vec<(u32, f32)> {
    let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    // The best so far, in order; a table enters only if it beats the last.
    let mut best: Vec<(u32, f32)> = Vec::with_capacity(n + 1);
    if n == 0 {
        return best;
    }
    for table in scores {
        if best.len() == n && best.last().is_some_and(|last| order(&table, last).is_ge()) {
            continue;
        }
        let at = best.partition_point(|b| order(b, &table).is_lt());
        best.insert(at, table);
        best.truncate(n);
    }
    best
}

/// The score of a table of a small schema that nothing else brought:
/// far below any table a query word found, hubs (most joins) first.
const REST: f32 = 1e-3;

/// Gives every table of a small schema not yet scored a score below every
/// scored one, tables with more joins first; the tables it added.
pub(super) fn list_the_rest(model: &SchemaModel, scores: &mut DenseMap<f32>) -> Vec<u32> {
    let floor = scores
        .iter()
        .map(|(_, s)| s)
        .filter(|s| *s > 0.0)
        .fold(1.0f32, f32::min);
    let most = model.links.iter().map(Vec::len).max().unwrap_or(0) as f32;
    let mut added = Vec::new();
    for (t, links) in model.links.iter().enumerate() {
        let t = t as u32;
        if !scores.contains(t) {
            scores.entry(t, floor * REST * (1.0 + links.len() as f32) / (1.0 + most));
            added.push(t);
        }
    }
    added
}

/// Table scores with the joins' share (into `scores`, from the tables'
/// own evidence): a neighbour's, and bridges between two of the best
/// tables.
pub(super) fn with_joins(
    model: &SchemaModel,
    w: &Weights,
    found: &[u32],
    own: impl Fn(u32) -> f32,
    scores: &mut DenseMap<f32>,
) {
    let score = |t: u32, share: f32| {
        let neighbour = model.links[t as usize]
            .iter()
            .map(|l| own(l.other))
            .fold(0.0, f32::max);
        let copy = if model.copy[t as usize] { w.copy } else { 1.0 };
        copy * (own(t) + share * neighbour)
    };
    // The tables holding a query word, and the tables they join.
    for &t in found {
        scores.entry(t, score(t, w.neighbour));
    }
    if w.neighbour_only > 0.0 {
        for &t in found {
            for link in &model.links[t as usize] {
                if !scores.contains(link.other) {
                    scores.entry(link.other, score(link.other, w.neighbour_only));
                }
            }
        }
    }
    let best = best_of(scores.iter(), w.best_tables);
    for (i, &(a, score_a)) in best.iter().enumerate() {
        for &(b, score_b) in &best[i + 1..] {
            let links_a = &model.links[a as usize];
            if links_a.iter().any(|l| l.other == b) {
                continue;
            }
            let bridge = w.bridge * score_a.min(score_b);
            for l in links_a {
                let x = l.other;
                if x != b && model.links[x as usize].iter().any(|m| m.other == b) {
                    let slot = scores.entry(x, 0.0);
                    *slot = slot.max(bridge);
                }
            }
        }
    }
    // A best table that joins another best table: the question likely
    // needs both.
    let best: Vec<u32> = best.iter().map(|(t, _)| *t).collect();
    for &t in &best {
        let joins_best = model.links[t as usize]
            .iter()
            .any(|l| best.contains(&l.other));
        if joins_best && scores.contains(t) {
            *scores.entry(t, 0.0) *= w.joined;
        }
    }
}
