//! Finds the files an import, a test's name or a document's mention
//! points to, per language: Python packages and relative imports, TS/JS
//! relative paths, `tsconfig` path aliases and a package importing itself
//! by name, Go package folders (through `go.mod` module paths), Rust
//! modules of the same crate and of the workspace's other crates (through
//! their `Cargo.toml`), and barrels that re-export names.

use std::collections::{BTreeMap, HashMap};

mod rust;

use super::file_node;
use super::packages::Packages;
use super::paths::{dir_of, normalize};
use super::{GraphFile, ImportFact, MAX_PACKAGE_FILES, MAX_REEXPORT_DEPTH, SCRIPT_EXTENSIONS};
use crate::ingest::classify::ArtifactType;

/// Finds the files an import, a test's name or a document's mention
/// points to.
pub(super) struct Resolver<'a> {
    files: &'a BTreeMap<String, GraphFile>,
    /// File name → paths with that name.
    by_name: HashMap<&'a str, Vec<&'a str>>,
    /// Folder → its files.
    by_dir: HashMap<&'a str, Vec<&'a str>>,
    /// Symbol name (qualified, and bare when unique) → `path::qualified`.
    symbols: HashMap<String, Option<String>>,
    /// What [`Resolver::by_suffix`] answered, by suffix (thousands of
    /// files import the same few modules).
    suffixes: std::cell::RefCell<HashMap<String, Option<String>>>,
    /// What [`Resolver::rust_reexport`] answered, by module and name
    /// (every call site of a path through a module asks again).
    rust_reexports: std::cell::RefCell<HashMap<(String, String), Option<Item>>>,
    /// What the root's manifests say (module paths, package names,
    /// path aliases, crates).
    packages: Packages,
}

/// A name defined in a file: (path, name there).
type Item = (String, String);

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

