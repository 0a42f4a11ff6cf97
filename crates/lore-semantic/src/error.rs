//! Why a model could not be loaded or a query could not be compiled. Every
//! message names what is wrong (file, source, field) and how to fix it.

use std::path::PathBuf;

use lore_core::error::{ErrorCode, HasErrorCode};

/// One problem found in a model, located by file, source and field.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelIssue {
    /// The YAML file, relative to the project when possible.
    pub file: PathBuf,
    /// The source the problem is in, when there is one.
    pub source: Option<String>,
    /// The field, as a path (`joins[1].on`, `measures.revenue.expr`).
    pub field: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl std::fmt::Display for ModelIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(source) = &self.source {
            write!(f, ": source `{source}`")?;
        }
        if let Some(field) = &self.field {
            write!(f, ", {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Why the semantic layer could not answer.
#[derive(Debug, thiserror::Error)]
pub enum SemanticError {
    /// A model file could not be read or is not valid YAML for a source.
    #[error("{}:{line}:{column}: {message}", file.display())]
    Parse {
        /// The file.
        file: PathBuf,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column (0 when unknown).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The model has errors; each names its file, source and field.
    #[error("the semantic model has {} error(s): {}", issues.len(), issues.iter().map(|i| i.to_string()).collect::<Vec<_>>().join("; "))]
    InvalidModel {
        /// Every error found.
        issues: Vec<ModelIssue>,
    },
    /// The query cannot be answered as asked (malformed, or names that
    /// exist but do not fit together).
    #[error("{message}{}", if candidates.is_empty() { String::new() } else { format!("; did you mean: {}", candidates.join(", ")) })]
    InvalidQuery {
        /// What is wrong and how to fix it.
        message: String,
        /// Names that exist and are close to what was asked, if any.
        candidates: Vec<String>,
    },
    /// The query names a source, column, measure or segment the model
    /// does not have.
    #[error("{message}{}", if candidates.is_empty() { String::new() } else { format!("; did you mean: {}", candidates.join(", ")) })]
    NotFound {
        /// What is missing and how to fix it.
        message: String,
        /// Names that exist and are close to what was asked, if any.
        candidates: Vec<String>,
    },
    /// Two join paths of equal cost connect the sources a query needs.
    #[error(
        "the join path from `{from}` to `{to}` is ambiguous: {}; add a dimension or filter that pins one path, or give one join an alias in the model",
        alternatives.join(" | ")
    )]
    AmbiguousPath {
        /// Where the path starts.
        from: String,
        /// Where it must reach.
        to: String,
        /// The equally short paths, as `a -> b -> c`.
        alternatives: Vec<String>,
    },
    /// An expression is longer or deeper than the limits allow.
    #[error("{0}")]
    TooComplex(#[from] lore_core::limits::SqlLimitError),
    /// What was asked is valid but cannot be expressed in this dialect.
    #[error("{message}")]
    Unsupported {
        /// What is not supported and what to do instead.
        message: String,
    },
}

impl SemanticError {
    /// A query error without candidates.
    pub fn query(message: impl Into<String>) -> SemanticError {
        SemanticError::InvalidQuery {
            message: message.into(),
            candidates: Vec::new(),
        }
    }
}

impl HasErrorCode for SemanticError {
    fn code(&self) -> ErrorCode {
        match self {
            SemanticError::Parse { .. } | SemanticError::InvalidModel { .. } => {
                ErrorCode::ConfigError
            }
            SemanticError::InvalidQuery { .. } | SemanticError::AmbiguousPath { .. } => {
                ErrorCode::InvalidRequest
            }
            SemanticError::NotFound { .. } => ErrorCode::NotFound,
            SemanticError::Unsupported { .. } => ErrorCode::UnsupportedOperation,
            SemanticError::TooComplex(_) => ErrorCode::InvalidSql,
        }
    }
}
