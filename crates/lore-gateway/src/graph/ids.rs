//! Which root a node id names. A file's node is `Label:<root>/<path>` and
//! a symbol's `Symbol:<root>/<path>::<name>` (root names hold no `/`), so
//! two roots holding the same path never share a node. An agent may still
//! write a bare path (`Code:src/app.py`, `src/app.py`): it is taken when
//! exactly one root (of those asked for) holds the file, and refused with
//! the candidates when several do.

use lore_core::{ErrorCode, ErrorReport};

use super::{GraphFile, GraphLedger};
use crate::ingest::subsystem::Catalog;

/// The roots a graph view reads: name, graph ledger and catalog.
pub type RootGraphs = [(String, std::sync::Arc<GraphLedger>, Catalog)];

/// The roots a request keeps to (`roots`); empty keeps every root.
pub type RootScope<'a> = &'a [String];

/// Whether `root` is one `scope` keeps.
pub fn in_scope(scope: RootScope<'_>, root: &str) -> bool {
    scope.is_empty() || scope.iter().any(|r| r == root)
}

/// Refuses names in `asked` that are not roots of the project (`field` is
/// the argument's name), listing the roots there are.
pub fn check_roots(known: &[&str], asked: &[String], field: &str) -> Result<(), ErrorReport> {
    for name in asked {
        if !known.contains(&name.as_str()) {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                format!(
                    "{field}: `{name}` is not a gateway root; the roots are {}",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The root a node id names (`Code:<root>/…`, `Symbol:<root>/…`); none for
/// a subsystem or an id of another form.
pub fn root_of(id: &str) -> Option<&str> {
    let (label, rest) = id.split_once(':')?;
    if label == "Subsystem" {
        return None;
    }
    rest.split_once('/').map(|(root, _)| root)
}

/// `<root>/<path>` split in two.
pub fn split_root(rest: &str) -> Option<(&str, &str)> {
    rest.split_once('/')
}

/// The file `<root>/<path>` names, when `root` is a root of the view
/// holding `path`.
pub fn locate<'v>(
    roots: &'v RootGraphs,
    rest: &'v str,
) -> Option<(&'v str, &'v str, &'v GraphFile)> {
    let (root, path) = split_root(rest)?;
    roots
        .iter()
        .find(|(name, _, _)| name == root)
        .and_then(|(name, ledger, _)| ledger.files.get(path).map(|f| (name.as_str(), path, f)))
}

/// The file at `path` of root `root`.
pub fn file_in<'v>(roots: &'v RootGraphs, root: &str, path: &str) -> Option<&'v GraphFile> {
    roots
        .iter()
        .find(|(name, _, _)| name == root)
        .and_then(|(_, ledger, _)| ledger.files.get(path))
}

/// The roots (of `scope`) holding the root-relative `path`.
pub fn holders<'v>(roots: &'v RootGraphs, path: &str, scope: RootScope<'_>) -> Vec<&'v str> {
    roots
        .iter()
        .filter(|(name, ledger, _)| in_scope(scope, name) && ledger.files.contains_key(path))
        .map(|(name, _, _)| name.as_str())
        .collect()
}

/// `path_or_qualified` (`<root>/<path>` or a bare root-relative path)
/// as `(root, path)`: a qualified one as it is, a bare one when
/// exactly one root of `scope` holds it; none when no root does; an
/// `invalid_request` naming the candidates when several do (`shown`
/// writes a candidate as the caller should write it back).
pub fn qualify_path(
    roots: &RootGraphs,
    path_or_qualified: &str,
    scope: RootScope<'_>,
    shown: impl Fn(&str, &str) -> String,
) -> Result<Option<(String, String)>, ErrorReport> {
    if let Some((root, path, _)) = locate(roots, path_or_qualified) {
        return Ok(Some((root.to_string(), path.to_string())));
    }
    let holders = holders(roots, path_or_qualified, scope);
    match holders.as_slice() {
        [] => Ok(None),
        [root] => Ok(Some((root.to_string(), path_or_qualified.to_string()))),
        several => {
            let candidates: Vec<String> = several
                .iter()
                .map(|root| shown(root, path_or_qualified))
                .collect();
            Err(ErrorReport::new(
                ErrorCode::InvalidRequest,
                format!(
                    "`{path_or_qualified}` is in {} roots: name one of {} (or keep to one root with `roots`)",
                    several.len(),
                    candidates.join(", ")
                ),
            ))
        }
    }
}

/// `id` with its root: an id that names one already, or names no file
/// (a subsystem, a node only an agent's relations name), as it is; a
/// file or symbol id with a bare path that exactly one root of `scope`
/// holds, with that root; an `invalid_request` listing the candidates
/// when several do.
pub fn qualify(roots: &RootGraphs, id: &str, scope: RootScope<'_>) -> Result<String, ErrorReport> {
    let Some((label, rest)) = id.split_once(':') else {
        return Ok(id.to_string());
    };
    if label == "Subsystem" {
        return Ok(id.to_string());
    }
    let (path, symbol) = match label {
        "Symbol" => match rest.split_once("::") {
            Some((path, name)) => (path, Some(name)),
            None => return Ok(id.to_string()),
        },
        _ => (rest, None),
    };
    // A file's id takes the label of its type in that root (an agent
    // writing `Code:README.md` means the document's node).
    let label_in = |root: &str, path: &str| {
        roots
            .iter()
            .find(|(name, _, _)| name == root)
            .and_then(|(_, ledger, _)| ledger.files.get(path))
            .and_then(|file| super::label(file.artifact_type))
            .unwrap_or(label)
    };
    let shown = |root: &str, path: &str| match symbol {
        Some(name) => format!("{label}:{root}/{path}::{name}"),
        None => format!("{}:{root}/{path}", label_in(root, path)),
    };
    Ok(match qualify_path(roots, path, scope, shown)? {
        Some((root, path)) => shown(&root, &path),
        None => id.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_names_its_root_unless_it_is_a_subsystem() {
        assert_eq!(root_of("Code:cobra/shared/util.go"), Some("cobra"));
        assert_eq!(root_of("Symbol:viper/a.go::Run"), Some("viper"));
        assert_eq!(root_of("Subsystem:billing/api"), None);
        assert!(in_scope(&[], "any"));
        assert!(!in_scope(&["a".to_string()], "b"));
    }

    #[test]
    fn an_unknown_root_is_refused_with_the_known_ones() {
        let error = check_roots(&["cobra", "viper"], &["nope".to_string()], "roots").unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArguments);
        assert!(error.message.contains("cobra, viper"), "{}", error.message);
    }
}
