//! Reading model files: every `*.yaml` / `*.yml` of a folder, each holding
//! one source or a list of them.

use std::path::{Path, PathBuf};

use super::{SemanticModel, SourceSpec, validate};
use crate::error::SemanticError;

/// Loads and validates the model in `dir` (missing folder: an empty
/// model). Files are read in name order.
pub fn load_dir(dir: &Path) -> Result<SemanticModel, SemanticError> {
    let mut files = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return load_sources(Vec::new());
        }
        Err(e) => {
            return Err(SemanticError::Parse {
                file: dir.to_path_buf(),
                line: 0,
                column: 0,
                message: format!("cannot read the folder: {e}"),
            });
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if is_model_file(&path) && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    let mut texts = Vec::with_capacity(files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| SemanticError::Parse {
            file: path.clone(),
            line: 0,
            column: 0,
            message: format!("cannot read the file: {e}"),
        })?;
        texts.push((path, text));
    }
    load_sources(texts)
}

/// Whether a file name is a model file's (`*.yaml` or `*.yml`).
pub fn is_model_file_name(name: &str) -> bool {
    is_model_file(Path::new(name))
}

/// Whether `path` names a model file (`*.yaml` or `*.yml`).
pub(super) fn is_model_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// Parses and validates sources from `(file, text)` pairs.
pub fn load_sources(files: Vec<(PathBuf, String)>) -> Result<SemanticModel, SemanticError> {
    let mut specs = Vec::new();
    for (file, text) in files {
        for spec in parse_file(&file, &text)? {
            specs.push((file.clone(), spec));
        }
    }
    validate::build(specs)
}

/// The sources of one file: a mapping is one source, a sequence a list
/// (an empty file holds none). Checks the YAML and each source's shape,
/// not the model as a whole (see [`load_sources`]).
pub fn parse_file(file: &Path, text: &str) -> Result<Vec<SourceSpec>, SemanticError> {
    let is_list = text
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with('#') && *l != "---")
        .is_some_and(|l| l.starts_with("- ") || l == "-" || l.starts_with('['));
    let error = |e: serde_saphyr::Error| {
        let (line, column) = e
            .location()
            .map(|l| (l.line() as usize, l.column() as usize))
            .unwrap_or((0, 0));
        SemanticError::Parse {
            file: file.to_path_buf(),
            line,
            column,
            message: e
                .to_string()
                .lines()
                .next()
                .unwrap_or("invalid YAML")
                .to_string(),
        }
    };
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    if is_list {
        serde_saphyr::from_str::<Vec<SourceSpec>>(text).map_err(error)
    } else {
        serde_saphyr::from_str::<SourceSpec>(text)
            .map(|s| vec![s])
            .map_err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_holds_one_source_or_a_list() {
        let one = "name: a\ntable: a\ncolumns:\n  - { name: id, type: number }\n";
        let list = "- name: b\n  table: b\n- name: c\n  sql: SELECT 1 AS x\n";
        let model = load_sources(vec![
            (PathBuf::from("a.yaml"), one.to_string()),
            (PathBuf::from("bc.yaml"), list.to_string()),
        ])
        .unwrap();
        assert_eq!(model.source_names(), vec!["a", "b", "c"]);
    }

    #[test]
    fn the_on_key_is_text_not_a_yaml_boolean() {
        let text = "name: a\ntable: a\ncolumns:\n  - { name: b_id, type: number }\njoins:\n  - to: b\n    on: b_id = b.id\n    relationship: many_to_one\n---\n";
        let b = "name: b\ntable: b\ncolumns:\n  - { name: id, type: number }\n";
        let model = load_sources(vec![
            (
                PathBuf::from("a.yaml"),
                text.trim_end_matches("---\n").to_string(),
            ),
            (PathBuf::from("b.yaml"), b.to_string()),
        ])
        .unwrap();
        assert_eq!(model.source("a").unwrap().joins[0].on.text, "b_id = b.id");
    }

    #[test]
    fn yaml_errors_name_file_line_and_column() {
        let err = load_sources(vec![(
            PathBuf::from("bad.yaml"),
            "name: a\ntable: a\ngrain: [id\n".to_string(),
        )])
        .unwrap_err();
        let message = err.to_string();
        assert!(message.starts_with("bad.yaml:"), "{message}");
        let err = load_sources(vec![(
            PathBuf::from("typed.yaml"),
            "name: a\ntable: a\ncolumns:\n  - { name: id, type: integer }\n".to_string(),
        )])
        .unwrap_err();
        assert!(err.to_string().contains("typed.yaml:4"), "{err}");
    }
}
