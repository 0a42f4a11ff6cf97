//! The structural invariants of ARCHITECTURE.md, checked on the sources:
//! dependencies point down, only the adapter knows MCP, libraries do not
//! print, every source file opens with a `//!` doc.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("crates/")
}

/// Each crate's normal (not dev) dependencies, as written in its
/// `Cargo.toml`.
fn dependencies() -> BTreeMap<String, Vec<String>> {
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(crates_dir())
        .expect("read crates/")
        .flatten()
    {
        let manifest = entry.path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let mut section = String::new();
        let mut names = Vec::new();
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                section = line.to_string();
            } else if section == "[dependencies]"
                && let Some(name) = line.split(['.', '=', ' ']).next().filter(|n| !n.is_empty())
            {
                names.push(name.to_string());
            }
        }
        let crate_name = entry.file_name().to_string_lossy().into_owned();
        all.insert(crate_name, names);
    }
    all
}

/// The Lore crates each crate may depend on (ARCHITECTURE.md, invariant
/// 1): each layer may use the layers below it.
fn allowed(crate_name: &str) -> Vec<&'static str> {
    const FLOOR: [&str; 2] = ["lore-core", "lore-tls"];
    const ENGINES: [&str; 6] = [
        "lore-llm",
        "lore-store",
        "lore-search",
        "lore-warehouse",
        "lore-semantic",
        "lore-import",
    ];
    const SERVICES: [&str; 2] = ["lore-context", "lore-gateway"];
    match crate_name {
        "lore-core" | "lore-tls" => Vec::new(),
        "lore-llm" | "lore-semantic" | "lore-demo" => vec!["lore-core"],
        "lore-import" => vec!["lore-core", "lore-semantic", "lore-warehouse"],
        "lore-store" | "lore-warehouse" => FLOOR.to_vec(),
        "lore-search" => [&FLOOR[..], &["lore-llm"]].concat(),
        "lore-context" | "lore-gateway" => [&FLOOR[..], &ENGINES[..]].concat(),
        "lore-mcp" => [&FLOOR[..], &ENGINES[..], &SERVICES[..]].concat(),
        _ => [
            &FLOOR[..],
            &ENGINES[..],
            &SERVICES[..],
            &["lore-mcp", "lore-demo"],
        ]
        .concat(),
    }
}

