//! Which files of a root an ingest looks at: the walk's (a full run) or
//! the asked paths (a run over some files), less what is never served.

use super::*;

/// Why a file of `root` at root-relative `path`, resolved to `real`, is
/// not read: one of the project's own files, or a path whose graph node
/// the store cannot keep.
pub(super) fn left_out(
    project: &ProjectFiles,
    root: &str,
    path: &str,
    real: &Path,
) -> Option<SkipReason> {
    if let Some(fenced) = project.never_served(real, None) {
        return Some(fenced.reason);
    }
    let kind = artifact_type(path, language(path));
    let node =
        crate::graph::file_node(kind, root, path).unwrap_or_else(|| format!("Code:{root}/{path}"));
    (!crate::graph::fits(&node)).then_some(SkipReason::PathTooLong)
}

/// The files of `root` to look at, and the ledger's paths that are gone
/// (deleted, or now left out: their chunks are removed).
pub(super) fn files_to_read(
    project: &ProjectFiles,
    root: &Root,
    config: &GatewayConfig,
    request: &IngestRequest,
    ledger: &Ledger,
    run: &mut IngestRun,
) -> Result<(Vec<FoundFile>, Vec<String>), ErrorReport> {
    if request.paths.is_empty() {
        let mut found = walk(&root.path, config.max_file_bytes);
        for skipped in found.skipped {
            run.skipped
                .push(Skipped::new(&root.name, &skipped.path, skipped.reason));
        }
        // The walk's paths are resolved already (a link's is its target).
        found.files.retain(|file| {
            let reason = left_out(project, &root.name, &file.path, &file.absolute);
            if let Some(reason) = reason {
                run.skipped
                    .push(Skipped::new(&root.name, &file.path, reason));
            }
            reason.is_none()
        });
        let present: std::collections::BTreeSet<&str> =
            found.files.iter().map(|f| f.path.as_str()).collect();
        let gone = ledger
            .files
            .keys()
            .filter(|p| !present.contains(p.as_str()))
            .cloned()
            .collect();
        return Ok((found.files, gone));
    }
    let mut files = Vec::new();
    let mut gone = Vec::new();
    for asked in &request.paths {
        let Some(path) = root_relative(&root.path, asked) else {
            continue;
        };
        let absolute = root.path.join(&path);
        // What the walk leaves out, a file asked by path is not let in by.
        if is_ignored(&root.path, &path) {
            gone.push(path);
            continue;
        }
        if let Some(reason) = left_out(project, &root.name, &path, &resolved(&absolute)) {
            run.skipped.push(Skipped::new(&root.name, &path, reason));
            gone.push(path);
            continue;
        }
        match std::fs::symlink_metadata(&absolute) {
            Ok(meta) if meta.is_file() => {
                if meta.len() > config.max_file_bytes {
                    run.skipped
                        .push(Skipped::new(&root.name, &path, SkipReason::TooLarge));
                    gone.push(path);
                    continue;
                }
                files.push(FoundFile {
                    path,
                    absolute,
                    size: meta.len(),
                    modified_ms: modified_ms(&meta),
                });
            }
            Ok(_) => {}
            Err(_) => gone.push(path),
        }
    }
    Ok((files, gone))
}

/// `asked` as a path inside `root` (`/`-separated), or `None` when it
/// leads elsewhere.
pub fn root_relative(root: &Path, asked: &str) -> Option<String> {
    let candidate = Path::new(asked);
    let joined = if candidate.is_absolute() {
        candidate.to_path_buf()
    } else {
        root.join(candidate)
    };
    // Resolve `..` without touching the disk (the file may be gone).
    let mut parts: Vec<String> = Vec::new();
    let relative = joined.strip_prefix(root).ok()?;
    for component in relative.components() {
        match component {
            std::path::Component::Normal(part) => parts.push(part.to_str()?.to_string()),
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                parts.pop()?;
            }
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}
