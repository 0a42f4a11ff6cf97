//! `lore config schema` and `lore config check`.

use std::path::Path;

/// Configuration commands.
#[derive(Debug, clap::Subcommand)]
pub enum ConfigCommand {
    /// Print the JSON Schema of lore.yaml (for editor completion and validation).
    Schema,
    /// Load lore.yaml, report warnings and errors, and list the connections.
    Check,
}

pub fn run(command: ConfigCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    match command {
        ConfigCommand::Schema => {
            println!("{}", serde_json::to_string_pretty(&lore_core::config::config_json_schema())?);
            Ok(())
        }
        ConfigCommand::Check => {
            let project = super::load_project(project_dir)?;
            println!("{} is valid", project.config_path().display());
            for (id, conn) in &project.config.connections {
                println!("  connection {id}: {}", conn.driver.as_str());
            }
            Ok(())
        }
    }
}
