//! The rules that say what a source file is for, and a repository's own
//! word on it.
//!
//! By path, in every repository: test folders and file names of each
//! language's test tools, test support (`testing/`, `testdata/`,
//! `fixtures/`, `mocks/`, `snapshots/`), benchmarks (`bench/`, `benches/`,
//! `benchmarks/`, `asv_bench/`) → `test`; examples (`examples/`,
//! `_examples/`) and documentation code (`doc/`, `docs/`, `docs_src/`;
//! in Go a folder `doc` is an ordinary package name) → `doc`;
//! vendored (`vendor/`, `third_party/`, `_vendor/`, `node_modules/`) and
//! generated code (`*.pb.go`, `*_pb2.py`, `*_gen.go`, `*.generated.*`,
//! `*.min.js`, `dist/`, or a first line saying "Code generated … DO NOT
//! EDIT" or `@generated`) → `other`; packaging and tool scripts
//! (`setup.py`, `noxfile.py`, `*.config.js`, top-level `scripts/`) →
//! `config`.
//!
//! By the repository's configuration, read by [`Conventions::read`]:
//! `.gitattributes` (`linguist-generated`, `linguist-vendored`,
//! `linguist-documentation`, and their `=false`), pytest's `testpaths`
//! (`pytest.ini`, `pyproject.toml`, `setup.cfg`, `tox.ini`), and Cargo's
//! `[[test]]`, `[[bench]]` and `[[example]]` targets in the manifests of
//! the root and of folders up to two levels down.

use std::path::Path;

use globset::{Glob, GlobMatcher};

use super::ArtifactType;

/// Test support folders, in any language.
const TEST_SUPPORT: &[&str] = &[
    "testing",
    "testdata",
    "test_data",
    "test-data",
    "testutil",
    "testutils",
    "test_utils",
    "test-utils",
    "test_helpers",
    "fixture",
    "fixtures",
    "__fixtures__",
    "mocks",
    "__mocks__",
    "snapshots",
    "__snapshots__",
    "e2e",
];
/// Benchmark folders.
const BENCHMARKS: &[&str] = &["bench", "benches", "benchmark", "benchmarks", "asv_bench"];
/// Example folders.
const EXAMPLES: &[&str] = &["example", "examples", "_examples"];
/// Documentation folders (their code is documentation's: a Sphinx
/// `conf.py`, the snippets a guide shows).
const DOCS: &[&str] = &["doc", "docs", "docs_src", "documentation"];
/// Vendored and built code.
const FOREIGN: &[&str] = &[
    "vendor",
    "vendored",
    "_vendor",
    "third_party",
    "third-party",
    "thirdparty",
    "node_modules",
    "bower_components",
    "dist",
];
/// Top-level folders of project tooling.
const TOOLING: &[&str] = &["scripts", "script", "hack", ".github", ".circleci"];
/// Packaging and task files.
const PACKAGING: &[&str] = &[
    "setup.py",
    "noxfile.py",
    "fabfile.py",
    "gulpfile.js",
    "gruntfile.js",
];

/// What a repository's own configuration says of its files.
#[derive(Debug, Default)]
pub struct Conventions {
    /// `.gitattributes` lines, in order (a later line wins).
    attributes: Vec<(GlobMatcher, Option<ArtifactType>)>,
    /// Folders (root-relative, no trailing `/`) whose files are of a type:
    /// pytest's `testpaths`, Cargo's target paths.
    folders: Vec<(String, ArtifactType)>,
    /// A digest of what was read, so an ingest notices a change.
    stamp: String,
}

