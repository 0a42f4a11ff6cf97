//! `lore init [DIR]`.

use std::path::{Path, PathBuf};

use anyhow::Context;
use lore_core::project::{STARTER_CONFIG, init_project};

/// Arguments of `lore init`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// Directory to create the project in (default: --project-dir, else the current directory).
    pub dir: Option<PathBuf>,
}

pub fn run(args: InitArgs, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let root = match args.dir.as_deref().or(project_dir) {
        Some(dir) => cwd.join(dir),
        None => cwd,
    };
    let report = init_project(&root, STARTER_CONFIG)?;
    let root = root.canonicalize().unwrap_or(root);
    for path in &report.created {
        println!("created  {}", path.display());
    }
    for path in &report.kept {
        println!("kept     {}", path.display());
    }
    println!(
        "\nProject ready at {}\nAdd a connection (or uncomment an example in lore.yaml), then try:\n  lore connection add NAME --driver postgres --url 'postgres://user@host:5432/db'\n  lore scan\n  lore entity <table>\n  lore sql \"SELECT 1\"\n  lore mcp serve",
        root.display()
    );
    Ok(())
}
