//! The code graph: nodes for subsystems, files and symbols, edges for what
//! holds, declares, imports, tests and describes what, kept as triples in
//! the knowledge store (no graph database).
//!
//! Ingest records what each file says of itself ([`GraphFile`]: its
//! symbols, its imports as written, the names its code calls, the paths
//! and names a document mentions) in `.lore/gateway/graph/<root>.json`. The graph is a pure
//! function of those facts and the subsystem catalog ([`build`]): every run
//! computes it whole and writes only the difference to what it wrote last
//! time, in one store transaction, so an import that resolves only once its
//! target exists, or a test whose code was deleted, is right after the next
//! run without reading unchanged files again.
//!
//! Nodes: `Subsystem:<name>`, `Code:<root>/<path>`, `TestCase:<root>/<path>`,
//! `DesignDoc:<root>/<path>`, `Config:<root>/<path>`,
//! `Symbol:<root>/<path>::<qualified_name>`: a file's node names its root
//! (root names hold no `/`), so two roots holding the same path never
//! share a node. Subsystems are the project's (a catalog's subsystem may
//! span roots) and keep bare names. Tools take a bare path too when
//! exactly one root has it ([`ids`]).
//! Edges: `BELONGS_TO` (file → subsystem), `DEPENDS_ON` (subsystem →
//! subsystem, from the catalog), `DECLARES_SYMBOL` (file → symbol),
//! `CONTAINS` (class → member), `IMPORTS` (file → file), `VALIDATES`
//! (test → code it imports or is named after), `EXERCISES` (test → symbol
//! it imports), `DESCRIBES` (document → file or symbol it mentions).
//! `CALLS` (symbol → symbol it calls, or file → symbol for a call outside
//! any definition, with the line of each site and how the name was
//! resolved) is not written to the store: ingest resolves the call sites
//! of the facts into the graph ledger (`calls.rs` says why,
//! `call_index.rs` how it stays in step), read with
//! `km-graph-references` (`references.rs`).
//!
//! A name imported from a barrel (a Python package's `__init__.py`, a
//! TS/JS folder's `index.ts`/`index.js`, any TS/JS file's `export … from`
//! or CommonJS `module.exports = require(…)`) that the barrel re-exports
//! leads on to the file defining it, through nested barrels and `export *`;
//! the barrel is imported too, and barrels re-exporting each other end
//! after a few steps. Imports resolve in `resolve.rs`, with what the
//! root's package manifests declare (`packages.rs`: Go module paths, npm
//! names, `tsconfig` aliases, Cargo crates).

mod bindings;
pub mod call_index;
pub mod calls;
pub mod explore;
pub mod ids;
mod packages;
mod paths;
pub mod references;
pub mod report;
mod resolve;

pub use packages::PackageFact;
pub(crate) use paths::{dir_of, normalize};
use resolve::Resolver;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::ingest::classify::ArtifactType;
pub use crate::ingest::outline::references::Usage;
use crate::ingest::outline::references::enclosing;
use crate::ingest::outline::{Outline, SymbolKind};
use crate::ingest::subsystem::Catalog;

/// Edges a document mentions at most (the rest is noise).
const MAX_MENTIONS: usize = 200;
/// Files of one Go package an import points to at most.
const MAX_PACKAGE_FILES: usize = 20;
/// Barrels a re-exported name is followed through at most (barrels
/// re-exporting each other end there).
const MAX_REEXPORT_DEPTH: usize = 3;
/// The extensions a TS/JS import may leave out, in the order tried.
const SCRIPT_EXTENSIONS: [&str; 9] = ["ts", "tsx", "d.ts", "js", "jsx", "mjs", "cjs", "mts", "cts"];

/// The node label of a file of this type (none for `other`).
pub fn label(kind: ArtifactType) -> Option<&'static str> {
    match kind {
        ArtifactType::Code => Some("Code"),
        ArtifactType::Test => Some("TestCase"),
        ArtifactType::Doc => Some("DesignDoc"),
        ArtifactType::Config => Some("Config"),
        ArtifactType::Other => None,
    }
}

/// The labels a node id may start with.
pub const LABELS: [&str; 6] = [
    "Subsystem",
    "Code",
    "TestCase",
    "DesignDoc",
    "Config",
    "Symbol",
];

/// A symbol as the graph keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SymbolFact {
    /// `Invoice.total_with_tax`.
    pub qualified_name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// First line (1-based).
    pub start_line: usize,
    /// Last line.
    pub end_line: usize,
}

