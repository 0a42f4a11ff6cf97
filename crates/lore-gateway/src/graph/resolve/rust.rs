//! Rust modules for the [`Resolver`]: the files a path names (this
//! crate's modules through `crate::`, `self::` and `super::`, the
//! workspace's other crates by name) and the items a module passes on
//! with `use`.

use super::Resolver;
use crate::graph::bindings::use_leaves;
use crate::graph::paths::dir_of;

impl Resolver<'_> {
    /// The item a Rust module passes on as `name` through a `use` of
    /// its own (`pub use inner::Bar;`, `pub use self::inner::*;`, `pub
    /// use a::B as Bar;`): named uses first, then globs whose module
    /// defines (or passes on) the name. Any `use` counts, not only `pub`
    /// ones: a path that compiles through a private one is written in a
    /// child module, and means the same item.
    pub(super) fn rust_reexport(
        &self,
        module: &str,
        name: &str,
        depth: usize,
    ) -> Option<(String, String)> {
        let file = self.files.get(module)?;
        if file.defines(name) {
            return None;
        }
        let mut leaves = Vec::new();
        for import in &file.imports {
            use_leaves(&import.module, "", &mut leaves, 0);
        }
        let named = leaves.iter().filter(|(_, local)| local == name);
        let globs = leaves.iter().filter(|(_, local)| local == "*");
        for (full, local) in named.chain(globs) {
            let star = local == "*";
            let full = full.trim_end_matches("::*");
            let relative = !["crate", "self", "super"]
                .iter()
                .any(|root| full == *root || full.starts_with(&format!("{root}::")));
            let mut candidates = vec![full.to_string()];
            if relative {
                // `pub use inner::Bar` beside `mod inner;`.
                candidates.push(format!("self::{full}"));
            }
            for candidate in candidates {
                for (target, names) in self.rust(module, &candidate) {
                    if target == module {
                        continue;
                    }
                    let source = if star {
                        name
                    } else {
                        match names.first() {
                            Some(source) => source.as_str(),
                            None => continue,
                        }
                    };
                    if self.files.get(&target).is_some_and(|f| f.defines(source)) {
                        return Some((target, source.to_string()));
                    }
                    if let Some(found) = self.reexport(&target, source, depth + 1) {
                        return Some(found);
                    }
                }
            }
        }
        None
    }

    /// The files a Rust path names from `from`, each with the names
    /// taken from it: the deepest module file that exists, the rest items
    /// in it.
    pub(super) fn rust(&self, from: &str, module: &str) -> Vec<(String, Vec<String>)> {
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
        let Some((base, root_file)) = self.rust_base(from, &mut segments) else {
            return Vec::new();
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
        // Nothing deeper: an item of the crate's root file.
        if out.is_empty()
            && let Some(root) = root_file
        {
            out.push((root, item_names));
        }
        out
    }

    /// The folder a Rust module path starts from (its leading `crate`,
    /// `self`, `super` or crate name taken off `segments`), and the crate
    /// root file an item of no deeper module is in; none when the path
    /// leads nowhere in the root.
    fn rust_base(&self, from: &str, segments: &mut Vec<&str>) -> Option<(String, Option<String>)> {
        let first = *segments.first()?;
        match first {
            "crate" => {
                let dir = self.crate_folder(from)?;
                segments.remove(0);
                let root = self.first([format!("{dir}/lib.rs"), format!("{dir}/main.rs")]);
                Some((dir, root))
            }
            "self" | "super" => {
                let own = from.trim_end_matches(".rs");
                let own = own.strip_suffix("/mod").unwrap_or(own);
                let mut dir = if own.ends_with("/lib") || own.ends_with("/main") {
                    dir_of(own).to_string()
                } else {
                    own.to_string()
                };
                while segments.first() == Some(&"super") {
                    dir = dir_of(&dir).to_string();
                    segments.remove(0);
                }
                if segments.first() == Some(&"self") {
                    segments.remove(0);
                }
                Some((dir, None))
            }
            name => {
                // Another crate of this workspace, by its manifest's name
                // or its folder's: `lore_store` → `…/lore-store/src`.
                let dashed = name.replace('_', "-");
                let lib = self
                    .packages
                    .crate_lib(name)
                    .map(str::to_string)
                    .or_else(|| {
                        [name, dashed.as_str()]
                            .iter()
                            .find_map(|n| self.by_suffix(&format!("{n}/src/lib.rs")))
                    })?;
                segments.remove(0);
                Some((dir_of(&lib).to_string(), Some(lib)))
            }
        }
    }

    /// The folder `crate::` means in `from`: the crate root its manifest
    /// names (`crates/core/main.rs`), else the `src/` folder holding it.
    fn crate_folder(&self, from: &str) -> Option<String> {
        if let Some(dir) = self.packages.crate_folder(from) {
            return Some(dir.to_string());
        }
        match from.find("src/") {
            Some(at) if at == 0 || from[..at].ends_with('/') => Some(from[..at + 3].to_string()),
            _ => None,
        }
    }

    fn rust_module(&self, base: &str, segments: &[String]) -> Option<String> {
        if segments.is_empty() {
            return None;
        }
        let rel = segments.join("/");
        self.first([format!("{base}/{rel}.rs"), format!("{base}/{rel}/mod.rs")])
    }
}
