//! `km-graph-references`: a symbol's definitions, the places that call it
//! (callers) or name it as a type (type uses) and what it calls
//! (callees), each with the file and line of the site and how its name
//! was resolved ([`Resolution`]), read from the view's
//! [`RootCalls`](super::call_index::RootCalls).

use std::collections::BTreeSet;

use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::Serialize;

use super::call_index::CallSite;
use super::calls::Resolution;
use super::explore::GraphView;
use super::ids::{self, RootScope, in_scope};
use super::{Usage, file_node, symbol_node};

/// Most callers or callees an answer lists.
pub const MAX_REFERENCES_LIMIT: usize = 200;
/// Most definitions an ambiguous name lists.
pub const MAX_DEFINITIONS: usize = 20;

/// A definition of the symbol asked about.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DefinitionOut {
    /// Its node: `Symbol:<root>/<path>::<qualified_name>`.
    pub id: String,
    /// The root it is in.
    pub root: String,
    /// Root-relative path.
    pub path: String,
    /// `Invoice.total`.
    pub qualified_name: String,
    /// class, function, method, interface, type or module.
    pub kind: String,
    /// First line.
    pub start_line: usize,
    /// Last line.
    pub end_line: usize,
}

/// One call site.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReferenceOut {
    /// The caller (a symbol, or `Code:<root>/<path>` outside any
    /// definition) or the callee.
    pub node: String,
    /// The root of the call site.
    pub root: String,
    /// The file of the call site (root-relative).
    pub path: String,
    /// The line of the call site.
    pub line: usize,
    /// The name as written there (`self.total`, `billing.rate`).
    pub called_as: String,
    /// How the name was resolved, most trusted first.
    pub resolution: Resolution,
}

/// `km-graph-references`' answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReferencesAnswer {
    /// The symbol as asked.
    pub symbol: String,
    /// Its definitions (callers and callees are of all of them).
    pub definitions: Vec<DefinitionOut>,
    /// True when the name matched more than one definition.
    pub ambiguous: bool,
    /// Who calls it, most trusted resolution first.
    pub callers: Vec<ReferenceOut>,
    /// Where it is named as a type (of a parameter, a return, a field or
    /// a variable, an implemented interface or trait, a type argument;
    /// `node` is the definition naming it, or the file outside any, as
    /// for a Rust `impl Trait for Type`), most trusted resolution first.
    pub type_uses: Vec<ReferenceOut>,
    /// What it calls, in order of lines.
    pub callees: Vec<ReferenceOut>,
    /// Definitions in all.
    pub total_definitions: usize,
    /// Callers in all.
    pub total_callers: usize,
    /// Type uses in all.
    pub total_type_uses: usize,
    /// Callees in all.
    pub total_callees: usize,
    /// True when `limit` (or the cap of 20 definitions) cut a list.
    pub truncated: bool,
}