impl Conventions {
    /// Reads the configuration of the repository at `root`; files that
    /// are missing or unreadable say nothing.
    pub fn read(root: &Path) -> Conventions {
        let mut conventions = Conventions::default();
        let read = |relative: &str| -> Option<String> {
            let text = std::fs::read_to_string(root.join(relative)).ok()?;
            // Configuration files are small; a huge one is not ours to parse.
            (text.len() <= 1 << 20).then_some(text)
        };
        let mut texts: Vec<(String, String)> = Vec::new();
        for name in [
            ".gitattributes",
            "pytest.ini",
            "pyproject.toml",
            "setup.cfg",
            "tox.ini",
        ] {
            if let Some(text) = read(name) {
                texts.push((name.to_string(), text));
            }
        }
        for manifest in cargo_manifests(root) {
            if let Some(text) = read(&manifest) {
                texts.push((manifest, text));
            }
        }
        for (name, text) in &texts {
            match name.as_str() {
                ".gitattributes" => conventions.attributes = gitattributes(text),
                "pytest.ini" | "pyproject.toml" | "setup.cfg" | "tox.ini" => {
                    for path in testpaths(text) {
                        conventions.folders.push((path, ArtifactType::Test));
                    }
                }
                _ => {
                    let base = name.strip_suffix("Cargo.toml").unwrap_or_default();
                    for (path, kind) in cargo_targets(text) {
                        let path = normalise(&format!("{base}{path}"));
                        conventions.folders.push((path, kind));
                    }
                }
            }
        }
        let mut read_texts = String::new();
        for (name, text) in &texts {
            read_texts.push_str(name);
            read_texts.push('\u{1f}');
            read_texts.push_str(text);
            read_texts.push('\u{1e}');
        }
        conventions.stamp = lore_core::hash::content_hash(&read_texts);
        conventions
    }

    /// A digest of the configuration read (empty text's digest when none).
    pub fn stamp(&self) -> &str {
        &self.stamp
    }

    /// The artifact type of the file at `path` (root-relative,
    /// `/`-separated) written in `language`; `text`, when given, lets a
    /// generated file's first lines say so.
    pub fn classify(&self, path: &str, language: Option<&str>, text: Option<&str>) -> ArtifactType {
        let lower = path.to_ascii_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        // Lock files are generated: neither configuration nor code.
        let lock = name.ends_with(".lock")
            || name.ends_with("-lock.yaml")
            || name.ends_with("-lock.json")
            || name.ends_with(".lock.json");
        if lock {
            return ArtifactType::Other;
        }
        if let Some(said) = self.attribute(path) {
            return said.unwrap_or(match language {
                Some(_) => by_language(language),
                None => ArtifactType::Other,
            });
        }
        match language {
            Some("markdown" | "rst" | "text") => return ArtifactType::Doc,
            Some("yaml" | "toml" | "json" | "ini" | "dockerfile" | "make") => {
                return ArtifactType::Config;
            }
            None if name == "license" || name == "readme" || name == "changelog" => {
                return ArtifactType::Doc;
            }
            None => return ArtifactType::Other,
            Some(_) => {}
        }
        let folders: Vec<&str> = lower.split('/').rev().skip(1).collect();
        let in_folder = |names: &[&str]| folders.iter().any(|f| names.contains(f));
        if is_test(name, language, &in_folder) || in_folder(TEST_SUPPORT) || in_folder(BENCHMARKS) {
            return ArtifactType::Test;
        }
        if let Some(kind) = self.folder(path) {
            return kind;
        }
        if in_folder(FOREIGN) || is_generated(name, text) {
            return ArtifactType::Other;
        }
        // A Go package may be named `doc` (cobra's man-page generator).
        let docs = if language == Some("go") {
            in_folder(&DOCS[1..])
        } else {
            in_folder(DOCS)
        };
        if in_folder(EXAMPLES) || docs {
            return ArtifactType::Doc;
        }
        let top = lower.split('/').next().unwrap_or_default();
        let tooling = lower.contains('/') && TOOLING.contains(&top);
        if tooling || PACKAGING.contains(&name) || is_tool_config(name) {
            return ArtifactType::Config;
        }
        ArtifactType::Code
    }

    /// What `.gitattributes` says of `path`: `Some(Some(type))` for a
    /// linguist attribute set, `Some(None)` for one unset (`=false`),
    /// `None` when no line matches.
    fn attribute(&self, path: &str) -> Option<Option<ArtifactType>> {
        self.attributes
            .iter()
            .rev()
            .find(|(glob, _)| glob.is_match(path))
            .map(|(_, kind)| *kind)
    }

