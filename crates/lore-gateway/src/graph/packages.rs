//! What package manifests say about how code imports code by a package's
//! own name: a Go module's path (`go.mod`), an npm package's name
//! (`package.json`), TypeScript path aliases (`compilerOptions.paths` of
//! `tsconfig.json`/`jsconfig.json`), and a Cargo crate's name and target
//! roots (`Cargo.toml`).
//!
//! Ingest keeps them as a fact of the manifest file ([`PackageFact`]); the
//! resolver reads every root's manifests through [`Packages`], so
//! `github.com/spf13/cobra` resolves from `cobra/doc`, `'zustand/vanilla'`
//! from zustand's own tests, `grep_searcher::…` to the crate whose
//! manifest names it wherever its folder is, and `crate::…` in a binary
//! crate whose root is `crates/core/main.rs`.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::paths::{dir_of, normalize};

/// What one manifest declares.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PackageFact {
    /// The manifest's kind: `go`, `npm`, `tsconfig` or `cargo`.
    pub kind: String,
    /// The name others import it by: a Go module path, an npm package
    /// name, a Cargo library's crate name (`-` written `_`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Cargo: the library's root file, relative to the manifest's folder,
    /// when the manifest names one (`src/lib.rs` otherwise, if it exists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lib: Option<String>,
    /// Cargo: the binaries' root files the manifest names, relative to its
    /// folder (`src/main.rs` is one too, if it exists).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bins: Vec<String>,
    /// npm: the file a `require` or `import` of the package's folder
    /// loads (`main`), relative to the manifest's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main: Option<String>,
    /// TypeScript path aliases: pattern (`@app/*`) → targets, relative to
    /// the manifest's folder (its `baseUrl` applied).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub paths: BTreeMap<String, Vec<String>>,
}

impl PackageFact {
    /// The facts of the manifest at `path` (root-relative) with `text`;
    /// none for a file that is not a manifest, or says nothing of use.
    pub fn read(path: &str, text: &str) -> Option<PackageFact> {
        let fact = match path.rsplit('/').next().unwrap_or(path) {
            "go.mod" => go_mod(text),
            "package.json" => package_json(text),
            "tsconfig.json" | "jsconfig.json" => tsconfig(text),
            "Cargo.toml" => cargo_toml(text),
            _ => None,
        }?;
        let says_something = fact.name.is_some()
            || fact.main.is_some()
            || fact.lib.is_some()
            || !fact.bins.is_empty()
            || !fact.paths.is_empty();
        says_something.then_some(fact)
    }
}

fn go_mod(text: &str) -> Option<PackageFact> {
    let module = text.lines().find_map(|line| {
        let line = line.split("//").next().unwrap_or_default().trim();
        line.strip_prefix("module")
            .filter(|rest| rest.starts_with([' ', '\t']))
            .map(|rest| rest.trim().trim_matches('"').to_string())
    })?;
    Some(PackageFact {
        kind: "go".into(),
        name: Some(module).filter(|m| !m.is_empty()),
        ..Default::default()
    })
}

fn package_json(text: &str) -> Option<PackageFact> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let text_of = |key: &str| {
        value
            .get(key)
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    Some(PackageFact {
        kind: "npm".into(),
        name: text_of("name"),
        main: text_of("main"),
        ..Default::default()
    })
}

fn tsconfig(text: &str) -> Option<PackageFact> {
    let value: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).ok()?;
    let options = value.get("compilerOptions")?;
    let base = options
        .get("baseUrl")
        .and_then(|b| b.as_str())
        .unwrap_or(".");
    let mut paths = BTreeMap::new();
    for (pattern, targets) in options.get("paths")?.as_object()? {
        let targets: Vec<String> = targets
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str())
            .filter_map(|t| normalize(&format!("{base}/{t}")))
            .collect();
        if !targets.is_empty() {
            paths.insert(pattern.clone(), targets);
        }
    }
    Some(PackageFact {
        kind: "tsconfig".into(),
        paths,
        ..Default::default()
    })
}

/// JSON with comments and trailing commas (as `tsconfig.json` allows) as
/// plain JSON.
fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            (',', _) => {
                // A comma before a closing bracket is dropped.
                let next = chars.clone().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}' | ']')) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// `[package] name`, `[lib] name` and `path`, `[[bin]] path`: what a
