//! Files agents add to a root: `km-upload` copies a text file the server
//! can read, `km-storetext` writes text as a markdown document whose front
//! matter (title, subsystem, tags, metadata) classifies it. Either may
//! ingest the file at once so the next search finds it.
//!
//! What may be read and written is fenced:
//! - a **source** must be inside the project, a root, or a folder listed
//!   in `gateway.uploads.sources` (links resolved first); hidden files and
//!   folders (`.env`, `.git`, `.lore`) and the files ingest never serves
//!   ([`ProjectFiles::never_served`]: `lore.yaml`, key files) are never
//!   read;
//! - a **destination** is a path inside a root (default: the first root's
//!   `gateway.uploads.folder`), never absolute, never through `..`, a
//!   hidden folder or a link leading out of the root, and never one of
//!   the files the project runs on ([`ProjectFiles::never_written`]:
//!   `lore.yaml`, a connection's database, the wiki, …).
//!
//! Errors name files relative to their root or the project, never by
//! machine path.
//!
//! A file is written whole or not at all (a temporary file renamed into
//! place). An existing file is replaced only when asked, and its old text
//! is kept under `.lore/gateway/replaced/`; without `overwrite` a file
//! already there is a `conflict`, even one created a moment before by
//! another writer.

use std::path::{Component, Path, PathBuf};

use lore_core::config::GatewayConfig;
use lore_core::error::HasErrorCode;
use lore_core::hash::content_hash;
use lore_core::time::UtcMillis;
use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::Serialize;

use crate::ingest::project_files::{ProjectFiles, lexical};
use crate::ingest::subsystem::front_matter_block;
use crate::ingest::walk::{SkipReason, is_ignored, read_text};
use crate::ingest::{IngestRun, Root};

/// Longest title, subsystem or tag, in characters.
const MAX_LABEL_CHARS: usize = 200;
/// Most tags on one document.
const MAX_TAGS: usize = 50;
/// Largest `metadata`, as JSON.
const MAX_METADATA_BYTES: usize = 16 * 1024;
/// Longest file name made from a title, in characters.
const MAX_SLUG_CHARS: usize = 80;

/// `km-upload`: copy a file into a root.
#[derive(Debug, Clone, Default)]
pub struct UploadRequest {
    /// The file to copy: absolute, or relative to the project directory.
    pub source_path: String,
    /// Where in the root: a folder (ending in `/`, or one that exists) or
    /// a file path. Default: `gateway.uploads.folder`.
    pub destination: Option<String>,
    /// The root's name (default: the first root).
    pub root: Option<String>,
    /// Replace a file already at the destination.
    pub overwrite: bool,
    /// Ingest it at once (default `gateway.uploads.ingest`).
    pub ingest: Option<bool>,
}

/// `km-storetext`: write text as a document in a root.
#[derive(Debug, Clone, Default)]
pub struct StoreTextRequest {
    /// The document's text (a trailing newline is added when missing).
    pub content: String,
    /// Its title: in the front matter, and the file name's words.
    pub title: Option<String>,
    /// As for [`UploadRequest::destination`]; a file name without an
    /// extension gets `.md`.
    pub destination: Option<String>,
    /// The root's name (default: the first root).
    pub root: Option<String>,
    /// The subsystem it belongs to (front matter; ingest classifies it so).
    pub subsystem: Option<String>,
    /// Its tags (front matter; `tags` filters find it).
    pub tags: Vec<String>,
    /// More front matter, under `metadata:`.
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// Replace a file already at the destination.
    pub overwrite: bool,
    /// Ingest it at once (default `gateway.uploads.ingest`).
    pub ingest: Option<bool>,
}

