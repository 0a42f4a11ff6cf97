//! `lore entity TABLE…`: what `entity_details` tells agents, for people.

use std::path::Path;

use anyhow::{Context, bail};
use lore_warehouse::catalog::{Catalog, EntityRecord, EntityRequest, TableQuery, entity_details};

use crate::render;

/// Arguments of `lore entity`.
#[derive(Debug, clap::Args)]
pub struct EntityArgs {
    /// Tables: `name`, `schema.name` or `catalog.schema.name`.
    #[arg(value_name = "TABLE", required = true)]
    pub tables: Vec<String>,
    /// Connection id (default: the only connection).
    #[arg(short = 'c', long = "connection", value_name = "ID")]
    pub connection: Option<String>,
    /// Only these columns (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    pub columns: Option<Vec<String>>,
    /// Print entity_details' JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: EntityArgs, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    let connection = super::pick_connection(&project, args.connection.as_deref())?;
    let requests = args
        .tables
        .iter()
        .map(|t| {
            Ok(EntityRequest {
                table: TableQuery::parse(t).with_context(|| {
                    format!("`{t}` is not a table name (name, schema.name or catalog.schema.name)")
                })?,
                columns: args.columns.clone(),
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let snapshot = Catalog::new(&project.root)
        .latest(&connection)
        .map_err(|e| super::coded(&e))?;
    let results = entity_details(&connection, snapshot.as_deref(), &requests);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    }
    let mut failed = 0;
    for result in &results {
        if let Some(entity) = &result.entity
            && !args.json
        {
            print!("{}", describe(entity));
        }
        if let Some(error) = &result.error {
            if result.entity.is_none() {
                failed += 1;
            }
            let code = serde_json::to_value(error.code).unwrap_or_default();
            eprintln!(
                "error: {} [{}]",
                error.message,
                code.as_str().unwrap_or_default()
            );
            if !error.candidates.is_empty() {
                eprintln!("  candidates: {}", error.candidates.join(", "));
            }
        }
    }
    if failed > 0 {
        bail!(
            "{failed} of {} tables could not be described",
            results.len()
        );
    }
    Ok(())
}

fn describe(entity: &EntityRecord) -> String {
    let mut out = String::new();
    let rows = entity
        .estimated_rows
        .map(|n| format!(", ~{n} rows"))
        .unwrap_or_default();
    let kind = serde_json::to_value(entity.kind).unwrap_or_default();
    out.push_str(&format!(
        "{} ({}{rows})\n",
        entity.display,
        kind.as_str().unwrap_or_default()
    ));
    if let Some(comment) = &entity.comment {
        out.push_str(&format!("  {comment}\n"));
    }
    let headers = ["column", "type", "null", "key", "sample values", "comment"].map(String::from);
    let cells: Vec<Vec<String>> = entity
        .columns
        .iter()
        .map(|c| {
            let key = match (c.primary_key, c.unique) {
                (true, _) => "PK",
                (false, true) => "unique",
                _ => "",
            };
            let samples = c
                .stats
                .as_ref()
                .map(|s| s.sample_values.join(", "))
                .unwrap_or_default();
            vec![
                c.name.clone(),
                c.native_type.clone(),
                if c.nullable { "yes" } else { "no" }.to_string(),
                key.to_string(),
                samples,
                c.comment.clone().unwrap_or_default(),
            ]
        })
        .collect();
    for line in render::grid(&headers, &cells).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    for r in &entity.relationships {
        let arrow = if r.direction == "outgoing" {
            "→"
        } else {
            "←"
        };
        let kind = serde_json::to_value(r.kind).unwrap_or_default();
        out.push_str(&format!(
            "  {arrow} {} ({} {arrow} {}; {}{})\n",
            r.other_table,
            r.columns.join(", "),
            r.other_columns.join(", "),
            kind.as_str().unwrap_or_default(),
            if r.confidence < 1.0 {
                format!(", confidence {}", r.confidence)
            } else {
                String::new()
            }
        ));
    }
    out.push_str(&format!(
        "  snapshot {} (read {})\n\n",
        entity.snapshot.sync_id,
        lore_core::time::age(&entity.snapshot.extracted_at)
    ));
    out
}
