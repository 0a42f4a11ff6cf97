//! A search result's file in the code graph (`GraphContext`): its
//! subsystem, tests, imports, importers and the documents that mention it.

use lore_core::ErrorReport;
use lore_store::{KnowledgeStore, TripleQuery};
use schemars::JsonSchema;
use serde::Serialize;

use super::GraphView;
use super::ids::page_all;
use crate::graph::file_node;
use crate::graph::ids;

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
