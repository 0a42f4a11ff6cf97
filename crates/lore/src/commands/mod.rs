//! One module per command. Each turns arguments into calls on the library
//! crates and prints the outcome.

pub mod backup;
pub mod config;
pub mod connection;
pub mod daemon;
pub mod demo;
pub mod dictionary;
pub mod docs;
pub mod entity;
pub mod foreground;
pub mod gateway;
pub mod init;
pub mod mcp;
pub mod memory;
pub mod recipe;
pub mod references;
pub mod reindex;
pub mod scan;
pub mod search;
pub mod setup;
pub mod shutdown;
pub mod sl;
pub mod sql;
pub mod status;
pub mod store;
pub mod wiki;

use std::path::Path;

use anyhow::Context;
use lore_core::error::HasErrorCode;
use lore_core::project::{Project, resolve_project_dir};

/// Finds and loads the project (see `resolve_project_dir`), printing
/// config warnings to stderr.
pub fn load_project(explicit: Option<&Path>) -> anyhow::Result<Project> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let project = Project::load(&resolve_project_dir(explicit, &cwd)).map_err(|e| coded(&e))?;
    for warning in &project.warnings {
        eprintln!("warning: {}", warning.message);
    }
    Ok(project)
}

/// The connection a command works on: the one named, else the project's
/// only connection.
pub fn pick_connection(project: &Project, explicit: Option<&str>) -> anyhow::Result<String> {
    let known: Vec<&String> = project.config.connections.keys().collect();
    match explicit {
        Some(id) if project.config.connections.contains_key(id) => Ok(id.to_string()),
        Some(id) => anyhow::bail!(
            "no connection `{id}`; configured connections: {}",
            if known.is_empty() {
                "none".to_string()
            } else {
                known
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ),
        None => match known.as_slice() {
            [only] => Ok(only.to_string()),
            [] => anyhow::bail!("{} has no connections", project.config_path().display()),
            several => anyhow::bail!(
                "this project has {} connections ({}); pick one with -c ID (or --connection ID)",
                several.len(),
                several
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    }
}

/// An error for the terminal: its message followed by its stable code.
pub fn coded(error: &impl HasErrorCode) -> anyhow::Error {
    anyhow::anyhow!("{error} [{}]", error.code())
}

/// Threads for blocking work (store, index, files, SQLite warehouses).
/// Tokio's default, 512, let a loaded server grow a thread for every call
/// that waited on a lock, each keeping its stack resident: RSS rose with
/// the thread count for as long as a soak ran. 64 is more than two cores
/// can keep busy; further calls wait their turn.
const MAX_BLOCKING_THREADS: usize = 64;

/// Runs a future to completion on a fresh multi-threaded runtime.
pub fn block_on<F: std::future::Future>(future: F) -> anyhow::Result<F::Output> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(MAX_BLOCKING_THREADS)
        .build()
        .context("cannot start the async runtime")?;
    Ok(runtime.block_on(future))
}

/// Who runs a command, as votes and logs name them: `cli:<user>`.
pub(super) fn cli_actor() -> String {
    std::env::var("USER")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .map_or_else(|| "cli".to_string(), |u| format!("cli:{u}"))
}
