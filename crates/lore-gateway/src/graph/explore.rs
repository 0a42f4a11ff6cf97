//! Reading the code graph: a node and its relations, a subsystem with its
//! neighbours and artifacts, a search over node names, and the tests of a
//! file or symbol (or the code a test covers).
//!
//! Relations come from the store (so relations an agent added with
//! `relate` show too); what a node is (its type, language, subsystem, a
//! symbol's kind and lines) comes from the graph ledgers ingest keeps.

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};
use std::sync::{Arc, OnceLock};

use lore_core::error::HasErrorCode;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::{KnowledgeStore, TripleQuery};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::graph::call_index::RootCalls;
use crate::graph::ids::{self, RootScope, in_scope, root_of, split_root};
use crate::graph::{GraphLedger, LABELS, file_node, symbol_node};
use crate::ingest::subsystem::Catalog;

/// Most relations a node lists.
pub const MAX_NODE_LIMIT: usize = 200;
/// Most related nodes or artifacts a subsystem page holds.
pub const MAX_SUBSYSTEM_LIMIT: usize = 100;
/// Deepest subsystem walk.
pub const MAX_DEPTH: usize = 5;
/// Most graph search results.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// The graph as ingest left it: per root, its ledger and catalog.
pub struct GraphView {
    /// (root name, ledger, catalog) per root.
    pub roots: Vec<(String, Arc<GraphLedger>, Catalog)>,
    /// Each root's call edges, indexed when a question first reaches it.
    calls: Vec<OnceLock<RootCalls>>,
}

/// Which relations of a node to list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Relationships {
    /// Relations from the node.
    Outgoing,
    /// Relations to the node.
    Incoming,
    /// Both (the default).
    #[default]
    All,
    /// None: the node alone.
    None,
}

/// What a node is.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NodeOut {
    /// `Code:<root>/src/app.py`, `Symbol:<root>/src/app.py::App.run`,
    /// `Subsystem:Billing`.
    pub id: String,
    /// Subsystem, Code, TestCase, DesignDoc, Config or Symbol.
    pub label: String,
    /// What Lore knows of it: path, root, artifact_type, language,
    /// subsystem; for a symbol its kind and lines; for a subsystem its
    /// catalog entry.
    pub properties: BTreeMap<String, serde_json::Value>,
}

/// One relation of a node.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RelationOut {
    /// `outgoing` (from the node) or `incoming` (to it).
    pub direction: String,
    /// The relation: BELONGS_TO, DEPENDS_ON, DECLARES_SYMBOL, CONTAINS,
    /// IMPORTS, VALIDATES, EXERCISES, DESCRIBES, or one an agent added.
    pub predicate: String,
    /// The node at the other end.
    pub node: String,
    /// Its label.
    pub label: String,
    /// The relation's triple id in the store (`t-…`).
    pub triple_id: String,
}

/// `km-graph-node`'s answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NodeAnswer {
    /// The node.
    pub node: NodeOut,
    /// Its relations, by direction then predicate.
    pub relationships: Vec<RelationOut>,
    /// True when `limit` cut the list.
    pub truncated: bool,
}

/// A node reached from a subsystem.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RelatedOut {
    /// Its id.
    pub id: String,
    /// Hops from the subsystem.
    pub hops: usize,
    /// The nodes from the subsystem to it, both ends included.
    pub path: Vec<String>,
    /// The relation of the last hop, and its direction
    /// (`DEPENDS_ON` or `DEPENDED_ON_BY`).
    pub relation: String,
}

/// An artifact of a subsystem.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ArtifactOut {
    /// Its node.
    pub id: String,
    /// The root it is in.
    pub root: String,
    /// Root-relative path.
    pub path: String,
    /// code, test, doc or config.
    pub artifact_type: String,
}

/// `km-graph-subsystem`'s answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SubsystemAnswer {
    /// The subsystem.
    pub subsystem: NodeOut,
    /// Subsystems it depends on or that depend on it, within `depth`,
    /// nearest first (this page).
    pub related: Vec<RelatedOut>,
    /// Its artifacts (this page), when asked for.
    pub artifacts: Vec<ArtifactOut>,
    /// Related nodes in all.
    pub total_related: usize,
    /// Artifacts in all.
    pub total_artifacts: usize,
    /// Pass it back as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// One graph search result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GraphHit {
    /// The node.
    pub id: String,
    /// The root it is in (none for a subsystem).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// Its label.
    pub label: String,
    /// 0 to 1.
    pub score: f32,
    /// What it is, in a line.
    pub snippet: String,
}