impl GraphView {
    /// `km-graph-references`: the definitions `symbol` names (a node id,
    /// `<root>/<path>::Qualified.name` or `<path>::Qualified.name`, a
    /// qualified or a bare name; in the roots of `scope` only), their
    /// callers, the places naming them as types and their callees,
    /// `limit` of each.
    pub fn references(
        &self,
        symbol: &str,
        scope: RootScope<'_>,
        limit: Option<usize>,
    ) -> Result<ReferencesAnswer, ErrorReport> {
        let symbol = symbol.trim();
        if symbol.is_empty() || symbol.chars().count() > 2_000 {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                "symbol must be a name (Invoice.total, total), path::name (<root>/src/billing.py::Invoice.total, or src/billing.py::Invoice.total when one root has the file) or a Symbol: node id",
            ));
        }
        let limit = match limit {
            None => 50,
            Some(n) if (1..=MAX_REFERENCES_LIMIT).contains(&n) => n,
            Some(n) => {
                return Err(ErrorReport::new(
                    ErrorCode::InvalidArguments,
                    format!("limit must be 1 to {MAX_REFERENCES_LIMIT}, got {n}"),
                ));
            }
        };
        let names: Vec<&str> = self.roots.iter().map(|(n, _, _)| n.as_str()).collect();
        super::ids::check_roots(&names, scope, "roots")?;
        let mut definitions = self.definitions_named(symbol, scope)?;
        if definitions.is_empty() {
            return Err(self.no_symbol(symbol));
        }
        let total_definitions = definitions.len();
        let mut truncated = definitions.len() > MAX_DEFINITIONS;
        definitions.truncate(MAX_DEFINITIONS);
        let Sites {
            mut callers,
            mut type_uses,
            mut callees,
        } = self.call_sites(&definitions);
        for list in [&mut callers, &mut type_uses] {
            list.sort_by(|(_, a), (_, b)| {
                (a.resolution, a.path, a.line).cmp(&(b.resolution, b.path, b.line))
            });
        }
        callees.sort_by(|(ra, a), (rb, b)| {
            (a.path, a.line, ra, a.callee_path, a.callee).cmp(&(
                b.path,
                b.line,
                rb,
                b.callee_path,
                b.callee,
            ))
        });
        let totals = (callers.len(), type_uses.len(), callees.len());
        truncated |= totals.0 > limit || totals.1 > limit || totals.2 > limit;
        let from_caller = |root: &str, site: &CallSite<'_>| match site.caller {
            Some(caller) => symbol_node(root, site.path, caller),
            None => file_node(site.file.artifact_type, root, site.path).unwrap_or_default(),
        };
        let to_callee =
            |root: &str, site: &CallSite<'_>| symbol_node(root, site.callee_path, site.callee);
        Ok(ReferencesAnswer {
            symbol: symbol.to_string(),
            ambiguous: total_definitions > 1,
            callers: listed(&callers, limit, from_caller),
            type_uses: listed(&type_uses, limit, from_caller),
            callees: listed(&callees, limit, to_callee),
            definitions,
            total_definitions,
            total_callers: totals.0,
            total_type_uses: totals.1,
            total_callees: totals.2,
            truncated,
        })
    }

    /// The definitions `symbol` names: by node id or `path::name`
    /// exactly (a bare path when one root of `scope` holds it), else
    /// every symbol whose qualified name is `symbol` or ends with
    /// `.symbol` (`::` read as `.`), the shortest first.
    fn definitions_named(
        &self,
        symbol: &str,
        scope: RootScope<'_>,
    ) -> Result<Vec<DefinitionOut>, ErrorReport> {
        let wanted = symbol.strip_prefix("Symbol:").unwrap_or(symbol);
        let exact = match wanted.split_once("::") {
            Some((path, qualified)) => {
                ids::qualify_path(&self.roots, path, scope, |root, path| {
                    format!("Symbol:{root}/{path}::{qualified}")
                })?
                .map(|(root, path)| (root, path, qualified))
            }
            None => None,
        };
        let dotted = wanted.replace("::", ".");
        let suffix = format!(".{dotted}");
        let mut out = Vec::new();
        for (root_name, ledger, _) in &self.roots {
            if !in_scope(scope, root_name) || exact.as_ref().is_some_and(|(r, _, _)| r != root_name)
            {
                continue;
            }
            for (path, file) in &ledger.files {
                if exact.as_ref().is_some_and(|(_, p, _)| p != path) {
                    continue;
                }
                for s in &file.symbols {
                    let matches = match &exact {
                        Some((_, _, qualified)) => s.qualified_name == *qualified,
                        None => s.qualified_name == dotted || s.qualified_name.ends_with(&suffix),
                    };
                    if matches {
                        out.push(DefinitionOut {
                            id: symbol_node(root_name, path, &s.qualified_name),
                            root: root_name.clone(),
                            path: path.clone(),
                            qualified_name: s.qualified_name.clone(),
                            kind: s.kind.as_str().to_string(),
                            start_line: s.start_line,
                            end_line: s.end_line,
                        });
                    }
                }
            }
        }
        out.sort_by(|a, b| {
            (a.qualified_name.len(), &a.path, &a.root).cmp(&(
                b.qualified_name.len(),
                &b.path,
                &b.root,
            ))
        });
        Ok(out)
    }

    /// A `not_found` naming the closest symbols.
    fn no_symbol(&self, symbol: &str) -> ErrorReport {
        let wanted = symbol.to_lowercase();
        let tail = wanted
            .rsplit([':', '.'])
            .next()
            .unwrap_or(&wanted)
            .to_string();
        let mut scored: Vec<(f64, String)> = Vec::new();
        for (root, ledger, _) in &self.roots {
            for (path, file) in &ledger.files {
                for s in &file.symbols {
                    let lower = s.qualified_name.to_lowercase();
                    let last = lower.rsplit('.').next().unwrap_or(&lower);
                    let score = strsim::jaro_winkler(&tail, last);
                    if score > 0.85 {
                        scored.push((score, format!("{root}/{path}::{}", s.qualified_name)));
                    }
                }
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let close: Vec<String> = scored.into_iter().take(5).map(|(_, c)| c).collect();
        let hint = if close.is_empty() {
            String::new()
        } else {
            format!("; close: {}", close.join(", "))
        };
        ErrorReport::new(
            ErrorCode::NotFound,
            format!(
                "no symbol `{symbol}` in the code graph{hint}; find names with km-graph-search"
            ),
        )
    }
}

/// The first `limit` of `sites` as the answer lists them, `node` naming
/// the other end.
fn listed(
    sites: &[(&str, CallSite<'_>)],
    limit: usize,
    node: impl Fn(&str, &CallSite<'_>) -> String,
) -> Vec<ReferenceOut> {
    sites
        .iter()
        .take(limit)
        .map(|(root, site)| ReferenceOut {
            node: node(root, site),
            root: root.to_string(),
            path: site.path.to_string(),
            line: site.line,
            called_as: site.written.to_string(),
            resolution: site.resolution,
        })
        .collect()
}

/// The sites of some definitions, each with its root's name.
#[derive(Default)]
struct Sites<'v> {
    callers: Vec<(&'v str, CallSite<'v>)>,
    type_uses: Vec<(&'v str, CallSite<'v>)>,
    callees: Vec<(&'v str, CallSite<'v>)>,
}

impl GraphView {
    /// The sites calling `definitions` or naming them as types, and the
    /// calls in them (a definition listed twice counts once).
    fn call_sites<'v>(&'v self, definitions: &[DefinitionOut]) -> Sites<'v> {
        let mut sites = Sites::default();
        let mut seen = BTreeSet::new();
        for definition in definitions {
            let Some(at) = self
                .roots
                .iter()
                .position(|(n, _, _)| *n == definition.root)
            else {
                continue;
            };
            let (name, ledger, _) = &self.roots[at];
            let Some(calls) = self.calls(at) else {
                continue;
            };
            let Some(position) =
                calls.position(ledger, &definition.path, &definition.qualified_name)
            else {
                continue;
            };
            if !seen.insert((at, position)) {
                continue;
            }
            let root = name.as_str();
            let with_root = |found: Vec<CallSite<'v>>| found.into_iter().map(move |s| (root, s));
            sites
                .callers
                .extend(with_root(calls.callers(ledger, position, Usage::Call)));
            sites
                .type_uses
                .extend(with_root(calls.callers(ledger, position, Usage::Type)));
            sites.callees.extend(with_root(calls.callees(
                ledger,
                position,
                &definition.qualified_name,
            )));
        }
        sites
    }
}
