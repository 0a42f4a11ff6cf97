//! `lore backup create | list | restore`: archives of the knowledge store
//! and the gateway's state (what km-backup-trigger writes).

use std::path::{Path, PathBuf};

use lore_core::{ErrorCode, ErrorReport};
use lore_gateway::Gateway;
use lore_gateway::backup::RestoreOptions;

use super::daemon;

/// `lore backup …`.
#[derive(Debug, clap::Subcommand)]
pub enum BackupCommand {
    /// Archive the store and the gateway's index while writes go on.
    ///
    /// The store's copy holds the knowledge with its history, the caches,
    /// feedback and the gateway's file log, each row with its number (a
    /// restored store numbers on after them); leases, locks of the servers
    /// running now, are not copied.
    Create {
        /// The folder to write to (default gateway.backups.dir, else the
        /// user's data folder); never inside a gateway root or .lore/.
        #[arg(long)]
        dest: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// This project's archives, newest first.
    List {
        /// The folder to look in (default as for create).
        #[arg(long)]
        dest: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Restore an archive into this project (refused while a `lore mcp`
    /// server serves it). Every checksum is checked before anything
    /// changes.
    Restore {
        /// The archive (`lore backup list` names them).
        archive: PathBuf,
        /// Replace the project's store and index; what is there now is
        /// kept under .lore/replaced/.
        #[arg(long)]
        force: bool,
        /// Accept an archive taken from another project (or from this one
        /// in another folder).
        #[arg(long)]
        foreign: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

fn gateway_of(project: &lore_core::project::Project) -> Gateway {
    Gateway::for_project(project).with_store(std::sync::Arc::new(
        lore_store::feed::StoreHandle::for_project(project),
    ))
}

/// A restore under a running server would leave it writing to the store
/// file the restore replaced: refused while `.lore/mcp.json` records a
/// live server (besides the serving lock the restore itself takes, which
/// servers of earlier builds do not hold). A store on a database server
/// is refused by the restore itself, saying why.
fn refuse_while_recorded_server_runs(project: &lore_core::project::Project) -> anyhow::Result<()> {
    if lore_store::feed::StoreHandle::for_project(project).is_server() {
        return Ok(());
    }
    match daemon::read_state(project) {
        Some(state) if daemon::process_alive(state.pid) => Err(super::coded(&ErrorReport::new(
            ErrorCode::Conflict,
            format!(
                "a Lore MCP server is running on this project (pid {}, {}): it holds the store open and would go on writing to the file a restore replaces. Stop it with `lore mcp stop`, then restore again; nothing was restored",
                state.pid, state.url
            ),
        ))),
        _ => Ok(()),
    }
}

/// Runs `lore backup …`.
pub fn run(command: BackupCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    let gateway = gateway_of(&project);
    match command {
        BackupCommand::Create { dest, json } => {
            let written = gateway
                .backup(dest.as_deref())
                .map_err(|e| super::coded(&e))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&written)?);
                return Ok(());
            }
            println!(
                "wrote {} ({} files, {} bytes{})",
                written.archive,
                written.manifest.files.len(),
                written.bytes,
                written
                    .manifest
                    .store_head_tx
                    .map(|h| format!(", store as of transaction {h}"))
                    .unwrap_or_default()
            );
            for old in &written.removed {
                println!("removed {old} (gateway.backups.keep)");
            }
            Ok(())
        }
        BackupCommand::List { dest, json } => {
            let listed = gateway
                .backups(dest.as_deref())
                .map_err(|e| super::coded(&e))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&listed)?);
                return Ok(());
            }
            if listed.is_empty() {
                eprintln!("no backups yet: run `lore backup create`");
            }
            for item in &listed {
                match (&item.manifest, &item.damaged) {
                    (Some(m), _) => println!(
                        "{}  {}  {} bytes, {} files{}",
                        item.archive,
                        m.created_at,
                        item.bytes,
                        m.files.len(),
                        m.store_head_tx
                            .map(|h| format!(", transaction {h}"))
                            .unwrap_or_default()
                    ),
                    (None, Some(why)) => println!("{}  DAMAGED: {why}", item.archive),
                    (None, None) => println!("{}", item.archive),
                }
            }
            Ok(())
        }
        BackupCommand::Restore {
            archive,
            force,
            foreign,
            json,
        } => {
            refuse_while_recorded_server_runs(&project)?;
            let restored = gateway
                .restore(&archive, RestoreOptions { force, foreign })
                .map_err(|e| super::coded(&e))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&restored)?);
                return Ok(());
            }
            println!(
                "restored {} (taken {}, {} files, every checksum checked)",
                restored.archive,
                restored.manifest.created_at,
                restored.manifest.files.len()
            );
            if let Some(kept) = &restored.previous_saved_to {
                println!("the data it replaced is kept in {kept}");
            }
            Ok(())
        }
    }
}
