//! The files of a root: every file the repository's own ignore rules
//! (`.gitignore`, `.ignore`, `.git/info/exclude`) keep, minus hidden
//! folders such as `.git`. Binary files and files over the size limit are
//! skipped and reported, never silently dropped; symbolic links are never
//! followed (a link to a file inside the root is taken as that file's
//! text only when it stays inside the root).

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A file to ingest.
#[derive(Debug, Clone)]
pub struct FoundFile {
    /// Root-relative, `/`-separated.
    pub path: String,
    /// Where it is on disk (a link's target, for a link).
    pub absolute: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time (ms since the epoch; 0 when unknown).
    pub modified_ms: i64,
}

/// Why a file was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// It holds NUL bytes in its first 8 KiB, or is not UTF-8.
    Binary,
    /// It is larger than `gateway.max_file_bytes`.
    TooLarge,
    /// A symbolic link leading out of the root.
    OutsideRoot,
    /// It could not be read.
    Unreadable,
    /// Lore's own configuration or state (`lore.yaml`, `.lore/`): never
    /// served, it may hold tokens and passwords.
    LoreFile,
    /// It holds credentials: named like such files (`.env*`, `*.pem`,
    /// `*.key`, `id_rsa*`, `credentials*.json`), a service-account key, or
    /// a file a `file:` secret of `lore.yaml` reads.
    Secret,
    /// Its graph node's id (label and path) would pass the knowledge
    /// store's 500 characters.
    PathTooLong,
    /// The file is indexed, but a symbol or subsystem name in it would
    /// make a graph node id over the store's 500 characters: that name is
    /// left out of the graph (`detail` says which).
    NameTooLong,
}

impl SkipReason {
    /// Its name, as JSON writes it (`binary`, `too_large`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::Binary => "binary",
            SkipReason::TooLarge => "too_large",
            SkipReason::OutsideRoot => "outside_root",
            SkipReason::Unreadable => "unreadable",
            SkipReason::LoreFile => "lore_file",
            SkipReason::Secret => "secret",
            SkipReason::PathTooLong => "path_too_long",
            SkipReason::NameTooLong => "name_too_long",
        }
    }
}

/// A file left out, and why.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SkippedFile {
    /// Root-relative path.
    pub path: String,
    /// Why.
    pub reason: SkipReason,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walk {
    /// Files to ingest, sorted by path.
    pub files: Vec<FoundFile>,
    /// Files left out.
    pub skipped: Vec<SkippedFile>,
}

