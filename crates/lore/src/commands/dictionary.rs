//! `lore dictionary VALUE…`: which column holds a value, as
//! `dictionary_search` tells agents.

use std::path::Path;

use lore_warehouse::catalog::{Catalog, dictionary_search};

use crate::render;

/// Arguments of `lore dictionary`.
#[derive(Debug, clap::Args)]
pub struct DictionaryArgs {
    /// Values to look for (case-insensitive, substrings match).
    #[arg(value_name = "VALUE", required = true)]
    pub values: Vec<String>,
    /// Search only this connection (default: all).
    #[arg(short = 'c', long = "connection", value_name = "ID")]
    pub connection: Option<String>,
    /// Most matches shown per value.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub max_matches: u32,
    /// Print dictionary_search's JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DictionaryArgs, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    let ids: Vec<String> = match &args.connection {
        Some(id) => vec![super::pick_connection(&project, Some(id))?],
        None => project.config.connections.keys().cloned().collect(),
    };
    let catalog = Catalog::new(&project.root);
    let snapshots = ids
        .into_iter()
        .map(|id| {
            Ok((
                id.clone(),
                catalog.latest(&id).map_err(|e| super::coded(&e))?,
            ))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (searched, results) =
        dictionary_search(&snapshots, &args.values, args.max_matches as usize);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"searched": searched, "results": results})
            )?
        );
        return Ok(());
    }
    for result in &results {
        println!(
            "{:?}: {} matching values",
            result.value, result.total_matches
        );
        if !result.matches.is_empty() {
            let headers = [
                "connection",
                "table",
                "column",
                "value",
                "match",
                "in sample",
            ]
            .map(String::from);
            let rows: Vec<Vec<String>> = result
                .matches
                .iter()
                .map(|m| {
                    vec![
                        m.connection_id.clone(),
                        m.source_name.clone(),
                        m.column_name.clone(),
                        m.matched_value.clone(),
                        m.match_type.clone(),
                        m.sample_count.map(|n| n.to_string()).unwrap_or_default(),
                    ]
                })
                .collect();
            for line in render::grid(&headers, &rows).lines() {
                println!("  {line}");
            }
            if result.truncated {
                println!(
                    "  … {} more (raise --max-matches)",
                    result.total_matches - result.matches.len()
                );
            }
        }
        for miss in &result.misses {
            let reason = serde_json::to_value(miss.reason).unwrap_or_default();
            let hint = match reason.as_str().unwrap_or_default() {
                "no_profile_artifact" => {
                    format!("never profiled: run `lore scan {}`", miss.connection_id)
                }
                "no_candidate_columns" => "no column qualifies for the dictionary".to_string(),
                _ => "not among the sampled values (it may still exist: check with `lore sql`)"
                    .to_string(),
            };
            println!("  {}: {hint}", miss.connection_id);
        }
    }
    Ok(())
}