impl<'a> Resolver<'a> {
    pub(super) fn new(files: &'a BTreeMap<String, GraphFile>) -> Resolver<'a> {
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
                // `path::qualified`: the root is added when a mention names it.
                let node = format!("{path}::{}", symbol.qualified_name);
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
        let manifests = files
            .iter()
            .filter_map(|(path, file)| Some((path.as_str(), file.package.as_ref()?)));
        let packages = Packages::new(manifests, |p| files.contains_key(p));
        Resolver {
            files,
            by_name,
            by_dir,
            symbols,
            suffixes: std::cell::RefCell::default(),
            rust_reexports: std::cell::RefCell::default(),
            packages,
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
    pub(super) fn resolve(
        &self,
        from: &str,
        language: Option<&str>,
        import: &ImportFact,
    ) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        // The module bound whole (`const x = require('..')`, `import * as
        // x`), or loaded for its effect.
        let whole = matches!(language, Some("typescript" | "tsx" | "javascript"))
            && (import.names.is_empty() || import.aliases.values().any(|v| v == "*"));
        for (path, names) in self.module_files(from, language, import) {
            let mut kept = Vec::new();
            for name in names {
                match self.reexport(&path, &name, 0) {
                    Some((target, defined)) => out.push((target, vec![defined])),
                    None => kept.push(name),
                }
            }
            let stands_for = if whole { self.stands_for(&path) } else { None };
            // The barrel is imported too, whatever it passes on.
            out.push((path, kept));
            out.extend(stands_for.map(|module| (module, Vec::new())));
        }
        out
    }

    /// The module a TS/JS file stands for when all it does is pass one
    /// module on whole (`module.exports = require('./lib/app')`, `export
    /// * from './app'`, and no definition of its own: express's
    /// `index.js`), followed through such files; none otherwise.
    fn stands_for(&self, path: &str) -> Option<String> {
        let mut at = path.to_string();
        for _ in 0..MAX_REEXPORT_DEPTH {
            let file = self.files.get(&at)?;
            let [import] = file.imports.as_slice() else {
                break;
            };
            if !file.symbols.is_empty() || !import.reexport || import.names != ["*"] {
                break;
            }
            match self.script(&at, &import.module) {
                Some(next) if next != path => at = next,
                _ => break,
            }
        }
        (at != path).then_some(at)
    }

    /// The file defining `name` that the barrel `path` passes on, with
    /// the name it has there (see [`Resolver::reexport`]).
    pub(super) fn reexported(&self, path: &str, name: &str) -> Option<(String, String)> {
        self.reexport(path, name, 0)
    }

    /// The file defining `name` that a barrel (a package's `__init__.py`,
    /// a folder's `index.ts`: every import; another TS/JS file: its
    /// imports marked `reexport`) re-exports, with the name it has there;
    /// none when the barrel defines it itself or does not pass it on. Named
    /// re-exports lead to the module they name, `export *` to a module
    /// that defines the name.
    fn reexport(&self, barrel: &str, name: &str, depth: usize) -> Option<(String, String)> {
        // `*` is the module itself, not a name in it.
        if depth >= MAX_REEXPORT_DEPTH || name == "*" {
            return None;
        }
        if barrel.ends_with(".rs") {
            if depth > 0 {
                return self.rust_reexport(barrel, name, depth);
            }
            // Remembered from the first step only: a deeper one stops
            // sooner.
            let key = (barrel.to_string(), name.to_string());
            if let Some(known) = self.rust_reexports.borrow().get(&key) {
                return known.clone();
            }
            let found = self.rust_reexport(barrel, name, depth);
            self.rust_reexports.borrow_mut().insert(key, found.clone());
            return found;
        }
        // A barrel passes on what it imports; another file what it
        // re-exports (`export … from`, `module.exports = require(…)`).
        let barrel_file = is_barrel(barrel);
        let file = self.files.get(barrel)?;
        if (!barrel_file && !file.imports.iter().any(|i| i.reexport)) || file.defines(name) {
            return None;
        }
        let passed_on = |i: &&ImportFact| barrel_file || i.reexport;
        let named = file
            .imports
            .iter()
            .filter(passed_on)
            .filter(|i| i.names.iter().any(|n| n == name))
            .map(|i| (i, false));
        let stars = file
            .imports
            .iter()
            .filter(passed_on)
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
                ..ImportFact::default()
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
            return self
                .packages
                .script_candidates(from, module)
                .iter()
                .find_map(|candidate| self.script_file(candidate));
        };
        self.script_file(&joined)
    }

    fn script_file(&self, joined: &str) -> Option<String> {
        // ESM TypeScript writes `./x.js` for `./x.ts`.
        let stem = ["js", "jsx", "mjs", "cjs"]
            .iter()
            .find_map(|ext| joined.strip_suffix(&format!(".{ext}")))
            .unwrap_or(joined);
        // `require('..')` from a top-level folder names the root's own
        // folder: its `main`, else its `index`.
        let within = |base: &str, file: String| {
            if base.is_empty() {
                file
            } else {
                format!("{base}/{file}")
            }
        };
        let mut candidates = vec![joined.to_string()];
        for base in [stem, joined] {
            if !base.is_empty() {
                for ext in SCRIPT_EXTENSIONS {
                    candidates.push(format!("{base}.{ext}"));
                }
            }
            // A package's folder loads what its `package.json` names
            // (`require('../')` from a test), before any `index`.
            if let Some(main) = self.packages.main_of(base) {
                candidates.push(main.to_string());
                for ext in SCRIPT_EXTENSIONS {
                    candidates.push(format!("{main}.{ext}"));
                }
            }
            for ext in ["ts", "tsx", "js", "jsx"] {
                candidates.push(within(base, format!("index.{ext}")));
            }
        }
        self.first(candidates)
    }

    /// The files of the package folder an import path ends with.
    /// The module's own packages are found by its `go.mod` path (the root
    /// package too); others by the folder their path ends with.
    fn go(&self, module: &str) -> Vec<String> {
        let package = |dir: &str| -> Vec<String> {
            let Some(files) = self.by_dir.get(dir) else {
                return Vec::new();
            };
            files
                .iter()
                .filter(|p| p.ends_with(".go") && !p.ends_with("_test.go"))
                .take(MAX_PACKAGE_FILES)
                .map(|p| p.to_string())
                .collect()
        };
        if let Some(dir) = self.packages.go_folder(module) {
            return package(&dir);
        }
        let segments: Vec<&str> = module.split('/').collect();
        (0..segments.len())
            .map(|start| package(&segments[start..].join("/")))
            .find(|code| !code.is_empty())
            .unwrap_or_default()
    }

    /// The code a test is named after: `test_x.py`/`x_test.py` → `x.py`
    /// (else the private `_x.py`),
    /// `x.test.ts`/`x.spec.tsx` → `x.ts(x)`, `x_test.go` → the package's
    /// `x.go`; the nearest one when several share the name.
    pub(super) fn tested_by_name(&self, test: &str) -> Vec<String> {
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
    /// suffix of one), or a symbol by a name defined once; nodes of root
    /// `root`.
    pub(super) fn mentioned(&self, root: &str, mention: &str, doc: &str) -> Option<String> {
        let path = mention.trim_start_matches("./").trim_start_matches('/');
        if path.contains('.') && crate::ingest::classify::language(path).is_some() {
            let relative = normalize(&format!("{}/{path}", dir_of(doc)));
            let found = relative
                .filter(|p| self.exists(p))
                .or_else(|| self.exists(path).then(|| path.to_string()))
                .or_else(|| path.contains('/').then(|| self.by_suffix(path)).flatten())?;
            let file = self.files.get(&found)?;
            return file_node(file.artifact_type, root, &found);
        }
        let name = mention.trim_end_matches("()");
        let symbol = self.symbols.get(name)?.as_deref()?;
        Some(format!("Symbol:{root}/{symbol}"))
    }
}
