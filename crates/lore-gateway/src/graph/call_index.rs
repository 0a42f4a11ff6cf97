//! The `CALLS` edges as the graph ledger keeps them, and as a view reads
//! them.
//!
//! Ingest resolves each file's call sites and names used as types
//! ([`calls::resolve`]) into its root's [`GraphLedger`] (`calls`, by
//! path): every site that names a definition of the root, by positions
//! (its call group, usage and site in the file's facts, the defining
//! file's number among the root's files and the definition's among that
//! file's symbols), so the ledger grows by a few numbers per edge. A site's resolution reads its own file's calls
//! and imports and the other files' *shape* (their paths, types,
//! languages, definitions, imports and manifests), never their calls: a
//! run that only changed what some files' code calls resolves those files
//! again; a file that came, went or changed its shape (a definition or an
//! import added, renamed or removed) resolves the whole root again
//! ([`update`]). A ledger of another [`CALLS_VERSION`] is resolved by the
//! view itself until the next ingest.
//!
//! A view indexes one root's edges by callee the first time a question
//! reaches that root ([`RootCalls`]): numbers only, no names copied.

use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use super::calls::ResolvedCall;
use super::calls::{self, Resolution};
use super::{GraphFile, GraphLedger, Usage};

/// The format of the resolved calls a [`GraphLedger`] keeps; another
/// makes the next ingest resolve every file again (1: by positions).
pub const CALLS_VERSION: u32 = 1;

/// What a run changed of a root's facts, as far as calls care.
#[derive(Debug, Default)]
pub struct CallChanges {
    /// Files whose facts were replaced with the same shape.
    changed: BTreeSet<String>,
    /// Whether a file came, went or changed its shape.
    reshaped: bool,
}

impl CallChanges {
    /// The facts of `path` were `before` and are now `after`.
    pub fn replaced(&mut self, path: &str, before: Option<&GraphFile>, after: &GraphFile) {
        match before {
            Some(before) if same_shape(before, after) => {
                if before.calls != after.calls {
                    self.changed.insert(path.to_string());
                }
            }
            _ => self.reshaped = true,
        }
    }

    /// A file's facts were dropped.
    pub fn removed(&mut self) {
        self.reshaped = true;
    }
}

/// Whether two facts of a file resolve the other files' sites alike:
/// the same type, language, definitions (names and kinds, in order),
/// imports and manifest.
fn same_shape(a: &GraphFile, b: &GraphFile) -> bool {
    a.artifact_type == b.artifact_type
        && a.language == b.language
        && a.imports == b.imports
        && a.package == b.package
        && a.symbols.len() == b.symbols.len()
        && a.symbols
            .iter()
            .zip(&b.symbols)
            .all(|(x, y)| x.qualified_name == y.qualified_name && x.kind == y.kind)
}

/// Brings `ledger.calls` in step with its files after `changes`: the
/// changed files' sites resolved again, or every file's when a file
/// came, went or changed its shape, or the ledger's calls are of another
/// format.
pub fn update(ledger: &mut GraphLedger, changes: &CallChanges) {
    let current = ledger.calls_version == CALLS_VERSION;
    if current && !changes.reshaped {
        if changes.changed.is_empty() {
            return;
        }
        for path in &changes.changed {
            ledger.calls.remove(path);
        }
        let fresh = calls::resolve(&ledger.files, Some(&changes.changed));
        ledger.calls.extend(fresh);
    } else {
        ledger.calls = calls::resolve(&ledger.files, None);
        ledger.calls_version = CALLS_VERSION;
    }
}

/// One root's call edges as a view reads them: by file and by callee.
#[derive(Debug, Default)]
pub struct RootCalls {
    /// The root's paths, by file number.
    paths: Vec<String>,
    /// The sites resolved in each file, by file number.
    by_file: Vec<Vec<ResolvedCall>>,
    /// A callee (file, symbol) → its sites (file, index in `by_file`).
    by_callee: HashMap<(u32, u32), Vec<(u32, u32)>>,
}

