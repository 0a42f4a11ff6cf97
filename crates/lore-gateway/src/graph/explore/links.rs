//! `GraphLinks`, the links search ranks by: the files each test
//! validates in the code graph.

use super::GraphView;
use super::ids::file_of;

/// The files each test validates in the code graph (`VALIDATES`), by
/// `<root>/<path>`.
#[derive(Debug, Default)]
pub struct GraphLinks {
    /// Test `<root>/<path>` → the code files it validates, likewise.
    pub targets: std::collections::HashMap<String, Vec<String>>,
}

impl GraphView {
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
}