/// What an upload or stored text wrote.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StoredFile {
    /// `success`, or `stored` when the file was written but its ingest
    /// failed (see `ingest_run.error`).
    pub status: String,
    /// The file, absolute.
    pub stored_path: String,
    /// The file, relative to its root (`/`-separated).
    pub relative_path: String,
    /// The root it is in.
    pub root: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The hash of its text.
    pub content_hash: String,
    /// Whether a file was replaced.
    pub overwritten: bool,
    /// Where the replaced file's text was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_saved_to: Option<String>,
    /// Whether an ingest of the file ran.
    pub ingest_triggered: bool,
    /// That ingest.
    pub ingest_run: Option<IngestRun>,
    /// What the caller should know (a destination the ignore rules hide).
    pub warnings: Vec<String>,
}

/// Where the files go and come from: the project, its roots, its settings.
pub(crate) struct Place<'a> {
    pub project: &'a ProjectFiles,
    pub state: &'a Path,
    pub config: &'a GatewayConfig,
    pub roots: &'a [Root],
}

/// A file checked and ready to be written.
pub(crate) struct Prepared<'a> {
    pub root: &'a Root,
    /// Root-relative, `/`-separated.
    pub relative: String,
    pub absolute: PathBuf,
    pub text: String,
    pub overwrite: bool,
    pub ingest: bool,
}

fn invalid(message: impl Into<String>) -> ErrorReport {
    ErrorReport::new(ErrorCode::InvalidArguments, message)
}

fn forbidden(message: impl Into<String>) -> ErrorReport {
    ErrorReport::new(ErrorCode::Forbidden, message)
}

/// A failed file operation on `shown` (a root- or project-relative name:
/// the machine's paths stay out of answers).
fn io_error(what: &str, shown: &str, e: std::io::Error) -> ErrorReport {
    let code = match e.kind() {
        std::io::ErrorKind::PermissionDenied => ErrorCode::PermissionDenied,
        _ => ErrorCode::Internal,
    };
    // The kind only: some errors' text carries the path.
    ErrorReport::new(code, format!("cannot {what} {shown}: {}", e.kind()))
}