/// `km-graph-search`'s answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GraphSearchAnswer {
    /// Best first.
    pub results: Vec<GraphHit>,
    /// True when more nodes matched than `limit`.
    pub truncated: bool,
}

/// A test of a target, or code a test covers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CoverageOut {
    /// The node.
    pub id: String,
    /// The root it is in.
    pub root: String,
    /// Its root-relative path.
    pub path: String,
    /// How it is linked: VALIDATES (imports it, or is named after it),
    /// EXERCISES (imports the symbol).
    pub via: Vec<String>,
    /// The symbols of the target it exercises.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<String>,
}

/// `km-graph-tests-of`'s answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TestsOfAnswer {
    /// The node asked about.
    pub target: String,
    /// `tests` (the tests of code or a symbol) or `covers` (the code a
    /// test covers).
    pub direction: String,
    /// The tests, or the covered code.
    pub results: Vec<CoverageOut>,
}

fn invalid_id(id: &str) -> ErrorReport {
    ErrorReport::new(
        ErrorCode::InvalidIdentifier,
        format!(
            "`{id}` is not a node id: write Label:name with a label of {}, such as Code:<root>/src/app.py, Symbol:<root>/src/app.py::App.run or Subsystem:Billing",
            LABELS.join(", ")
        ),
    )
}

/// Checks a node id's form: `Label:rest` with a known label.
pub fn parse_id(id: &str) -> Result<(&str, &str), ErrorReport> {
    let (label, rest) = id.split_once(':').ok_or_else(|| invalid_id(id))?;
    if !LABELS.contains(&label) || rest.trim().is_empty() || rest.len() > 2_000 {
        return Err(invalid_id(id));
    }
    if label == "Symbol" && !rest.contains("::") {
        return Err(invalid_id(id));
    }
    Ok((label, rest))
}

fn label_of(id: &str) -> String {
    id.split_once(':').map_or("", |(l, _)| l).to_string()
}

fn page_all(
    store: &dyn KnowledgeStore,
    mut query: TripleQuery,
    cap: usize,
) -> Result<(Vec<lore_store::Triple>, bool), ErrorReport> {
    let mut out = Vec::new();
    loop {
        query.limit = Some(200);
        let page = store.list_triples(&query).map_err(|e| e.report())?;
        query.as_of_tx_id = Some(page.as_of_tx_id);
        out.extend(page.items);
        if out.len() > cap {
            out.truncate(cap);
            return Ok((out, true));
        }
        match page.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => return Ok((out, false)),
        }
    }
}

impl GraphView {
    /// The view of these roots' ledgers and catalogs.
    pub fn new(roots: Vec<(String, Arc<GraphLedger>, Catalog)>) -> GraphView {
        GraphView {
            calls: roots.iter().map(|_| OnceLock::new()).collect(),
            roots,
        }
    }

    /// The call edges (`CALLS`) of the root at `root` (an index into
    /// `roots`), indexed on first use.
    pub fn calls(&self, root: usize) -> Option<&RootCalls> {
        let (_, ledger, _) = self.roots.get(root)?;
        Some(self.calls.get(root)?.get_or_init(|| RootCalls::new(ledger)))
    }

    /// The links search ranks by: each test's `VALIDATES` edges to files
    /// (a symbol leads to its file).
    pub fn search_links(&self) -> GraphLinks {
        let mut links = GraphLinks::default();
        for (_, ledger, _) in &self.roots {
            for key in ledger.written.keys() {
                let Some(edge) = crate::graph::Edge::from_key(key) else {
                    continue;
                };
                if edge.1 != "VALIDATES" {
                    continue;
                }
                let (Some(from), Some(to)) = (file_of(&edge.0), file_of(&edge.2)) else {
                    continue;
                };
                let targets = links.targets.entry(from.to_string()).or_default();
                if !targets.iter().any(|t| t == to) {
                    targets.push(to.to_string());
                }
            }
        }
        links
    }

