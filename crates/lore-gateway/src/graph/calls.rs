//! `CALLS` edges: each call site of the facts ingest keeps
//! ([`CallsFact`](super::CallsFact)) resolved to the definitions it may
//! name, with how it was resolved ([`Resolution`]).
//!
//! These edges are not written to the store: a large repository has tens
//! of thousands of call sites, and each ingest would rewrite a large part
//! of them as triples (with their history) while the facts they come from
//! are already kept in the graph ledger. Ingest resolves them ([`resolve`])
//! into the graph ledger beside the facts, only the changed files' when
//! no file's definitions or imports moved (`call_index.rs` says when);
//! `km-graph-references` reads them there.
//!
//! A name is resolved, in this order: through the file's imports (a
//! name imported from a file of the root, a module alias `y.f()`, a Go
//! package `pkg.F()`, a Rust path `crate::a::f()` or `Type::method()`),
//! then to a definition of the same file (`self.f()` in a class), then of
//! the same folder or Go package, and last by its name alone in the
//! root's code of the same language: one definition is `name_only`, two
//! or three are `ambiguous`, more are dropped, as are names that
//! everything defines (`get`, `run`, `new`) and names imported from
//! outside the root.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod common_names;
mod file_context;

use file_context::FileContext;

use super::bindings::Bindings;
use super::dir_of;
use super::resolve::Resolver;
use super::{GraphFile, Usage};
use crate::ingest::classify::ArtifactType;
use crate::ingest::outline::SymbolKind;

/// Definitions a name resolved by itself may name before it is dropped.
pub const MAX_AMBIGUOUS: usize = 3;

/// How a call site was resolved to a definition, most trusted first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// Through the file's imports or a module path.
    Import,
    /// In the same file.
    SameFile,
    /// In the same folder or Go package.
    SameModule,
    /// The root's only definition of that name.
    NameOnly,
    /// One of two or three of that name.
    Ambiguous,
}

impl Resolution {
    /// As the answer writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::Import => "import",
            Resolution::SameFile => "same_file",
            Resolution::SameModule => "same_module",
            Resolution::NameOnly => "name_only",
            Resolution::Ambiguous => "ambiguous",
        }
    }
}

/// The call sites of one root's files resolved against all its files:
/// per file (of `only`, or every file), what each of its sites names, in
/// the order of its call groups and sites.
pub fn resolve(
    files: &BTreeMap<String, GraphFile>,
    only: Option<&BTreeSet<String>>,
) -> BTreeMap<String, Vec<ResolvedCall>> {
    let defs = Definitions::new(files);
    let resolver = Resolver::new(files);
    let mut out = BTreeMap::new();
    let wanted = files
        .iter()
        .filter(|(path, _)| only.is_none_or(|only| only.contains(*path)));
    for (path, file) in wanted {
        // A file of no node type (`other`) has no node to call from.
        if file.calls.is_empty() || super::label(file.artifact_type).is_none() {
            continue;
        }
        let context = FileContext {
            path,
            file,
            defs: &defs,
            resolver: &resolver,
            bindings: Bindings::of(&resolver, path, file),
        };
        let mut resolved = Vec::new();
        for (group_no, group) in file.calls.iter().enumerate() {
            for usage in [Usage::Call, Usage::Type] {
                for (site_no, (written, _)) in group.sites_of(usage).iter().enumerate() {
                    for (target, qualified, resolution) in
                        context.resolve(written, group.caller.as_deref())
                    {
                        if target == *path && group.caller.as_deref() == Some(qualified.as_str()) {
                            // A definition calling itself.
                            continue;
                        }
                        let Some((file_no, symbol_no)) = defs.position(&target, &qualified) else {
                            continue;
                        };
                        resolved.push(ResolvedCall {
                            group: group_no as u32,
                            site: site_no as u32,
                            usage,
                            file: file_no,
                            symbol: symbol_no,
                            resolution,
                        });
                    }
                }
            }
        }
        if !resolved.is_empty() {
            out.insert(path.clone(), resolved);
        }
    }
    out
}

