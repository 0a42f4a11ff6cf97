//! Change notification over whole roots (Linux inotify): a watch on every
//! folder the ingest walk would enter (hidden and ignored folders left
//! out, so `.lore/`, `.git/` and an ignored `target/` or `node_modules/`
//! cost nothing), new folders watched as they appear. What it reports is
//! a [`Seen`] per event: a file that may have changed, or a root to walk
//! again because a folder came, went or moved, an ignore file changed, or
//! the kernel's queue overflowed.
//!
//! Elsewhere, or when inotify cannot start, [`TreeWatch::new`] fails and
//! the follower walks instead.

use std::path::Path;

use crate::ingest::walk::is_ignored;

/// What a watch saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// A file of root `.0` at root-relative `.1` was written, created,
    /// deleted or renamed (either name).
    File(usize, String),
    /// Root `.0` must be walked again (a folder came, went or moved, or an
    /// ignore file changed).
    Root(usize),
    /// Events were lost (the kernel's queue overflowed): every root is
    /// walked again.
    Everything,
    /// Root `.0` cannot be watched whole (the reason): it is walked from
    /// now on.
    Lost(usize, String),
}

/// Whether a folder at root-relative `relative` is one the walk leaves
/// out (hidden, or ignored by the root's ignore files).
pub fn folder_ignored(root: &Path, relative: &str) -> bool {
    // A rule for folders (`build/`) matches a path below the folder.
    !relative.is_empty() && is_ignored(root, &format!("{relative}/-"))
}

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::HashMap;
    use std::os::fd::AsRawFd;
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

    use super::{Seen, folder_ignored};

    /// A watched folder: its root and its root-relative path.
    struct Folder {
        descriptor: WatchDescriptor,
        root: usize,
        relative: String,
    }

    /// See the module documentation.
    pub struct TreeWatch {
        inotify: Inotify,
        folders: HashMap<i32, Folder>,
        /// The roots' folders, by index.
        roots: Vec<PathBuf>,
    }

    const MASK: WatchMask = WatchMask::CREATE
        .union(WatchMask::DELETE)
        .union(WatchMask::MODIFY)
        .union(WatchMask::CLOSE_WRITE)
        .union(WatchMask::MOVED_FROM)
        .union(WatchMask::MOVED_TO)
        .union(WatchMask::DELETE_SELF)
        .union(WatchMask::MOVE_SELF)
        .union(WatchMask::ONLYDIR);

    impl TreeWatch {
        /// A watch with no folder yet.
        pub fn new() -> std::io::Result<TreeWatch> {
            Ok(TreeWatch {
                inotify: Inotify::init()?,
                folders: HashMap::new(),
                roots: Vec::new(),
            })
        }

        /// Watches every folder of a root the walk would enter; the
        /// reason when it cannot (the watch limit).
        pub fn add_root(&mut self, root: &Path) -> Result<usize, String> {
            self.roots.push(root.to_path_buf());
            let index = self.roots.len() - 1;
            self.watch_tree(index, "")?;
            Ok(index)
        }

        /// Watches the folder at `relative` in root `root` and every
        /// folder below it the walk would enter.
        fn watch_tree(&mut self, root: usize, relative: &str) -> Result<(), String> {
            let base = self.roots[root].clone();
            let mut stack = vec![relative.to_string()];
            while let Some(relative) = stack.pop() {
                let dir = if relative.is_empty() {
                    base.clone()
                } else {
                    base.join(&relative)
                };
                match self.inotify.watches().add(&dir, MASK) {
                    Ok(descriptor) => {
                        self.folders.insert(
                            descriptor.get_watch_descriptor_id(),
                            Folder {
                                descriptor,
                                root,
                                relative: relative.clone(),
                            },
                        );
                    }
                    Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => {
                        return Err(
                            "the inotify watch limit is reached (raise fs.inotify.max_user_watches)"
                                .to_string(),
                        );
                    }
                    // Gone already, or not readable: nothing to follow.
                    Err(_) => continue,
                }
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                        continue;
                    };
                    let child = if relative.is_empty() {
                        name
                    } else {
                        format!("{relative}/{name}")
                    };
                    if entry.file_type().is_ok_and(|t| t.is_dir()) && !folder_ignored(&base, &child)
                    {
                        stack.push(child);
                    }
                }
            }
            Ok(())
        }

        /// Stops watching the folder at `relative` of root `root` and the
        /// folders below it (moved away: their watches would report the
        /// old names).
        fn unwatch_tree(&mut self, root: usize, relative: &str) {
            let below = format!("{relative}/");
            let gone: Vec<i32> = self
                .folders
                .iter()
                .filter(|(_, f)| {
                    f.root == root && (f.relative == relative || f.relative.starts_with(&below))
                })
                .map(|(id, _)| *id)
                .collect();
            for id in gone {
                if let Some(folder) = self.folders.remove(&id) {
                    let _ = self.inotify.watches().remove(folder.descriptor);
                }
            }
        }

        /// Waits up to `timeout` for events, then reads every queued one.
        pub fn wait(&mut self, timeout: Duration) -> Vec<Seen> {
            let mut poll = libc::pollfd {
                fd: self.inotify.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let millis = timeout.as_millis().min(i32::MAX as u128) as i32;
            // SAFETY: one valid pollfd, owned by this frame, for the call.
            let ready = unsafe { libc::poll(&mut poll, 1, millis) };
            if ready <= 0 {
                return Vec::new();
            }
            let mut seen = Vec::new();
            let mut buffer = [0u8; 16 * 1024];
            loop {
                let events: Vec<(i32, EventMask, Option<String>)> =
                    match self.inotify.read_events(&mut buffer) {
                        Ok(events) => events
                            .map(|e| {
                                let name = e.name.and_then(|n| n.to_str()).map(str::to_string);
                                (e.wd.get_watch_descriptor_id(), e.mask, name)
                            })
                            .collect(),
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                        Err(_) => {
                            seen.push(Seen::Everything);
                            break;
                        }
                    };
                for (id, mask, name) in events {
                    self.interpret(id, mask, name, &mut seen);
                }
            }
            seen
        }

        /// What one event means.
        fn interpret(
            &mut self,
            id: i32,
            mask: EventMask,
            name: Option<String>,
            seen: &mut Vec<Seen>,
        ) {
            if mask.contains(EventMask::Q_OVERFLOW) {
                seen.push(Seen::Everything);
                return;
            }
            if mask.contains(EventMask::IGNORED) {
                self.folders.remove(&id);
                return;
            }
            let Some(folder) = self.folders.get(&id) else {
                return;
            };
            let root = folder.root;
            let Some(name) = name else {
                // The folder itself was deleted or moved.
                if mask.intersects(EventMask::DELETE_SELF | EventMask::MOVE_SELF) {
                    seen.push(Seen::Root(root));
                }
                return;
            };
            let relative = if folder.relative.is_empty() {
                name.clone()
            } else {
                format!("{}/{name}", folder.relative)
            };
            if name.starts_with('.') {
                // Hidden files are never ingested; ignore files change
                // which are.
                if name == ".gitignore" || name == ".ignore" {
                    seen.push(Seen::Root(root));
                }
                return;
            }
            if mask.contains(EventMask::ISDIR) {
                if mask.contains(EventMask::MOVED_FROM) {
                    self.unwatch_tree(root, &relative);
                }
                if mask.intersects(EventMask::CREATE | EventMask::MOVED_TO)
                    && !folder_ignored(&self.roots[root], &relative)
                    && let Err(reason) = self.watch_tree(root, &relative)
                {
                    seen.push(Seen::Lost(root, reason));
                }
                seen.push(Seen::Root(root));
                return;
            }
            seen.push(Seen::File(root, relative));
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::path::Path;
    use std::time::Duration;

    use super::Seen;

    /// See the module documentation: without inotify, the follower walks.
    pub struct TreeWatch;

    impl TreeWatch {
        /// Always fails: there is no inotify here.
        pub fn new() -> std::io::Result<TreeWatch> {
            Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "inotify is Linux's",
            ))
        }

        /// Never called (there is no watch).
        pub fn add_root(&mut self, _root: &Path) -> Result<usize, String> {
            Err("inotify is Linux's".to_string())
        }

        /// Never called (there is no watch).
        pub fn wait(&mut self, timeout: Duration) -> Vec<Seen> {
            std::thread::sleep(timeout);
            Vec::new()
        }
    }
}

pub use imp::TreeWatch;