    /// Every node id the graph knows (for suggestions and search).
    fn node_ids(&self) -> BTreeSet<String> {
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
    fn not_found(&self, id: &str) -> ErrorReport {
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

    /// `km-graph-search`: nodes whose name holds the term's words (of the
    /// roots of `scope`; subsystems always).
    pub fn search(
        &self,
        term: &str,
        limit: Option<usize>,
        scope: RootScope<'_>,
    ) -> Result<GraphSearchAnswer, ErrorReport> {
        let term = term.trim();
        if term.is_empty() || term.chars().count() > 200 {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                "term must be 1 to 200 characters: a subsystem, file or symbol name, or words of one",
            ));
        }
        let limit = check_limit(limit, 20, MAX_SEARCH_LIMIT)?;
        let words: Vec<String> = lore_search::tokenizer::query_terms(term);
        let whole = term.to_lowercase();
        let mut hits: Vec<GraphHit> = Vec::new();
        for id in self.node_ids() {
            let root = root_of(&id).map(str::to_string);
            if root.as_deref().is_some_and(|r| !in_scope(scope, r)) {
                continue;
            }
            let (label, rest) = id.split_once(':').unwrap_or_default();
            // The root's name is no part of what a node is called.
            let name = match label {
                "Symbol" => rest.rsplit("::").next().unwrap_or(rest),
                "Subsystem" => rest,
                _ => split_root(rest).map_or(rest, |(_, path)| path),
            };
            let lower = name.to_lowercase();
            let last = lower.rsplit(['/', '.']).next().unwrap_or(&lower);
            let score = if last == whole || lower == whole {
                1.0
            } else if last.starts_with(&whole) {
                0.8
            } else if lower.contains(&whole) {
                0.6
            } else {
                let tokens = lore_search::tokenizer::query_terms(name);
                let matched = words.iter().filter(|w| tokens.contains(w)).count();
                if words.is_empty() || matched == 0 {
                    continue;
                }
                0.5 * matched as f32 / words.len() as f32
            };
            // Subsystems and files before the symbols they hold.
            let weight = match label {
                "Subsystem" => 1.0,
                "Symbol" => 0.9,
                _ => 0.95,
            };
            let snippet = self
                .describe(&id)
                .map(|n| snippet_of(&n))
                .unwrap_or_default();
            hits.push(GraphHit {
                label: label.to_string(),
                root,
                id,
                score: score * weight,
                snippet,
            });
        }
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.id.len().cmp(&b.id.len()))
        });
        let truncated = hits.len() > limit;
        hits.truncate(limit);
        Ok(GraphSearchAnswer {
            results: hits,
            truncated,
        })
    }

    /// `km-graph-tests-of`: for code or a symbol, the tests that import it
    /// or are named after it; for a test, the code it covers (of the roots
    /// of `scope`).
    pub fn tests_of(
        &self,
        store: &dyn KnowledgeStore,
        target: &str,
        scope: RootScope<'_>,
    ) -> Result<TestsOfAnswer, ErrorReport> {
        let id = self.tests_of_node(target, scope)?;
        let (label, rest) = parse_id(&id)?;
        let mut found = Coverage::default();
        let direction = match label {
            "TestCase" => {
                code_covered_by(store, &id, &mut found)?;
                "covers"
            }
            "Code" => {
                self.tests_of_code(store, &id, rest, &mut found)?;
                "tests"
            }
            "Symbol" => {
                tests_of_symbol(store, &id, rest, &mut found)?;
                "tests"
            }
            _ => {
                return Err(ErrorReport::new(
                    ErrorCode::InvalidRequest,
                    format!("{id} is a {label}: name a source file, a test or a symbol"),
                ));
            }
        };
        let mut results = found.closest_first();
        results.retain(|r| in_scope(scope, &r.root));
        Ok(TestsOfAnswer {
            target: id,
            direction: direction.into(),
            results,
        })
    }

    /// The node `tests_of` answers about: `target` as a node id, or the
    /// file node of a root-relative path; an error when it is empty,
    /// unknown to the graph, or a file that is neither code nor a test.
    fn tests_of_node(&self, target: &str, scope: RootScope<'_>) -> Result<String, ErrorReport> {
        let target = target.trim();
        if target.is_empty() {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                "target must be a path (<root>/src/app.py, or src/app.py when one root has it) or a node id (Code:<root>/src/app.py, Symbol:<root>/src/app.py::App.run)",
            ));
        }
        let id = if target.contains(':')
            && LABELS.iter().any(|l| target.starts_with(&format!("{l}:")))
        {
            parse_id(target)?;
            ids::qualify(&self.roots, target, scope)?
        } else {
            let path = target.trim_start_matches("./");
            let (root, path) = ids::qualify_path(&self.roots, path, scope, |root, path| {
                format!("{root}/{path}")
            })?
            .ok_or_else(|| self.not_found(&format!("Code:{path}")))?;
            let file = ids::file_in(&self.roots, &root, &path)
                .ok_or_else(|| self.not_found(&format!("Code:{root}/{path}")))?;
            file_node(file.artifact_type, &root, &path).ok_or_else(|| {
                ErrorReport::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "{path} is neither code nor a test; name a source file, a test or a symbol"
                    ),
                )
            })?
        };
        if self.describe(&id).is_none() {
            return Err(self.not_found(&id));
        }
        Ok(id)
    }

    /// The tests of the code file `id` (at `<root>/<path>`): those that
    /// import it or are named after it, and those that import one of its
    /// symbols.
    fn tests_of_code(
        &self,
        store: &dyn KnowledgeStore,
        id: &str,
        rest: &str,
        found: &mut Coverage,
    ) -> Result<(), ErrorReport> {
        for t in incoming(store, id, "VALIDATES")? {
            found.note(t.subject, "VALIDATES", None);
        }
        if let Some((root, path, file)) = ids::locate(&self.roots, rest) {
            for symbol in &file.symbols {
                for t in incoming(
                    store,
                    &symbol_node(root, path, &symbol.qualified_name),
                    "EXERCISES",
                )? {
                    found.note(t.subject, "EXERCISES", Some(symbol.qualified_name.clone()));
                }
            }
        }
        Ok(())
    }
}

