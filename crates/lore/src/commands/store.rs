//! `lore store migrate --to URL`: the project's embedded store copied into
//! a PostgreSQL database, exactly (ids, transactions, history), checked
//! before it commits (`lore_store::migrate_sqlite_to_postgres`).

use std::path::Path;

use lore_core::config::Secret;
use lore_core::error::HasErrorCode;
use lore_store::{Durability, PostgresStore, SqliteStore};

/// `lore store …`.
#[derive(Debug, clap::Subcommand)]
pub enum StoreCommand {
    /// Copy this project's embedded store (.lore/store.db) into an empty
    /// PostgreSQL store, with its whole history, verified before it
    /// commits; then point `store.url` at it.
    Migrate {
        /// The PostgreSQL URL: a literal, env:VAR or file:PATH
        /// (postgres://USER:PASSWORD@HOST:5432/DB). Prefer env:, so the
        /// password is not in the process list.
        #[arg(long, value_name = "URL")]
        to: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `lore store …`.
pub fn run(command: StoreCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    let StoreCommand::Migrate { to, json } = command;
    let source = project.store_path();
    if !source.is_file() {
        anyhow::bail!(
            "{} does not exist: this project has no embedded store to migrate [not_found]",
            source.display()
        );
    }
    let url = Secret::new(to.clone())
        .resolve("--to", &project.root)
        .map_err(|e| anyhow::anyhow!("{e} [invalid_arguments]"))?;
    // Opening the file brings an older one up to this Lore's schema.
    drop(SqliteStore::open(&source, Durability::Process).map_err(|e| super::coded(&e.report()))?);
    let target = PostgresStore::open(&url).map_err(|e| super::coded(&e.report()))?;
    let report = lore_store::migrate_sqlite_to_postgres(&source, &target)
        .map_err(|e| super::coded(&e.report()))?;
    let setting = if to.starts_with("env:") || to.starts_with("file:") {
        to
    } else {
        "env:LORE_STORE_URL".to_string()
    };
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "report": report,
                "storeUrl": setting,
            }))?
        );
        return Ok(());
    }
    println!(
        "copied {} transactions ({} entry versions, {} triple versions, {} cached vectors, {} searches, {} votes, {} ingest runs, {} file log versions), head {}; every answer checked against the file before committing (leases are not copied: servers take them again)",
        report.transactions,
        report.entry_versions,
        report.triple_versions,
        report.vectors,
        report.searches,
        report.feedback,
        report.ingest_runs,
        report.shared_files,
        report.head_tx_id
    );
    println!(
        "next: add to lore.yaml (and restart servers):\n  store:\n    url: {setting}\n.lore/store.db is left as it was; later writes to it are not copied."
    );
    Ok(())
}
