//! The names a file's imports bind, and what each stands for: a module
//! (its files), a name defined in a file, or something outside the root.
//! Call sites are resolved through them (`calls.rs`): `y.f()` after
//! `import x as y`, `Invoice()` after `from .models import Invoice`,
//! `store.Get()` after Go's `import ".../store"`, `Store::open()` after
//! `use crate::store::Store`.

use std::collections::HashMap;

use super::resolve::Resolver;
use super::{GraphFile, ImportFact};

/// What a local name stands for.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Binding {
    /// A module: the files defining its names (a Go package has several).
    Module(Vec<String>),
    /// Names defined in files: (file, name there).
    Item(Vec<(String, String)>),
    /// Something outside the root (a dependency, the standard library).
    External,
}

/// The names one file's imports bind.
#[derive(Debug, Default)]
pub(super) struct Bindings {
    /// Local name (`y`, `Invoice`, `store`, `a.b` of Python's
    /// `import a.b`) → what it stands for.
    pub(super) names: HashMap<String, Binding>,
    /// Rust: local name → the path it stands for (`Store` →
    /// `crate::store::Store`), so `Store::open` reads as that path.
    pub(super) rust_paths: HashMap<String, String>,
    /// Files every name of which is in scope (`from x import *`, Go's
    /// `import . "x"`, Rust's `use x::*`).
    pub(super) globs: Vec<String>,
    /// Names bound inside one definition alone (a `require` in a
    /// function's body): its qualified name → local name → binding.
    scoped: HashMap<String, HashMap<String, Binding>>,
}

/// Most names one Rust `use` is read for (`use a::{…}`).
const MAX_USE_LEAVES: usize = 64;

impl Bindings {
    /// The bindings of the file at `path`.
    pub(super) fn of(resolver: &Resolver<'_>, path: &str, file: &GraphFile) -> Bindings {
        let mut out = Bindings::default();
        let language = file.language.as_deref();
        for import in &file.imports {
            match language {
                Some("python") => out.python(resolver, path, import),
                Some("typescript" | "tsx" | "javascript") => out.script(resolver, path, import),
                Some("go") => out.go(resolver, path, import),
                Some("rust") => out.rust(resolver, path, import),
                _ => {}
            }
        }
        out
    }

    /// What `name` stands for in the definition `caller` (its own
    /// bindings, those of the definitions around it, the file's).
    pub(super) fn get(&self, name: &str, caller: Option<&str>) -> Option<&Binding> {
        let mut scope = caller.filter(|_| !self.scoped.is_empty());
        while let Some(at) = scope {
            if let Some(binding) = self.scoped.get(at).and_then(|names| names.get(name)) {
                return Some(binding);
            }
            scope = at.rsplit_once('.').map(|(outer, _)| outer);
        }
        self.names.get(name)
    }

    /// What importing `names` of `module` binds: the files defining
    /// them (through barrels), else the module's files.
    fn one(
        resolver: &Resolver<'_>,
        path: &str,
        language: &str,
        module: &str,
        name: Option<&str>,
    ) -> Binding {
        let import = ImportFact {
            module: module.to_string(),
            names: name.map(|n| vec![n.to_string()]).unwrap_or_default(),
            ..ImportFact::default()
        };
        let found = resolver.resolve(path, Some(language), &import);
        let items: Vec<(String, String)> = found
            .iter()
            .filter_map(|(file, names)| Some((file.clone(), names.first()?.clone())))
            .filter(|(_, n)| n != "*")
            .collect();
        if !items.is_empty() {
            return Binding::Item(items);
        }
        if found.is_empty() {
            return Binding::External;
        }
        Binding::Module(found.into_iter().map(|(file, _)| file).collect())
    }

    fn files(binding: Binding) -> Vec<String> {
        match binding {
            Binding::Module(files) => files,
            Binding::Item(items) => items.into_iter().map(|(file, _)| file).collect(),
            Binding::External => Vec::new(),
        }
    }

    fn python(&mut self, resolver: &Resolver<'_>, path: &str, import: &ImportFact) {
        let module = import.module.as_str();
        if import.names.is_empty() {
            // `import a.b` binds `a.b`; `import a.b as m` binds `m`.
            let local = import
                .aliases
                .iter()
                .find(|(_, v)| v.as_str() == "*")
                .map_or(module, |(k, _)| k.as_str());
            let binding = match Bindings::one(resolver, path, "python", module, None) {
                Binding::Item(items) => {
                    Binding::Module(items.into_iter().map(|(file, _)| file).collect())
                }
                other => other,
            };
            self.names.insert(local.to_string(), binding);
            return;
        }
        for name in &import.names {
            if name == "*" {
                let files =
                    Bindings::files(Bindings::one(resolver, path, "python", module, Some("*")));
                self.globs.extend(files);
                continue;
            }
            let local = import
                .aliases
                .iter()
                .find(|(_, v)| *v == name)
                .map_or(name.as_str(), |(k, _)| k.as_str());
            let binding = Bindings::one(resolver, path, "python", module, Some(name));
            self.names.insert(local.to_string(), binding);
        }
    }