/// The tests of the symbol `id` (`rest` is `<root>/<path>::qualified.name`):
/// those that import it or the class it belongs to, and those of its file.
fn tests_of_symbol(
    store: &dyn KnowledgeStore,
    id: &str,
    rest: &str,
    found: &mut Coverage,
) -> Result<(), ErrorReport> {
    let (path, qualified) = rest.split_once("::").unwrap_or((rest, ""));
    for t in incoming(store, id, "EXERCISES")? {
        found.note(t.subject, "EXERCISES", Some(qualified.to_string()));
    }
    // Tests of the class a method belongs to exercise it too.
    if let Some((parent, _)) = qualified.rsplit_once('.') {
        for t in incoming(store, &format!("Symbol:{path}::{parent}"), "EXERCISES")? {
            found.note(t.subject, "EXERCISES", Some(parent.to_string()));
        }
    }
    for t in incoming(store, &format!("Code:{path}"), "VALIDATES")? {
        found.note(t.subject, "VALIDATES", None);
    }
    Ok(())
}

/// The code the test `id` covers: the files it validates and the symbols
/// it exercises (noted under their file).
fn code_covered_by(
    store: &dyn KnowledgeStore,
    id: &str,
    found: &mut Coverage,
) -> Result<(), ErrorReport> {
    for predicate in ["VALIDATES", "EXERCISES"] {
        let (triples, _) = page_all(
            store,
            TripleQuery {
                subject: Some(id.to_string()),
                predicate: Some(predicate.into()),
                ..Default::default()
            },
            1_000,
        )?;
        for t in triples {
            match t.object.split_once("::") {
                Some((file, symbol)) if t.object.starts_with("Symbol:") => {
                    let code = format!("Code:{}", file.trim_start_matches("Symbol:"));
                    found.note(code, predicate, Some(symbol.to_string()));
                }
                _ => found.note(t.object, predicate, None),
            }
        }
    }
    Ok(())
}

/// The relations `predicate` to `object` (the first 1,000).
fn incoming(
    store: &dyn KnowledgeStore,
    object: &str,
    predicate: &str,
) -> Result<Vec<lore_store::Triple>, ErrorReport> {
    Ok(page_all(
        store,
        TripleQuery {
            object: Some(object.to_string()),
            predicate: Some(predicate.to_string()),
            ..Default::default()
        },
        1_000,
    )?
    .0)
}

/// The nodes `tests_of` found, by id, with how each is linked.
#[derive(Default)]
struct Coverage {
    found: BTreeMap<String, CoverageOut>,
}

impl Coverage {
    /// Notes `node`, linked `via` a predicate (through `symbol`, if any).
    fn note(&mut self, node: String, via: &str, symbol: Option<String>) {
        let qualified = node
            .split_once(':')
            .map(|(_, r)| r.split("::").next().unwrap_or(r))
            .unwrap_or_default();
        let (root, path) = split_root(qualified).unwrap_or(("", qualified));
        let (root, path) = (root.to_string(), path.to_string());
        let entry = self
            .found
            .entry(node.clone())
            .or_insert_with(|| CoverageOut {
                id: node,
                root,
                path,
                via: Vec::new(),
                symbols: Vec::new(),
            });
        if !entry.via.iter().any(|v| v == via) {
            entry.via.push(via.to_string());
        }
        if let Some(symbol) = symbol
            && !entry.symbols.contains(&symbol)
        {
            entry.symbols.push(symbol);
        }
    }