/// An import as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ImportFact {
    /// The module.
    pub module: String,
    /// The names taken from it; `*` for a TS/JS `export * from`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// Names bound or re-exported under another name than the module's:
    /// the name here → the module's (`*` for the whole module).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub aliases: BTreeMap<String, String>,
    /// Whether the file passes the names on (`export … from`, CommonJS
    /// `module.exports = require(…)`), whatever its name.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reexport: bool,
    /// The definition (qualified name) in which alone its names are
    /// bound (a `require` inside a function); none for the whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// The call sites of one definition (or of the file outside any).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallsFact {
    /// The definition they are in (its qualified name); none for the
    /// file's top level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// Each site: the name as written (`self.total`, `store.Get`,
    /// `crate::feed::poll`; see `ingest::outline::references`) and its
    /// line.
    pub sites: Vec<(String, usize)>,
    /// The names it uses as types (a parameter's, a return's, a
    /// field's), as written, with their lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<(String, usize)>,
}

impl CallsFact {
    /// The sites of one usage.
    pub fn sites_of(&self, usage: Usage) -> &[(String, usize)] {
        match usage {
            Usage::Call => &self.sites,
            Usage::Type => &self.types,
        }
    }
}

/// What one file says of itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphFile {
    /// Its type.
    pub artifact_type: ArtifactType,
    /// Its language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Its subsystem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subsystem: Option<String>,
    /// Its definitions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<SymbolFact>,
    /// Its imports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<ImportFact>,
    /// What its code calls, by the definition the calls are in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallsFact>,
    /// Paths and code names a document mentions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<String>,
    /// Symbol and subsystem names left out because their node id would
    /// pass the store's [`MAX_NODE_CHARS`] (each cut to 80 characters).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// What it declares when it is a package manifest (`go.mod`,
    /// `package.json`, `tsconfig.json`, `Cargo.toml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<PackageFact>,
}

/// The longest node id the store keeps (a longer one would fail the
/// whole graph write).
pub use lore_store::MAX_NODE_CHARS;

/// Whether `id` fits the store.
pub fn fits(id: &str) -> bool {
    id.chars().count() <= MAX_NODE_CHARS
}

/// `name` as a report shows it: at most 80 characters.
fn shown(name: &str) -> String {
    let count = name.chars().count();
    if count <= 80 {
        return name.to_string();
    }
    let head: String = name.chars().take(80).collect();
    format!("{head}… ({count} characters)")
}

