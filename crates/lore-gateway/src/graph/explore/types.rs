//! What the explore tools take and answer: which relations to list, and
//! the node, subsystem, search and tests-of answers with their parts.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