#[test]
fn lore_crates_depend_only_on_crates_below_them() {
    let mut wrong = Vec::new();
    for (crate_name, names) in dependencies() {
        for name in names.iter().filter(|name| name.starts_with("lore-")) {
            if !allowed(&crate_name).contains(&name.as_str()) {
                wrong.push(format!("{crate_name} depends on {name}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "upward or sideways dependencies:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn only_the_adapter_depends_on_the_mcp_sdk() {
    let users: Vec<String> = dependencies()
        .into_iter()
        .filter(|(_, names)| names.iter().any(|name| name == "rmcp"))
        .map(|(crate_name, _)| crate_name)
        .collect();
    assert_eq!(users, vec!["lore-mcp".to_string()]);
}

#[test]
fn the_binary_reaches_the_adapter_only_from_its_mcp_command() {
    let src = crates_dir().join("lore/src");
    let mut users = Vec::new();
    for file in rust_files(&src) {
        let text = std::fs::read_to_string(&file).expect("read source");
        let code = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"));
        if code.into_iter().any(|line| line.contains("lore_mcp::")) {
            users.push(relative(&file, &src));
        }
    }
    assert_eq!(users, vec!["commands/mcp.rs".to_string()]);
}

/// Only the adapter names tools: no `"km-…"` string in the gateway's or
/// the context's shipped code, but for the steps recipes call by name
/// (`lore-gateway/src/recipe/calls.rs`); recipe files and tests may.
#[test]
fn services_name_no_tools() {
    let mut named = Vec::new();
    for krate in ["lore-gateway", "lore-context"] {
        let src = crates_dir().join(krate).join("src");
        for file in rust_files(&src) {
            if relative(&file, &src) == "recipe/calls.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("read source");
            let shipped = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (number, line) in shipped.lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                if code.contains("\"km-") && !code.contains("km-recipe-run") {
                    named.push(format!("{}:{}", relative(&file, &src), number + 1));
                }
            }
        }
    }
    assert!(
        named.is_empty(),
        "tool names outside the adapter: {named:?}"
    );
}

#[test]
fn library_crates_do_not_print() {
    let mut printing = Vec::new();
    for crate_dir in library_crates() {
        for file in rust_files(&crate_dir.join("src")) {
            let text = std::fs::read_to_string(&file).expect("read source");
            for (number, line) in text.lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                if ["println!(", "eprintln!(", "print!(", "eprint!("]
                    .iter()
                    .any(|call| code.contains(call))
                {
                    printing.push(format!("{}:{}", file.display(), number + 1));
                }
            }
        }
    }
    assert!(
        printing.is_empty(),
        "library code printing:\n{}",
        printing.join("\n")
    );
}

#[test]
fn every_source_file_opens_with_its_purpose() {
    let mut undocumented = Vec::new();
    for entry in std::fs::read_dir(crates_dir())
        .expect("read crates/")
        .flatten()
    {
        for file in rust_files(&entry.path().join("src")) {
            let text = std::fs::read_to_string(&file).expect("read source");
            if !text.starts_with("//!") {
                undocumented.push(file.display().to_string());
            }
        }
    }
    assert!(
        undocumented.is_empty(),
        "files without a //! doc:\n{}",
        undocumented.join("\n")
    );
}

fn library_crates() -> Vec<PathBuf> {
    std::fs::read_dir(crates_dir())
        .expect("read crates/")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join("src/lib.rs").exists())
        .collect()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn relative(file: &Path, base: &Path) -> String {
    file.strip_prefix(base)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The modules of `krate`, one per file (`ingest/walk`, `ingest` for
/// `ingest/mod.rs`), and for each, the other modules its shipped code
/// names (`crate::a::b::…`, resolved to the longest module path it
/// starts with; tests and comments left out; `lib.rs`, the root that
/// wires them, left out).
fn module_uses(krate: &str) -> BTreeMap<String, Vec<String>> {
    let src = crates_dir().join(krate).join("src");
    let module_of = |file: &Path| -> String {
        let rel = relative(file, &src);
        let rel = rel.trim_end_matches(".rs");
        rel.strip_suffix("/mod").unwrap_or(rel).to_string()
    };
    let files = rust_files(&src);
    let modules: std::collections::BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    let mut uses: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(file);
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read source");
        let shipped = text.split("#[cfg(test)]").next().unwrap_or_default();
        let entry = uses.entry(module.clone()).or_default();
        for line in shipped.lines() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for target in named_modules(line, &module, &modules) {
                if target != module && !entry.contains(&target) {
                    entry.push(target);
                }
            }
        }
    }
    uses
}

/// The modules a line of `module` names: `crate::a::b::…` and
/// `super::…` paths (from `module`'s parent), each resolved to the longest
/// module path it starts with (the parent itself for `super::Item`).
fn named_modules(
    line: &str,
    module: &str,
    modules: &std::collections::BTreeSet<String>,
) -> Vec<String> {
    let parent_of = |m: &str| {
        m.rsplit_once('/')
            .map_or(String::new(), |(p, _)| p.to_string())
    };
    let mut out = Vec::new();
    for (prefix, from_crate) in [("crate::", true), ("super::", false)] {
        for (at, _) in line.match_indices(prefix) {
            if !from_crate && line[..at].ends_with("super::") {
                continue; // counted from the first `super::`
            }
            let mut path: Vec<String> = line[at + prefix.len()..]
                .split("::")
                .map(|part| {
                    part.chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect()
                })
                .take_while(|part: &String| !part.is_empty())
                .collect();
            let mut base = if from_crate {
                String::new()
            } else {
                parent_of(module)
            };
            while path.first().is_some_and(|p| p == "super") {
                base = parent_of(&base);
                path.remove(0);
            }
            let joined = |n: usize| {
                let tail = path[..n].join("/");
                match (base.is_empty(), tail.is_empty()) {
                    (true, _) => tail,
                    (false, true) => base.clone(),
                    (false, false) => format!("{base}/{tail}"),
                }
            };
            let lowest = usize::from(from_crate || base.is_empty());
            if let Some(target) = (lowest..=path.len())
                .rev()
                .map(joined)
                .find(|candidate| modules.contains(candidate))
            {
                out.push(target);
            }
        }
    }
    out
}

/// A cycle among `uses` (as the modules along it), if there is one.
fn a_cycle(uses: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        uses: &BTreeMap<String, Vec<String>>,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in uses.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, uses, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = std::collections::BTreeSet::new();
    for node in uses.keys() {
        if let Some(cycle) = visit(node, uses, &mut Vec::new(), &mut done) {
            return Some(cycle);
        }
    }
    None
}

/// The gateway's files depend on each other one way: no file circle
/// (search ↔ explore ↔ feedback and index ↔ vectors were broken up), and
/// its folders hold its parts (ingest, index, graph, search, recipe).
#[test]
fn the_gateways_modules_form_no_circle() {
    let uses = module_uses("lore-gateway");
    for part in [
        "ingest",
        "ingest/walk",
        "index",
        "index/vectors",
        "graph/explore",
        "search/feedback",
        "recipe",
    ] {
        assert!(uses.contains_key(part), "no module {part}: {uses:#?}");
    }
    assert_eq!(a_cycle(&uses), None, "{uses:#?}");
}

/// No crate's files form a circle: each module depends on others one
/// way, so a newcomer can read a crate from its lowest modules up.
#[test]
fn no_crate_s_modules_form_a_circle() {
    let crates = dependencies();
    assert!(crates.len() >= 13, "crates found: {:?}", crates.keys());
    for krate in crates.keys() {
        let uses = module_uses(krate);
        assert!(!uses.is_empty(), "{krate} has no modules");
        assert_eq!(a_cycle(&uses), None, "{krate}: {uses:#?}");
    }
}

/// The adapter's files depend one way too: the transports serve the
/// server, which registers the toolsets over the toolkit; who is calling
/// (`caller`) and how panics are reported (`panics`) sit below them all
/// (the transport ↔ server circle was broken up).
#[test]
fn the_adapters_modules_form_no_circle() {
    let uses = module_uses("lore-mcp");
    for part in ["caller", "panics", "server", "toolkit", "transport/http"] {
        assert!(uses.contains_key(part), "no module {part}: {uses:#?}");
    }
    assert_eq!(a_cycle(&uses), None, "{uses:#?}");
}
