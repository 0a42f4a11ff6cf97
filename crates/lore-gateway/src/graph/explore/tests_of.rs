//! `km-graph-tests-of`: the node asked about (an id or a path), and for
//! code or a symbol the tests that cover it, for a test the code it
//! covers.

use lore_core::{ErrorCode, ErrorReport};
use lore_store::KnowledgeStore;

use super::GraphView;
use super::coverage::{Coverage, code_covered_by, incoming, tests_of_symbol};
use super::ids::parse_id;
use super::types::TestsOfAnswer;
use crate::graph::ids::{self, RootScope, in_scope};
use crate::graph::{LABELS, file_node, symbol_node};

impl GraphView {
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
