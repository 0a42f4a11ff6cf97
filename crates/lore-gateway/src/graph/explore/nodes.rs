//! `km-graph-node` and `km-graph-subsystem`: what a node is and its
//! relations in the store, and a subsystem with the subsystems it depends
//! on (or that depend on it) and its artifacts; with the node ids the
//! graph knows, and the `not_found` that names the closest.

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

use lore_core::error::HasErrorCode;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::{KnowledgeStore, TripleQuery};

use super::ids::{check_limit, label_of, page_all, parse_id};
use super::types::{
    ArtifactOut, NodeAnswer, NodeOut, RelatedOut, RelationOut, Relationships, SubsystemAnswer,
};
use super::{GraphView, MAX_DEPTH, MAX_NODE_LIMIT, MAX_SUBSYSTEM_LIMIT};
use crate::graph::ids::{self, RootScope, in_scope, root_of};
use crate::graph::{file_node, symbol_node};

impl GraphView {
    /// Every node id the graph knows (for suggestions and search).
    pub(super) fn node_ids(&self) -> BTreeSet<String> {
        let mut ids = BTreeSet::new();
        for (root, ledger, catalog) in &self.roots {
            for name in catalog.subsystems.keys() {
                ids.insert(format!("Subsystem:{name}"));
            }
            for (path, file) in &ledger.files {
                if let Some(subsystem) = &file.subsystem {
                    ids.insert(format!("Subsystem:{subsystem}"));
                }
                if let Some(node) = file_node(file.artifact_type, root, path) {
                    ids.insert(node);
                    for symbol in &file.symbols {
                        ids.insert(symbol_node(root, path, &symbol.qualified_name));
                    }
                }
            }
        }
        ids
    }

    /// What the graph knows of a node, or `None` when it knows nothing.
    pub fn describe(&self, id: &str) -> Option<NodeOut> {
        let (label, rest) = parse_id(id).ok()?;
        let mut properties = BTreeMap::new();
        let json = |s: &str| serde_json::Value::String(s.to_string());
        match label {
            "Subsystem" => {
                let spec = self
                    .roots
                    .iter()
                    .find_map(|(_, _, catalog)| catalog.subsystems.get(rest));
                let used = self.roots.iter().any(|(_, ledger, _)| {
                    ledger
                        .files
                        .values()
                        .any(|f| f.subsystem.as_deref() == Some(rest))
                });
                if spec.is_none() && !used {
                    return None;
                }
                properties.insert("name".into(), json(rest));
                properties.insert(
                    "source".into(),
                    json(if spec.is_some() { "catalog" } else { "folders" }),
                );
                if let Some(spec) = spec {
                    let value = serde_json::to_value(spec).unwrap_or_default();
                    if let serde_json::Value::Object(map) = value {
                        for (k, v) in map {
                            if !v.is_null() && v != serde_json::json!([]) {
                                properties.insert(k, v);
                            }
                        }
                    }
                }
            }
            "Symbol" => {
                let (qualified_path, qualified) = rest.split_once("::")?;
                let (root, path, file) = ids::locate(&self.roots, qualified_path)?;
                let symbol = file
                    .symbols
                    .iter()
                    .find(|s| s.qualified_name == qualified)?;
                properties.insert("root".into(), json(root));
                properties.insert("path".into(), json(path));
                properties.insert("qualified_name".into(), json(qualified));
                properties.insert("kind".into(), json(symbol.kind.as_str()));
                properties.insert("start_line".into(), symbol.start_line.into());
                properties.insert("end_line".into(), symbol.end_line.into());
                if let Some(language) = &file.language {
                    properties.insert("language".into(), json(language));
                }
            }
            _ => {
                let (root, path, file) = ids::locate(&self.roots, rest)?;
                if file_node(file.artifact_type, root, path).as_deref() != Some(id) {
                    return None;
                }
                properties.insert("root".into(), json(root));
                properties.insert("path".into(), json(path));
                properties.insert("artifact_type".into(), json(file.artifact_type.as_str()));
                if let Some(language) = &file.language {
                    properties.insert("language".into(), json(language));
                }
                if let Some(subsystem) = &file.subsystem {
                    properties.insert("subsystem".into(), json(subsystem));
                }
                properties.insert("symbol_count".into(), file.symbols.len().into());
            }
        }
        Some(NodeOut {
            id: id.to_string(),
            label: label.to_string(),
            properties,
        })
    }

