//! Who holds a project: every process serving it (`lore mcp stdio`,
//! `serve`, `start`) keeps a shared lock on `.lore/serving.lock` for as
//! long as it runs, and a restore, which replaces the store and the index
//! under them, takes the same lock exclusively or refuses.
//!
//! The operating system releases the lock when the process ends, however
//! it ends (`kill -9` included), so a crashed server never blocks a
//! restore, unlike a pid file.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

/// The lock's file name in `.lore/`.
pub const SERVING_LOCK: &str = "serving.lock";

/// A lock on a project's `.lore/serving.lock`, released when dropped.
#[derive(Debug)]
pub struct ProjectHold {
    _file: File,
}

fn lock_file(state_dir: &Path) -> std::io::Result<File> {
    std::fs::create_dir_all(state_dir)?;
    let path: PathBuf = state_dir.join(SERVING_LOCK);
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
}

impl ProjectHold {
    /// The shared hold of a process serving the project (several servers
    /// share it). Waits while a restore holds the project.
    pub fn serving(state_dir: &Path) -> std::io::Result<ProjectHold> {
        let file = lock_file(state_dir)?;
        file.lock_shared()?;
        Ok(ProjectHold { _file: file })
    }

    /// The exclusive hold of a process replacing the project's data:
    /// `None` while any process serves the project.
    pub fn exclusive(state_dir: &Path) -> std::io::Result<Option<ProjectHold>> {
        let file = lock_file(state_dir)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(ProjectHold { _file: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_serving_hold_keeps_the_exclusive_one_out_until_it_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join(".lore");
        let first = ProjectHold::serving(&state).unwrap();
        let second = ProjectHold::serving(&state).unwrap();
        assert!(ProjectHold::exclusive(&state).unwrap().is_none());
        drop(first);
        assert!(ProjectHold::exclusive(&state).unwrap().is_none());
        drop(second);
        let exclusive = ProjectHold::exclusive(&state).unwrap();
        assert!(exclusive.is_some());
    }
}
