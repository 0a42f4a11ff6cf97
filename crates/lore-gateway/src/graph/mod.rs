//! The code graph: nodes for subsystems, files and symbols, edges for what
//! holds, declares, imports, tests and describes what, kept as triples in
//! the knowledge store (no graph database).
//!
//! Ingest records what each file says of itself ([`GraphFile`]: its
//! symbols, its imports as written, the paths and names a document
//! mentions) in `.lore/gateway/graph/<root>.json`. The graph is a pure
//! function of those facts and the subsystem catalog ([`build`]): every run
//! computes it whole and writes only the difference to what it wrote last
//! time, in one store transaction, so an import that resolves only once its
//! target exists, or a test whose code was deleted, is right after the next
//! run without reading unchanged files again.
//!
//! Nodes: `Subsystem:<name>`, `Code:<path>`, `TestCase:<path>`,
//! `DesignDoc:<path>`, `Config:<path>`, `Symbol:<path>::<qualified_name>`.
//! Edges: `BELONGS_TO` (file → subsystem), `DEPENDS_ON` (subsystem →
//! subsystem, from the catalog), `DECLARES_SYMBOL` (file → symbol),
//! `CONTAINS` (class → member), `IMPORTS` (file → file), `VALIDATES`
//! (test → code it imports or is named after), `EXERCISES` (test → symbol
//! it imports), `DESCRIBES` (document → file or symbol it mentions).
//!
//! A name imported from a barrel (a Python package's `__init__.py`, a
//! TS/JS folder's `index.ts`/`index.js`) that the barrel re-exports leads
//! on to the file defining it, through nested barrels and `export *`;
//! the barrel is imported too, and barrels re-exporting each other end
//! after a few steps.

pub mod explore;
pub mod report;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::ingest::classify::ArtifactType;
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportFact {
    /// The module.
    pub module: String,
    /// The names taken from it; `*` for a TS/JS `export * from`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// Names re-exported under another name than the module's: the name
    /// here → the module's (`*` for the whole module).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub aliases: BTreeMap<String, String>,
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
    /// Paths and code names a document mentions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<String>,
    /// Symbol and subsystem names left out because their node id would
    /// pass the store's [`MAX_NODE_CHARS`] (each cut to 80 characters).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
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
        let (symbols, imports) = match outline {
            Some(outline) => (
                outline
                    .definitions
                    .iter()
                    .filter(|d| {
                        let fit = fits(&symbol_node(path, &d.qualified_name));
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
                    })
                    .collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
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
            mentions,
            left_out,
        }
    }

    /// Whether it defines `qualified_name`.
    fn defines(&self, qualified_name: &str) -> bool {
        self.symbols
            .iter()
            .any(|s| s.qualified_name == qualified_name)
    }
}

/// The format of the facts a [`GraphLedger`] keeps; ingest reads the
/// files of facts in an older one again (1: TS/JS re-exports list the
/// names they pass on).
pub const FACTS_VERSION: u32 = 1;

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

/// The node of a file.
pub fn file_node(kind: ArtifactType, path: &str) -> Option<String> {
    label(kind).map(|label| format!("{label}:{path}"))
}

/// The node of a symbol.
pub fn symbol_node(path: &str, qualified_name: &str) -> String {
    format!("Symbol:{path}::{qualified_name}")
}

/// The whole graph of a root: every edge with its properties (JSON).
pub fn build(
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
        let Some(node) = file_node(file.artifact_type, path) else {
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
            let id = symbol_node(path, &symbol.qualified_name);
            add(
                node.clone(),
                "DECLARES_SYMBOL",
                id.clone(),
                Some(format!("{{\"kind\":\"{}\"}}", symbol.kind.as_str())),
            );
            if let Some((parent, _)) = symbol.qualified_name.rsplit_once('.')
                && own.contains(parent)
            {
                add(symbol_node(path, parent), "CONTAINS", id, None);
            }
        }
        let is_test = file.artifact_type == ArtifactType::Test;
        for import in &file.imports {
            for (target, names) in resolver.resolve(path, file.language.as_deref(), import) {
                let Some(target_file) = files.get(&target) else {
                    continue;
                };
                let Some(target_node) = file_node(target_file.artifact_type, &target) else {
                    continue;
                };
                add(node.clone(), "IMPORTS", target_node.clone(), None);
                if is_test && target_file.artifact_type == ArtifactType::Code {
                    add(node.clone(), "VALIDATES", target_node, None);
                    for name in names {
                        if target_file.defines(&name) {
                            add(node.clone(), "EXERCISES", symbol_node(&target, &name), None);
                        }
                    }
                }
            }
        }
        if is_test {
            for target in resolver.tested_by_name(path) {
                add(node.clone(), "VALIDATES", format!("Code:{target}"), None);
            }
        }
        if file.artifact_type == ArtifactType::Doc {
            for mention in &file.mentions {
                if let Some(target) = resolver.mentioned(mention, path) {
                    add(node.clone(), "DESCRIBES", target, None);
                }
            }
        }
    }
    out
}