    /// A `not_found` naming the closest node ids.
    pub(super) fn not_found(&self, id: &str) -> ErrorReport {
        let wanted = id.to_lowercase();
        let tail = wanted
            .rsplit([':', '/', '.'])
            .next()
            .unwrap_or(&wanted)
            .to_string();
        let mut scored: Vec<(f64, String)> = self
            .node_ids()
            .into_iter()
            .map(|candidate| {
                let lower = candidate.to_lowercase();
                let mut score = strsim::jaro_winkler(&wanted, &lower);
                if !tail.is_empty() && lower.contains(&tail) {
                    score += 0.2;
                }
                (score, candidate)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let close: Vec<String> = scored
            .into_iter()
            .take(5)
            .filter(|(s, _)| *s > 0.6)
            .map(|(_, c)| c)
            .collect();
        let hint = if close.is_empty() {
            "; find nodes with km-graph-search".to_string()
        } else {
            format!("; close: {}", close.join(", "))
        };
        ErrorReport::new(ErrorCode::NotFound, format!("no graph node `{id}`{hint}"))
    }

    /// `km-graph-node`: a bare path is taken when one root of `scope`
    /// holds it; relations to nodes of roots outside `scope` are left out.
    pub fn node(
        &self,
        store: &dyn KnowledgeStore,
        id: &str,
        relationships: Relationships,
        limit: Option<usize>,
        scope: RootScope<'_>,
    ) -> Result<NodeAnswer, ErrorReport> {
        parse_id(id)?;
        let id = ids::qualify(&self.roots, id, scope)?;
        let id = id.as_str();
        let limit = check_limit(limit, 50, MAX_NODE_LIMIT)?;
        let mut out = Vec::new();
        let mut truncated = false;
        let mut directions = Vec::new();
        if matches!(relationships, Relationships::Outgoing | Relationships::All) {
            directions.push(true);
        }
        if matches!(relationships, Relationships::Incoming | Relationships::All) {
            directions.push(false);
        }
        for outgoing in directions {
            let query = if outgoing {
                TripleQuery {
                    subject: Some(id.to_string()),
                    ..Default::default()
                }
            } else {
                TripleQuery {
                    object: Some(id.to_string()),
                    ..Default::default()
                }
            };
            let (triples, cut) = page_all(store, query, limit.saturating_sub(out.len()))?;
            truncated |= cut;
            for t in triples {
                let other = if outgoing { t.object } else { t.subject };
                if root_of(&other).is_some_and(|root| !in_scope(scope, root)) {
                    continue;
                }
                out.push(RelationOut {
                    direction: if outgoing { "outgoing" } else { "incoming" }.into(),
                    predicate: t.predicate,
                    label: label_of(&other),
                    node: other,
                    triple_id: t.id,
                });
            }
        }
        let node = match self.describe(id) {
            Some(node) => node,
            // A node only an agent's relations name still exists.
            None if !out.is_empty() || self.has_relations(store, id)? => NodeOut {
                id: id.to_string(),
                label: label_of(id),
                properties: BTreeMap::new(),
            },
            None => return Err(self.not_found(id)),
        };
        Ok(NodeAnswer {
            node,
            relationships: out,
            truncated,
        })
    }

    fn has_relations(&self, store: &dyn KnowledgeStore, id: &str) -> Result<bool, ErrorReport> {
        for query in [
            TripleQuery {
                subject: Some(id.to_string()),
                limit: Some(1),
                ..Default::default()
            },
            TripleQuery {
                object: Some(id.to_string()),
                limit: Some(1),
                ..Default::default()
            },
        ] {
            if !store
                .list_triples(&query)
                .map_err(|e| e.report())?
                .items
                .is_empty()
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `km-graph-subsystem`: its artifacts too when `artifacts` names the
    /// roots to list them from (empty: every root).
    pub fn subsystem(
        &self,
        store: &dyn KnowledgeStore,
        name: &str,
        depth: Option<usize>,
        artifacts: Option<RootScope<'_>>,
        cursor: Option<&str>,
        limit: Option<usize>,
    ) -> Result<SubsystemAnswer, ErrorReport> {
        let name = name.trim().trim_start_matches("Subsystem:");
        if name.is_empty() {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                "name must name a subsystem, such as Billing; list them with km-graph-search",
            ));
        }
        let depth = depth.unwrap_or(1);
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                format!("depth must be 1 to {MAX_DEPTH}, got {depth}"),
            ));
        }
        let limit = check_limit(limit, 25, MAX_SUBSYSTEM_LIMIT)?;
        let offset = match cursor {
            None => 0,
            Some(c) => c.parse::<usize>().map_err(|_| {
                ErrorReport::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "cursor `{c}` is not one this tool gave; pass next_cursor back as it came"
                    ),
                )
            })?,
        };
        let id = format!("Subsystem:{name}");
        let subsystem = self.describe(&id).ok_or_else(|| self.not_found(&id))?;

        // Breadth-first over DEPENDS_ON both ways, from the store.
        let mut related = Vec::new();
        let mut seen: HashSet<String> = HashSet::from([id.clone()]);
        let mut queue: VecDeque<(String, Vec<String>)> =
            VecDeque::from([(id.clone(), vec![id.clone()])]);
        while let Some((node, path)) = queue.pop_front() {
            if path.len() > depth {
                continue;
            }
            for outgoing in [true, false] {
                let query = TripleQuery {
                    subject: outgoing.then(|| node.clone()),
                    object: (!outgoing).then(|| node.clone()),
                    predicate: Some("DEPENDS_ON".into()),
                    ..Default::default()
                };
                let (triples, _) = page_all(store, query, 1_000)?;
                for t in triples {
                    let other = if outgoing { t.object } else { t.subject };
                    if !seen.insert(other.clone()) {
                        continue;
                    }
                    let mut next = path.clone();
                    next.push(other.clone());
                    related.push(RelatedOut {
                        id: other.clone(),
                        hops: path.len(),
                        path: next.clone(),
                        relation: if outgoing {
                            "DEPENDS_ON"
                        } else {
                            "DEPENDED_ON_BY"
                        }
                        .into(),
                    });
                    queue.push_back((other, next));
                }
            }
        }
        related.sort_by(|a, b| a.hops.cmp(&b.hops).then_with(|| a.id.cmp(&b.id)));

        let scope = artifacts;
        let mut artifacts: Vec<ArtifactOut> = Vec::new();
        if let Some(scope) = scope {
            for (root, ledger, _) in self.roots.iter().filter(|(r, _, _)| in_scope(scope, r)) {
                for (path, file) in &ledger.files {
                    if file.subsystem.as_deref() != Some(name) {
                        continue;
                    }
                    if let Some(node) = file_node(file.artifact_type, root, path) {
                        artifacts.push(ArtifactOut {
                            id: node,
                            root: root.clone(),
                            path: path.clone(),
                            artifact_type: file.artifact_type.as_str().into(),
                        });
                    }
                }
            }
        }
        let (total_related, total_artifacts) = (related.len(), artifacts.len());
        let page = |items_len: usize| offset.min(items_len)..(offset + limit).min(items_len);
        let related_page: Vec<RelatedOut> = related[page(related.len())].to_vec();
        let artifacts_page: Vec<ArtifactOut> = artifacts[page(artifacts.len())].to_vec();
        let more = offset + limit < total_related.max(total_artifacts);
        Ok(SubsystemAnswer {
            subsystem,
            related: related_page,
            artifacts: artifacts_page,
            total_related,
            total_artifacts,
            next_cursor: more.then(|| (offset + limit).to_string()),
        })
    }
}
