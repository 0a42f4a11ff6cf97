//! Root-relative paths (`/`-separated, no leading `/`) as the graph names
//! files: their folder, and `..` and `.` resolved without the disk.

/// The folder of `path` (`""` at the root).
pub(crate) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `a/b/../c/./d` → `a/c/d`; `None` when it climbs out of the root.
pub(crate) fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}