/// The root's definitions, looked up by file, qualified name and name.
struct Definitions<'a> {
    /// (path, qualified name) of every definition → the position of its
    /// file among the root's files and of its first definition of that
    /// name among the file's symbols.
    all: HashMap<(&'a str, &'a str), (u32, u32)>,
    /// Qualified name → the files defining it.
    by_qualified: HashMap<&'a str, Vec<&'a str>>,
    /// A method's own name → (file, its qualified name).
    methods: HashMap<&'a str, Vec<(&'a str, &'a str)>>,
    /// Folder → its files.
    by_dir: HashMap<&'a str, Vec<&'a str>>,
    files: &'a BTreeMap<String, GraphFile>,
}

impl<'a> Definitions<'a> {
    fn new(files: &'a BTreeMap<String, GraphFile>) -> Definitions<'a> {
        let mut defs = Definitions {
            all: HashMap::new(),
            by_qualified: HashMap::new(),
            methods: HashMap::new(),
            by_dir: HashMap::new(),
            files,
        };
        for (file_no, (path, file)) in files.iter().enumerate() {
            let path = path.as_str();
            defs.by_dir.entry(dir_of(path)).or_default().push(path);
            for (symbol_no, symbol) in file.symbols.iter().enumerate() {
                let qualified = symbol.qualified_name.as_str();
                match defs.all.entry((path, qualified)) {
                    // Defined again (an overload, a redefinition): the
                    // first stands for all.
                    Entry::Occupied(_) => continue,
                    Entry::Vacant(slot) => {
                        slot.insert((file_no as u32, symbol_no as u32));
                    }
                }
                defs.by_qualified.entry(qualified).or_default().push(path);
                if symbol.kind == SymbolKind::Method
                    && let Some((_, name)) = qualified.rsplit_once('.')
                {
                    defs.methods
                        .entry(name)
                        .or_default()
                        .push((path, qualified));
                }
            }
        }
        defs
    }

    fn defines(&self, path: &str, qualified: &str) -> bool {
        self.all.contains_key(&(path, qualified))
    }

    /// Where `qualified` of `path` is: (file number, symbol number).
    fn position(&self, path: &str, qualified: &str) -> Option<(u32, u32)> {
        self.all.get(&(path, qualified)).copied()
    }

    fn family(&self, path: &str) -> Option<&'static str> {
        family(self.files.get(path)?.language.as_deref())
    }

    fn is_code(&self, path: &str) -> bool {
        self.files
            .get(path)
            .is_some_and(|f| f.artifact_type == ArtifactType::Code)
    }
}

/// The language family whose names call each other.
fn family(language: Option<&str>) -> Option<&'static str> {
    Some(match language? {
        "python" => "python",
        "typescript" | "tsx" | "javascript" => "script",
        "go" => "go",
        "rust" => "rust",
        _ => return None,
    })
}

/// One call site resolved to one definition of the same root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "CallTuple", into = "CallTuple")]
pub struct ResolvedCall {
    /// The call group (`GraphFile::calls`) the site is in.
    pub group: u32,
    /// The site in that group (of its calls or of its types).
    pub site: u32,
    /// A call, or a name used as a type.
    pub usage: Usage,
    /// The defining file: its number among the root's files (in order of
    /// their paths).
    pub file: u32,
    /// The definition: its number among that file's symbols.
    pub symbol: u32,
    /// How the name was resolved.
    pub resolution: Resolution,
}

/// A [`ResolvedCall`] as the ledger writes it: six values in a row.
type CallTuple = (u32, u32, Usage, u32, u32, Resolution);

impl From<CallTuple> for ResolvedCall {
    fn from((group, site, usage, file, symbol, resolution): CallTuple) -> ResolvedCall {
        ResolvedCall {
            group,
            site,
            usage,
            file,
            symbol,
            resolution,
        }
    }
}

impl From<ResolvedCall> for CallTuple {
    fn from(call: ResolvedCall) -> CallTuple {
        (
            call.group,
            call.site,
            call.usage,
            call.file,
            call.symbol,
            call.resolution,
        )
    }
}
