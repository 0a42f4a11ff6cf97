//! Change notification for the freshness checks of a long-running server.
//!
//! Before every search, `Discover::refresh` compares the index with its
//! sources: a walk over the wiki's files and the model files, and the
//! scans' folders. On a large project those walks cost milliseconds (a
//! `stat` per file). A [`ChangeWatch`] (Linux inotify) says whether
//! anything in the watched folders changed since the last look, so an
//! unchanged project skips the walks. It is exact, not eventually
//! consistent: the kernel queues an event while the write that causes it
//! runs, and [`ChangeWatch::changed`] reads the queue, so a change that
//! finished before a call is seen by that call.
//!
//! Where inotify is missing, or a folder cannot be watched (the watch
//! limit), `changed` always says yes and every call walks, as before.

use std::path::Path;

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::HashSet;
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    use inotify::{Inotify, WatchMask};

    struct Inner {
        inotify: Inotify,
        watched: HashSet<PathBuf>,
        /// A folder could not be watched: fall back to walking.
        degraded: bool,
    }

    /// See the module documentation.
    pub struct ChangeWatch {
        inner: Mutex<Option<Inner>>,
    }

    impl ChangeWatch {
        /// A watch with no folder yet (none at all where inotify fails).
        pub fn new() -> ChangeWatch {
            let inner = Inotify::init().ok().map(|inotify| Inner {
                inotify,
                watched: HashSet::new(),
                degraded: false,
            });
            ChangeWatch {
                inner: Mutex::new(inner),
            }
        }

        /// Watches `dir` (not its subfolders) for files added, removed,
        /// renamed or written; a folder that does not exist is skipped.
        pub fn watch(&self, dir: &Path) {
            let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            let Some(inner) = guard.as_mut() else { return };
            if inner.watched.contains(dir) || !dir.is_dir() {
                return;
            }
            let mask = WatchMask::CREATE
                | WatchMask::DELETE
                | WatchMask::MODIFY
                | WatchMask::ATTRIB
                | WatchMask::CLOSE_WRITE
                | WatchMask::MOVED_FROM
                | WatchMask::MOVED_TO
                | WatchMask::DELETE_SELF
                | WatchMask::MOVE_SELF;
            match inner.inotify.watches().add(dir, mask) {
                Ok(_) => {
                    inner.watched.insert(dir.to_path_buf());
                }
                Err(e) => {
                    tracing::warn!(
                        "cannot watch {} ({e}); searches check every file instead",
                        dir.display()
                    );
                    inner.degraded = true;
                }
            }
        }

        /// Whether anything changed since the last call (always true
        /// without a working watch). Reads every queued event.
        pub fn changed(&self) -> bool {
            let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            let Some(inner) = guard.as_mut() else {
                return true;
            };
            let mut changed = inner.degraded || inner.watched.is_empty();
            let mut buffer = [0u8; 4096];
            loop {
                match inner.inotify.read_events(&mut buffer) {
                    Ok(mut events) => {
                        if events.next().is_some() {
                            changed = true;
                        }
                        // Drain the rest of this read.
                        events.for_each(drop);
                    }
                    // Nothing (more) queued.
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(_) => {
                        changed = true;
                        break;
                    }
                }
            }
            changed
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::path::Path;

    /// See the module documentation: without inotify, every call walks.
    pub struct ChangeWatch;

    impl ChangeWatch {
        /// A watch that always says "changed".
        pub fn new() -> ChangeWatch {
            ChangeWatch
        }

        /// Does nothing.
        pub fn watch(&self, _dir: &Path) {}

        /// Always true.
        pub fn changed(&self) -> bool {
            true
        }
    }
}

pub use imp::ChangeWatch;

impl Default for ChangeWatch {
    fn default() -> Self {
        ChangeWatch::new()
    }
}

/// Watches `dir` and every folder under it (hidden ones excepted).
pub fn watch_tree(watch: &ChangeWatch, dir: &Path) {
    watch.watch(dir);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if !hidden && entry.file_type().is_ok_and(|t| t.is_dir()) {
            watch_tree(watch, &entry.path());
        }
    }
}

/// Watches `dir`, or, while it does not exist, the nearest folder above it
/// (below `root`) that does, so its creation is noticed.
pub fn watch_or_parent(watch: &ChangeWatch, root: &Path, dir: &Path) {
    let mut at = Some(dir);
    while let Some(d) = at {
        if d.is_dir() {
            watch.watch(d);
            return;
        }
        if d == root {
            return;
        }
        at = d.parent();
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_change_that_finished_before_the_look_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let watch = ChangeWatch::new();
        assert!(watch.changed(), "nothing watched yet: always changed");
        watch_tree(&watch, dir.path());
        assert!(!watch.changed(), "a quiet folder");
        std::fs::write(dir.path().join("a.md"), "x").unwrap();
        assert!(watch.changed(), "a new file");
        assert!(!watch.changed(), "seen once");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(watch.changed());
        watch_tree(&watch, dir.path());
        std::fs::write(dir.path().join("sub/b.md"), "y").unwrap();
        assert!(watch.changed(), "a file in a new subfolder");
        // In-place edits count too.
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("a.md"))
            .unwrap();
        assert!(!watch.changed(), "opening a file changes nothing");
        file.write_all(b"more").unwrap();
        assert!(watch.changed(), "an append");
    }
}
