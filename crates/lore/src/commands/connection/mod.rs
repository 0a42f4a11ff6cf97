//! `lore connection list`, `lore connection test` and `lore connection add`.

mod add;

use std::path::Path;
use std::time::Instant;

use anyhow::bail;
use lore_core::error::HasErrorCode;
use lore_warehouse::catalog::Catalog;
use lore_warehouse::execute::Warehouses;

use crate::render;

/// Connection commands.
#[derive(Debug, clap::Subcommand)]
pub enum ConnectionCommand {
    /// List the connections with their driver and latest scan.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Write a connection into lore.yaml (keeping the rest of the file), test it,
    /// and say the next command.
    Add(add::AddArgs),
    /// Connect, and check the server answers and holds Lore's sessions read-only.
    Test {
        /// Connections to test (default: all).
        #[arg(value_name = "CONNECTION")]
        connections: Vec<String>,
        /// A connection to test, as `-c` names one in every command
        /// (repeatable; the same as naming it after `test`).
        #[arg(short = 'c', long = "connection", value_name = "ID")]
        connection_flags: Vec<String>,
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(command: ConnectionCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    let warehouses = Warehouses::for_project(&project);
    match command {
        ConnectionCommand::List { json } => {
            let catalog = Catalog::new(&project.root);
            let mut rows = Vec::new();
            let mut entries = Vec::new();
            for info in warehouses.list() {
                let scan = catalog.latest(&info.id).ok().flatten();
                let scanned = scan.as_ref().map(|s| {
                    format!(
                        "{} ({} tables, {})",
                        s.manifest.sync_id,
                        s.tables.len(),
                        lore_core::time::age(&s.manifest.extracted_at)
                    )
                });
                entries.push(serde_json::json!({
                    "id": info.id,
                    "driver": info.driver.as_str(),
                    "dialect": info.dialect,
                    "description": info.description,
                    "statementTimeoutMs": info.statement_timeout_ms,
                    "lastScan": scan.as_ref().map(|s| serde_json::json!({
                        "syncId": s.manifest.sync_id,
                        "extractedAt": s.manifest.extracted_at,
                        "tableCount": s.tables.len(),
                    })),
                }));
                rows.push(vec![
                    info.id.clone(),
                    info.driver.as_str().to_string(),
                    scanned.unwrap_or_else(|| format!("never (run `lore scan {}`)", info.id)),
                    info.description.unwrap_or_default(),
                ]);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&entries)?);
            } else if rows.is_empty() {
                println!(
                    "No connections in {}: add one with `lore connection add NAME --driver D --url URL`",
                    project.config_path().display()
                );
            } else {
                let headers = ["id", "driver", "last scan", "description"].map(String::from);
                print!("{}", render::grid(&headers, &rows));
            }
            Ok(())
        }
        ConnectionCommand::Add(args) => add::run(args, project),
        ConnectionCommand::Test {
            mut connections,
            mut connection_flags,
            json,
        } => {
            connections.append(&mut connection_flags);
            connections.dedup();
            let ids = if connections.is_empty() {
                warehouses.ids()
            } else {
                connections
            };
            let mut failures = 0;
            let mut entries = Vec::new();
            for id in &ids {
                let tested = test_connection(&warehouses, id)?;
                if !tested.ok {
                    failures += 1;
                }
                if !json {
                    println!("{}", tested.line);
                }
                entries.push(tested.entry);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&entries)?);
            }
            if failures > 0 {
                bail!("{failures} of {} connections failed the test", ids.len());
            }
            Ok(())
        }
    }
}

/// The outcome of testing one connection.
struct Tested {
    /// Whether it answered and holds Lore's sessions read-only (or is
    /// guarded statement by statement, for engines without such sessions).
    ok: bool,
    /// The line `lore connection test` prints.
    line: String,
    /// The JSON entry `lore connection test --json` prints.
    entry: serde_json::Value,
}

/// Connects to `id` and asks the server who it is and whether the
/// session is read-only.
fn test_connection(warehouses: &Warehouses, id: &str) -> anyhow::Result<Tested> {
    let started = Instant::now();
    // Engines without read-only sessions (Snowflake) pass on the guard
    // alone; the line says so.
    let guarded_only = warehouses
        .get(id)
        .is_ok_and(|(_, connector)| !connector.has_read_only_sessions());
    let outcome = super::block_on(async {
        let (_, connector) = warehouses.get(id)?;
        connector.server_info().await
    })?;
    let elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(match outcome {
        Ok(info) => {
            let ok = info.read_only || guarded_only;
            let line = format!(
                "{}  {id}: {} in {elapsed_ms} ms, {}{}",
                if ok { "ok  " } else { "FAIL" },
                info.version,
                if info.read_only {
                    "sessions are read-only"
                } else if guarded_only {
                    "no read-only sessions in this engine: the guard checks every statement (give the connection a role that may only read)"
                } else {
                    "sessions are NOT read-only"
                },
                match info.encrypted {
                    Some(true) => ", encrypted (TLS)",
                    Some(false) => ", not encrypted",
                    None => "",
                }
            );
            let entry =
                serde_json::json!({"id": id, "ok": ok, "server": info, "elapsedMs": elapsed_ms});
            Tested { ok, line, entry }
        }
        Err(e) => Tested {
            ok: false,
            line: format!("FAIL  {id}: {e} [{}]", e.code()),
            entry: serde_json::json!({"id": id, "ok": false, "error": e.report(), "elapsedMs": elapsed_ms}),
        },
    })
}