/// Walks `root`, keeping files of at most `max_bytes`.
pub fn walk(root: &Path, max_bytes: u64) -> Walk {
    let mut out = Walk::default();
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .follow_links(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .ignore(true)
        .parents(false)
        .require_git(false)
        .build();
    for entry in walker.flatten() {
        let Some(kind) = entry.file_type() else {
            continue;
        };
        let Some(path) = relative(root, entry.path()) else {
            continue;
        };
        let mut absolute = entry.path().to_path_buf();
        if kind.is_symlink() {
            match absolute.canonicalize() {
                // A link to a folder of the root: that folder is walked
                // anyway; to a file of the root: read as that file.
                Ok(target) if target.starts_with(&canonical_root) => {
                    if !target.is_file() {
                        continue;
                    }
                    // Read (and fenced) as the file it leads to.
                    absolute = target;
                }
                _ => {
                    out.skipped.push(SkippedFile {
                        path,
                        reason: SkipReason::OutsideRoot,
                    });
                    continue;
                }
            }
        } else if !kind.is_file() {
            continue;
        }
        let Ok(meta) = std::fs::metadata(&absolute) else {
            out.skipped.push(SkippedFile {
                path,
                reason: SkipReason::Unreadable,
            });
            continue;
        };
        if meta.len() > max_bytes {
            out.skipped.push(SkippedFile {
                path,
                reason: SkipReason::TooLarge,
            });
            continue;
        }
        out.files.push(FoundFile {
            path,
            absolute,
            size: meta.len(),
            modified_ms: modified_ms(&meta),
        });
    }
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    out.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Whether the walk leaves the file at `relative` (root-relative,
/// `/`-separated) out: a hidden file or folder on its way, or a rule of
/// the root's ignore files (`.git/info/exclude`, then `.gitignore` and
/// `.ignore` of each folder from the root down, a later rule winning, as
/// the walk reads them).
pub fn is_ignored(root: &Path, relative: &str) -> bool {
    let parts: Vec<&str> = relative.split('/').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() || parts.iter().any(|p| p.starts_with('.')) {
        return true;
    }
    let target = parts
        .iter()
        .fold(root.to_path_buf(), |path, p| path.join(p));
    let mut rule_files = vec![root.join(".git").join("info").join("exclude")];
    let mut folder = root.to_path_buf();
    for part in &parts {
        rule_files.push(folder.join(".gitignore"));
        rule_files.push(folder.join(".ignore"));
        folder = folder.join(part);
    }
    let mut ignored = false;
    for file in rule_files.iter().filter(|f| f.is_file()) {
        // `exclude` holds rules of the root, the others of their folder.
        let matcher = if file.ends_with(".git/info/exclude") {
            let mut builder = ignore::gitignore::GitignoreBuilder::new(root);
            builder.add(file);
            builder.build().ok()
        } else {
            Some(ignore::gitignore::Gitignore::new(file).0)
        };
        let Some(matcher) = matcher else {
            continue;
        };
        match matcher.matched_path_or_any_parents(&target, false) {
            ignore::Match::Ignore(_) => ignored = true,
            ignore::Match::Whitelist(_) => ignored = false,
            ignore::Match::None => {}
        }
    }
    ignored
}

/// A file's modification time in ms since the epoch (0 when unknown).
pub fn modified_ms(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64)
}

/// The text of a file, or why it is not text.
pub fn read_text(path: &Path) -> Result<String, SkipReason> {
    let bytes = std::fs::read(path).map_err(|_| SkipReason::Unreadable)?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(SkipReason::Binary);
    }
    String::from_utf8(bytes).map_err(|_| SkipReason::Binary)
}

/// `path` relative to `root`, `/`-separated (none for the root itself or
/// a name that is not UTF-8).
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rest = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rest.components().map(|c| c.as_os_str().to_str()).collect();
    let parts = parts?;
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_reason_prints_as_its_json_name() {
        for reason in [
            SkipReason::Binary,
            SkipReason::TooLarge,
            SkipReason::OutsideRoot,
            SkipReason::Unreadable,
            SkipReason::LoreFile,
            SkipReason::Secret,
            SkipReason::PathTooLong,
            SkipReason::NameTooLong,
        ] {
            assert_eq!(serde_json::to_value(reason).unwrap(), reason.as_str());
        }
    }

    #[test]
    fn a_path_is_ignored_as_the_walk_would_leave_it_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str, text: &str| {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        };
        write(".gitignore", "build/\n*.log\n");
        write("docs/.gitignore", "drafts/\n!keep.log\n");
        write("src/app.py", "x = 1\n");
        write("build/out.txt", "x\n");
        write("docs/drafts/a.md", "# a\n");
        write("docs/keep.log", "kept\n");
        write("docs/other.log", "dropped\n");
        write("docs/guide.md", "# guide\n");
        write(".env", "SECRET=1\n");
        let walked: Vec<String> = walk(root, 1 << 20)
            .files
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(walked, ["docs/guide.md", "docs/keep.log", "src/app.py"]);
        for path in [
            "src/app.py",
            "build/out.txt",
            "docs/drafts/a.md",
            "docs/keep.log",
            "docs/other.log",
            "docs/guide.md",
            ".env",
            "docs/new/not-yet-written.md",
        ] {
            let walked_it = walked.iter().any(|w| w == path);
            let expected_ignored = !walked_it && path != "docs/new/not-yet-written.md";
            assert_eq!(is_ignored(root, path), expected_ignored, "{path}");
        }
    }
}
