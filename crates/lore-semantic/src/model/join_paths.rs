//! Join paths: the shortest route over the model's joins from a measure's
//! source to every source a dimension or filter needs. Fewer joins win;
//! among equally long routes, fewer one-to-many steps win; routes still
//! tied are ambiguous and reported with their alternatives.
//!
//! A join with an `alias` is a second role of its target (an account as
//! `managed` beside the account a user belongs to): it is not used for the
//! target's own name, only when a query names the alias. Paths reach nodes:
//! a source (its index) or an alias (`sources.len() + k`, in declaration order).

use std::collections::{BinaryHeap, HashMap};

use crate::error::SemanticError;
use crate::model::{Cardinality, SemanticModel};

/// One step of a path: from one source to the next through a join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Step {
    /// The source the step leaves.
    pub from: usize,
    /// The source it reaches.
    pub to: usize,
    /// The source that declares the join.
    pub declared_by: usize,
    /// The join's index in the declaring source.
    pub join: usize,
    /// Rows of `to` per row of `from`.
    pub cardinality: Cardinality,
    /// The node reached: `to`, or the alias node of an aliased join.
    pub to_node: usize,
}

/// The model's aliased joins as `(alias, declaring source, join index,
/// target)`, in a fixed order; alias `k` is node `sources.len() + k`.
fn alias_joins(model: &SemanticModel) -> Vec<(String, usize, usize, usize)> {
    let mut out = Vec::new();
    for (s, source) in model.sources.iter().enumerate() {
        for (j, join) in source.joins.iter().enumerate() {
            if join.name != model.sources[join.target].name {
                out.push((join.name.clone(), s, j, join.target));
            }
        }
    }
    out
}

/// The joins of a model as a graph walked in both directions. Built once
/// per model ([`SemanticModel::join_graph`]).
#[derive(Debug, Clone)]
pub struct JoinGraph {
    edges: Vec<Vec<Step>>,
    aliases: Vec<(String, usize, usize, usize)>,
}

/// Cost of a step: a join counts 100, a one-to-many join one more.
fn cost(step: &Step) -> u32 {
    100 + u32::from(step.cardinality == Cardinality::OneToMany)
}

impl JoinGraph {
    /// The graph of `model`'s joins.
    pub fn new(model: &SemanticModel) -> JoinGraph {
        let mut edges = vec![Vec::new(); model.sources.len()];
        for (s, source) in model.sources.iter().enumerate() {
            for (j, join) in source.joins.iter().enumerate() {
                if join.name != model.sources[join.target].name {
                    continue; // an alias: reached only by its name
                }
                edges[s].push(Step {
                    from: s,
                    to: join.target,
                    declared_by: s,
                    join: j,
                    cardinality: join.cardinality,
                    to_node: join.target,
                });
                if join.target != s {
                    edges[join.target].push(Step {
                        from: join.target,
                        to: s,
                        declared_by: s,
                        join: j,
                        cardinality: join.cardinality.reversed(),
                        to_node: s,
                    });
                }
            }
        }
        JoinGraph {
            edges,
            aliases: alias_joins(model),
        }
    }

    /// The node of `name`: a source, else an alias; with the source it reads.
    pub fn node_named(&self, model: &SemanticModel, name: &str) -> Option<(usize, usize)> {
        if let Some(i) = model.index_of(name) {
            return Some((i, i));
        }
        self.aliases
            .iter()
            .position(|(alias, ..)| alias == name)
            .map(|k| (self.edges.len() + k, self.aliases[k].3))
    }

    /// The source a node reads.
    pub fn source_of(&self, node: usize) -> usize {
        match node.checked_sub(self.edges.len()) {
            Some(k) => self.aliases[k].3,
            None => node,
        }
    }

    /// The cheapest path from source `from` to `node`: to an alias node,
    /// the path to its declaring source and then the aliased join.
    pub fn path_to_node(
        &self,
        model: &SemanticModel,
        from: usize,
        node: usize,
    ) -> Result<Vec<Step>, SemanticError> {
        let Some(k) = node.checked_sub(self.edges.len()) else {
            return self.path(model, from, node);
        };
        let (_, declarer, join, target) = self.aliases[k].clone();
        let mut steps = self.path(model, from, declarer)?;
        steps.push(Step {
            from: declarer,
            to: target,
            declared_by: declarer,
            join,
            cardinality: model.sources[declarer].joins[join].cardinality,
            to_node: node,
        });
        Ok(steps)
    }

    /// The cheapest path from `from` to `to` (empty when they are the same
    /// source), or an error when there is none or several tie.
    pub fn path(
        &self,
        model: &SemanticModel,
        from: usize,
        to: usize,
    ) -> Result<Vec<Step>, SemanticError> {
        if from == to {
            return Ok(Vec::new());
        }
        let n = self.edges.len();
        let mut best = vec![u32::MAX; n];
        let mut preds: Vec<Vec<Step>> = vec![Vec::new(); n];
        let mut heap = BinaryHeap::new();
        best[from] = 0;
        heap.push(std::cmp::Reverse((0u32, from)));
        while let Some(std::cmp::Reverse((d, node))) = heap.pop() {
            if d > best[node] {
                continue;
            }
            for step in &self.edges[node] {
                let next = d + cost(step);
                if next < best[step.to] {
                    best[step.to] = next;
                    preds[step.to] = vec![*step];
                    heap.push(std::cmp::Reverse((next, step.to)));
                } else if next == best[step.to] {
                    preds[step.to].push(*step);
                }
            }
        }
        let name = |i: usize| model.sources[i].name.clone();
        if best[to] == u32::MAX {
            return Err(SemanticError::query(format!(
                "no join path connects `{}` to `{}`; add a join between them (or between sources that connect them) to the model",
                name(from),
                name(to)
            )));
        }
        let mut paths = Vec::new();
        collect(&preds, from, to, &mut Vec::new(), &mut paths, 3);
        if paths.len() > 1 {
            let alternatives = paths
                .iter()
                .map(|p| {
                    let mut names = vec![name(from)];
                    names.extend(p.iter().map(|s| {
                        let join = &model.sources[s.declared_by].joins[s.join];
                        format!("{} (on {})", name(s.to), join.on.text)
                    }));
                    names.join(" -> ")
                })
                .collect();
            return Err(SemanticError::AmbiguousPath {
                from: name(from),
                to: name(to),
                alternatives,
            });
        }
        Ok(paths.pop().unwrap_or_default())
    }
}

/// Up to `limit` cheapest paths, walking predecessor steps back from `to`.
fn collect(
    preds: &[Vec<Step>],
    from: usize,
    to: usize,
    suffix: &mut Vec<Step>,
    out: &mut Vec<Vec<Step>>,
    limit: usize,
) {
    if out.len() >= limit {
        return;
    }
    if to == from {
        out.push(suffix.iter().rev().copied().collect());
        return;
    }
    for step in &preds[to] {
        suffix.push(*step);
        collect(preds, from, step.from, suffix, out, limit);
        suffix.pop();
    }
}

/// Steps keyed by the source they reach, for a tree of paths that share
/// their beginnings.
pub type JoinTree = HashMap<usize, Step>;
