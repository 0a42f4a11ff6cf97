//! How tests and code are linked in the store (`VALIDATES`, `EXERCISES`):
//! the tests of a symbol, the code a test covers, and `Coverage`, the
//! nodes found with how each is linked, closest tests first.

use std::collections::BTreeMap;

use lore_core::ErrorReport;
use lore_store::{KnowledgeStore, TripleQuery};

use super::ids::page_all;
use super::types::CoverageOut;
use crate::graph::ids::split_root;

/// The tests of the symbol `id` (`rest` is `<root>/<path>::qualified.name`):
/// those that import it or the class it belongs to, and those of its file.
pub(super) fn tests_of_symbol(
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
pub(super) fn code_covered_by(
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
pub(super) fn incoming(
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
pub(super) struct Coverage {
    found: BTreeMap<String, CoverageOut>,
}

impl Coverage {
    /// Notes `node`, linked `via` a predicate (through `symbol`, if any).
    pub(super) fn note(&mut self, node: String, via: &str, symbol: Option<String>) {
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
    pub(super) fn closest_first(self) -> Vec<CoverageOut> {
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
