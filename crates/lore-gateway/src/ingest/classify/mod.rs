//! What a file is: its language (from the extension, or the file name for
//! build files) and its artifact type (code, test, doc, config, other).
//!
//! "code" means shipped source: tests and test support, fixtures and
//! benchmarks are `test`; examples and documentation code are `doc`;
//! generated and vendored code is `other`; packaging and build scripts
//! are `config` ([`Conventions`] holds the rules and reads the
//! repository's own word on them).

mod conventions;

pub use conventions::{Conventions, in_test_folder, is_asset};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What kind of artifact a file is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactType {
    /// Source code.
    Code,
    /// Tests (by the conventions of the file's language).
    Test,
    /// Documentation: markdown, reStructuredText, plain text.
    Doc,
    /// Configuration and build files.
    Config,
    /// Anything else that is text.
    Other,
}

impl ArtifactType {
    /// Every type, in the order reports list them.
    pub const ALL: [ArtifactType; 5] = [
        ArtifactType::Code,
        ArtifactType::Test,
        ArtifactType::Doc,
        ArtifactType::Config,
        ArtifactType::Other,
    ];

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactType::Code => "code",
            ArtifactType::Test => "test",
            ArtifactType::Doc => "doc",
            ArtifactType::Config => "config",
            ArtifactType::Other => "other",
        }
    }

    /// Parses a name.
    pub fn parse(text: &str) -> Option<ArtifactType> {
        ArtifactType::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(text))
    }
}

/// Every language [`language`] names, for checking a filter's values.
pub const LANGUAGES: [&str; 28] = [
    "python",
    "typescript",
    "tsx",
    "javascript",
    "go",
    "rust",
    "java",
    "kotlin",
    "ruby",
    "php",
    "c",
    "cpp",
    "csharp",
    "swift",
    "scala",
    "shell",
    "sql",
    "markdown",
    "rst",
    "text",
    "yaml",
    "toml",
    "json",
    "ini",
    "html",
    "css",
    "dockerfile",
    "make",
];

/// The language of a file, from its name.
pub fn language(path: &str) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "dockerfile" => return Some("dockerfile"),
        "makefile" | "gnumakefile" => return Some("make"),
        _ => {}
    }
    let extension = lower.rsplit_once('.').map(|(_, e)| e)?;
    Some(match extension {
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "tsx",
        "js" | "mjs" | "cjs" | "jsx" => "javascript",
        "go" => "go",
        "rs" => "rust",
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "rb" => "ruby",
        "php" => "php",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        "cs" => "csharp",
        "swift" => "swift",
        "scala" => "scala",
        "sh" | "bash" | "zsh" => "shell",
        "sql" => "sql",
        "md" | "markdown" | "mdx" => "markdown",
        "rst" => "rst",
        "txt" => "text",
        "yaml" | "yml" => "yaml",
        "toml" => "toml",
        "json" => "json",
        "ini" | "cfg" => "ini",
        "html" | "htm" => "html",
        "css" | "scss" => "css",
        _ => return None,
    })
}

/// The artifact type of the file at `path` (root-relative, `/`-separated)
/// written in `language`, by the path conventions alone (no repository
/// configuration, no text): [`Conventions::classify`] with none.
pub fn artifact_type(path: &str, language: Option<&str>) -> ArtifactType {
    Conventions::default().classify(path, language, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_a_file_can_have_is_a_known_filter_value() {
        let extensions = "py pyi ts mts cts tsx js mjs cjs jsx go rs java kt kts rb php c h cc cpp cxx hpp hh cs swift scala sh bash zsh sql md markdown mdx rst txt yaml yml toml json ini cfg html htm css scss";
        let mut named = std::collections::BTreeSet::new();
        for ext in extensions.split(' ') {
            named.insert(language(&format!("x.{ext}")).unwrap());
        }
        named.insert(language("Dockerfile").unwrap());
        named.insert(language("Makefile").unwrap());
        let known: std::collections::BTreeSet<&str> = LANGUAGES.into_iter().collect();
        assert_eq!(named, known);
    }

    fn kind(path: &str) -> &'static str {
        artifact_type(path, language(path)).as_str()
    }

    #[test]
    fn tests_are_found_by_each_language_s_conventions() {
        for test in [
            "tests/test_api.py",
            "pkg/test_models.py",
            "pkg/conftest.py",
            "server/handler_test.go",
            "src/app.test.ts",
            "src/button.spec.tsx",
            "src/__tests__/util.js",
            "crates/x/tests/cli.rs",
        ] {
            assert_eq!(kind(test), "test", "{test}");
        }
        for code in [
            "pkg/models.py",
            "server/handler.go",
            "src/app.ts",
            "src/testing_utils.ts",
            "crates/x/src/lib.rs",
        ] {
            assert_eq!(kind(code), "code", "{code}");
        }
        assert_eq!(kind("docs/guide.md"), "doc");
        assert_eq!(kind("README.rst"), "doc");
        assert_eq!(kind("Cargo.toml"), "config");
        assert_eq!(kind(".github/workflows/ci.yml"), "config");
        assert_eq!(kind("Dockerfile"), "config");
        assert_eq!(kind("LICENSE"), "doc");
        assert_eq!(kind("data/blob.xyz"), "other");
    }
}
