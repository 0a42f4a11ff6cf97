//! Node ids as the explore tools take them (`Label:rest`: checked, their
//! label, the file they stand for), and what the tools share besides:
//! checking a `limit`, and reading every page of a store query.

use lore_core::error::HasErrorCode;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::{KnowledgeStore, TripleQuery};

use crate::graph::LABELS;

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

pub(super) fn label_of(id: &str) -> String {
    id.split_once(':').map_or("", |(l, _)| l).to_string()
}

pub(super) fn page_all(
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

pub(super) fn check_limit(
    limit: Option<usize>,
    default: usize,
    max: usize,
) -> Result<usize, ErrorReport> {
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
pub(super) fn file_of(id: &str) -> Option<&str> {
    let (label, rest) = id.split_once(':')?;
    match label {
        "Code" | "TestCase" | "DesignDoc" | "Config" => Some(rest),
        "Symbol" => rest.split_once("::").map(|(path, _)| path),
        _ => None,
    }
}