impl GraphFile {
    /// The facts of the file at `path` from its outline (code) or text
    /// (documents). A symbol or subsystem whose node id would not fit the
    /// store is left out (and listed in `left_out`).
    pub fn new(
        root: &str,
        path: &str,
        artifact_type: ArtifactType,
        language: Option<&str>,
        subsystem: Option<String>,
        outline: Option<&Outline>,
        text: &str,
    ) -> GraphFile {
        let mut left_out = Vec::new();
        let subsystem = subsystem.filter(|name| {
            let fit = fits(&format!("Subsystem:{name}"));
            if !fit {
                left_out.push(format!("subsystem {}", shown(name)));
            }
            fit
        });
        let (symbols, imports): (Vec<SymbolFact>, Vec<ImportFact>) = match outline {
            Some(outline) => (
                outline
                    .definitions
                    .iter()
                    .filter(|d| {
                        let fit = fits(&symbol_node(root, path, &d.qualified_name));
                        if !fit {
                            left_out.push(format!("symbol {}", shown(&d.qualified_name)));
                        }
                        fit
                    })
                    .map(|d| SymbolFact {
                        qualified_name: d.qualified_name.clone(),
                        kind: d.kind,
                        start_line: d.start_line,
                        end_line: d.end_line,
                    })
                    .collect(),
                outline
                    .imports
                    .iter()
                    .map(|i| ImportFact {
                        module: i.module.clone(),
                        names: i.names.clone(),
                        aliases: i.aliases.clone(),
                        reexport: i.reexport,
                        scope: i.scope.clone(),
                    })
                    .collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let calls = outline.map(|o| calls_of(o, &symbols)).unwrap_or_default();
        let mentions = if artifact_type == ArtifactType::Doc {
            mentions(text)
        } else {
            Vec::new()
        };
        GraphFile {
            artifact_type,
            language: language.map(str::to_string),
            subsystem,
            symbols,
            imports,
            calls,
            mentions,
            left_out,
            package: PackageFact::read(path, text),
        }
    }

    /// Whether it defines `qualified_name`.
    fn defines(&self, qualified_name: &str) -> bool {
        self.symbols
            .iter()
            .any(|s| s.qualified_name == qualified_name)
    }
}

/// The call sites of an outline, grouped by the definition they are in
/// (a definition left out of `symbols` gives its sites to the file).
fn calls_of(outline: &Outline, symbols: &[SymbolFact]) -> Vec<CallsFact> {
    let kept: BTreeSet<&str> = symbols.iter().map(|s| s.qualified_name.as_str()).collect();
    let callers = enclosing(&outline.definitions, &outline.references);
    let mut out: Vec<CallsFact> = Vec::new();
    let mut at: BTreeMap<Option<&str>, usize> = BTreeMap::new();
    for (site, caller) in outline.references.iter().zip(callers) {
        let caller = caller
            .map(|d| outline.definitions[d].qualified_name.as_str())
            .filter(|q| kept.contains(q));
        let index = *at.entry(caller).or_insert_with(|| {
            out.push(CallsFact {
                caller: caller.map(str::to_string),
                sites: Vec::new(),
                types: Vec::new(),
            });
            out.len() - 1
        });
        let group = &mut out[index];
        match site.usage {
            Usage::Call => group.sites.push((site.name.clone(), site.line)),
            Usage::Type => group.types.push((site.name.clone(), site.line)),
        }
    }
    out
}

/// The format of the facts a [`GraphLedger`] keeps; ingest reads the
/// files of facts in an older one again (1: TS/JS re-exports list the
/// names they pass on; 2: manifests say what they declare; 3: call sites
/// and the names imports bind; 4: node ids name their root, so the edges
/// written under the bare ids of 3 are replaced; 5: names used as types,
/// CommonJS `require`s as imports, `package.json`'s `main`; 6: re-exports
/// marked, `require`s anywhere (bound in their function), CommonJS
/// barrels, TS `import x = require(…)`, more names used as types).
pub const FACTS_VERSION: u32 = 6;

/// What a root's graph was built from, and what was written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GraphLedger {
    /// The format of its facts ([`FACTS_VERSION`]; 0 before it was kept).
    #[serde(default)]
    pub facts_version: u32,
    /// The facts of every file, by root-relative path.
    pub files: BTreeMap<String, GraphFile>,
    /// The edges written to the store last time ([`Edge::key`]), with
    /// their properties.
    pub written: BTreeMap<String, Option<String>>,
    /// The format of `calls` ([`call_index::CALLS_VERSION`]; 0 before
    /// they were kept).
    #[serde(default)]
    pub calls_version: u32,
    /// The call sites of each file resolved to the root's definitions
    /// (`call_index.rs`).
    #[serde(default)]
    pub calls: BTreeMap<String, Vec<call_index::ResolvedCall>>,
}

impl GraphLedger {
    /// Reads `path`; a missing or unreadable ledger is empty (the graph is
    /// then written whole again, which is idempotent).
    pub fn load(path: &Path) -> GraphLedger {
        std::fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }
}

/// One edge: subject, predicate, object.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Edge(pub String, pub String, pub String);

impl Edge {
    /// One string naming the edge (its parts joined by U+001F).
    pub fn key(&self) -> String {
        format!("{}\u{1f}{}\u{1f}{}", self.0, self.1, self.2)
    }