    /// The type a configured folder gives `path`.
    fn folder(&self, path: &str) -> Option<ArtifactType> {
        self.folders
            .iter()
            .find(|(folder, _)| {
                path == folder
                    || path
                        .strip_prefix(folder.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
            .map(|(_, kind)| *kind)
    }
}

/// Whether `path` lies in a test, test-support or benchmark folder
/// (`tests/`, `__tests__/`, `testing/`, `fixtures/`, `testdata/`, …), as
/// the test fixtures of any type do (sphinx's `tests/roots/**/*.rst`).
pub fn in_test_folder(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.split('/').rev().skip(1).any(|folder| {
        ["tests", "test", "__tests__", "spec"].contains(&folder)
            || TEST_SUPPORT.contains(&folder)
            || BENCHMARKS.contains(&folder)
    })
}

/// Whether `path` is a web asset rather than code a graph links: a
/// stylesheet, a page, or a script under `static/`, `assets/` or
/// `public/` (a documentation theme's JavaScript).
pub fn is_asset(path: &str, language: Option<&str>) -> bool {
    match language {
        Some("css" | "html") => true,
        Some("javascript") => {
            let lower = path.to_ascii_lowercase();
            lower
                .split('/')
                .rev()
                .skip(1)
                .any(|folder| ["static", "assets", "public", "_static"].contains(&folder))
        }
        _ => false,
    }
}

/// A source file's type by its language's test conventions alone.
fn by_language(language: Option<&str>) -> ArtifactType {
    match language {
        Some("markdown" | "rst" | "text") => ArtifactType::Doc,
        Some("yaml" | "toml" | "json" | "ini" | "dockerfile" | "make") => ArtifactType::Config,
        _ => ArtifactType::Code,
    }
}

/// Whether a file is a test by its language's test tools.
fn is_test(name: &str, language: Option<&str>, in_folder: &dyn Fn(&[&str]) -> bool) -> bool {
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    match language {
        Some("python") => {
            name.starts_with("test_")
                || name.ends_with("_test.py")
                || name == "conftest.py"
                || in_folder(&["tests", "test"])
        }
        Some("go") => name.ends_with("_test.go"),
        Some("typescript" | "tsx" | "javascript") => {
            stem.ends_with(".test")
                || stem.ends_with(".spec")
                || stem.ends_with(".test-d")
                || in_folder(&["__tests__", "test", "tests", "spec"])
        }
        Some("rust") => {
            in_folder(&["tests"])
                || stem == "tests"
                || stem == "test"
                || stem.ends_with("_test")
                || stem.ends_with("_tests")
        }
        Some("java" | "kotlin" | "scala") => {
            in_folder(&["test"]) || name.contains("test.") || name.contains("tests.")
        }
        Some("ruby") => {
            name.ends_with("_spec.rb") || name.ends_with("_test.rb") || in_folder(&["spec"])
        }
        Some(_) => in_folder(&["tests", "test"]),
        None => false,
    }
}

/// Whether a file is generated, by its name or its first lines.
fn is_generated(name: &str, text: Option<&str>) -> bool {
    let by_name = name.ends_with(".pb.go")
        || name.ends_with("_gen.go")
        || name.ends_with(".gen.go")
        || name.starts_with("zz_generated")
        || name.ends_with("_pb2.py")
        || name.ends_with("_pb2_grpc.py")
        || name.ends_with(".min.js")
        || name.contains(".generated.");
    if by_name {
        return true;
    }
    let Some(text) = text else {
        return false;
    };
    // The conventions put the marker in the first comment lines.
    let head: String = text
        .lines()
        .take(5)
        .collect::<Vec<_>>()
        .join("\n")
        .to_ascii_lowercase();
    (head.contains("code generated") && head.contains("do not edit"))
        || head.contains("@generated")
        || ((head.contains("auto-generated") || head.contains("autogenerated"))
            && head.contains("do not edit"))
}

/// A tool's configuration written as a script: `vite.config.ts`,
/// `jest.config.js`, `.eslintrc.cjs`.
fn is_tool_config(name: &str) -> bool {
    let script = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext));
    script.is_some_and(|stem| stem.ends_with(".config") || stem.starts_with(".eslintrc"))
}

/// `a/./b/` → `a/b`.
fn normalise(path: &str) -> String {
    path.split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// `.gitattributes` lines that set or unset a linguist attribute, as
/// matchers of root-relative paths.
fn gitattributes(text: &str) -> Vec<(GlobMatcher, Option<ArtifactType>)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let Some(pattern) = words.next() else {
            continue;
        };
        let mut said = None;
        for attribute in words {
            let (name, set) = match attribute.split_once('=') {
                Some((name, value)) => (name, !matches!(value, "false" | "0")),
                None => match attribute.strip_prefix(['-', '!']) {
                    Some(name) => (name, false),
                    None => (attribute, true),
                },
            };
            let kind = match name {
                "linguist-generated" | "linguist-vendored" => ArtifactType::Other,
                "linguist-documentation" => ArtifactType::Doc,
                _ => continue,
            };
            said = Some(set.then_some(kind));
        }
        let Some(said) = said else {
            continue;
        };
        if let Some(glob) = attribute_glob(pattern) {
            out.push((glob, said));
        }
    }
    out
}

