//! What a file is: its language (from the extension, or the file name for
//! build files) and its artifact type (code, test, doc, config, other),
//! from the path conventions of each language's test tools.

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
/// written in `language`.
pub fn artifact_type(path: &str, language: Option<&str>) -> ArtifactType {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let folders: Vec<&str> = lower.split('/').rev().skip(1).collect();
    let in_folder = |names: &[&str]| folders.iter().any(|f| names.contains(f));
    // Lock files are generated: neither configuration nor code.
    let lock = name.ends_with(".lock")
        || name.ends_with("-lock.yaml")
        || name.ends_with("-lock.json")
        || name.ends_with(".lock.json");
    if lock {
        return ArtifactType::Other;
    }
    match language {
        Some("markdown" | "rst" | "text") => return ArtifactType::Doc,
        Some("yaml" | "toml" | "json" | "ini" | "dockerfile" | "make") => {
            return ArtifactType::Config;
        }
        _ => {}
    }
    let is_test = match language {
        Some("python") => {
            name.starts_with("test_")
                || name.ends_with("_test.py")
                || name == "conftest.py"
                || in_folder(&["tests", "test"])
        }
        Some("go") => name.ends_with("_test.go"),
        Some("typescript" | "tsx" | "javascript") => {
            let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
            stem.ends_with(".test")
                || stem.ends_with(".spec")
                || in_folder(&["__tests__", "test", "tests"])
        }
        Some("rust") => in_folder(&["tests"]) || in_folder(&["benches"]),
        Some("java" | "kotlin" | "scala") => {
            in_folder(&["test"]) || name.contains("test.") || name.contains("tests.")
        }
        Some("ruby") => name.ends_with("_spec.rb") || name.ends_with("_test.rb"),
        Some(_) => in_folder(&["tests", "test"]),
        None => false,
    };
    if is_test {
        return ArtifactType::Test;
    }
    match language {
        Some(_) => ArtifactType::Code,
        None if name == "license" || name == "readme" || name == "changelog" => ArtifactType::Doc,
        None => ArtifactType::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
