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

use common_names::is_common;

use super::bindings::{Binding, Bindings};
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

/// A target: (file, qualified name, how).
type Target = (String, String, Resolution);

/// One file's view of the root while its sites are resolved.
struct FileContext<'a> {
    path: &'a str,
    file: &'a GraphFile,
    defs: &'a Definitions<'a>,
    resolver: &'a Resolver<'a>,
    bindings: Bindings,
}

impl FileContext<'_> {
    /// The definitions the site `written` (in `caller`) names.
    fn resolve(&self, written: &str, caller: Option<&str>) -> Vec<Target> {
        if let Some((module, rest)) = required_site(written) {
            return self.in_required(module, rest);
        }
        let rust_path = self.file.language.as_deref() == Some("rust") && written.contains("::");
        let split = if rust_path {
            written.rsplit_once("::")
        } else {
            written.rsplit_once('.')
        };
        match split {
            None => self.bare(written, caller),
            Some(("self" | "Self", name)) => self.own_member(name, caller),
            Some(("?", name)) => self.by_name(name, true),
            Some((qualifier, name)) if rust_path => self.rust_path(qualifier, name),
            Some((qualifier, name)) => self.member(qualifier, name, caller),
        }
    }

    /// `require('./x').g()`: `g` of the module `./x` (nothing when it is
    /// outside the root).
    fn in_required(&self, module: &str, qualified: &str) -> Vec<Target> {
        let import = super::ImportFact {
            module: module.to_string(),
            ..Default::default()
        };
        let files: Vec<String> = self
            .resolver
            .resolve(self.path, self.file.language.as_deref(), &import)
            .into_iter()
            .map(|(file, _)| file)
            .collect();
        self.in_module(&files, qualified).into_iter().collect()
    }

    /// `f()`: an imported name, one of the file, of a glob import, of the
    /// folder, or of the root.
    fn bare(&self, name: &str, caller: Option<&str>) -> Vec<Target> {
        match self.bindings.get(name, caller) {
            Some(Binding::External) => return Vec::new(),
            Some(Binding::Item(items)) => {
                let found = self.in_items(items, None);
                if !found.is_empty() {
                    return found;
                }
            }
            _ => {}
        }
        if self.defs.defines(self.path, name) {
            return vec![self.here(name)];
        }
        if let Some(found) = self.in_module(&self.bindings.globs, name) {
            return vec![found];
        }
        let folder = self.in_folder(name);
        if !folder.is_empty() {
            return folder;
        }
        self.by_name(name, false)
    }

    /// `self.f()`: a member of the caller's class, in the file, the
    /// folder or the root, else a method of that name (a base class's).
    fn own_member(&self, name: &str, caller: Option<&str>) -> Vec<Target> {
        let Some((class, _)) = caller.and_then(|c| c.rsplit_once('.')) else {
            return self.by_name(name, true);
        };
        let qualified = format!("{class}.{name}");
        if self.defs.defines(self.path, &qualified) {
            return vec![self.here(&qualified)];
        }
        let folder = self.in_folder(&qualified);
        if !folder.is_empty() {
            return folder;
        }
        let elsewhere = self.by_qualified(&qualified);
        if !elsewhere.is_empty() {
            return elsewhere;
        }
        self.by_name(name, true)
    }

    /// `q.f()`: through an import bound to `q`, a class of the file, else
    /// by the name alone.
    fn member(&self, qualifier: &str, name: &str, caller: Option<&str>) -> Vec<Target> {
        // The longest bound prefix: `a.b` of Python's `import a.b` in
        // `a.b.C.f`, leaving `C`.
        let mut bound = None;
        let mut prefix = qualifier;
        loop {
            if let Some(binding) = self.bindings.get(prefix, caller) {
                let rest = qualifier[prefix.len()..].trim_start_matches('.');
                bound = Some((binding, rest));
                break;
            }
            match prefix.rsplit_once('.') {
                Some((shorter, _)) => prefix = shorter,
                None => break,
            }
        }
        match bound {
            Some((Binding::External, _)) => return Vec::new(),
            Some((Binding::Module(files), rest)) => {
                if let Some(found) = self.in_module(files, &join(rest, name)) {
                    return vec![found];
                }
            }
            Some((Binding::Item(items), "")) => {
                let found = self.in_items(items, Some(name));
                if !found.is_empty() {
                    return found;
                }
            }
            _ => {}
        }
        let qualified = format!("{qualifier}.{name}");
        if self.defs.defines(self.path, &qualified) {
            return vec![self.here(&qualified)];
        }
        self.by_name(name, true)
    }

    /// `a::b::f()` / `Type::f()` in Rust.
    fn rust_path(&self, qualifier: &str, name: &str) -> Vec<Target> {
        let head = qualifier.split("::").next().unwrap_or(qualifier);
        let qualifier = match self.bindings.rust_paths.get(head) {
            Some(full) => format!("{full}{}", &qualifier[head.len()..]),
            None if matches!(head, "crate" | "super" | "self") => qualifier.to_string(),
            None => {
                let local = format!("{}.{name}", qualifier.replace("::", "."));
                if self.defs.defines(self.path, &local) {
                    return vec![self.here(&local)];
                }
                let folder = self.in_folder(&local);
                if !folder.is_empty() {
                    return folder;
                }
                // A path from a workspace crate, or from this module's own
                // (`feed::poll()` beside `mod feed;`).
                for path in [qualifier.to_string(), format!("self::{qualifier}")] {
                    let found = self.through_path(&path, name);
                    if !found.is_empty() {
                        return found;
                    }
                }
                return self.by_qualified(&local);
            }
        };
        if matches!(self.bindings.names.get(head), Some(Binding::External)) {
            return Vec::new();
        }
        let found = self.through_path(&qualifier, name);
        if !found.is_empty() {
            return found;
        }
        let ty = qualifier.rsplit("::").next().unwrap_or(&qualifier);
        self.by_qualified(&format!("{ty}.{name}"))
    }

    /// A Rust path resolved as an import: `q::f` as an item of module
    /// `q`, else `f` as a member of the type `q` names.
    fn through_path(&self, qualifier: &str, name: &str) -> Vec<Target> {
        let item = self.rust_item(&format!("{qualifier}::{name}"));
        if let Some((file, _)) = item
            .iter()
            .find(|(f, n)| n == name && self.defs.defines(f, name))
        {
            return vec![(file.clone(), name.to_string(), Resolution::Import)];
        }
        for (file, ty) in self.rust_item(qualifier) {
            let member = format!("{ty}.{name}");
            if self.defs.defines(&file, &member) {
                return vec![(file, member, Resolution::Import)];
            }
        }
        Vec::new()
    }

    fn rust_item(&self, path: &str) -> Vec<(String, String)> {
        let import = super::ImportFact {
            module: path.to_string(),
            ..Default::default()
        };
        self.resolver
            .resolve(self.path, Some("rust"), &import)
            .into_iter()
            .filter_map(|(file, names)| Some((file, names.into_iter().next()?)))
            .collect()
    }

    /// What `items` (imported names) define: the name itself, or its
    /// `member` when given.
    fn in_items(&self, items: &[(String, String)], member: Option<&str>) -> Vec<Target> {
        items
            .iter()
            .map(|(file, item)| {
                (
                    file,
                    member.map_or_else(|| item.clone(), |m| format!("{item}.{m}")),
                )
            })
            .filter(|(file, qualified)| self.defs.defines(file, qualified))
            .map(|(file, qualified)| (file.clone(), qualified, Resolution::Import))
            .take(1)
            .collect()
    }

    /// Where the module of `files` defines `qualified`: in one of them, or
    /// in the file one of them passes it on from (`click.echo` when
    /// `click/__init__.py` imports `echo` from `.utils`).
    fn in_module(&self, files: &[String], qualified: &str) -> Option<Target> {
        if let Some(file) = self.first_in(files, qualified) {
            return Some((file, qualified.to_string(), Resolution::Import));
        }
        let (head, rest) = match qualified.split_once('.') {
            Some((head, rest)) => (head, Some(rest)),
            None => (qualified, None),
        };
        files.iter().find_map(|file| {
            let (target, defined) = self.resolver.reexported(file, head)?;
            let defined = match rest {
                // `ns.f` where the file passes a whole module on as `ns`.
                Some(rest) if defined == "*" => rest.to_string(),
                Some(rest) => format!("{defined}.{rest}"),
                None => defined,
            };
            self.defs
                .defines(&target, &defined)
                .then_some((target, defined, Resolution::Import))
        })
    }

    /// The first of `files` defining `qualified`.
    fn first_in(&self, files: &[String], qualified: &str) -> Option<String> {
        files
            .iter()
            .find(|f| self.defs.defines(f, qualified))
            .cloned()
    }

    fn here(&self, qualified: &str) -> Target {
        (
            self.path.to_string(),
            qualified.to_string(),
            Resolution::SameFile,
        )
    }

    /// The other files of the folder defining `qualified`, of the same
    /// language (one is `same_module`, a few `ambiguous`).
    fn in_folder(&self, qualified: &str) -> Vec<Target> {
        let family = family(self.file.language.as_deref());
        let found: Vec<&str> = self
            .defs
            .by_dir
            .get(dir_of(self.path))
            .into_iter()
            .flatten()
            .copied()
            .filter(|f| *f != self.path && self.defs.family(f) == family)
            .filter(|f| self.defs.defines(f, qualified))
            .collect();
        few(
            found.into_iter().map(|f| (f, qualified)),
            Resolution::SameModule,
        )
    }

    /// The code files of the root defining `qualified`, of the same language.
    fn by_qualified(&self, qualified: &str) -> Vec<Target> {
        let family = family(self.file.language.as_deref());
        let found = self
            .defs
            .by_qualified
            .get(qualified)
            .into_iter()
            .flatten()
            .copied()
            .filter(|f| self.defs.is_code(f) && self.defs.family(f) == family)
            .map(|f| (f, qualified));
        few(found, Resolution::NameOnly)
    }

    /// Definitions named `name` in the root's code of the same language:
    /// methods for `x.name()`, top-level names for `name()`. Names that
    /// everything defines name nothing.
    fn by_name(&self, name: &str, method: bool) -> Vec<Target> {
        if is_common(name) {
            return Vec::new();
        }
        if !method {
            return self.by_qualified(name);
        }
        let family = family(self.file.language.as_deref());
        let found = self
            .defs
            .methods
            .get(name)
            .into_iter()
            .flatten()
            .filter(|(f, _)| self.defs.is_code(f) && self.defs.family(f) == family)
            .map(|(f, q)| (*f, *q));
        few(found, Resolution::NameOnly)
    }
}

/// One target as `one`, two or three as `ambiguous`, more as none.
fn few<'a>(found: impl Iterator<Item = (&'a str, &'a str)>, one: Resolution) -> Vec<Target> {
    let found: Vec<(&str, &str)> = found.take(MAX_AMBIGUOUS + 1).collect();
    let resolution = match found.len() {
        1 => one,
        n if n <= MAX_AMBIGUOUS => Resolution::Ambiguous,
        _ => return Vec::new(),
    };
    found
        .into_iter()
        .map(|(f, q)| (f.to_string(), q.to_string(), resolution))
        .collect()
}

/// The module and the rest of a site written `require('./x').g`.
fn required_site(written: &str) -> Option<(&str, &str)> {
    let inner = written.strip_prefix("require('")?;
    let (module, rest) = inner.split_once("').")?;
    (!rest.is_empty()).then_some((module, rest))
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
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
