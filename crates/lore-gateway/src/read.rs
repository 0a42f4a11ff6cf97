//! `km-read`: a file of a root, or a range of its lines, so an agent reads
//! around a search hit without a second server.
//!
//! What may be read is what the gateway serves: a file inside one of the
//! roots (links may not lead out), not hidden or ignored by the root's
//! ignore files, and never one of the project's own or credential files
//! ([`ProjectFiles::never_served`], the rule ingest, upload and search
//! follow). An answer is bounded by `limits.result_bytes`; a longer range
//! ends early and says where to go on.
//!
//! With a shared store, a root only other servers ingested (this server
//! has no copy, or never ingested its copy) is read from the store's file
//! log: the text the publishing server recorded, so every server serves
//! the same lines for it; the name and content rules apply to it too.

use std::path::{Component, Path};

use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::Serialize;

use crate::ingest::project_files::ProjectFiles;
use crate::ingest::walk::is_ignored;
use crate::ingest::{Ledger, Root};

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct ReadRequest {
    /// Root-relative path, `/`-separated (as results name files).
    pub path: String,
    /// The root; may be left out when one root holds the path.
    pub root: Option<String>,
    /// First line (1-based; default 1).
    pub start_line: Option<usize>,
    /// Last line (inclusive; default the file's last).
    pub end_line: Option<usize>,
}

/// The lines read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReadAnswer {
    /// The root holding the file.
    pub root: String,
    /// Root-relative path.
    pub path: String,
    /// First line returned (1-based).
    pub start_line: usize,
    /// Last line returned (inclusive; `start_line - 1` for an empty file).
    pub end_line: usize,
    /// Lines in the file.
    pub total_lines: usize,
    /// The lines, each ending with a newline.
    pub text: String,
    /// True when the range asked for did not fit `limits.result_bytes`.
    pub truncated: bool,
    /// Where to go on when truncated (the next line to ask for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start_line: Option<usize>,
}

fn invalid(message: impl Into<String>) -> ErrorReport {
    ErrorReport::new(ErrorCode::InvalidArguments, message)
}

fn forbidden(message: impl Into<String>) -> ErrorReport {
    ErrorReport::new(ErrorCode::Forbidden, message)
}

/// Where a root's files are read from.
pub enum Source<'a> {
    /// Its folder on this machine.
    Folder(&'a Root),
    /// The store's file log (a root other servers ingested), with the
    /// ledger of the files this server holds from it.
    Store {
        /// The root's name.
        name: &'a str,
        /// Its files.
        ledger: Ledger,
    },
}

impl Source<'_> {
    fn name(&self) -> &str {
        match self {
            Source::Folder(root) => &root.name,
            Source::Store { name, .. } => name,
        }
    }

    fn holds(&self, relative: &str) -> bool {
        match self {
            Source::Folder(root) => root.path.join(relative).is_file(),
            Source::Store { ledger, .. } => ledger.files.contains_key(relative),
        }
    }
}

/// The text of a file of a [`Source::Store`] root (`root`, `path`), or
/// why there is none.
pub type StoredText<'a> = &'a dyn Fn(&str, &str) -> Result<String, ErrorReport>;

/// Reads what `request` asks of the roots' folders, at most about
/// `max_bytes` of text.
pub fn read(
    roots: &[Root],
    files: &ProjectFiles,
    request: &ReadRequest,
    max_bytes: usize,
) -> Result<ReadAnswer, ErrorReport> {
    let sources: Vec<Source<'_>> = roots.iter().map(Source::Folder).collect();
    let none = |root: &str, path: &str| -> Result<String, ErrorReport> {
        Err(ErrorReport::new(
            ErrorCode::NotFound,
            format!("root `{root}` has no file {path}"),
        ))
    };
    read_from(&sources, &none, files, request, max_bytes)
}