/// manifest's own lines say (no workspace inheritance is needed here).
fn cargo_toml(text: &str) -> Option<PackageFact> {
    let mut fact = PackageFact {
        kind: "cargo".into(),
        ..Default::default()
    };
    let mut section = String::new();
    let mut lib_name = None;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.starts_with('[') {
            section = line.trim_matches(['[', ']', ' ']).to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim();
        if !value.starts_with('"') && !value.starts_with('\'') {
            continue;
        }
        let value = value.trim_matches(['"', '\'']).to_string();
        match (section.as_str(), key.trim()) {
            ("package", "name") => fact.name = Some(value.replace('-', "_")),
            ("lib", "name") => lib_name = Some(value.replace('-', "_")),
            ("lib", "path") => fact.lib = normalize(&value),
            ("bin", "path") => fact.bins.extend(normalize(&value)),
            _ => {}
        }
    }
    if lib_name.is_some() {
        fact.name = lib_name;
    }
    Some(fact)
}

/// Every manifest of a root, for the resolver.
#[derive(Debug, Default)]
pub(super) struct Packages {
    /// Go module path → its folder, longest path first.
    go_modules: Vec<(String, String)>,
    /// npm package name → its folder.
    npm: Vec<(String, String)>,
    /// An npm package's folder → the file its `main` names (root-relative).
    mains: HashMap<String, String>,
    /// The folder of a `tsconfig.json`, a pattern, its targets
    /// (root-relative), deepest folder first.
    ts_paths: Vec<(String, String, Vec<String>)>,
    /// Crate name → the library's root file.
    crates: HashMap<String, String>,
    /// The folders holding a crate's root file (`lib.rs`, `main.rs` or
    /// what a manifest names), deepest first.
    crate_roots: Vec<String>,
}

impl Packages {
    /// The manifests among `files` (root-relative path → its facts);
    /// `exists` says whether a file is in the root.
    pub(super) fn new<'a>(
        manifests: impl Iterator<Item = (&'a str, &'a PackageFact)>,
        exists: impl Fn(&str) -> bool,
    ) -> Packages {
        let mut packages = Packages::default();
        for (path, fact) in manifests {
            let dir = dir_of(path);
            let join = |rel: &str| {
                normalize(&format!("{dir}/{rel}")).filter(|p| !p.is_empty() && exists(p))
            };
            match fact.kind.as_str() {
                "go" => packages
                    .go_modules
                    .extend(fact.name.clone().map(|n| (n, dir.to_string()))),
                "npm" => {
                    packages
                        .npm
                        .extend(fact.name.clone().map(|n| (n, dir.to_string())));
                    if let Some(main) = fact
                        .main
                        .as_deref()
                        .and_then(|m| normalize(&format!("{dir}/{m}")))
                    {
                        packages.mains.insert(dir.to_string(), main);
                    }
                }
                "tsconfig" => {
                    for (pattern, targets) in &fact.paths {
                        let targets = targets
                            .iter()
                            .filter_map(|t| normalize(&format!("{dir}/{t}")))
                            .collect();
                        packages
                            .ts_paths
                            .push((dir.to_string(), pattern.clone(), targets));
                    }
                }
                "cargo" => {
                    let lib = join(fact.lib.as_deref().unwrap_or("src/lib.rs"));
                    if let (Some(name), Some(lib)) = (&fact.name, &lib) {
                        packages.crates.insert(name.clone(), lib.clone());
                    }
                    let bins = fact.bins.iter().map(String::as_str).chain(["src/main.rs"]);
                    for root in lib.into_iter().chain(bins.filter_map(join)) {
                        packages.crate_roots.push(dir_of(&root).to_string());
                    }
                }
                _ => {}
            }
        }
        packages
            .go_modules
            .sort_by_key(|(m, _)| std::cmp::Reverse(m.len()));
        packages
            .ts_paths
            .sort_by_key(|(d, _, _)| std::cmp::Reverse(d.len()));
        packages
            .crate_roots
            .sort_by_key(|d| std::cmp::Reverse(d.len()));
        packages.crate_roots.dedup();
        packages
    }

    /// The folder a Go import path names, by the module that holds it.
    pub(super) fn go_folder(&self, import: &str) -> Option<String> {
        self.go_modules.iter().find_map(|(module, dir)| {
            let rest = import.strip_prefix(module.as_str())?;
            let rest = match rest {
                "" => "",
                _ => rest.strip_prefix('/')?,
            };
            normalize(&format!("{dir}/{rest}"))
        })
    }

    /// The root-relative paths (without extension) a bare TS/JS import of
    /// `from` may name, in the order to try: its `tsconfig` aliases, then
    /// a package of the root by name (`zustand/vanilla` → `src/vanilla`).
    pub(super) fn script_candidates(&self, from: &str, module: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (dir, pattern, targets) in &self.ts_paths {
            if !within(from, dir) {
                continue;
            }
            let star = match pattern.split_once('*') {
                Some((pre, post)) => module
                    .strip_prefix(pre)
                    .and_then(|m| m.strip_suffix(post))
                    .filter(|_| module.len() >= pre.len() + post.len()),
                None => (module == pattern).then_some(""),
            };
            if let Some(star) = star {
                out.extend(targets.iter().map(|t| t.replace('*', star)));
            }
        }
        for (name, dir) in &self.npm {
            let rest = match module.strip_prefix(name.as_str()) {
                Some("") => {
                    out.extend(self.main_of(dir).map(str::to_string));
                    "index"
                }
                Some(rest) => match rest.strip_prefix('/') {
                    Some(rest) => rest,
                    None => continue,
                },
                None => continue,
            };
            for base in ["src", "", "lib"] {
                out.extend(normalize(&format!("{dir}/{base}/{rest}")));
            }
        }
        out
    }

    /// The file a package folder's `package.json` names as its `main`
    /// (root-relative, without checking it exists).
    pub(super) fn main_of(&self, dir: &str) -> Option<&str> {
        self.mains.get(dir).map(String::as_str)
    }

    /// The folder `crate::` means in `from`: the deepest crate root that
    /// holds it.
    pub(super) fn crate_folder(&self, from: &str) -> Option<&str> {
        self.crate_roots
            .iter()
            .find(|dir| within(from, dir))
            .map(String::as_str)
    }

    /// The library root file of the crate named `name`.
    pub(super) fn crate_lib(&self, name: &str) -> Option<&str> {
        self.crates.get(name).map(String::as_str)
    }
}

