//! The semantic model's files (`semantic-layer/<connection>/*.yaml`) kept
//! in the knowledge store through a [`FileMirror`]: every change to the
//! model, whether written by Lore (`lore sl generate`, later imports and
//! `memory_ingest`) or edited by hand, becomes a version with history, and
//! a write of several files is one transaction that one undo takes back.
//! The files stay what the planner reads; the store is their history.

use std::path::Path;
use std::sync::Arc;

use lore_core::project::Project;
use lore_core::{ErrorCode, ErrorReport};
use lore_semantic::model::{is_model_file_name, load_sources, parse_file};
use lore_store::EntryKind;
use lore_store::feed::StoreHandle;

use lore_store::mirror::{
    Checked, FileChange, FileMirror, MirrorFormat, MirrorReport, MirrorWrite,
};

/// The folder every connection's model lives under.
pub const FOLDER: &str = "semantic-layer";

/// The model files: `semantic-layer/<connection>/<file>.yaml|yml` (one
/// level, as the model loader reads them), stored as `model` entries whose
/// topic is the file's path.
pub struct ModelFiles;

impl ModelFiles {
    /// The connection a model file belongs to.
    fn connection(path: &str) -> Option<&str> {
        let mut parts = path.split('/');
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(FOLDER), Some(connection), Some(file), None)
                if !connection.is_empty() && is_model_file_name(file) =>
            {
                Some(connection)
            }
            _ => None,
        }
    }
}

impl MirrorFormat for ModelFiles {
    fn name(&self) -> &'static str {
        "semantic-layer"
    }

    fn kind(&self) -> EntryKind {
        EntryKind::Model
    }

    fn folder(&self) -> &'static str {
        FOLDER
    }

    fn holds(&self, path: &str) -> bool {
        ModelFiles::connection(path).is_some()
    }

    fn topic_of(&self, path: &str) -> Result<String, String> {
        if self.holds(path) {
            Ok(path.to_string())
        } else {
            Err(format!(
                "{path} is not a model file: models live in {FOLDER}/<connection>/<file>.yaml"
            ))
        }
    }

    fn path_of(&self, topic: &str) -> Option<String> {
        self.holds(topic).then(|| topic.to_string())
    }

    fn check(&self, path: &str, text: &str) -> Result<Checked, String> {
        parse_file(Path::new(path), text).map_err(|e| {
            format!("not recorded: {e}; fix the file (`lore sl validate` lists every problem)")
        })?;
        Ok(Checked {
            tags: ModelFiles::connection(path)
                .map(|c| vec![format!("connection:{c}")])
                .unwrap_or_default(),
            warning: None,
        })
    }
}

/// One model file to write (or remove) in [`SemanticFiles::write`].
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The file name in the connection's folder (`invoices.yaml`).
    pub file: String,
    /// Its text; `None` removes it.
    pub content: Option<String>,
    /// Refuse the whole write unless the file's entry is at this version
    /// (0: the file must not exist yet).
    pub expected_version: Option<i64>,
}

/// The semantic model's files of one project, kept in the store.
pub struct SemanticFiles {
    mirror: FileMirror,
    root: std::path::PathBuf,
    state: std::path::PathBuf,
}

impl SemanticFiles {
    /// The model files of `project` over `store` (a handle of its own when
    /// `None`: the CLI).
    pub fn new(project: &Project, store: Option<Arc<StoreHandle>>) -> SemanticFiles {
        let store = store.unwrap_or_else(|| Arc::new(StoreHandle::for_project(project)));
        SemanticFiles {
            mirror: FileMirror::new(project, store, ModelFiles),
            root: project.root.clone(),
            state: project.state_dir(),
        }
    }

    /// The path of a connection's model file, relative to the project.
    pub fn path(connection: &str, file: &str) -> String {
        format!("{FOLDER}/{connection}/{file}")
    }

    /// Whether the file at `path` (relative to the project) exists.
    pub fn exists(&self, path: &str) -> bool {
        self.root.join(path).is_file()
    }

    /// The project's state folder (`.lore/`).
    pub fn state_dir(&self) -> &std::path::Path {
        &self.state
    }

    /// A model file's text as it is on disk.
    pub fn read(&self, connection: &str, file: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(FOLDER).join(connection).join(file)).ok()
    }

    /// The model file names of a connection's folder.
    pub fn files_of(&self, connection: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.root.join(FOLDER).join(connection))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| is_model_file_name(n) && !n.starts_with('.'))
            .collect();
        names.sort();
        names
    }

    /// The mirror of the model files (for writes made together with other
    /// mirrors' files).
    pub fn mirror(&self) -> &FileMirror {
        &self.mirror
    }

    /// Records every edit made to the files since the last sync and brings
    /// back files whose entries changed (an undo). Blocking.
    pub fn sync(&self) -> Result<MirrorReport, ErrorReport> {
        self.mirror.sync()
    }

    /// [`SemanticFiles::sync`] when a file or the store moved since the
    /// last one. Blocking.
    pub fn refresh(&self) -> Result<Option<MirrorReport>, ErrorReport> {
        self.mirror.refresh()
    }

    /// Writes model files of `connection` as one transaction with
    /// `summary`. With `validate`, the connection's whole model as it
    /// would be after the write must load without a problem, or nothing is
    /// written (`invalid_request` listing the problems). Blocking.
    pub fn write(
        &self,
        actor: &str,
        connection: &str,
        summary: &str,
        files: Vec<SourceFile>,
        validate: bool,
    ) -> Result<MirrorWrite, ErrorReport> {
        for file in &files {
            if file.file.contains('/') || file.file.contains('\\') || file.file.starts_with('.') {
                return Err(ErrorReport::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "`{}` is not a file name: name a file in the connection's folder, e.g. `orders.yaml`",
                        file.file
                    ),
                ));
            }
        }
        if validate {
            self.check_model_after(connection, &files)?;
        }
        let changes = files
            .into_iter()
            .map(|f| FileChange {
                path: SemanticFiles::path(connection, &f.file),
                content: f.content,
                expected_version: f.expected_version,
            })
            .collect();
        self.mirror.write(actor, summary, changes)
    }

    /// Checks that `connection`'s whole model as it would be after writing
    /// `files` loads without a problem (`invalid_request` listing them).
    pub fn check_model_after(
        &self,
        connection: &str,
        files: &[SourceFile],
    ) -> Result<(), ErrorReport> {
        let dir = self.root.join(FOLDER).join(connection);
        let mut texts: std::collections::BTreeMap<String, String> = Default::default();
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().to_string();
                if is_model_file_name(&name)
                    && !name.starts_with('.')
                    && let Ok(text) = std::fs::read_to_string(entry.path())
                {
                    texts.insert(name, text);
                }
            }
        }
        for file in files {
            match &file.content {
                Some(text) => texts.insert(file.file.clone(), text.clone()),
                None => texts.remove(&file.file),
            };
        }
        load_sources(
            texts
                .into_iter()
                .map(|(name, text)| (dir.join(name), text))
                .collect(),
        )
        .map(|_| ())
        .map_err(|e| {
            ErrorReport::new(
                ErrorCode::InvalidRequest,
                format!("the model of `{connection}` would not load after this write, so nothing was written: {e}"),
            )
        })
    }
}