impl Place<'_> {
    /// Checks an upload: the source may be read and is text, the
    /// destination is inside a root.
    pub fn prepare_upload(&self, request: &UploadRequest) -> Result<Prepared<'_>, ErrorReport> {
        let source = self.readable_source(&request.source_path)?;
        let text = match read_text(&source) {
            Ok(text) => text,
            Err(SkipReason::Binary) => {
                return Err(invalid(format!(
                    "{} is not text (it holds NUL bytes or is not UTF-8): the gateway indexes text files such as documents, code and configuration",
                    request.source_path
                )));
            }
            Err(_) => {
                return Err(invalid(format!(
                    "cannot read {}: check its permissions",
                    request.source_path
                )));
            }
        };
        // The same rule ingest follows: a key file is known by its text.
        if let Some(fenced) = self.project.never_served(&source, Some(&text)) {
            return Err(forbidden(format!(
                "{}: {}",
                request.source_path, fenced.message
            )));
        }
        let file_name = source
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| invalid("source_path must name a file with a UTF-8 name"))?
            .to_string();
        let prepared = self.destination(
            request.root.as_deref(),
            request.destination.as_deref(),
            &file_name,
            None,
            text,
            request.overwrite,
            request.ingest,
        )?;
        if prepared.absolute.canonicalize().ok().as_deref() == Some(source.as_path()) {
            return Err(invalid(format!(
                "{} is already at {} in root `{}`: nothing to copy",
                request.source_path, prepared.relative, prepared.root.name
            )));
        }
        Ok(prepared)
    }

    /// Checks stored text and builds the document: front matter, then the
    /// content.
    pub fn prepare_text(&self, request: &StoreTextRequest) -> Result<Prepared<'_>, ErrorReport> {
        if request.content.trim().is_empty() {
            return Err(invalid(
                "content is empty: give the document's text (markdown)",
            ));
        }
        if request.content.contains('\0') {
            return Err(invalid(
                "content holds a NUL character: the gateway stores text",
            ));
        }
        let title = label("title", request.title.as_deref())?;
        let subsystem = label("subsystem", request.subsystem.as_deref())?;
        let mut tags: Vec<String> = Vec::new();
        for tag in &request.tags {
            let Some(tag) = label("tags", Some(tag))? else {
                return Err(invalid("tags holds an empty tag; remove it"));
            };
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        if tags.len() > MAX_TAGS {
            return Err(invalid(format!(
                "{} tags are more than {MAX_TAGS}; keep the ones a search would filter by",
                tags.len()
            )));
        }
        let metadata = request.metadata.as_ref().filter(|m| !m.is_empty());
        if let Some(metadata) = metadata {
            if metadata.keys().any(|k| k.trim().is_empty()) {
                return Err(invalid("metadata has an empty key; name every field"));
            }
            let bytes = serde_json::to_string(metadata).map_or(0, |j| j.len());
            if bytes > MAX_METADATA_BYTES {
                return Err(invalid(format!(
                    "metadata is {bytes} bytes as JSON, more than {MAX_METADATA_BYTES}; keep it to a few fields"
                )));
            }
        }
        let has_fields =
            title.is_some() || subsystem.is_some() || !tags.is_empty() || metadata.is_some();
        if has_fields && front_matter_block(&request.content).is_some() {
            return Err(invalid(
                "content already opens with front matter (`---`): put title, subsystem, tags and metadata in it, or leave it out of content",
            ));
        }
        let mut text = String::new();
        if has_fields {
            text.push_str("---\n");
            if let Some(title) = &title {
                text.push_str(&format!("title: {}\n", json(title)));
            }
            if let Some(subsystem) = &subsystem {
                text.push_str(&format!("subsystem: {}\n", json(subsystem)));
            }
            if !tags.is_empty() {
                text.push_str(&format!("tags: {}\n", json(&tags)));
            }
            if let Some(metadata) = metadata {
                text.push_str(&format!("metadata: {}\n", json(metadata)));
            }
            text.push_str("---\n\n");
        }
        text.push_str(&request.content);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let stem = title
            .as_deref()
            .map(slug)
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| format!("note-{}", UtcMillis::now().to_compact()));
        self.destination(
            request.root.as_deref(),
            request.destination.as_deref(),
            &format!("{stem}.md"),
            Some("md"),
            text,
            request.overwrite,
            request.ingest,
        )
    }

    /// The source file, resolved, once it is known to be one the server
    /// may read.
    fn readable_source(&self, asked: &str) -> Result<PathBuf, ErrorReport> {
        if asked.trim().is_empty() {
            return Err(invalid(
                "source_path is empty: name the file to copy (relative to the project directory, or absolute)",
            ));
        }
        if asked.contains('\0') {
            return Err(invalid("source_path holds a NUL character"));
        }
        let project_root = self.project.root();
        let path = lexical(&project_root.join(asked));
        let mut allowed: Vec<PathBuf> = vec![project_root.to_path_buf()];
        allowed.extend(self.roots.iter().map(|r| r.path.clone()));
        allowed.extend(
            self.config
                .uploads
                .sources
                .iter()
                .map(|s| lexical(&project_root.join(s))),
        );
        // Each folder as written and as resolved (a project opened through
        // a link is the same project).
        let resolved: Vec<PathBuf> = allowed
            .iter()
            .filter_map(|d| d.canonicalize().ok())
            .collect();
        allowed.extend(resolved);
        let outside = || {
            forbidden(format!(
                "{asked} is outside what km-upload may read: the project directory, its gateway roots and the folders listed in gateway.uploads.sources"
            ))
        };
        // Outside the fence as written: refused before the disk is asked
        // (whether such a file exists is not the caller's to learn).
        if !allowed.iter().any(|dir| path.starts_with(dir)) {
            return Err(outside());
        }
        let meta = std::fs::metadata(&path).map_err(|_| {
            ErrorReport::new(
                ErrorCode::NotFound,
                format!("no file at {asked} (relative paths start at the project directory)"),
            )
        })?;
        // And once links are resolved.
        let real = path
            .canonicalize()
            .map_err(|e| io_error("resolve", asked, e))?;
        let inside = allowed
            .iter()
            .filter_map(|dir| dir.canonicalize().ok())
            .find_map(|dir| real.strip_prefix(&dir).ok().map(Path::to_path_buf))
            .ok_or_else(outside)?;
        let hidden = inside
            .components()
            .any(|c| c.as_os_str().to_str().is_none_or(|p| p.starts_with('.')));
        if hidden {
            return Err(forbidden(format!(
                "{asked} is (or is in) a hidden file or folder such as .env, .git or .lore: those are never uploaded"
            )));
        }
        if let Some(fenced) = self.project.never_served(&real, None) {
            return Err(forbidden(format!("{asked}: {}", fenced.message)));
        }
        if !meta.is_file() {
            return Err(invalid(format!("{asked} is a folder: name a file")));
        }
        if meta.len() > self.config.max_file_bytes {
            return Err(invalid(format!(
                "{asked} is {} bytes, more than gateway.max_file_bytes ({}): the gateway would not index it",
                meta.len(),
                self.config.max_file_bytes
            )));
        }
        Ok(real)
    }

    /// The file a destination names in a root, checked to stay inside it.
    #[allow(clippy::too_many_arguments)]
    fn destination(
        &self,
        root: Option<&str>,
        destination: Option<&str>,
        file_name: &str,
        extension: Option<&str>,
        text: String,
        overwrite: bool,
        ingest: Option<bool>,
    ) -> Result<Prepared<'_>, ErrorReport> {
        let root = self.root(root)?;
        let asked = destination
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map_or_else(
                || format!("{}/", self.config.uploads.folder),
                str::to_string,
            );
        if asked.contains('\0') {
            return Err(invalid("destination holds a NUL character"));
        }
        let inside_root = || {
            forbidden(format!(
                "destination `{asked}` leads out of root `{}`: give a path inside it such as {}/",
                root.name, self.config.uploads.folder
            ))
        };
        if asked.contains('\\')
            || Path::new(&asked)
                .components()
                .any(|c| matches!(c, Component::RootDir | Component::Prefix(_)))
        {
            return Err(inside_root());
        }
        let mut parts: Vec<String> = Vec::new();
        for part in asked.split('/').filter(|p| !p.is_empty() && *p != ".") {
            if part == ".." {
                return Err(inside_root());
            }
            if part.starts_with('.') {
                return Err(forbidden(format!(
                    "destination `{asked}`: hidden files and folders such as .git are not written (the gateway does not read them)"
                )));
            }
            parts.push(part.to_string());
        }
        let folder_form =
            asked.ends_with('/') || parts.is_empty() || root.path.join(parts.join("/")).is_dir();
        if folder_form {
            parts.push(file_name.to_string());
        } else if let (Some(extension), Some(last)) = (extension, parts.last_mut())
            && !last.contains('.')
        {
            last.push('.');
            last.push_str(extension);
        }
        let relative = parts.join("/");
        if parts.iter().any(|p| p.len() > 255) || relative.len() > 1024 {
            return Err(invalid(format!(
                "destination `{relative}` is too long: keep names under 255 bytes"
            )));
        }
        let absolute = root.path.join(&relative);
        self.check_target(root, &relative, &absolute, overwrite)
            .map_err(|e| e.unwrap_or_else(inside_root))?;
        if text.len() as u64 > self.config.max_file_bytes {
            return Err(invalid(format!(
                "the document is {} bytes, more than gateway.max_file_bytes ({}): the gateway would not index it",
                text.len(),
                self.config.max_file_bytes
            )));
        }
        Ok(Prepared {
            root,
            relative,
            absolute,
            text,
            overwrite,
            ingest: ingest.unwrap_or(self.config.uploads.ingest),
        })
    }

    /// Checks the file `relative` of `root` (at `absolute`) may be
    /// written: the deepest folder that exists is the root's (reached
    /// without a link leading out; `Err(None)` otherwise) and a folder, the
    /// file is none Lore or a connection runs on, and it is neither a link
    /// nor a folder nor (without `overwrite`) a file already there.
    fn check_target(
        &self,
        root: &Root,
        relative: &str,
        absolute: &Path,
        overwrite: bool,
    ) -> Result<(), Option<ErrorReport>> {
        let real_root = root
            .path
            .canonicalize()
            .map_err(|e| io_error("resolve", &format!("root `{}`", root.name), e))?;
        let mut existing = absolute.parent();
        while let Some(folder) = existing {
            if folder.exists() {
                break;
            }
            existing = folder.parent();
        }
        let existing = existing.ok_or(None)?;
        let real_folder = existing.canonicalize().map_err(|_| None)?;
        if !real_folder.starts_with(&real_root) {
            return Err(None);
        }
        if let Some(message) = self.project.never_written(absolute) {
            return Err(Some(forbidden(message)));
        }
        if !real_folder.is_dir() {
            let shown = existing
                .strip_prefix(&root.path)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            return Err(Some(ErrorReport::new(
                ErrorCode::InvalidRequest,
                format!(
                    "destination `{relative}`: {shown} in root `{}` is a file, not a folder; choose a destination beside it or in a folder",
                    root.name
                ),
            )));
        }
        match std::fs::symlink_metadata(absolute) {
            Ok(meta) if meta.file_type().is_symlink() => Err(Some(forbidden(format!(
                "{relative} in root `{}` is a link: links are never written through",
                root.name
            )))),
            Ok(meta) if meta.is_dir() => Err(Some(invalid(format!(
                "{relative} in root `{}` is a folder: end the destination with `/` to put the file in it",
                root.name
            )))),
            Ok(_) if !overwrite => Err(Some(ErrorReport::new(
                ErrorCode::Conflict,
                format!(
                    "{relative} already exists in root `{}`: pass overwrite: true to replace it (its text is kept under .lore/gateway/replaced/), or choose another destination",
                    root.name
                ),
            ))),
            _ => Ok(()),
        }
    }

    /// The root a request names, or the first.
    fn root(&self, name: Option<&str>) -> Result<&Root, ErrorReport> {
        let Some(first) = self.roots.first() else {
            return Err(ErrorReport::new(
                ErrorCode::InvalidRequest,
                "no gateway roots: run `lore gateway ingest PATH` to add a folder, or list it under gateway.roots in lore.yaml",
            ));
        };
        let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
            return Ok(first);
        };
        self.roots.iter().find(|r| r.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.roots.iter().map(|r| r.name.as_str()).collect();
            ErrorReport::new(
                ErrorCode::NotFound,
                format!("no root named `{name}`; the roots are {}", names.join(", ")),
            )
        })
    }

    /// Writes a prepared file whole, keeping the text of a file it
    /// replaces. Returns where that text was kept.
    pub fn write(&self, file: &Prepared<'_>) -> Result<Option<PathBuf>, ErrorReport> {
        use std::io::Write;
        let parent = file
            .absolute
            .parent()
            .ok_or_else(|| invalid("destination names no file"))?;
        let shown = format!("{} in root `{}`", file.relative, file.root.name);
        let mut created = None;
        if !parent.exists() {
            let mut first = parent.to_path_buf();
            while let Some(up) = first.parent() {
                if up.exists() {
                    break;
                }
                first = up.to_path_buf();
            }
            std::fs::create_dir_all(parent)
                .map_err(|e| io_error("create the folders of", &shown, e))?;
            created = Some(first);
        }
        let outcome = (|| {
            let mut previous_saved_to = None;
            if file.overwrite && file.absolute.is_file() {
                let old = std::fs::read(&file.absolute).map_err(|e| io_error("read", &shown, e))?;
                let kept = self
                    .state
                    .join("replaced")
                    .join(UtcMillis::now().to_compact())
                    .join(&file.root.name)
                    .join(&file.relative);
                lore_core::project::write_atomically(&kept, old).map_err(|e| {
                    let mut report = e.report();
                    report.message = format!(
                        "cannot keep the old text of {shown} under .lore/gateway/replaced/; nothing was written"
                    );
                    report
                })?;
                previous_saved_to = Some(kept);
            }
            let mut temp = tempfile::Builder::new()
                .prefix(".lore-")
                .suffix(".tmp")
                .tempfile_in(parent)
                .map_err(|e| io_error("write", &shown, e))?;
            temp.write_all(file.text.as_bytes())
                .map_err(|e| io_error("write", &shown, e))?;
            // The repository's usual mode, not the temporary file's 0600.
            if let Some(permissions) = lore_core::project::usual_permissions(&file.absolute) {
                temp.as_file()
                    .set_permissions(permissions)
                    .map_err(|e| io_error("write", &shown, e))?;
            }
            if file.overwrite {
                temp.persist(&file.absolute)
                    .map_err(|e| io_error("write", &shown, e.error))?;
            } else {
                temp.persist_noclobber(&file.absolute).map_err(|e| {
                    if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                        ErrorReport::new(
                            ErrorCode::Conflict,
                            format!(
                                "{} was created in root `{}` a moment ago by another writer: pass overwrite: true to replace it",
                                file.relative, file.root.name
                            ),
                        )
                    } else {
                        io_error("write", &shown, e.error)
                    }
                })?;
            }
            Ok(previous_saved_to)
        })();
        if outcome.is_err()
            && let Some(first) = created
        {
            // Folders made for a file that was not written go again.
            let _ = std::fs::remove_dir_all(first);
        }
        outcome
    }

    /// What a written file looks like to the caller (before any ingest).
    pub fn stored(&self, file: &Prepared<'_>, previous: Option<PathBuf>) -> StoredFile {
        let mut warnings = Vec::new();
        if is_ignored(&file.root.path, &file.relative) {
            warnings.push(format!(
                "{} is left out by root `{}`'s ignore rules (.gitignore, .ignore): it is stored but search will not find it; choose another destination",
                file.relative, file.root.name
            ));
        }
        StoredFile {
            status: "success".to_string(),
            stored_path: file.absolute.display().to_string(),
            relative_path: file.relative.clone(),
            root: file.root.name.clone(),
            bytes: file.text.len() as u64,
            content_hash: content_hash(&file.text),
            overwritten: previous.is_some(),
            previous_saved_to: previous.map(|p| p.display().to_string()),
            ingest_triggered: false,
            ingest_run: None,
            warnings,
        }
    }
}

