//! Resolving one file's call sites ([`FileContext`]): through its
//! imports, then its own definitions, its folder or Go package, and last
//! a name alone in the root's code of its language (the order the parent
//! module's doc gives).

use super::common_names::is_common;
use super::{Definitions, MAX_AMBIGUOUS, Resolution, family};
use crate::graph::GraphFile;
use crate::graph::bindings::{Binding, Bindings};
use crate::graph::dir_of;
use crate::graph::resolve::Resolver;

/// A target: (file, qualified name, how).
pub(super) type Target = (String, String, Resolution);

/// One file's view of the root while its sites are resolved.
pub(super) struct FileContext<'a> {
    pub path: &'a str,
    pub file: &'a GraphFile,
    pub defs: &'a Definitions<'a>,
    pub resolver: &'a Resolver<'a>,
    pub bindings: Bindings,
}

impl FileContext<'_> {
    /// The definitions the site `written` (in `caller`) names.
    pub(super) fn resolve(&self, written: &str, caller: Option<&str>) -> Vec<Target> {
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
        let import = crate::graph::ImportFact {
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
        let import = crate::graph::ImportFact {
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