    /// The nodes found, the closest tests first: linked in more ways,
    /// then through more symbols, then by path.
    fn closest_first(self) -> Vec<CoverageOut> {
        let mut results: Vec<CoverageOut> = self.found.into_values().collect();
        // Imports and names of the symbol first: the closest tests.
        results.sort_by(|a, b| {
            b.via
                .len()
                .cmp(&a.via.len())
                .then_with(|| b.symbols.len().cmp(&a.symbols.len()))
                .then_with(|| a.path.cmp(&b.path))
        });
        results
    }
}

/// A search result's file in the code graph.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct GraphContext {
    /// The file's node.
    pub node: String,
    /// Its subsystem's node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subsystem: Option<String>,
    /// Tests that cover it (or, for a test, the code it covers).
    pub tests: Vec<String>,
    /// Files it imports.
    pub imports: Vec<String>,
    /// Files that import it.
    pub imported_by: Vec<String>,
    /// Documents that mention it.
    pub described_by: Vec<String>,
    /// True when a list was cut at its cap.
    pub truncated: bool,
}

/// Most nodes in each list of a [`GraphContext`].
const CONTEXT_CAP: usize = 10;

impl GraphView {
    /// The graph context of the file `path` of root `root`, or `None` when
    /// the graph does not know it.
    pub fn context(
        &self,
        store: &dyn KnowledgeStore,
        root: &str,
        path: &str,
    ) -> Result<Option<GraphContext>, ErrorReport> {
        let Some(file) = ids::file_in(&self.roots, root, path) else {
            return Ok(None);
        };
        let Some(node) = file_node(file.artifact_type, root, path) else {
            return Ok(None);
        };
        let mut context = GraphContext {
            subsystem: file.subsystem.as_ref().map(|s| format!("Subsystem:{s}")),
            node: node.clone(),
            ..Default::default()
        };
        for outgoing in [true, false] {
            let query = TripleQuery {
                subject: outgoing.then(|| node.clone()),
                object: (!outgoing).then(|| node.clone()),
                ..Default::default()
            };
            let (triples, _) = page_all(store, query, 500)?;
            for t in triples {
                let (list, other) = match (outgoing, t.predicate.as_str()) {
                    (true, "IMPORTS") => (&mut context.imports, t.object),
                    (true, "VALIDATES") => (&mut context.tests, t.object),
                    (false, "VALIDATES") => (&mut context.tests, t.subject),
                    (false, "IMPORTS") => (&mut context.imported_by, t.subject),
                    (false, "DESCRIBES") => (&mut context.described_by, t.subject),
                    _ => continue,
                };
                if list.len() >= CONTEXT_CAP {
                    context.truncated = true;
                } else if !list.contains(&other) {
                    list.push(other);
                }
            }
        }
        Ok(Some(context))
    }
}

fn snippet_of(node: &NodeOut) -> String {
    let get = |k: &str| {
        node.properties
            .get(k)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    match node.label.as_str() {
        "Subsystem" => {
            let description = get("description");
            if description.is_empty() {
                format!("subsystem {}", get("name"))
            } else {
                description
            }
        }
        "Symbol" => format!(
            "{} {} in {}:{}",
            get("kind"),
            get("qualified_name"),
            get("path"),
            node.properties
                .get("start_line")
                .cloned()
                .unwrap_or_default()
        ),
        _ => {
            let subsystem = get("subsystem");
            let language = get("language");
            let mut line = get("artifact_type");
            if !language.is_empty() {
                line.push_str(&format!(", {language}"));
            }
            if !subsystem.is_empty() {
                line.push_str(&format!(", subsystem {subsystem}"));
            }
            line
        }
    }
}

fn check_limit(limit: Option<usize>, default: usize, max: usize) -> Result<usize, ErrorReport> {
    match limit {
        None => Ok(default),
        Some(n) if (1..=max).contains(&n) => Ok(n),
        Some(n) => Err(ErrorReport::new(
            ErrorCode::InvalidArguments,
            format!("limit must be 1 to {max}, got {n}"),
        )),
    }
}

/// The file a node id stands for (`<root>/<path>`): that of a
/// `Code:`, `TestCase:`, `DesignDoc:` or `Config:` node, or the file of
/// `Symbol:<root>/<path>::<name>`.
fn file_of(id: &str) -> Option<&str> {
    let (label, rest) = id.split_once(':')?;
    match label {
        "Code" | "TestCase" | "DesignDoc" | "Config" => Some(rest),
        "Symbol" => rest.split_once("::").map(|(path, _)| path),
        _ => None,
    }
}

/// The files each test validates in the code graph (`VALIDATES`), by
/// `<root>/<path>`.
#[derive(Debug, Default)]
pub struct GraphLinks {
    /// Test `<root>/<path>` → the code files it validates, likewise.
    pub targets: std::collections::HashMap<String, Vec<String>>,
}