/// Reads what `request` asks of `sources`, at most about `max_bytes` of
/// text; `stored` gives the text of a file of a store's root.
pub fn read_from(
    sources: &[Source<'_>],
    stored: StoredText<'_>,
    files: &ProjectFiles,
    request: &ReadRequest,
    max_bytes: usize,
) -> Result<ReadAnswer, ErrorReport> {
    let relative = checked_path(&request.path)?;
    let (start, end) = (request.start_line.unwrap_or(1), request.end_line);
    if start == 0 || end == Some(0) {
        return Err(invalid("start_line and end_line count from 1"));
    }
    if end.is_some_and(|end| end < start) {
        return Err(invalid(format!(
            "end_line ({}) is before start_line ({start})",
            end.unwrap_or_default()
        )));
    }
    let source = root_of(sources, request.root.as_deref(), &relative)?;
    let text = match source {
        Source::Folder(root) => readable_text(root, files, &relative)?,
        Source::Store { name, .. } => {
            let text = stored(name, &relative)?;
            // The publisher fenced its own files; these rules hold here too.
            if let Some(fenced) = files.never_served(Path::new(&relative), Some(&text)) {
                return Err(forbidden(fenced.message));
            }
            text
        }
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len();
    let last = end.unwrap_or(total).min(total);
    let mut out = String::new();
    let mut shown_last = start.saturating_sub(1);
    let mut truncated = false;
    for (at, line) in lines.iter().enumerate().take(last).skip(start - 1) {
        // At least one line, however long, so a reader always moves on.
        if !out.is_empty() && out.len() + line.len() > max_bytes {
            truncated = true;
            break;
        }
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push('\n');
        }
        shown_last = at + 1;
    }
    Ok(ReadAnswer {
        root: source.name().to_string(),
        path: relative,
        start_line: start,
        end_line: shown_last,
        total_lines: total,
        text: out,
        truncated,
        next_start_line: truncated.then_some(shown_last + 1),
    })
}

/// `path` as a root-relative path, or why it cannot be one.
fn checked_path(path: &str) -> Result<String, ErrorReport> {
    let path = path.trim();
    if path.is_empty() {
        return Err(invalid(
            "path is empty: name a file as search results do (artifact_path), e.g. src/app.py",
        ));
    }
    if path.contains('\0') {
        return Err(invalid("path holds a NUL character"));
    }
    let relative = path.trim_start_matches("./");
    let climbs = Path::new(relative)
        .components()
        .any(|c| !matches!(c, Component::Normal(_)));
    if climbs || relative.contains('\\') {
        return Err(forbidden(format!(
            "{path} is not a path inside a root: give it relative to the root, without `..` or a leading `/`, as results name files"
        )));
    }
    Ok(relative.trim_end_matches('/').to_string())
}

/// The root `asked` names, or the one root holding `relative`.
fn root_of<'s, 'a>(
    roots: &'s [Source<'a>],
    asked: Option<&str>,
    relative: &str,
) -> Result<&'s Source<'a>, ErrorReport> {
    let names = || {
        roots
            .iter()
            .map(|r| r.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(name) = asked {
        return roots.iter().find(|r| r.name() == name).ok_or_else(|| {
            ErrorReport::new(
                ErrorCode::NotFound,
                format!("no gateway root `{name}`; the roots are {}", names()),
            )
        });
    }
    let holding: Vec<&Source<'a>> = roots.iter().filter(|r| r.holds(relative)).collect();
    match holding.as_slice() {
        [one] => Ok(one),
        [] => Err(ErrorReport::new(
            ErrorCode::NotFound,
            format!(
                "no root holds {relative}; the roots are {} (paths are root-relative, as results name them)",
                names()
            ),
        )),
        several => Err(invalid(format!(
            "{relative} is in several roots ({}): name one with root",
            several
                .iter()
                .map(|r| r.name())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The text of `relative` in `root`, once it is known to be served.
fn readable_text(root: &Root, files: &ProjectFiles, relative: &str) -> Result<String, ErrorReport> {
    let not_found = || {
        ErrorReport::new(
            ErrorCode::NotFound,
            format!("root `{}` has no file {relative}", root.name),
        )
    };
    if is_ignored(&root.path, relative) {
        return Err(forbidden(format!(
            "{relative} is hidden or ignored by root `{}`'s ignore files: the gateway does not serve it",
            root.name
        )));
    }
    let real = root
        .path
        .join(relative)
        .canonicalize()
        .map_err(|_| not_found())?;
    let base = root
        .path
        .canonicalize()
        .unwrap_or_else(|_| root.path.clone());
    if !real.starts_with(&base) {
        return Err(forbidden(format!(
            "{relative} leads out of root `{}` (a link): the gateway serves only files inside its roots",
            root.name
        )));
    }
    if !real.is_file() {
        return Err(invalid(format!("{relative} is a folder, not a file")));
    }
    if let Some(fenced) = files.never_served(&real, None) {
        return Err(forbidden(fenced.message));
    }
    let bytes = std::fs::read(&real).map_err(|_| not_found())?;
    if bytes.contains(&0) {
        return Err(invalid(format!(
            "{relative} is a binary file: only text is served"
        )));
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if let Some(fenced) = files.never_served(&real, Some(&text)) {
        return Err(forbidden(fenced.message));
    }
    Ok(text)
}
