//! Graph walks: breadth-first from one node over the relations live as of
//! one transaction, each edge once, nodes with their distance, cut at a
//! limit. Backends only say how to read one node's relations.

use std::collections::HashSet;

use crate::error::StoreError;
use crate::model::limits;
use crate::model::*;

/// The end of a relation a walk reads it from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Relations whose subject is the node.
    Subject,
    /// Relations whose object is the node.
    Object,
}

impl Side {
    /// The column holding this end.
    pub fn column(self) -> &'static str {
        match self {
            Side::Subject => "subject",
            Side::Object => "object",
        }
    }
}

/// Walks the graph as [`crate::KnowledgeStore::query_graph`] describes.
/// `resolve_as_of` checks the transaction asked for (the newest when
/// none); `relations(node, side, as_of, predicate)` reads the live
/// relations with `node` at `side`, oldest first.
pub(crate) fn walk(
    query: &GraphQuery,
    resolve_as_of: impl FnOnce(Option<TxId>) -> Result<TxId, StoreError>,
    mut relations: impl FnMut(&str, Side, TxId, Option<&str>) -> Result<Vec<Triple>, StoreError>,
) -> Result<GraphResult, StoreError> {
    let start = query.node.trim();
    if start.is_empty() {
        return Err(StoreError::Invalid("node must not be empty".to_string()));
    }
    let depth = match query.depth {
        None => limits::GRAPH_DEPTH_DEFAULT,
        Some(d) if (1..=limits::GRAPH_DEPTH_MAX).contains(&d) => d,
        Some(d) => {
            return Err(StoreError::Invalid(format!(
                "depth must be between 1 and {}, got {d}",
                limits::GRAPH_DEPTH_MAX
            )));
        }
    };
    let limit = match query.limit {
        None => limits::GRAPH_LIMIT_DEFAULT,
        Some(l) if (1..=limits::GRAPH_LIMIT_MAX).contains(&l) => l,
        Some(l) => {
            return Err(StoreError::Invalid(format!(
                "limit must be between 1 and {}, got {l}",
                limits::GRAPH_LIMIT_MAX
            )));
        }
    };
    let as_of = resolve_as_of(query.as_of_tx_id)?;
    let predicate = query.predicate.as_deref().map(str::trim);

    let mut nodes = vec![GraphNode {
        id: start.to_string(),
        depth: 0,
    }];
    let mut seen_nodes: HashSet<String> = HashSet::from([start.to_string()]);
    let mut seen_edges: HashSet<String> = HashSet::new();
    let mut edges: Vec<Triple> = Vec::new();
    let mut frontier = vec![start.to_string()];
    let mut truncated = false;
    let sides: &[Side] = match query.direction {
        Direction::Out => &[Side::Subject],
        Direction::In => &[Side::Object],
        Direction::Both => &[Side::Subject, Side::Object],
    };
    'walk: for level in 1..=depth {
        let mut next = Vec::new();
        for node in &frontier {
            for side in sides {
                for triple in relations(node, *side, as_of, predicate)? {
                    if seen_edges.contains(&triple.id) {
                        continue;
                    }
                    if edges.len() == limit {
                        truncated = true;
                        break 'walk;
                    }
                    for end in [&triple.subject, &triple.object] {
                        if seen_nodes.insert(end.clone()) {
                            nodes.push(GraphNode {
                                id: end.clone(),
                                depth: level,
                            });
                            next.push(end.clone());
                        }
                    }
                    seen_edges.insert(triple.id.clone());
                    edges.push(triple);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    if edges.is_empty() {
        nodes.clear();
    }
    Ok(GraphResult {
        nodes,
        edges,
        as_of_tx_id: as_of,
        truncated,
    })
}
