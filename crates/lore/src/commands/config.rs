//! `lore config schema` and `lore config check`.

use std::path::Path;

/// Configuration commands.
#[derive(Debug, clap::Subcommand)]
pub enum ConfigCommand {
    /// Print the JSON Schema of lore.yaml (for editor completion and validation).
    Schema,
    /// Load lore.yaml, resolve every secret, report warnings and errors, list the connections.
    Check {
        /// Print `{file, valid, connections: [{id, driver, error}], warnings}` as JSON
        /// (exit 1 when not valid).
        #[arg(long)]
        json: bool,
    },
}

pub fn run(command: ConfigCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    match command {
        ConfigCommand::Schema => {
            println!(
                "{}",
                serde_json::to_string_pretty(&lore_core::config::config_json_schema())?
            );
            Ok(())
        }
        ConfigCommand::Check { json } => {
            let project = super::load_project(project_dir)?;
            let mut problems = 0;
            let mut connections = Vec::new();
            for (id, conn) in &project.config.connections {
                let error = conn
                    .resolved_url(id, &project.root)
                    .and_then(|_| {
                        conn.credentials
                            .as_ref()
                            .map(|c| {
                                c.resolve_text(
                                    &format!("connection `{id}` credentials"),
                                    &project.root,
                                )
                            })
                            .transpose()
                    })
                    .err()
                    .map(|e| e.to_string());
                match &error {
                    None if !json => println!("  connection {id}: {}", conn.driver.as_str()),
                    None => {}
                    Some(e) => {
                        problems += 1;
                        if !json {
                            eprintln!("error: {e}");
                        }
                    }
                }
                connections.push(serde_json::json!({
                    "id": id,
                    "driver": conn.driver.as_str(),
                    "error": error,
                }));
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({
                        "file": project.config_path(),
                        "valid": problems == 0,
                        "connections": connections,
                        "warnings": project.warnings.iter().map(|w| &w.message).collect::<Vec<_>>(),
                    }))?
                );
                if problems > 0 {
                    anyhow::bail!(
                        "{} has {problems} problem(s)",
                        project.config_path().display()
                    );
                }
                return Ok(());
            }
            if problems > 0 {
                anyhow::bail!(
                    "{} has {problems} problem(s)",
                    project.config_path().display()
                );
            }
            println!("{} is valid", project.config_path().display());
            Ok(())
        }
    }
}