/// One call edge, named.
#[derive(Debug, Clone, Copy)]
pub struct CallSite<'v> {
    /// The file of the site.
    pub path: &'v str,
    /// Its facts.
    pub file: &'v GraphFile,
    /// The definition the site is in (none at the file's top level).
    pub caller: Option<&'v str>,
    /// The name as written.
    pub written: &'v str,
    /// Its line.
    pub line: usize,
    /// The file defining the callee.
    pub callee_path: &'v str,
    /// The callee's qualified name.
    pub callee: &'v str,
    /// How it was resolved.
    pub resolution: Resolution,
}

impl RootCalls {
    /// The edges of `ledger`: as ingest resolved them, or resolved here
    /// when they are of another format (a ledger of an older Lore).
    /// Positions out of range (a damaged ledger) are left out.
    pub fn new(ledger: &GraphLedger) -> RootCalls {
        let resolved;
        let kept: &BTreeMap<String, Vec<ResolvedCall>> = if ledger.calls_version == CALLS_VERSION {
            &ledger.calls
        } else {
            resolved = calls::resolve(&ledger.files, None);
            &resolved
        };
        let files: Vec<&GraphFile> = ledger.files.values().collect();
        let mut out = RootCalls {
            paths: ledger.files.keys().cloned().collect(),
            ..RootCalls::default()
        };
        for (file_no, (path, file)) in ledger.files.iter().enumerate() {
            let valid = |c: &&ResolvedCall| {
                let site = file
                    .calls
                    .get(c.group as usize)
                    .and_then(|g| g.sites_of(c.usage).get(c.site as usize));
                let symbol = files
                    .get(c.file as usize)
                    .and_then(|f| f.symbols.get(c.symbol as usize));
                site.is_some() && symbol.is_some()
            };
            let sites: Vec<ResolvedCall> = kept
                .get(path)
                .into_iter()
                .flatten()
                .filter(valid)
                .copied()
                .collect();
            for (at, call) in sites.iter().enumerate() {
                out.by_callee
                    .entry((call.file, call.symbol))
                    .or_default()
                    .push((file_no as u32, at as u32));
            }
            out.by_file.push(sites);
        }
        out
    }

    /// The (file, symbol) numbers of `qualified` in `path` (its first
    /// definition of that name).
    pub fn position(
        &self,
        ledger: &GraphLedger,
        path: &str,
        qualified: &str,
    ) -> Option<(u32, u32)> {
        let file_no = self.paths.binary_search_by(|p| p.as_str().cmp(path)).ok()?;
        let symbol_no = ledger
            .files
            .get(path)?
            .symbols
            .iter()
            .position(|s| s.qualified_name == qualified)?;
        Some((file_no as u32, symbol_no as u32))
    }