/// A `.gitattributes` pattern as a glob over root-relative paths: one
/// without a `/` matches a name at any depth; `dir/**` a folder's files.
fn attribute_glob(pattern: &str) -> Option<GlobMatcher> {
    let anchored = pattern.trim_start_matches('/');
    let glob = if pattern.trim_end_matches('/').contains('/') {
        anchored.to_string()
    } else {
        format!("**/{anchored}")
    };
    let glob = match glob.strip_suffix('/') {
        Some(folder) => format!("{folder}/**"),
        None => glob,
    };
    Glob::new(&glob).ok().map(|g| g.compile_matcher())
}

/// pytest's `testpaths`, in any of its configuration files: `testpaths =
/// tests testing` (ini) or `testpaths = ["tests", "testing"]` (TOML),
/// possibly over several lines.
fn testpaths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim().strip_prefix("testpaths") else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let mut value = value.to_string();
        if value.contains('[') && !value.contains(']') {
            for more in lines.by_ref() {
                value.push(' ');
                value.push_str(more);
                if more.contains(']') {
                    break;
                }
            }
        } else if value.trim().is_empty() {
            // ini: the paths on the indented lines that follow.
            for more in lines.by_ref() {
                if !more.starts_with([' ', '\t']) || more.trim().is_empty() {
                    break;
                }
                value.push(' ');
                value.push_str(more);
            }
        }
        for word in value.split(|c: char| c.is_whitespace() || "[],\"'".contains(c)) {
            let path = normalise(word);
            if !path.is_empty() && !path.contains("..") && !path.contains('*') {
                out.push(path);
            }
        }
    }
    out
}

/// Cargo's `[[test]]`, `[[bench]]` and `[[example]]` targets with a
/// `path`: the folder of each (the file itself when at the top).
fn cargo_targets(text: &str) -> Vec<(String, ArtifactType)> {
    let mut out = Vec::new();
    let mut section: Option<ArtifactType> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = match line {
                "[[test]]" | "[[bench]]" => Some(ArtifactType::Test),
                "[[example]]" => Some(ArtifactType::Doc),
                _ => None,
            };
            continue;
        }
        let Some(kind) = section else {
            continue;
        };
        let Some(rest) = line.strip_prefix("path") else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let path = value.trim().trim_matches(['"', '\'']);
        if path.contains("..") {
            continue;
        }
        // A target's folder holds its modules too.
        let folder = match path.rsplit_once('/') {
            Some((folder, _)) => folder,
            None => path,
        };
        out.push((folder.to_string(), kind));
    }
    out
}

