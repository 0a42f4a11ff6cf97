//! `lore sql [-c CONN] "SELECT …"`: the same guard and executor as the
//! `sql_execution` tool, for people.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, bail};
use lore_warehouse::execute::{DEFAULT_MAX_ROWS, Warehouses};

use crate::render;

/// Output formats of `lore sql`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns with a row count.
    Table,
    /// JSON with sql_execution's fields (headers, headerTypes, rows, rowCount, truncated, elapsedMs).
    Json,
    /// CSV with a header line.
    Csv,
}

/// Arguments of `lore sql`.
#[derive(Debug, clap::Args)]
pub struct SqlArgs {
    /// Connection id from lore.yaml (default: the project's only connection).
    #[arg(short = 'c', long = "connection", value_name = "ID")]
    pub connection: Option<String>,
    /// The query. Omit it (or pass -) to read it from standard input.
    pub sql: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// The same as `--format json`.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Most rows to print (1 to 10000).
    #[arg(long, default_value_t = DEFAULT_MAX_ROWS as u32, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub max_rows: u32,
}

pub fn run(mut args: SqlArgs, project_dir: Option<&Path>) -> anyhow::Result<()> {
    if args.json {
        args.format = Format::Json;
    }
    let sql = match args.sql.as_deref() {
        Some(sql) if sql != "-" => sql.to_string(),
        _ => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read SQL from standard input")?;
            text
        }
    };
    if sql.trim().is_empty() {
        bail!("no SQL given: pass it as an argument or on standard input");
    }
    let project = super::load_project(project_dir)?;
    let connection = super::pick_connection(&project, args.connection.as_deref())?;
    let warehouses = Warehouses::for_project(&project);
    let outcome = super::block_on(async {
        let prepared = warehouses.prepare(&connection, &sql)?;
        prepared.run(args.max_rows as usize).await
    })?;
    let result = outcome.map_err(|e| super::coded(&e))?;
    let text = match args.format {
        Format::Table => render::table(&result),
        Format::Json => render::json(&result) + "\n",
        Format::Csv => render::csv(&result),
    };
    print!("{text}");
    if let Some(notice) = result.truncation_notice(args.max_rows as usize)
        && !matches!(args.format, Format::Table)
    {
        eprintln!("warning: truncated: {notice}");
    }
    Ok(())
}