/// Whether the file at `path` is inside folder `dir` (`""` is the root).
fn within(path: &str, dir: &str) -> bool {
    dir.is_empty() || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_say_what_code_imports_by_name() {
        let go = PackageFact::read("go.mod", "module github.com/spf13/cobra // x\n\ngo 1.15\n");
        assert_eq!(go.unwrap().name.as_deref(), Some("github.com/spf13/cobra"));
        let npm = PackageFact::read("pkg/package.json", r#"{"name": "zustand", "main": "x"}"#);
        assert_eq!(npm.unwrap().name.as_deref(), Some("zustand"));
        let ts = PackageFact::read(
            "tsconfig.json",
            "{\n // comment\n \"compilerOptions\": {\"baseUrl\": \"./src\", /* x */\n \"paths\": {\"@app/*\": [\"app/*\",],},\n},\n}\n",
        )
        .unwrap();
        assert_eq!(ts.paths["@app/*"], vec!["src/app/*".to_string()]);
        let cargo = PackageFact::read(
            "crates/searcher/Cargo.toml",
            "[package]\nname = \"grep-searcher\"\n\n[[bin]]\nname = \"rg\"\npath = \"crates/core/main.rs\"\n",
        )
        .unwrap();
        assert_eq!(cargo.name.as_deref(), Some("grep_searcher"));
        assert_eq!(cargo.bins, vec!["crates/core/main.rs".to_string()]);
        // Not a manifest, or a manifest saying nothing of use.
        assert_eq!(PackageFact::read("src/go.mod.rs", "module x"), None);
        assert_eq!(
            PackageFact::read("package.json", "{\"private\": true}"),
            None
        );
        assert_eq!(PackageFact::read("package.json", "not json"), None);
    }

    #[test]
    fn jsonc_comments_and_trailing_commas_are_dropped_but_not_inside_strings() {
        let plain = strip_jsonc("{\"a\": \"x // y, }\", /* c */ \"b\": [1,2,],}");
        let value: serde_json::Value = serde_json::from_str(&plain).unwrap();
        assert_eq!(value["a"], "x // y, }");
        assert_eq!(value["b"], serde_json::json!([1, 2]));
    }
}