/// The Cargo manifests of the root and of its folders up to two levels
/// down (a workspace's `crates/<name>/Cargo.toml`), root-relative.
fn cargo_manifests(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if root.join("Cargo.toml").is_file() {
        out.push("Cargo.toml".to_string());
    }
    let folders = |dir: &Path| -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|name| !name.starts_with('.') && name != "target" && name != "node_modules")
            .collect();
        names.sort();
        names.truncate(500);
        names
    };
    if out.is_empty() {
        return out;
    }
    for first in folders(root) {
        let first_dir = root.join(&first);
        if first_dir.join("Cargo.toml").is_file() {
            out.push(format!("{first}/Cargo.toml"));
        }
        for second in folders(&first_dir) {
            if first_dir.join(&second).join("Cargo.toml").is_file() {
                out.push(format!("{first}/{second}/Cargo.toml"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::classify::language;

    fn kind(conventions: &Conventions, path: &str) -> &'static str {
        conventions.classify(path, language(path), None).as_str()
    }

    #[test]
    fn code_means_shipped_source_by_the_path_conventions() {
        let none = Conventions::default();
        for (path, expected) in [
            ("testing/python/approx.py", "test"),
            ("internal/testutil/server.go", "test"),
            ("pkg/testdata/input.go", "test"),
            ("src/__fixtures__/user.ts", "test"),
            ("src/__mocks__/fs.js", "test"),
            ("src/types.test-d.ts", "test"),
            ("src/parser/tests.rs", "test"),
            ("bench/parse.py", "test"),
            ("asv_bench/benchmarks/groupby.py", "test"),
            ("crates/core/benches/speed.rs", "test"),
            ("doc/usage/extensions/example_google.py", "doc"),
            ("docs/conf.py", "doc"),
            ("docs_src/tutorial/first.py", "doc"),
            ("examples/basic/main.go", "doc"),
            ("_examples/server/main.go", "doc"),
            ("crates/cli/examples/demo.rs", "doc"),
            ("vendor/github.com/pkg/errors/errors.go", "other"),
            ("src/pip/_vendor/six.py", "other"),
            ("api/v1/service.pb.go", "other"),
            ("proto/service_pb2.py", "other"),
            ("dist/index.js", "other"),
            ("setup.py", "config"),
            ("noxfile.py", "config"),
            ("vite.config.ts", "config"),
            ("scripts/release.py", "config"),
            // Shipped source, by the same rules.
            ("src/flask/app.py", "code"),
            ("doc/man_docs.go", "code"),
            ("docs/playground/cmd/yaml/main.go", "doc"),
            ("src/testing_utils.ts", "code"),
            ("crates/x/src/lib.rs", "code"),
            ("pkg/scripts.go", "code"),
            ("src/docs.ts", "code"),
        ] {
            assert_eq!(kind(&none, path), expected, "{path}");
        }
    }

    #[test]
    fn a_generated_file_says_so_in_its_first_lines() {
        let none = Conventions::default();
        let go = "// Code generated by stringer; DO NOT EDIT.\n\npackage x\n";
        let rs = "// @generated by build.rs\npub fn f() {}\n";
        let plain = "package x\n\n// This code generated nothing.\n";
        assert_eq!(
            none.classify("x/kind_string.go", Some("go"), Some(go)),
            ArtifactType::Other
        );
        assert_eq!(
            none.classify("src/table.rs", Some("rust"), Some(rs)),
            ArtifactType::Other
        );
        assert_eq!(
            none.classify("x/kind.go", Some("go"), Some(plain)),
            ArtifactType::Code
        );
    }

    #[test]
    fn the_repository_s_configuration_has_the_last_word() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join(".gitattributes"),
            "# linguist\nsrc/generated/** linguist-generated\n*.snap.py linguist-vendored=true\n\
             docs/api.py -linguist-documentation\nlib/shim.js linguist-documentation\n",
        )
        .unwrap();
        std::fs::write(
            root.join("pyproject.toml"),
            "[tool.pytest.ini_options]\ntestpaths = [\n  \"checks\",\n  \"src/pkg/selftest\",\n]\n",
        )
        .unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/*\"]\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("crates/engine")).unwrap();
        std::fs::write(
            root.join("crates/engine/Cargo.toml"),
            "[package]\nname = \"engine\"\n\n[[bench]]\nname = \"speed\"\npath = \"perf/speed.rs\"\n\
             [[example]]\nname = \"tour\"\npath = \"tour/main.rs\"\n",
        )
        .unwrap();
        let conventions = Conventions::read(root);
        for (path, expected) in [
            ("src/generated/models.py", "other"),
            ("pkg/data.snap.py", "other"),
            ("docs/api.py", "code"),
            ("lib/shim.js", "doc"),
            ("checks/arith.py", "test"),
            ("src/pkg/selftest/runner.py", "test"),
            ("crates/engine/perf/speed.rs", "test"),
            ("crates/engine/perf/helpers.rs", "test"),
            ("crates/engine/tour/main.rs", "doc"),
            ("crates/engine/src/lib.rs", "code"),
            ("src/pkg/selftesting.py", "code"),
        ] {
            assert_eq!(kind(&conventions, path), expected, "{path}");
        }
        assert_ne!(
            conventions.stamp(),
            Conventions::read(&root.join("crates")).stamp()
        );
    }
}
