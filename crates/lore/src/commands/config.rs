//! `lore config schema` and `lore config check`.

use std::path::Path;

/// Configuration commands.
#[derive(Debug, clap::Subcommand)]
pub enum ConfigCommand {
    /// Print the JSON Schema of lore.yaml (for editor completion and validation).
    Schema,
    /// Load lore.yaml, resolve every secret, report warnings and errors, list the connections.
    Check,
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
        ConfigCommand::Check => {
            let project = super::load_project(project_dir)?;
            let mut problems = 0;
            for (id, conn) in &project.config.connections {
                match conn.resolved_url(id, &project.root) {
                    Ok(_) => println!("  connection {id}: {}", conn.driver.as_str()),
                    Err(e) => {
                        problems += 1;
                        eprintln!("error: {e}");
                    }
                }
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