/// A value as YAML: JSON scalars, lists and objects are YAML, so there is
/// no escaping to get wrong.
fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A one-line label (title, subsystem, tag), trimmed; none when blank.
fn label(name: &str, value: Option<&str>) -> Result<Option<String>, ErrorReport> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if value.contains(['\n', '\r', '\0']) {
        return Err(invalid(format!("{name} must be one line")));
    }
    if value.chars().count() > MAX_LABEL_CHARS {
        return Err(invalid(format!(
            "{name} is longer than {MAX_LABEL_CHARS} characters; shorten it"
        )));
    }
    Ok(Some(value.to_string()))
}

/// A file name's words from a title: lowercase letters and digits joined
/// by `-` (`Release Notes 2.1` → `release-notes-2-1`).
pub fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let mut out: String = out.chars().take(MAX_SLUG_CHARS).collect();
    while out.ends_with('-') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_become_file_names() {
        assert_eq!(slug("Release Notes 2.1"), "release-notes-2-1");
        assert_eq!(slug("  ../../etc/passwd "), "etc-passwd");
        assert_eq!(slug("Überblick: Zahlungen"), "überblick-zahlungen");
        assert_eq!(slug("???"), "");
        assert_eq!(slug(&"a ".repeat(100)).chars().count(), 79);
    }
}