    /// The edge a [`Edge::key`] names.
    pub fn from_key(key: &str) -> Option<Edge> {
        let mut parts = key.split('\u{1f}');
        let edge = Edge(
            parts.next()?.to_string(),
            parts.next()?.to_string(),
            parts.next()?.to_string(),
        );
        parts.next().is_none().then_some(edge)
    }
}

/// The node of the file at `path` of root `root`: `Code:<root>/<path>`.
pub fn file_node(kind: ArtifactType, root: &str, path: &str) -> Option<String> {
    label(kind).map(|label| format!("{label}:{root}/{path}"))
}

/// The node of a symbol of the file at `path` of root `root`:
/// `Symbol:<root>/<path>::<qualified_name>`.
pub fn symbol_node(root: &str, path: &str, qualified_name: &str) -> String {
    format!("Symbol:{root}/{path}::{qualified_name}")
}

/// The whole graph of root `root`: every edge with its properties (JSON).
pub fn build(
    root: &str,
    files: &BTreeMap<String, GraphFile>,
    catalog: &Catalog,
) -> BTreeMap<Edge, Option<String>> {
    let resolver = Resolver::new(files);
    let mut out: BTreeMap<Edge, Option<String>> = BTreeMap::new();
    let mut add = |s: String, p: &str, o: String, props: Option<String>| {
        // A node the store cannot keep would fail the whole write: ingest
        // leaves such files and names out (and says so) before this.
        if s != o && fits(&s) && fits(&o) {
            out.insert(Edge(s, p.to_string(), o), props);
        }
    };
    for (name, spec) in &catalog.subsystems {
        for dependency in &spec.depends_on {
            add(
                format!("Subsystem:{name}"),
                "DEPENDS_ON",
                format!("Subsystem:{dependency}"),
                None,
            );
        }
    }
    for (path, file) in files {
        let Some(node) = file_node(file.artifact_type, root, path) else {
            continue;
        };
        if let Some(subsystem) = &file.subsystem {
            add(
                node.clone(),
                "BELONGS_TO",
                format!("Subsystem:{subsystem}"),
                None,
            );
        }
        let own: BTreeSet<&str> = file
            .symbols
            .iter()
            .map(|s| s.qualified_name.as_str())
            .collect();
        for symbol in &file.symbols {
            let id = symbol_node(root, path, &symbol.qualified_name);
            add(
                node.clone(),
                "DECLARES_SYMBOL",
                id.clone(),
                Some(format!("{{\"kind\":\"{}\"}}", symbol.kind.as_str())),
            );
            if let Some((parent, _)) = symbol.qualified_name.rsplit_once('.')
                && own.contains(parent)
            {
                add(symbol_node(root, path, parent), "CONTAINS", id, None);
            }
        }
        let is_test = file.artifact_type == ArtifactType::Test;
        for import in &file.imports {
            for (target, names) in resolver.resolve(path, file.language.as_deref(), import) {
                let Some(target_file) = files.get(&target) else {
                    continue;
                };
                let Some(target_node) = file_node(target_file.artifact_type, root, &target) else {
                    continue;
                };
                add(node.clone(), "IMPORTS", target_node.clone(), None);
                if is_test && target_file.artifact_type == ArtifactType::Code {
                    add(node.clone(), "VALIDATES", target_node, None);
                    for name in names {
                        if target_file.defines(&name) {
                            add(
                                node.clone(),
                                "EXERCISES",
                                symbol_node(root, &target, &name),
                                None,
                            );
                        }
                    }
                }
            }
        }
        if is_test {
            for target in resolver.tested_by_name(path) {
                add(
                    node.clone(),
                    "VALIDATES",
                    format!("Code:{root}/{target}"),
                    None,
                );
            }
        }
        if file.artifact_type == ArtifactType::Doc {
            for mention in &file.mentions {
                if let Some(target) = resolver.mentioned(root, mention, path) {
                    add(node.clone(), "DESCRIBES", target, None);
                }
            }
        }
    }
    out
}

/// The paths and code names a document mentions: tokens with a known
/// file extension, and `code spans` that read as identifiers
/// (`Invoice.total`, `send_request`, `HttpClient`).
pub fn mentions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let push = |m: &str, out: &mut Vec<String>| {
        if out.len() < MAX_MENTIONS && !m.is_empty() && !out.iter().any(|o| o == m) {
            out.push(m.to_string());
        }
    };
    for token in text.split(|c: char| c.is_whitespace() || "\"'`,()[]<>{}|*".contains(c)) {
        let token = token.trim_matches(|c: char| ".:;!?#".contains(c));
        let token = token.split('#').next().unwrap_or(token);
        let (stem, ext) = match token.rsplit_once('.') {
            Some(parts) => parts,
            None => continue,
        };
        if stem.is_empty() || token.contains("://") || ext.is_empty() {
            continue;
        }
        if crate::ingest::classify::language(token).is_some()
            && !matches!(crate::ingest::classify::language(token), Some("text"))
        {
            push(token, &mut out);
        }
    }
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else {
            break;
        };
        let span = after[..close].trim().trim_end_matches("()");
        let identifier = span.len() >= 4
            && span.len() <= 120
            && span
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            && span
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_');
        let code_like = span.contains('.')
            || span.contains('_')
            || span.chars().skip(1).any(char::is_uppercase);
        if identifier && code_like {
            push(span, &mut out);
        }
        rest = &after[close + 1..];
    }
    out
}