/// Finds the files an import, a test's name or a document's mention
/// points to.
struct Resolver<'a> {
    files: &'a BTreeMap<String, GraphFile>,
    /// File name → paths with that name.
    by_name: HashMap<&'a str, Vec<&'a str>>,
    /// Folder → its files.
    by_dir: HashMap<&'a str, Vec<&'a str>>,
    /// Symbol name (qualified, and bare when unique) → its node.
    symbols: HashMap<String, Option<String>>,
    /// What [`Resolver::by_suffix`] answered, by suffix (thousands of
    /// files import the same few modules).
    suffixes: std::cell::RefCell<HashMap<String, Option<String>>>,
}

pub(crate) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether a file passes on names of others: a package's `__init__.py`,
/// a folder's `index.ts` (the files an import of the folder reads).
fn is_barrel(path: &str) -> bool {
    match name_of(path).split_once('.') {
        Some(("__init__", ext)) => ext == "py",
        Some(("index", ext)) => SCRIPT_EXTENSIONS.contains(&ext),
        _ => false,
    }
}

/// `a/b/../c/./d` → `a/c/d`; `None` when it climbs out of the root.
pub(crate) fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

impl<'a> Resolver<'a> {
    fn new(files: &'a BTreeMap<String, GraphFile>) -> Resolver<'a> {
        let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut by_dir: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut symbols: HashMap<String, Option<String>> = HashMap::new();
        for (path, file) in files {
            by_name.entry(name_of(path)).or_default().push(path);
            by_dir.entry(dir_of(path)).or_default().push(path);
            if file.artifact_type != ArtifactType::Code {
                continue;
            }
            for symbol in &file.symbols {
                let node = symbol_node(path, &symbol.qualified_name);
                let bare = symbol.qualified_name.rsplit('.').next().unwrap_or_default();
                for key in [symbol.qualified_name.as_str(), bare] {
                    // A name defined twice names nothing.
                    symbols
                        .entry(key.to_string())
                        .and_modify(|known| {
                            if known.as_deref() != Some(node.as_str()) {
                                *known = None;
                            }
                        })
                        .or_insert_with(|| Some(node.clone()));
                }
            }
        }
        Resolver {
            files,
            by_name,
            by_dir,
            symbols,
            suffixes: std::cell::RefCell::default(),
        }
    }

    fn exists(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// The first candidate that exists.
    fn first(&self, candidates: impl IntoIterator<Item = String>) -> Option<String> {
        candidates.into_iter().find(|c| self.exists(c))
    }

    /// A path that exists ending with `/suffix` (or being it): the
    /// shortest, and only when it is the only one that short.
    fn by_suffix(&self, suffix: &str) -> Option<String> {
        if let Some(known) = self.suffixes.borrow().get(suffix) {
            return known.clone();
        }
        let ends = |p: &str| {
            p == suffix
                || (p.len() > suffix.len()
                    && p.ends_with(suffix)
                    && p.as_bytes()[p.len() - suffix.len() - 1] == b'/')
        };
        let mut found: Vec<&str> = self
            .by_name
            .get(name_of(suffix))
            .map(|paths| paths.iter().copied().filter(|p| ends(p)).collect())
            .unwrap_or_default();
        found.sort_by_key(|p| p.len());
        let answer = match found.as_slice() {
            [] => None,
            [one] => Some(one.to_string()),
            [a, b, ..] if a.len() < b.len() => Some(a.to_string()),
            _ => None,
        };
        self.suffixes
            .borrow_mut()
            .insert(suffix.to_string(), answer.clone());
        answer
    }

    /// The files an import of `from` points to, each with the names taken
    /// from it: a name a barrel re-exports leads on to the file defining
    /// it (named as it is there), and the barrel keeps the rest.
    fn resolve(
        &self,
        from: &str,
        language: Option<&str>,
        import: &ImportFact,
    ) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for (path, names) in self.module_files(from, language, import) {
            let mut kept = Vec::new();
            for name in names {
                match self.reexport(&path, &name, 0) {
                    Some((target, defined)) => out.push((target, vec![defined])),
                    None => kept.push(name),
                }
            }
            // The barrel is imported too, whatever it passes on.
            out.push((path, kept));
        }
        out
    }

    /// The file defining `name` that a barrel (a package's `__init__.py`,
    /// a folder's `index.ts`) re-exports, with the name it has there; none
    /// when the barrel defines it itself or does not pass it on. Named
    /// re-exports lead to the module they name, `export *` to a module
    /// that defines the name.
    fn reexport(&self, barrel: &str, name: &str, depth: usize) -> Option<(String, String)> {
        // `*` is the module itself, not a name in it.
        if depth >= MAX_REEXPORT_DEPTH || name == "*" || !is_barrel(barrel) {
            return None;
        }
        let file = self.files.get(barrel)?;
        if file.defines(name) {
            return None;
        }
        let named = file
            .imports
            .iter()
            .filter(|i| i.names.iter().any(|n| n == name))
            .map(|i| (i, false));
        let stars = file
            .imports
            .iter()
            .filter(|i| i.names.iter().any(|n| n == "*"))
            .map(|i| (i, true));
        named.chain(stars).find_map(|(import, star)| {
            let source = match import.aliases.get(name) {
                Some(source) if !star => source.as_str(),
                _ => name,
            };
            let one = ImportFact {
                module: import.module.clone(),
                names: vec![source.to_string()],
                aliases: BTreeMap::new(),
            };
            self.module_files(barrel, file.language.as_deref(), &one)
                .into_iter()
                .filter(|(_, names)| names.iter().any(|n| n == source))
                .find_map(
                    |(target, _)| match self.reexport(&target, source, depth + 1) {
                        Some(found) => Some(found),
                        None if !star
                            || self.files.get(&target).is_some_and(|f| f.defines(source)) =>
                        {
                            Some((target, source.to_string()))
                        }
                        None => None,
                    },
                )
        })
    }

    /// The files an import of `from` names, each with the names taken
    /// from it, barrels not followed.
    fn module_files(
        &self,
        from: &str,
        language: Option<&str>,
        import: &ImportFact,
    ) -> Vec<(String, Vec<String>)> {
        match language {
            Some("python") => self.python(from, import),
            Some("typescript" | "tsx" | "javascript") => self
                .script(from, &import.module)
                .map(|p| vec![(p, import.names.clone())])
                .unwrap_or_default(),
            Some("go") => self
                .go(&import.module)
                .into_iter()
                .map(|p| (p, Vec::new()))
                .collect(),
            Some("rust") => self.rust(from, &import.module),
            _ => Vec::new(),
        }
    }

    fn python_module(&self, base: Option<&str>, dotted: &str) -> Option<String> {
        let rel = dotted.replace('.', "/");
        let candidates = [
            format!("{rel}.py"),
            format!("{rel}/__init__.py"),
            format!("{rel}.pyi"),
        ];
        match base {
            Some(base) => {
                let join = |c: &String| {
                    if base.is_empty() {
                        c.clone()
                    } else {
                        format!("{base}/{c}")
                    }
                };
                self.first(candidates.iter().map(join))
            }
            None => candidates.iter().find_map(|c| self.by_suffix(c)),
        }
    }

    fn python(&self, from: &str, import: &ImportFact) -> Vec<(String, Vec<String>)> {
        let module = import.module.as_str();
        let dots = module.chars().take_while(|c| *c == '.').count();
        let rest = &module[dots..];
        // Relative: from the file's package, one folder up per extra dot.
        let base = if dots > 0 {
            let mut dir = dir_of(from).to_string();
            for _ in 1..dots {
                dir = dir_of(&dir).to_string();
            }
            Some(dir)
        } else {
            None
        };
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        let mut names_left = Vec::new();
        // `from pkg import module` imports a module, not a name.
        for name in &import.names {
            let dotted = if rest.is_empty() {
                name.clone()
            } else {
                format!("{rest}.{name}")
            };
            match self.python_module(base.as_deref(), &dotted) {
                Some(path) => out.push((path, Vec::new())),
                None => names_left.push(name.clone()),
            }
        }
        if (import.names.is_empty() || !names_left.is_empty())
            && !rest.is_empty()
            && let Some(path) = self.python_module(base.as_deref(), rest)
        {
            out.push((path, names_left));
        } else if rest.is_empty()
            && let Some(base) = &base
            && !names_left.is_empty()
        {
            let init = if base.is_empty() {
                "__init__.py".to_string()
            } else {
                format!("{base}/__init__.py")
            };
            if self.exists(&init) {
                out.push((init, names_left));
            }
        }
        out
    }

    fn script(&self, from: &str, module: &str) -> Option<String> {
        let joined = if module.starts_with('.') {
            normalize(&format!("{}/{module}", dir_of(from)))?
        } else if let Some(rest) = module
            .strip_prefix("@/")
            .or_else(|| module.strip_prefix("~/"))
        {
            // The common `@/` alias for the source folder.
            return ["src", ""].iter().find_map(|base| {
                let joined = if base.is_empty() {
                    rest.to_string()
                } else {
                    format!("{base}/{rest}")
                };
                self.script_file(&joined)
            });
        } else {
            return None;
        };
        self.script_file(&joined)
    }

    fn script_file(&self, joined: &str) -> Option<String> {
        // ESM TypeScript writes `./x.js` for `./x.ts`.
        let stem = ["js", "jsx", "mjs", "cjs"]
            .iter()
            .find_map(|ext| joined.strip_suffix(&format!(".{ext}")))
            .unwrap_or(joined);
        let mut candidates = vec![joined.to_string()];
        for base in [stem, joined] {
            for ext in SCRIPT_EXTENSIONS {
                candidates.push(format!("{base}.{ext}"));
            }
            for ext in ["ts", "tsx", "js", "jsx"] {
                candidates.push(format!("{base}/index.{ext}"));
            }
        }
        self.first(candidates)
    }

    /// The files of the package folder an import path ends with.
    fn go(&self, module: &str) -> Vec<String> {
        let segments: Vec<&str> = module.split('/').collect();
        for start in 0..segments.len() {
            let dir = segments[start..].join("/");
            if let Some(files) = self.by_dir.get(dir.as_str()) {
                let code: Vec<String> = files
                    .iter()
                    .filter(|p| p.ends_with(".go") && !p.ends_with("_test.go"))
                    .take(MAX_PACKAGE_FILES)
                    .map(|p| p.to_string())
                    .collect();
                if !code.is_empty() {
                    return code;
                }
            }
        }
        Vec::new()
    }

    fn rust(&self, from: &str, module: &str) -> Vec<(String, Vec<String>)> {
        // `crate::a::b::{C, d}` → the module path and the names.
        let (path, names) = match module.split_once("::{") {
            Some((path, list)) => (
                path,
                list.trim_end_matches('}')
                    .split(',')
                    .map(|n| n.trim().split("::").next().unwrap_or_default().to_string())
                    .filter(|n| !n.is_empty() && n != "self")
                    .collect::<Vec<_>>(),
            ),
            None => {
                let (path, last) = module.rsplit_once("::").unwrap_or((module, ""));
                let last = last
                    .split(" as ")
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                (
                    path,
                    vec![last]
                        .into_iter()
                        .filter(|n| !n.is_empty() && n != "*")
                        .collect(),
                )
            }
        };
        let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let Some(first) = segments.first().copied() else {
            return Vec::new();
        };
        // The folder the module path starts from.
        let src = match from.find("src/") {
            Some(at) if at == 0 || from[..at].ends_with('/') => from[..at + 3].to_string(),
            _ => return Vec::new(),
        };
        let base = match first {
            "crate" => {
                segments.remove(0);
                src
            }
            "self" | "super" => {
                let own = from.trim_end_matches(".rs");
                let own = own.strip_suffix("/mod").unwrap_or(own);
                let own = if own.ends_with("/lib") || own.ends_with("/main") {
                    dir_of(own).to_string()
                } else {
                    own.to_string()
                };
                let mut dir = own;
                while segments.first() == Some(&"super") {
                    dir = dir_of(&dir).to_string();
                    segments.remove(0);
                }
                if segments.first() == Some(&"self") {
                    segments.remove(0);
                }
                dir
            }
            name => {
                // Another crate of this workspace: `lore_store` → `…/lore-store/src`.
                let dashed = name.replace('_', "-");
                let Some(lib) = [name, dashed.as_str()]
                    .iter()
                    .find_map(|n| self.by_suffix(&format!("{n}/src/lib.rs")))
                else {
                    return Vec::new();
                };
                segments.remove(0);
                dir_of(&lib).to_string()
            }
        };
        // The deepest module file that exists; the rest are items in it.
        let mut out = Vec::new();
        let mut module_names: Vec<String> = segments.iter().map(|s| s.to_string()).collect();
        let mut item_names = names.clone();
        // `use crate::a::{b, C}`: `b` may be a module of its own.
        let mut submodules = Vec::new();
        for name in &names {
            let mut deeper = module_names.clone();
            deeper.push(name.clone());
            if let Some(file) = self.rust_module(&base, &deeper) {
                submodules.push((file, Vec::new()));
                item_names.retain(|n| n != name);
            }
        }
        out.extend(submodules);
        while !module_names.is_empty() {
            if let Some(file) = self.rust_module(&base, &module_names) {
                out.push((file, item_names));
                return out;
            }
            item_names = vec![module_names.pop().unwrap_or_default()];
        }
        out
    }

    fn rust_module(&self, base: &str, segments: &[String]) -> Option<String> {
        if segments.is_empty() {
            return None;
        }
        let rel = segments.join("/");
        self.first([format!("{base}/{rel}.rs"), format!("{base}/{rel}/mod.rs")])
    }

    /// The code a test is named after: `test_x.py`/`x_test.py` → `x.py`
    /// (else the private `_x.py`),
    /// `x.test.ts`/`x.spec.tsx` → `x.ts(x)`, `x_test.go` → the package's
    /// `x.go`; the nearest one when several share the name.
    fn tested_by_name(&self, test: &str) -> Vec<String> {
        let name = name_of(test);
        let mut stems: Vec<String> = Vec::new();
        if let Some(stem) = name.strip_suffix(".py") {
            let tested = stem
                .strip_prefix("test_")
                .or_else(|| stem.strip_suffix("_test"));
            if let Some(s) = tested {
                stems.push(format!("{s}.py"));
                // A private module a package re-exports (`_config.py`).
                stems.push(format!("_{s}.py"));
            }
        } else if let Some(stem) = name.strip_suffix("_test.go") {
            let same = format!("{}/{stem}.go", dir_of(test));
            return [same.trim_start_matches('/').to_string()]
                .into_iter()
                .filter(|p| self.exists(p))
                .collect();
        } else {
            for marker in [".test.", ".spec."] {
                if let Some((stem, ext)) = name.split_once(marker) {
                    let ext = ext.trim_start_matches("d.");
                    for e in [ext, "ts", "tsx", "js", "jsx"] {
                        stems.push(format!("{stem}.{e}"));
                    }
                }
            }
        }
        for stem in stems {
            let Some(paths) = self.by_name.get(stem.as_str()) else {
                continue;
            };
            let code: Vec<&str> = paths
                .iter()
                .copied()
                .filter(|p| {
                    self.files
                        .get(*p)
                        .is_some_and(|f| f.artifact_type == ArtifactType::Code)
                })
                .collect();
            // Nearest: most leading folders shared with the test.
            let shared = |p: &str| {
                p.split('/')
                    .zip(test.split('/'))
                    .take_while(|(a, b)| a == b)
                    .count()
            };
            let best = code.iter().map(|p| shared(p)).max();
            let nearest: Vec<String> = code
                .iter()
                .filter(|p| Some(shared(p)) == best)
                .map(|p| p.to_string())
                .collect();
            if nearest.len() == 1 {
                return nearest;
            }
        }
        Vec::new()
    }

    /// The node a document's mention names: a file by path (or a unique
    /// suffix of one), or a symbol by a name defined once.
    fn mentioned(&self, mention: &str, doc: &str) -> Option<String> {
        let path = mention.trim_start_matches("./").trim_start_matches('/');
        if path.contains('.') && crate::ingest::classify::language(path).is_some() {
            let relative = normalize(&format!("{}/{path}", dir_of(doc)));
            let found = relative
                .filter(|p| self.exists(p))
                .or_else(|| self.exists(path).then(|| path.to_string()))
                .or_else(|| path.contains('/').then(|| self.by_suffix(path)).flatten())?;
            let file = self.files.get(&found)?;
            return file_node(file.artifact_type, &found);
        }
        let name = mention.trim_end_matches("()");
        self.symbols.get(name).cloned().flatten()
    }
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
