//! Secret references: a value in `lore.yaml` that is a literal, `env:VAR`
//! (an environment variable) or `file:PATH` (the first line of a file,
//! relative to the project directory).

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ConfigError;

/// A configuration value that may hold a secret. Its `Debug` form never
/// shows a literal value.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
#[schemars(
    description = "A literal value, `env:VAR` to read an environment variable, or `file:PATH` to read the first line of a file (relative to the project)."
)]
pub struct Secret(String);

impl Secret {
    /// Wraps a reference as written in `lore.yaml`.
    pub fn new(reference: impl Into<String>) -> Self {
        Secret(reference.into())
    }

    /// The reference as written in `lore.yaml` (a literal is the secret
    /// itself: never print it).
    pub fn as_written(&self) -> &str {
        &self.0
    }

    /// The variable an `env:VAR` reference reads, or none for a literal
    /// or `file:PATH`.
    pub fn env_var(&self) -> Option<&str> {
        self.0.strip_prefix("env:").map(str::trim)
    }

    /// The file a `file:PATH` reference reads (as written, relative to
    /// the project), or none for a literal or `env:VAR`.
    pub fn file(&self) -> Option<&str> {
        self.0.strip_prefix("file:")
    }

    /// Resolves the reference. `what` names the setting in error messages;
    /// `project_dir` anchors relative `file:` paths.
    pub fn resolve(&self, what: &str, project_dir: &Path) -> Result<String, ConfigError> {
        if let Some(var) = self.0.strip_prefix("env:") {
            return std::env::var(var).map_err(|_| ConfigError::MissingEnvVar {
                what: what.to_string(),
                var: var.to_string(),
            });
        }
        if let Some(file) = self.0.strip_prefix("file:") {
            let path = project_dir.join(file);
            let text =
                std::fs::read_to_string(&path).map_err(|source| ConfigError::SecretFile {
                    what: what.to_string(),
                    path: path.clone(),
                    source,
                })?;
            return Ok(text.lines().next().unwrap_or("").trim().to_string());
        }
        Ok(self.0.clone())
    }

    /// Resolves a multi-line secret, such as a PEM private key: like
    /// [`resolve`](Secret::resolve), but `file:PATH` reads the whole file.
    pub fn resolve_text(&self, what: &str, project_dir: &Path) -> Result<String, ConfigError> {
        match self.0.strip_prefix("file:") {
            Some(file) => {
                let path = project_dir.join(file);
                std::fs::read_to_string(&path).map_err(|source| ConfigError::SecretFile {
                    what: what.to_string(),
                    path,
                    source,
                })
            }
            None => self.resolve(what, project_dir),
        }
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.starts_with("env:") || self.0.starts_with("file:") {
            write!(f, "Secret({})", self.0)
        } else {
            f.write_str("Secret(<literal>)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_resolves_to_itself_and_hides_in_debug() {
        let secret = Secret::new("postgres://u:hunter2@db/x");
        assert_eq!(
            secret.resolve("url", Path::new(".")).unwrap(),
            "postgres://u:hunter2@db/x"
        );
        assert!(!format!("{secret:?}").contains("hunter2"));
    }

    #[test]
    fn env_reference_reads_the_variable() {
        // SAFETY-free: a variable name unique to this test.
        let var = "LORE_TEST_SECRET_ENV_READS";
        unsafe { std::env::set_var(var, "from-env") };
        let resolved = Secret::new(format!("env:{var}"))
            .resolve("url", Path::new("."))
            .unwrap();
        assert_eq!(resolved, "from-env");
    }

    #[test]
    fn missing_env_var_names_the_variable_and_the_setting() {
        let err = Secret::new("env:LORE_TEST_SURELY_UNSET_VAR")
            .resolve("connection `pg` url", Path::new("."))
            .unwrap_err();
        let message = err.to_string();
        assert!(message.contains("LORE_TEST_SURELY_UNSET_VAR"), "{message}");
        assert!(message.contains("connection `pg` url"), "{message}");
    }

    #[test]
    fn text_secrets_read_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let pem = "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n";
        std::fs::write(dir.path().join("key.p8"), pem).unwrap();
        let secret = Secret::new("file:key.p8");
        assert_eq!(secret.resolve_text("key", dir.path()).unwrap(), pem);
        assert_eq!(
            secret.resolve("key", dir.path()).unwrap(),
            "-----BEGIN PRIVATE KEY-----"
        );
        assert_eq!(
            Secret::new("inline")
                .resolve_text("key", dir.path())
                .unwrap(),
            "inline"
        );
    }

    #[test]
    fn file_reference_reads_the_first_line_relative_to_the_project() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pw.txt"), "s3cret\nsecond line\n").unwrap();
        let resolved = Secret::new("file:pw.txt")
            .resolve("url", dir.path())
            .unwrap();
        assert_eq!(resolved, "s3cret");
        let err = Secret::new("file:absent.txt")
            .resolve("url", dir.path())
            .unwrap_err();
        assert!(err.to_string().contains("absent.txt"));
    }

    #[test]
    fn text_reference_reads_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("key.json"), "{\n  \"a\": 1\n}\n").unwrap();
        let resolved = Secret::new("file:key.json")
            .resolve_text("credentials", dir.path())
            .unwrap();
        assert_eq!(resolved, "{\n  \"a\": 1\n}\n");
        assert_eq!(
            Secret::new("{}")
                .resolve_text("credentials", dir.path())
                .unwrap(),
            "{}"
        );
    }
}