    fn script(&mut self, resolver: &Resolver<'_>, path: &str, import: &ImportFact) {
        let language = "typescript";
        for local in &import.names {
            // `*` (of `export *`) binds nothing here; the original name of
            // a renamed import is not bound under it.
            let renamed =
                import.aliases.values().any(|v| v == local) && !import.aliases.contains_key(local);
            if local == "*" || renamed {
                continue;
            }
            let binding = match import.aliases.get(local).map(String::as_str) {
                Some("*") => match Bindings::one(resolver, path, language, &import.module, None) {
                    Binding::External => Binding::External,
                    other => Binding::Module(Bindings::files(other)),
                },
                Some(original) => {
                    Bindings::one(resolver, path, language, &import.module, Some(original))
                }
                None => Bindings::one(resolver, path, language, &import.module, Some(local)),
            };
            let names = match &import.scope {
                Some(scope) => self.scoped.entry(scope.clone()).or_default(),
                None => &mut self.names,
            };
            names.insert(local.clone(), binding);
        }
    }

    fn go(&mut self, resolver: &Resolver<'_>, path: &str, import: &ImportFact) {
        let files = Bindings::files(Bindings::one(resolver, path, "go", &import.module, None));
        let alias = import.aliases.keys().next().map(String::as_str);
        if alias == Some(".") {
            self.globs.extend(files);
            return;
        }
        let local = alias.map_or_else(|| go_package_name(&import.module), str::to_string);
        let binding = if files.is_empty() {
            Binding::External
        } else {
            Binding::Module(files)
        };
        self.names.insert(local, binding);
    }

    fn rust(&mut self, resolver: &Resolver<'_>, path: &str, import: &ImportFact) {
        let mut leaves = Vec::new();
        use_leaves(&import.module, "", &mut leaves, 0);
        for (full, local) in leaves {
            // `use feed::poll` beside `mod feed;` names this module's child.
            let relative = !["crate", "self", "super"]
                .iter()
                .any(|root| full == *root || full.starts_with(&format!("{root}::")));
            let mut candidates = vec![full.clone()];
            if relative {
                candidates.push(format!("self::{full}"));
            }
            let found = candidates.into_iter().find_map(|full| {
                let module = full.trim_end_matches("::*").to_string();
                match Bindings::one(resolver, path, "rust", &module, None) {
                    Binding::External => None,
                    binding => Some((full, binding)),
                }
            });
            let Some((full, binding)) = found else {
                if local != "*" {
                    self.names.insert(local, Binding::External);
                }
                continue;
            };
            if local == "*" {
                self.globs.extend(Bindings::files(binding));
                continue;
            }
            self.rust_paths.insert(local.clone(), full);
            self.names.insert(local, binding);
        }
    }
}

/// The package name Go code calls an import by: its path's last
/// element, without a major version (`…/v2`, `yaml.v3`) or a `go-`
/// prefix.
pub(super) fn go_package_name(module: &str) -> String {
    let mut segments = module.rsplit('/');
    let mut last = segments.next().unwrap_or(module);
    let is_version =
        |s: &str| s.len() > 1 && s.starts_with('v') && s[1..].chars().all(|c| c.is_ascii_digit());
    if is_version(last) {
        last = segments.next().unwrap_or(last);
    }
    let last = match last.rsplit_once('.') {
        Some((head, tail)) if is_version(tail) => head,
        _ => last,
    };
    last.trim_start_matches("go-")
        .trim_end_matches("-go")
        .replace(['-', '.'], "_")
}

/// The paths and local names of a Rust `use` tree: `a::{b, c::d as e,
/// self}` → (`a::b`, `b`), (`a::c::d`, `e`), (`a`, `a`); `a::*` →
/// (`a::*`, `*`).
pub(super) fn use_leaves(tree: &str, prefix: &str, out: &mut Vec<(String, String)>, depth: usize) {
    let tree = tree.trim();
    if depth > 3 || out.len() >= MAX_USE_LEAVES || tree.is_empty() {
        return;
    }
    let join = |p: &str| {
        if prefix.is_empty() {
            p.to_string()
        } else {
            format!("{prefix}::{p}")
        }
    };
    if let Some((head, list)) = tree.split_once('{') {
        let head = head.trim().trim_end_matches("::");
        let inner = join(head);
        let list = list.strip_suffix('}').unwrap_or(list);
        for part in split_top(list) {
            use_leaves(part, &inner, out, depth + 1);
        }
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((path, alias)) => (path.trim(), Some(alias.trim())),
        None => (tree, None),
    };
    let full = join(path);
    let last = full.rsplit("::").next().unwrap_or(&full).to_string();
    if last == "self" {
        let module = full.trim_end_matches("::self").to_string();
        let local = alias.map_or_else(
            || module.rsplit("::").next().unwrap_or(&module).to_string(),
            str::to_string,
        );
        out.push((module, local));
    } else if alias != Some("_") {
        out.push((full.clone(), alias.map_or(last, str::to_string)));
    }
}

/// `b, c::{d, e}, f` → its parts at the top level.
fn split_top(list: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_use_trees_bind_their_leaves() {
        let mut out = Vec::new();
        use_leaves("crate::a::{b, c::{d as e, self}, *}", "", &mut out, 0);
        assert_eq!(
            out,
            vec![
                ("crate::a::b".to_string(), "b".to_string()),
                ("crate::a::c::d".to_string(), "e".to_string()),
                ("crate::a::c".to_string(), "c".to_string()),
                ("crate::a::*".to_string(), "*".to_string()),
            ]
        );
    }

    #[test]
    fn go_packages_are_called_by_their_last_element() {
        assert_eq!(go_package_name("github.com/spf13/cobra"), "cobra");
        assert_eq!(go_package_name("gopkg.in/yaml.v3"), "yaml");
        assert_eq!(go_package_name("github.com/x/go-toml/v2"), "toml");
        assert_eq!(go_package_name("net/http"), "http");
    }
}