    /// The sites calling the definition at `position`, or naming it as
    /// a type (`usage`).
    pub fn callers<'v>(
        &'v self,
        ledger: &'v GraphLedger,
        position: (u32, u32),
        usage: Usage,
    ) -> Vec<CallSite<'v>> {
        self.by_callee
            .get(&position)
            .into_iter()
            .flatten()
            .filter_map(|&(file_no, at)| {
                let call = self.by_file.get(file_no as usize)?.get(at as usize)?;
                (call.usage == usage)
                    .then(|| self.named(ledger, file_no, call))
                    .flatten()
            })
            .collect()
    }

    /// The calls in the definition at `position` (`qualified` of its
    /// file), with what each calls.
    pub fn callees<'v>(
        &'v self,
        ledger: &'v GraphLedger,
        position: (u32, u32),
        qualified: &str,
    ) -> Vec<CallSite<'v>> {
        let file_no = position.0;
        let groups: Vec<u32> = self
            .paths
            .get(file_no as usize)
            .and_then(|path| ledger.files.get(path))
            .into_iter()
            .flat_map(|file| file.calls.iter().enumerate())
            .filter(|(_, group)| group.caller.as_deref() == Some(qualified))
            .map(|(at, _)| at as u32)
            .collect();
        self.by_file
            .get(file_no as usize)
            .into_iter()
            .flatten()
            .filter(|call| call.usage == Usage::Call && groups.contains(&call.group))
            .filter_map(|call| self.named(ledger, file_no, call))
            .collect()
    }

    /// `call` of file `file_no`, with its names.
    fn named<'v>(
        &'v self,
        ledger: &'v GraphLedger,
        file_no: u32,
        call: &ResolvedCall,
    ) -> Option<CallSite<'v>> {
        let path = self.paths.get(file_no as usize)?;
        let file = ledger.files.get(path)?;
        let group = file.calls.get(call.group as usize)?;
        let (written, line) = group.sites_of(call.usage).get(call.site as usize)?;
        let callee_path = self.paths.get(call.file as usize)?;
        let callee = ledger
            .files
            .get(callee_path)?
            .symbols
            .get(call.symbol as usize)?;
        Some(CallSite {
            path,
            file,
            caller: group.caller.as_deref(),
            written,
            line: *line,
            callee_path,
            callee: &callee.qualified_name,
            resolution: call.resolution,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::classify::ArtifactType;
    use crate::ingest::outline::outline;

    fn facts(path: &str, text: &str) -> GraphFile {
        let outline = outline(text, Some("python"));
        GraphFile::new(
            "app",
            path,
            ArtifactType::Code,
            Some("python"),
            None,
            outline.as_ref(),
            text,
        )
    }

    /// Replaces (or adds) `path`'s facts in `ledger`, then updates its
    /// calls.
    fn put(ledger: &mut GraphLedger, path: &str, text: &str) {
        let after = facts(path, text);
        let before = ledger.files.insert(path.to_string(), after.clone());
        let mut changes = CallChanges::default();
        changes.replaced(path, before.as_ref(), &after);
        update(ledger, &changes);
    }

    /// (line, symbol called) of each call resolved in `path`.
    fn calls_in(ledger: &GraphLedger, path: &str) -> Vec<(usize, String)> {
        let index = RootCalls::new(ledger);
        let file_no = index.paths.iter().position(|p| p == path).unwrap();
        index.by_file[file_no]
            .iter()
            .filter_map(|call| index.named(ledger, file_no as u32, call))
            .map(|site| (site.line, site.callee.to_string()))
            .collect()
    }

    const CALLER: &str = "from a import rate\n\n\ndef total():\n    return rate()\n";

    #[test]
    fn an_edited_body_resolves_its_file_again_and_a_moved_shape_the_root() {
        let mut ledger = GraphLedger::default();
        put(&mut ledger, "a.py", "def rate():\n    return 1\n");
        put(&mut ledger, "b.py", CALLER);
        put(&mut ledger, "c.py", CALLER);
        assert_eq!(calls_in(&ledger, "c.py"), vec![(5, "rate".to_string())]);

        // What another file's sites resolve to is left alone when only a
        // body moved (c.py's edges, cleared here, are not read again).
        ledger.calls.remove("c.py");
        put(
            &mut ledger,
            "b.py",
            "from a import rate\n\n\ndef total():\n    x = 1\n    return rate() + x\n",
        );
        assert_eq!(calls_in(&ledger, "b.py"), vec![(6, "rate".to_string())]);
        assert!(calls_in(&ledger, "c.py").is_empty());

        // A definition added above `rate` moves its position: every file
        // is resolved again.
        put(
            &mut ledger,
            "a.py",
            "def fee():\n    return 2\n\n\ndef rate():\n    return fee()\n",
        );
        assert_eq!(calls_in(&ledger, "c.py"), vec![(5, "rate".to_string())]);
        assert_eq!(calls_in(&ledger, "a.py"), vec![(6, "fee".to_string())]);
    }

    #[test]
    fn the_ledger_keeps_a_few_numbers_per_edge() {
        let mut ledger = GraphLedger::default();
        put(&mut ledger, "a.py", "def rate():\n    return 1\n");
        put(&mut ledger, "b.py", CALLER);
        let json = serde_json::to_string(&ledger.calls).unwrap();
        assert_eq!(json, r#"{"b.py":[[0,0,"call",0,0,"import"]]}"#);
        let back: BTreeMap<String, Vec<ResolvedCall>> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ledger.calls);
    }
}
